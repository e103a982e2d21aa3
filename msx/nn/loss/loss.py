"""MindSpore's loss Cells (`nn.loss.loss`: `LossBase`, `L1Loss`, `MSELoss`, cross-entropy and NLL losses,
`BCELoss`, `MAELoss`, `DiceLoss`, `HuberLoss`, `KLDivLoss`, margin and embedding losses, `FocalLoss`, ...), written
with msx ops (the registry's loss primitives) so values, gradients and capture come from the same code. Formulas and
defaults follow MindSpore 2.10; the golden tests check them against it."""
from __future__ import annotations

import math

from ... import dtype as mstype
from ...errors import OpError
from ...ops import functional as F
from ...tensor import Tensor
from ..cell import Cell
from ..layer._utils import like

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


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return F.mean(loss)
    if reduction == "sum":
        return F.sum(loss)
    return loss


class BCELoss(LossBase):
    """Binary cross-entropy of probabilities: `-w (y log x + (1 - y) log(1 - x))`, logs clamped at -100
    (as MindSpore/torch) so x = 0 or 1 stays finite."""

    def __init__(self, weight: Tensor | None = None, reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.weight = weight

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        labels = like(labels, logits)
        log_x = F.maximum(F.log(logits), -100.0)
        log_1x = F.maximum(F.log(1 - logits), -100.0)
        loss = -(labels * log_x + (1 - labels) * log_1x)
        if self.weight is not None:
            loss = loss * like(self.weight, logits)
        return _reduce(loss, self.reduction)


class MAELoss(LossBase):
    """Mean absolute error, |x - y| (MindSpore's name beside L1Loss)."""

    def construct(self, logits: Tensor, label: Tensor) -> Tensor:
        return self.get_loss(F.abs(logits - label))


class RMSELoss(LossBase):
    """`sqrt(mean((x - y)^2))`."""

    def __init__(self) -> None:
        super().__init__()

    def construct(self, logits: Tensor, label: Tensor) -> Tensor:
        return F.sqrt(F.mean(F.square(logits - label)))


class HuberLoss(LossBase):
    """`0.5 d^2` where |d| <= delta, else `delta (|d| - 0.5 delta)`."""

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction)
        if delta <= 0:
            raise ValueError(f"HuberLoss: delta must be > 0, got {delta}")
        self.delta = float(delta)

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        d = F.abs(logits - labels)
        loss = F.where(d <= self.delta, 0.5 * F.square(d), self.delta * (d - 0.5 * self.delta))
        return self.get_loss(loss)


class DiceLoss(LossBase):
    """`1 - (2 sum(x y) + smooth) / (sum(x^2) + sum(y^2) + smooth)` over the whole batch (MindSpore)."""

    def __init__(self, smooth: float = 1e-5) -> None:
        super().__init__()
        if smooth <= 0:
            raise ValueError(f"DiceLoss: smooth must be > 0, got {smooth}")
        self.smooth = float(smooth)

    def construct(self, logits: Tensor, label: Tensor) -> Tensor:
        if tuple(logits.shape) != tuple(label.shape):
            raise ValueError(f"DiceLoss: logits {tuple(logits.shape)} and label {tuple(label.shape)} must match")
        label = like(label, logits)
        intersection = F.sum(logits * label)
        union = F.sum(logits * logits) + F.sum(label * label)
        return 1 - (2 * intersection + self.smooth) / (union + self.smooth)


