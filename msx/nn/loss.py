"""Loss Cells (MindSpore's `nn.LossBase`, `nn.L1Loss`, ...), thin views of the registry's loss primitives."""
from __future__ import annotations

from .. import dtype as mstype
from ..errors import OpError
from ..ops import functional as F
from ..tensor import Tensor
from .cell import Cell
from .layers._utils import like

_REDUCTIONS = ("mean", "sum", "none")


class LossBase(Cell):
    """Base of losses: holds `reduction` and offers `get_loss` to weight and reduce an elementwise loss,
    so a subclass's `construct` only computes the elementwise part."""

    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        if reduction not in _REDUCTIONS:
            raise ValueError(f"{type(self).__name__}: reduction must be one of {list(_REDUCTIONS)}, "
                             f"got {reduction!r}")
        self.reduction = reduction
        self.reduce, self.average = reduction != "none", reduction == "mean"

    def get_axis(self, x: Tensor) -> tuple[int, ...]:
        """All axes of `x`: the reduction runs over every element."""
        return tuple(range(x.ndim))

    def get_loss(self, x: Tensor, weights=1.0) -> Tensor:
        """`weights * x`, reduced by `reduction`; computed in float32 and returned in x's dtype."""
        dtype = x.dtype
        if dtype != mstype.float32:
            x = F.cast(x, mstype.float32)
        if isinstance(weights, Tensor):
            x = F.mul(F.cast(weights, mstype.float32), x)
        elif weights != 1.0:
            x = F.mul(x, float(weights))
        if self.average:
            x = F.mean(x, self.get_axis(x))
        elif self.reduce:
            x = F.reduce_sum(x, self.get_axis(x))
        return x if dtype == mstype.float32 else F.cast(x, dtype)


class L1Loss(LossBase):
    """|logits - labels|."""

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        return F.l1_loss(logits, labels, self.reduction)


class MSELoss(LossBase):
    """(logits - labels)^2."""

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        return F.mse_loss(logits, labels, self.reduction)


class SmoothL1Loss(LossBase):
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta (MindSpore's default reduction is 'none')."""

    def __init__(self, beta: float = 1.0, reduction: str = "none") -> None:
        super().__init__(reduction)
        if beta <= 0:
            raise ValueError(f"SmoothL1Loss: beta must be positive, got {beta}")
        self.beta = float(beta)

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        return F.smooth_l1_loss(logits, labels, self.beta, self.reduction)


class BCEWithLogitsLoss(LossBase):
    """Binary cross-entropy on logits (stable: never forms sigmoid(x) then log); optional per-element
    `weight` and per-class `pos_weight` (weight of the positive term)."""

    def __init__(self, reduction: str = "mean", weight: Tensor | None = None, pos_weight: Tensor | None = None) -> None:
        super().__init__(reduction)
        self.weight, self.pos_weight = weight, pos_weight

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        weight = None if self.weight is None else like(self.weight, logits)
        pos_weight = None if self.pos_weight is None else like(self.pos_weight, logits)
        return F.binary_cross_entropy_with_logits(logits, like(labels, logits), weight, pos_weight, self.reduction)


class SoftmaxCrossEntropyWithLogits(LossBase):
    """Softmax cross-entropy of (N, C) logits: labels are (N, C) probabilities, or (N,) class
    indices with `sparse=True`. MindSpore's default reduction here is 'none' (one loss per sample)."""

    def __init__(self, sparse: bool = False, reduction: str = "none") -> None:
        super().__init__(reduction)
        self.sparse = bool(sparse)

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        if logits.ndim != 2:
            raise OpError(f"SoftmaxCrossEntropyWithLogits: logits must be 2-D (N, C), got shape {tuple(logits.shape)}")
        if self.sparse:
            if labels.dtype.is_floating:
                raise OpError(f"SoftmaxCrossEntropyWithLogits(sparse=True): labels must be integer class indices, "
                              f"got dtype {labels.dtype}")
            return F.cross_entropy(logits, labels, reduction=self.reduction)
        return F.cross_entropy(logits, like(labels, logits), reduction=self.reduction)

    def extend_repr(self) -> str:
        return f"sparse={self.sparse}, reduction={self.reduction!r}"


class CrossEntropyLoss(LossBase):
    """Softmax cross-entropy over axis 1: labels are class indices (entries equal to `ignore_index`
    are skipped) or class probabilities; optional class `weight` and `label_smoothing`."""

    def __init__(self, weight: Tensor | None = None, ignore_index: int = -100, reduction: str = "mean",
                 label_smoothing: float = 0.0) -> None:
        super().__init__(reduction)
        if not 0.0 <= label_smoothing <= 1.0:
            raise ValueError(f"CrossEntropyLoss: label_smoothing must be in [0, 1], got {label_smoothing}")
        self.weight, self.ignore_index, self.label_smoothing = weight, int(ignore_index), float(label_smoothing)

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        weight = None if self.weight is None else like(self.weight, logits)
        labels = labels if not labels.dtype.is_floating else like(labels, logits)
        return F.cross_entropy(logits, labels, weight, self.ignore_index, self.reduction, self.label_smoothing)


class NLLLoss(LossBase):
    """Negative log-likelihood of log-probabilities (N, C, ...) at class indices (N, ...); with class
    `weight`, the mean divides by the summed weights of the non-ignored targets (as torch/MindSpore)."""

    def __init__(self, weight: Tensor | None = None, ignore_index: int = -100, reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.weight, self.ignore_index = weight, int(ignore_index)

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        weight = None if self.weight is None else like(self.weight, logits)
        return F.nll_loss(logits, labels, weight, self.ignore_index, self.reduction)
