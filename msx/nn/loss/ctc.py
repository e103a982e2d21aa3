"""`nn.CTCLoss`: the Cell form of `ops.ctc_loss` (MindSpore's CTCLossV2; `msx/ops/ctc_ops.py`)."""
from __future__ import annotations

from ...ops import functional as F
from ...tensor import Tensor
from .loss import LossBase


class CTCLoss(LossBase):
    """The CTC loss of log_probs (T, N, C) against targets (N, S): the loss only (no log_alpha)."""

    def __init__(self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False) -> None:
        super().__init__(reduction)
        if not isinstance(blank, int) or isinstance(blank, bool):
            raise TypeError(f"CTCLoss: blank must be an int, got {type(blank).__name__}")
        self.blank, self.zero_infinity = blank, zero_infinity

    def construct(self, log_probs: Tensor, targets: Tensor, input_lengths, target_lengths) -> Tensor:
        return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank, self.reduction,
                          self.zero_infinity)[0]


__all__ = ["CTCLoss"]