class MultiClassDiceLoss(LossBase):
    """Mean over classes (axis 1) of the binary DiceLoss, after `activation` ('softmax', 'sigmoid' or None);
    classes in `ignore_indiex` (MindSpore's spelling) are skipped, `weights` weigh classes."""

    def __init__(self, weights: Tensor | None = None, ignore_indiex: int | None = None,
                 activation: str | None = "softmax") -> None:
        super().__init__()
        if activation not in ("softmax", "sigmoid", None) and not callable(activation):
            raise ValueError(f"MultiClassDiceLoss: activation must be 'softmax', 'sigmoid' or None, got {activation!r}")
        self.weights, self.ignore_indiex, self.activation = weights, ignore_indiex, activation
        self.binary = DiceLoss()

    def construct(self, logits: Tensor, label: Tensor) -> Tensor:
        if logits.ndim < 2 or tuple(logits.shape) != tuple(label.shape):
            raise ValueError(f"MultiClassDiceLoss: logits {tuple(logits.shape)} and label {tuple(label.shape)} must "
                             f"match and be at least 2-D")
        if self.activation == "softmax":
            logits = F.softmax(logits, 1)
        elif self.activation == "sigmoid":
            logits = F.sigmoid(logits)
        elif callable(self.activation):
            logits = self.activation(logits)
        total = 0.0
        for i in range(label.shape[1]):
            if i == self.ignore_indiex:
                continue
            loss = self.binary(logits[:, i], label[:, i])
            if self.weights is not None:
                loss = loss * self.weights[i]
            total = total + loss
        return total / label.shape[1]


class KLDivLoss(LossBase):
    """`target * (log(target) - logits)` with logits log-probabilities; 'batchmean' divides the sum by the
    batch size. Target entries <= 0 contribute 0."""

    def __init__(self, reduction: str = "mean") -> None:
        if reduction not in ("mean", "sum", "none", "batchmean"):
            raise ValueError(f"KLDivLoss: reduction must be 'mean', 'sum', 'none' or 'batchmean', got {reduction!r}")
        super().__init__("sum" if reduction == "batchmean" else reduction)
        self.reduction = reduction

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        labels = F.stop_gradient(labels)  # MindSpore's KLDivLoss does not differentiate the target
        safe = F.where(labels > 0, labels, F.ones_like(labels))
        loss = F.where(labels > 0, labels * (F.log(safe) - logits), F.zeros_like(logits))
        if self.reduction == "batchmean":
            return F.sum(loss) / logits.shape[0]
        return _reduce(loss, self.reduction)


class SoftMarginLoss(LossBase):
    """`log(1 + exp(-y x))` for labels y in {-1, 1}."""

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        return _reduce(F.softplus(-labels * logits), self.reduction)


