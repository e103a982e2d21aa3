"""Math layers (MindSpore's `nn.layer.math`): `Range`, `MatMul`, `Moments`, `ReduceLogSumExp`, and the one-op Cells
(`MatDet`, `MatInverse`, `LGamma`, `DiGamma`, `IGamma`, `LBeta`), each calling the op (or ops) of the same meaning,
so a network written with them runs as one written with the ops."""
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


class MatDet(Cell):
    """The determinant of each (..., M, M) matrix."""

    def construct(self, a: Tensor) -> Tensor:
        return F.det(a)


class MatInverse(Cell):
    """The inverse of each (..., M, M) matrix."""

    def construct(self, a: Tensor) -> Tensor:
        return F.inverse(a)


class LGamma(Cell):
    """log |Gamma(x)|, elementwise."""

    def construct(self, x: Tensor) -> Tensor:
        return F.lgamma(x)


class DiGamma(Cell):
    """The digamma function (the derivative of lgamma), elementwise."""

    def construct(self, x: Tensor) -> Tensor:
        return F.digamma(x)


class IGamma(Cell):
    """The regularised lower incomplete gamma function P(a, x), elementwise."""

    def construct(self, a: Tensor, x: Tensor) -> Tensor:
        return F.igamma(a, x)


class LBeta(Cell):
    """log |Beta(x, y)| = lgamma(x) + lgamma(y) - lgamma(x + y), elementwise with broadcasting (MindSpore's
    `nn.LBeta`; float16/float32 inputs are computed in float32: the cancellation at large x + y needs it)."""

    def construct(self, x: Tensor, y: Tensor) -> Tensor:
        dtype = x.dtype
        x32, y32 = F.cast(x, "float32"), F.cast(y, "float32")
        out = F.lgamma(x32) + F.lgamma(y32) - F.lgamma(x32 + y32)
        return F.cast(out, dtype)
