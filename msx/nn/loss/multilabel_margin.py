"""`nn.MultilabelMarginLoss`: the Cell form of `ops.multilabel_margin_loss` (torch's multi-label hinge loss:
`target` holds class indices, ended by the first -1)."""
from __future__ import annotations

from ...ops import functional as F
from ...tensor import Tensor
from .loss import LossBase


class MultilabelMarginLoss(LossBase):
    """sum over target classes j and non-target classes i of max(0, 1 - (x[j] - x[i])) / C, per sample."""

    def construct(self, x: Tensor, target: Tensor) -> Tensor:
        return F.multilabel_margin_loss(x, target, self.reduction)


__all__ = ["MultilabelMarginLoss"]
