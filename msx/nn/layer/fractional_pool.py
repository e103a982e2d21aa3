"""`nn.FractionalMaxPool2d`, `nn.FractionalMaxPool3d`: the layer forms of `ops.fractional_max_pool2d/3d`
(`msx/ops/fractional_pool_ops.py`), MindSpore's signatures: `(kernel_size, output_size=None, output_ratio=None,
return_indices=False, _random_samples=None)`, called on the input alone. Without `_random_samples` each call draws
new windows (msx's global PRNG state, `set_seed`)."""
from __future__ import annotations

from ...ops.fractional_pool_ops import fractional_max_pool2d, fractional_max_pool3d
from ...tensor import Tensor
from ..cell import Cell


class FractionalMaxPool2d(Cell):
    """Fractional max pooling over (N, C, H, W) or (C, H, W); `output_size` wins over `output_ratio`."""

    _fn = staticmethod(fractional_max_pool2d)

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices: bool = False,
                 _random_samples: Tensor | None = None) -> None:
        super().__init__()
        self.kernel_size, self.output_size, self.output_ratio = kernel_size, output_size, output_ratio
        self.return_indices = return_indices
        self._random_samples = _random_samples

    def construct(self, input: Tensor):
        return self._fn(input, self.kernel_size, self.output_size, self.output_ratio, self.return_indices,
                        self._random_samples)


class FractionalMaxPool3d(FractionalMaxPool2d):
    """Fractional max pooling over (N, C, D, H, W) or (C, D, H, W)."""

    _fn = staticmethod(fractional_max_pool3d)