class MarginRankingLoss(LossBase):
    """`max(0, -y (x1 - x2) + margin)`."""

    def __init__(self, margin: float = 0.0, reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.margin = float(margin)

    def construct(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return _reduce(F.relu(-target * (input1 - input2) + self.margin), self.reduction)


class HingeEmbeddingLoss(LossBase):
    """`x` where y == 1, `max(0, margin - x)` where y == -1."""

    def __init__(self, margin: float = 1.0, reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.margin = float(margin)

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        labels = like(labels, logits)
        pos = F.where(labels == 1, logits, F.zeros_like(logits))
        neg = F.where(labels == -1, F.relu(self.margin - logits), F.zeros_like(logits))
        return _reduce(pos + neg, self.reduction)


class CosineEmbeddingLoss(LossBase):
    """`1 - cos(x1, x2)` where y == 1, `max(0, cos(x1, x2) - margin)` where y == -1 (cosine over axis 1)."""

    def __init__(self, margin: float = 0.0, reduction: str = "mean") -> None:
        super().__init__(reduction)
        if not -1.0 <= margin <= 1.0:
            raise ValueError(f"CosineEmbeddingLoss: margin must be in [-1, 1], got {margin}")
        self.margin = float(margin)

    def construct(self, logits_x1: Tensor, logits_x2: Tensor, labels: Tensor) -> Tensor:
        prod = F.sum(logits_x1 * logits_x2, 1)
        n1 = F.sum(F.square(logits_x1), 1)
        n2 = F.sum(F.square(logits_x2), 1)
        cos = prod / F.sqrt(n1 * n2 + 1e-8)
        loss = F.where(labels == 1, 1 - cos, F.relu(cos - self.margin))
        return _reduce(loss, self.reduction)


class PoissonNLLLoss(LossBase):
    """Poisson negative log-likelihood: `exp(x) - y x` (log_input) or `x - y log(x + eps)`, plus Stirling's
    term with `full`."""

    def __init__(self, log_input: bool = True, full: bool = False, eps: float = 1e-8, reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.log_input, self.full, self.eps = bool(log_input), bool(full), float(eps)

    def construct(self, input: Tensor, target: Tensor) -> Tensor:
        target = like(target, input)
        loss = F.exp(input) - target * input if self.log_input else input - target * F.log(input + self.eps)
        if self.full:
            safe = F.where(target > 1, target, F.ones_like(target))
            stirling = safe * F.log(safe) - safe + 0.5 * F.log(2 * math.pi * safe)
            loss = loss + F.where(target > 1, stirling, F.zeros_like(target))
        return _reduce(loss, self.reduction)


class GaussianNLLLoss(LossBase):
    """`0.5 (log(max(var, eps)) + (x - y)^2 / max(var, eps))` (+ 0.5 log(2 pi) with `full`)."""

    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean") -> None:
        super().__init__(reduction)
        if eps <= 0:
            raise ValueError(f"GaussianNLLLoss: eps must be > 0, got {eps}")
        self.full, self.eps = bool(full), float(eps)

    def construct(self, logits: Tensor, labels: Tensor, var: Tensor) -> Tensor:
        var = F.maximum(var, self.eps)
        loss = 0.5 * (F.log(var) + F.square(logits - labels) / var)
        if self.full:
            loss = loss + 0.5 * math.log(2 * math.pi)
        return _reduce(loss, self.reduction)


def _pairwise_distance(x1: Tensor, x2: Tensor, p: float, eps: float) -> Tensor:
    d = F.abs(x1 - x2 + eps)
    return F.pow(F.sum(F.pow(d, p), -1), 1.0 / p)


class TripletMarginLoss(LossBase):
    """`max(d(a, p) - d(a, n) + margin, 0)` with the p-norm distance (`swap` uses min(d(a, n), d(p, n)))."""

    def __init__(self, p: int = 2, swap: bool = False, eps: float = 1e-6, reduction: str = "mean",
                 margin: float = 1.0) -> None:
        super().__init__(reduction)
        self.p, self.swap, self.eps, self.margin = p, bool(swap), float(eps), float(margin)

    def construct(self, x: Tensor, positive: Tensor, negative: Tensor, margin=None) -> Tensor:
        margin = self.margin if margin is None else margin
        d_pos = _pairwise_distance(x, positive, self.p, self.eps)
        d_neg = _pairwise_distance(x, negative, self.p, self.eps)
        if self.swap:
            d_neg = F.minimum(d_neg, _pairwise_distance(positive, negative, self.p, self.eps))
        return _reduce(F.relu(d_pos - d_neg + margin), self.reduction)


class TripletMarginWithDistanceLoss(LossBase):
    """TripletMarginLoss with any `distance_function(x, y)` (default: the pairwise L2 distance)."""

    def __init__(self, distance_function=None, swap: bool = False, reduction: str = "mean", margin: float = 1.0) -> None:
        super().__init__(reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginWithDistanceLoss: margin must be > 0, got {margin}")
        self.distance_function = distance_function or (lambda a, b: _pairwise_distance(a, b, 2.0, 1e-6))
        self.swap, self.margin = bool(swap), float(margin)

    def construct(self, x: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        d_pos = self.distance_function(x, positive)
        d_neg = self.distance_function(x, negative)
        if self.swap:
            d_neg = F.minimum(d_neg, self.distance_function(positive, negative))
        return _reduce(F.relu(d_pos - d_neg + self.margin), self.reduction)


class MultiLabelSoftMarginLoss(LossBase):
    """`-mean over classes of (y log sigmoid(x) + (1 - y) log sigmoid(-x))`, optionally class-weighted."""

    def __init__(self, weight: Tensor | None = None, reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.weight = weight

    def construct(self, x: Tensor, target: Tensor) -> Tensor:
        target = like(target, x)
        loss = -(target * -F.softplus(-x) + (1 - target) * -F.softplus(x))
        if self.weight is not None:
            loss = loss * like(self.weight, x)
        return _reduce(F.mean(loss, -1), self.reduction)


class MultiMarginLoss(LossBase):
    """Multi-class hinge loss: `sum over i != y of max(0, margin - x[y] + x[i])^p / C` per sample."""

    def __init__(self, p: int = 1, margin: float = 1.0, reduction: str = "mean", weight: Tensor | None = None) -> None:
        super().__init__(reduction)
        if p not in (1, 2):
            raise ValueError(f"MultiMarginLoss: p must be 1 or 2, got {p}")
        self.p, self.margin, self.weight = p, float(margin), weight

    def construct(self, x: Tensor, target: Tensor, weight: Tensor | None = None) -> Tensor:
        weight = self.weight if weight is None else weight
        c = x.shape[-1]
        hot = F.cast(F.one_hot(target, c), x.dtype)
        x_y = F.sum(x * hot, -1, True)
        margins = F.relu(self.margin - x_y + x) * (1 - hot)
        if self.p == 2:
            margins = F.square(margins)
        if weight is not None:
            margins = margins * F.expand_dims(F.gather(like(weight, x), target, 0), -1)
        return _reduce(F.sum(margins, -1) / c, self.reduction)


class FocalLoss(LossBase):
    """`-(1 - p_t)^gamma log(p_t)` of (N, C, ...) logits against class indices (N, ...) or one-hot labels,
    with the softmax over axis 1; optional class `weight`."""

    def __init__(self, weight: Tensor | None = None, gamma: float = 2.0, reduction: str = "mean") -> None:
        super().__init__(reduction)
        if not isinstance(gamma, float) and not isinstance(gamma, int):
            raise TypeError(f"FocalLoss: gamma must be a float, got {type(gamma).__name__}")
        self.weight, self.gamma = weight, float(gamma)

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        if logits.ndim < 2:
            raise ValueError(f"FocalLoss: logits must be at least 2-D (N, C, ...), got shape {tuple(logits.shape)}")
        c = logits.shape[1]
        if labels.ndim == logits.ndim and labels.shape[1] == c:
            hot = like(labels, logits)
        else:
            if labels.ndim == logits.ndim:
                labels = F.squeeze(labels, 1)
            hot = F.cast(F.one_hot(F.cast(labels, mstype.int32), c, axis=1), logits.dtype)
        log_p = F.log_softmax(logits, 1)
        p = F.exp(log_p)
        loss = -F.pow(1 - p, self.gamma) * log_p * hot
        if self.weight is not None:
            loss = loss * F.reshape(like(self.weight, logits), (1, -1) + (1,) * (logits.ndim - 2))
        per_elem = F.sum(loss, 1)
        return _reduce(per_elem, self.reduction)


class L1LossExt(LossBase):
    """mint's `L1Loss(reduction)` (torch-style), |x - y|."""

    def construct(self, input: Tensor, target: Tensor) -> Tensor:
        return _reduce(F.abs(input - target), self.reduction)


__all__ = ["LossBase", "L1Loss", "MSELoss", "SmoothL1Loss", "BCEWithLogitsLoss", "SoftmaxCrossEntropyWithLogits",
           "CrossEntropyLoss", "NLLLoss", "BCELoss", "MAELoss", "RMSELoss", "HuberLoss", "DiceLoss", "MultiClassDiceLoss", "KLDivLoss",
           "SoftMarginLoss", "MarginRankingLoss", "HingeEmbeddingLoss", "CosineEmbeddingLoss", "PoissonNLLLoss",
           "GaussianNLLLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss", "MultiLabelSoftMarginLoss",
           "MultiMarginLoss", "FocalLoss", "L1LossExt"]
