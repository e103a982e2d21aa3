"""Math layers (MindSpore's `nn.layer.math`): `Range`, `MatMul`, `Moments`, `ReduceLogSumExp`."""
from __future__ import annotations

from ... import dtype as mstype
from ...ops import functional as F
from ...tensor import Tensor
from ..cell import Cell


class Range(Cell):
    """`arange(start, limit, delta)` (with one argument: `arange(0, start)`)."""

    def __init__(self, start, limit=None, delta=1) -> None:
        super().__init__()
        if delta == 0:
            raise ValueError("Range: delta must not be 0")
        self.start, self.limit, self.delta = (0, start, delta) if limit is None else (start, limit, delta)

    def construct(self) -> Tensor:
        is_float = any(isinstance(v, float) for v in (self.start, self.limit, self.delta))
        return F.arange(self.start, self.limit, self.delta, dtype=mstype.float32 if is_float else mstype.int32)


class MatMul(Cell):
    """Batched matrix product with optional transposes of the last two dims."""

    def __init__(self, transpose_x1: bool = False, transpose_x2: bool = False) -> None:
        super().__init__()
        self.transpose_x1, self.transpose_x2 = bool(transpose_x1), bool(transpose_x2)

    def construct(self, x1: Tensor, x2: Tensor) -> Tensor:
        if self.transpose_x1:
            x1 = F.swapaxes(x1, -1, -2)
        if self.transpose_x2:
            x2 = F.swapaxes(x2, -1, -2)
        return F.matmul(x1, x2)


class Moments(Cell):
    """(mean, variance) over `axis` (population variance)."""

    def __init__(self, axis=None, keep_dims: bool | None = None) -> None:
        super().__init__()
        self.axis = axis if axis is None or isinstance(axis, int) else tuple(axis)
        self.keep_dims = bool(keep_dims)

    def construct(self, x: Tensor):
        axis = tuple(range(x.ndim)) if self.axis is None else self.axis
        mean = F.mean(x, axis, True)
        var = F.mean(F.square(x - mean), axis, self.keep_dims)
        return (mean if self.keep_dims else F.mean(x, axis, False)), var


class ReduceLogSumExp(Cell):
    """`log(sum(exp(x), axis))`, computed stably."""

    def __init__(self, axis, keep_dims: bool = False) -> None:
        super().__init__()
        self.axis = (axis,) if isinstance(axis, int) else tuple(axis)
        self.keep_dims = bool(keep_dims)

    def construct(self, x: Tensor) -> Tensor:
        axis = self.axis or tuple(range(x.ndim))
        m = F.stop_gradient(F.amax(x, axis, True))
        y = F.log(F.sum(F.exp(x - m), axis, True)) + m
        return y if self.keep_dims else F.squeeze(y, axis)
