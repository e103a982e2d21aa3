"""MindSpore's `nn.LRN` and `nn.LogSoftmaxExt` Cells: the layer forms of `ops.LRN` and `ops.log_softmax`."""
from __future__ import annotations

from ...ops import functional as F
from ...ops.layer_classes import LRN as LRNOp
from ...tensor import Tensor
from ..cell import Cell


class LRN(Cell):
    """Local response normalisation across channels of (N, C, H, W): x / (bias + alpha * sum(x^2))^beta over
    the `depth_radius` neighbouring channels on each side (MindSpore's `nn.LRN`)."""

    def __init__(self, depth_radius: int = 5, bias: float = 1.0, alpha: float = 1.0, beta: float = 0.5,
                 norm_region: str = "ACROSS_CHANNELS") -> None:
        super().__init__()
        self.lrn = LRNOp(depth_radius, bias, alpha, beta, norm_region)

    def construct(self, input_x: Tensor) -> Tensor:
        return self.lrn(input_x)


class LogSoftmaxExt(Cell):
    """log(softmax(x)) along `dim` (None: MindSpore's legacy choice, 0 for 0-D/1-D/3-D inputs, else 1)."""

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def construct(self, x: Tensor) -> Tensor:
        dim = self.dim if self.dim is not None else (0 if x.ndim in (0, 1, 3) else 1)
        return F.log_softmax(x, dim)
