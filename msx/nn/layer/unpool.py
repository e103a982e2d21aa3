"""`nn.MaxUnpool1d`, `nn.MaxUnpool2d`, `nn.MaxUnpool3d`: the layer forms of `ops.max_unpool1d/2d/3d`
(`msx/ops/unpool_ops.py`), MindSpore's signatures: `MaxUnpool2d(kernel_size, stride=None, padding=0)`,
called as `(x, indices, output_size=None)`."""
from __future__ import annotations

from ...ops.unpool_ops import max_unpool
from ...tensor import Tensor
from ..cell import Cell


class _MaxUnpool(Cell):
    dims = 2

    def __init__(self, kernel_size, stride=None, padding=0) -> None:
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding

    def construct(self, x: Tensor, indices: Tensor, output_size=None) -> Tensor:
        return max_unpool(type(self).__name__, x, indices, self.dims, self.kernel_size, self.stride, self.padding,
                          output_size)


class MaxUnpool1d(_MaxUnpool):
    """The inverse of `MaxPool1d(return_indices=True)` over (N, C, L) or (C, L)."""

    dims = 1


class MaxUnpool2d(_MaxUnpool):
    """The inverse of `MaxPool2d(return_indices=True)` over (N, C, H, W) or (C, H, W)."""

    dims = 2


class MaxUnpool3d(_MaxUnpool):
    """The inverse of `MaxPool3d(return_indices=True)` over (N, C, D, H, W) or (C, D, H, W)."""

    dims = 3
