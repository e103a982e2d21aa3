"""MindSpore's one-op math Cells (`nn.MatDet`, `nn.MatInverse`, `nn.LGamma`, `nn.DiGamma`, `nn.IGamma`,
`nn.LBeta`): each calls the op (or ops) of the same meaning, so a network written with them runs as one written with the ops."""
from __future__ import annotations

from ...ops import functional as F
from ...tensor import Tensor
from ..cell import Cell


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
