"""Segmentation metrics (MindSpore 2.10's `mindspore.train` names): `HausdorffDistance`, `MeanSurfaceDistance`,
`RootMeanSquareDistance` over the edges of two label masks, and `ConfusionMatrixMetric` over one-hot batches.

numpy and scipy.ndimage on the host, as MindSpore computes them. Each follows MindSpore's arithmetic, also where
it is surprising (written beside the class): a port's numbers stay the numbers it had.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ._base import Metric, rearrange_inputs

_DISTANCES = ("euclidean", "chessboard", "taxicab")


def _check_choice(owner: str, name: str, value: Any, choices: tuple) -> str:
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{owner}: {name} must be one of {list(choices)}, got {value!r}")
    return value


def _check_bool(owner: str, name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{owner}: {name} must be a bool, got {type(value).__name__}")
    return value


class _SurfaceMetric(Metric):
    """The shared part: `update(y_pred, y, label_idx)` keeps the two masks' edges (a mask XOR its binary
    erosion); the distances go from each edge point of one mask to the nearest edge point of the other."""

    distance_metric: str

    def clear(self) -> None:
        self._y_pred_edges: np.ndarray | int = 0
        self._y_edges: np.ndarray | int = 0
        self._is_update = False

    def _masks(self, inputs: tuple) -> tuple[np.ndarray, np.ndarray]:
        name = type(self).__name__
        if len(inputs) != 3:
            raise ValueError(f"{name}.update needs 3 inputs (predicted value, true value, label index), got "
                             f"{len(inputs)}")
        y_pred, y, label = self._convert_data(inputs[0]), self._convert_data(inputs[1]), inputs[2]
        if isinstance(label, bool) or not isinstance(label, (int, float)):
            raise TypeError(f"{name}.update: the label index (input[2]) must be an int or a float, got "
                            f"{type(label).__name__}")
        if y_pred.size == 0 or y_pred.shape != y.shape:
            raise ValueError(f"{name}.update: the predicted value (input[0]) and the true value (input[1]) must be "
                             f"non-empty and of one shape, got {y_pred.shape} and {y.shape}")
        if label not in y_pred and label not in y:
            raise ValueError(f"{name}.update: the label index {label} is in neither the predicted value nor the "
                             f"true value")
        y_pred = y_pred if y_pred.dtype == bool else y_pred == label
        y = y if y.dtype == bool else y == label
        return y_pred, y

    @staticmethod
    def _edges(mask: np.ndarray) -> np.ndarray:
        from scipy import ndimage  # on first use: scipy.ndimage costs 0.14 s of `import msx` (issue 31)

        return ndimage.binary_erosion(mask) ^ mask

    def _distances(self, from_edges: np.ndarray, to_edges: np.ndarray) -> np.ndarray:
        """The distance of every edge point of `from_edges` to the nearest of `to_edges` (inf when it has none;
        empty when `from_edges` has no point)."""
        if not np.any(from_edges):
            return np.array([])
        if not np.any(to_edges):
            return np.full(int(np.count_nonzero(from_edges)), np.inf)
        from scipy import ndimage  # on first use (see _edges)

        if self.distance_metric == "euclidean":
            field = ndimage.distance_transform_edt(~to_edges)
        else:
            field = ndimage.distance_transform_cdt(~to_edges, metric=self.distance_metric)
        return field[from_edges]

    def _check_updated(self) -> None:
        if not self._is_update:
            raise RuntimeError(f"{type(self).__name__}: call 'update' before 'eval'")


class HausdorffDistance(_SurfaceMetric):
    """The largest distance from an edge point of one mask to the other mask's edge (`percentile`: that
    percentile of the distances instead; `directed`: from the prediction to the truth only). `crop` cuts both
    masks to the bounding box of their union first, as MindSpore does (edges at the box's border count)."""

    def __init__(self, distance_metric: str = "euclidean", percentile: float | None = None,
                 directed: bool = False, crop: bool = True) -> None:
        self.distance_metric = _check_choice("HausdorffDistance", "distance_metric", distance_metric, _DISTANCES)
        if percentile is not None:
            if isinstance(percentile, bool) or not isinstance(percentile, float):
                raise TypeError(f"HausdorffDistance: percentile must be a float, got {type(percentile).__name__}")
            if not 0 <= percentile <= 100:
                raise ValueError(f"HausdorffDistance: percentile must be in [0, 100], got {percentile}")
        self.percentile = percentile
        self.directed = _check_bool("HausdorffDistance", "directed", directed)
        self.crop = _check_bool("HausdorffDistance", "crop", crop)
        super().__init__()

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        y_pred, y = self._masks(inputs)
        if self.crop:
            union = y_pred | y
            if not np.any(union):
                self._y_pred_edges, self._y_edges = np.zeros_like(y_pred), np.zeros_like(y)
                self._is_update = True
                return
            box = tuple(slice(int(idx.min()), int(idx.max()) + 1) for idx in np.nonzero(union))
            y_pred, y = np.squeeze(y_pred[box]), np.squeeze(y[box])
        self._y_pred_edges, self._y_edges = self._edges(y_pred), self._edges(y)
        self._is_update = True

    def _directed(self, from_edges: np.ndarray, to_edges: np.ndarray) -> float:
        d = self._distances(from_edges, to_edges)
        if d.size == 0:
            return np.inf
        # (MindSpore treats percentile 0.0 as "no percentile": the maximum)
        return d.max() if not self.percentile else np.percentile(d, self.percentile)

    def eval (self) -> float:
        self._check_updated()
        forward = self._directed(self._y_pred_edges, self._y_edges)
        if self.directed:
            return forward
        return max(forward, self._directed(self._y_edges, self._y_pred_edges))


class MeanSurfaceDistance(_SurfaceMetric):
    """The mean distance from the prediction's edge to the truth's (`symmetric`: the mean of both directions'
    means); inf when an edge is empty."""

    def __init__(self, symmetric: bool = False, distance_metric: str = "euclidean") -> None:
        name = type(self).__name__
        self.distance_metric = _check_choice(name, "distance_metric", distance_metric, _DISTANCES)
        self.symmetric = _check_bool(name, "symmetric", symmetric)
        super().__init__()

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        y_pred, y = self._masks(inputs)
        self._y_pred_edges, self._y_edges = self._edges(y_pred), self._edges(y)
        self._is_update = True

    def eval (self) -> float:
        self._check_updated()
        parts = [self._distances(self._y_pred_edges, self._y_edges)]
        if self.symmetric:
            parts.append(self._distances(self._y_edges, self._y_pred_edges))
        if any(d.size == 0 for d in parts):
            return np.inf
        return self._combine(parts)

    def _combine(self, parts: list[np.ndarray]) -> float:
        return np.mean([d.mean() for d in parts]) if self.symmetric else parts[0].mean()


class RootMeanSquareDistance(MeanSurfaceDistance):
    """MindSpore's root-mean-square surface distance: `symmetric=True` gives sqrt of the mean of both
    directions' mean squared distances; `symmetric=False` gives the mean squared distance itself, without
    the root (MindSpore 2.10 returns that; kept so that ported numbers match)."""

    def _combine(self, parts: list[np.ndarray]) -> float:
        squares = [(d ** 2).mean() for d in parts]
        return np.sqrt(np.mean(squares)) if self.symmetric else squares[0]


# ---------------------------------------------------------------- ConfusionMatrixMetric
_METRIC_NAMES = {
    "tpr": ("sensitivity", "recall", "hit_rate", "true_positive_rate"),
    "tnr": ("specificity", "selectivity", "true_negative_rate"),
    "ppv": ("precision", "positive_predictive_value"),
    "npv": ("negative_predictive_value",),
    "fnr": ("miss_rate", "false_negative_rate"),
    "fpr": ("fall_out", "false_positive_rate"),
    "fdr": ("false_discovery_rate",),
    "for": ("false_omission_rate",),
    "pt": ("prevalence_threshold",),
    "ts": ("threat_score", "critical_success_index", "csi"),
    "acc": ("accuracy",),
    "ba": ("balanced_accuracy",),
    "f1": ("f1_score",),
    "mcc": ("matthews_correlation_coefficient",),
    "fm": ("fowlkes_mallows_index",),
    "bm": ("informedness", "bookmaker_informedness"),
    "mk": ("markedness", "deltap"),
}
_SHORT = {alias: short for short, aliases in _METRIC_NAMES.items() for alias in (short, *aliases)}
_DECREASES = ("none", "mean", "sum", "mean_batch", "sum_batch", "mean_channel", "sum_channel")


def _short_name(name: str) -> str:
    short = _SHORT.get(name.replace(" ", "_").lower())
    if short is None:
        raise ValueError(f"ConfusionMatrixMetric: metric_name {name!r} is not a confusion-matrix metric; choose "
                         f"one of {sorted(_SHORT)}")
    return short


def _counts(y_pred: np.ndarray, y: np.ndarray, skip_channel: bool) -> np.ndarray:
    """(batch, class, 4): tp, fp, tn, fn per sample and class. MindSpore drops the first channel when
    `skip_channel` is False (the name says the opposite; its behaviour is kept)."""
    if not skip_channel:
        y = y[:, 1:] if y.shape[1] > 1 else y
        y_pred = y_pred[:, 1:] if y_pred.shape[1] > 1 else y_pred
    if y.shape != y_pred.shape:
        raise ValueError(f"ConfusionMatrixMetric.update: the predicted value {y_pred.shape} and the true value "
                         f"{y.shape} must have one shape")
    b, c = y_pred.shape[:2]
    y_pred, y = y_pred.astype(float).reshape(b, c, -1), y.astype(float).reshape(b, c, -1)
    tp = ((y_pred + y) == 2).sum(axis=2).astype(float)
    tn = ((y_pred + y) == 0).sum(axis=2).astype(float)
    p = y.sum(axis=2)
    fn, fp = p - tp, (y.shape[-1] - p) - tn
    return np.stack([tp, fp, tn, fn], axis=-1)


def _ratio(numerator, denominator):
    if isinstance(denominator, np.ndarray):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(denominator != 0, numerator / denominator, np.nan)
    return numerator / denominator


def _rate(num, den):
    """num / den where den > 0, else nan (the rates inside the composite metrics)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / den, np.nan)


def _metric(short: str, counts: np.ndarray) -> np.ndarray:
    """The metric `short` of confusion counts (..., 4)."""
    if counts.ndim == 1:
        counts = counts[None]
    tp, fp, tn, fn = (counts[..., k] for k in range(4))
    p, n = tp + fn, fp + tn
    with np.errstate(divide="ignore", invalid="ignore"):
        parts = {
            "tpr": lambda: (tp, p), "tnr": lambda: (tn, n), "ppv": lambda: (tp, tp + fp),
            "npv": lambda: (tn, tn + fn), "fnr": lambda: (fn, p), "fpr": lambda: (fp, n),
            "fdr": lambda: (fp, fp + tp), "for": lambda: (fn, fn + tn),
            "pt": lambda: (np.sqrt(_rate(tp, p) * (1.0 - _rate(tn, n))) + _rate(tn, n) - 1.0,
                           _rate(tp, p) + _rate(tn, n) - 1.0),
            "ts": lambda: (tp, tp + fn + fp), "acc": lambda: (tp + tn, p + n),
            "ba": lambda: (_rate(tp, p) + _rate(tn, n), 2.0), "f1": lambda: (tp * 2.0, tp * 2.0 + fn + fp),
            "mcc": lambda: (tp * tn - fp * fn, np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))),
            "fm": lambda: (np.sqrt(_rate(tp, tp + fp) * _rate(tp, p)), 1.0),
            "bm": lambda: (_rate(tp, p) + _rate(tn, n) - 1.0, 1.0),
            "mk": lambda: (_rate(tp, tp + fp) + tn / (tn + fn) - 1.0, 1.0),  # (MindSpore's npv: no nan guard)
        }
        return _ratio(*parts[short]())


def _decrease(chart: np.ndarray, how: str) -> tuple[np.ndarray, np.ndarray]:
    """(the per-sample, per-class chart reduced by `how`, how many non-nan values went into it)."""
    nans = np.isnan(chart)
    valid = (~nans).astype(float)
    chart = np.where(nans, 0.0, chart)
    if how == "none":
        return chart, valid
    if how == "sum":
        return chart.sum(axis=(0, 1)), valid.sum(axis=(0, 1))
    axis = {"batch": 0, "channel": 1}.get(how.split("_")[-1])
    if how == "mean":  # the mean over classes per sample, then over the samples that had one
        per_sample_n = valid.sum(axis=1)
        per_sample = np.where(per_sample_n > 0, chart.sum(axis=1) / np.where(per_sample_n > 0, per_sample_n, 1), 0.0)
        n = (per_sample_n > 0).astype(float).sum(axis=0)
        return (per_sample.sum(axis=0) / n if n > 0 else np.zeros(1)), n
    n = valid.sum(axis=axis)
    total = chart.sum(axis=axis)
    if how.startswith("sum"):
        return total, n
    return np.where(n > 0, total / np.where(n > 0, n, 1), 0.0), n


class ConfusionMatrixMetric(Metric):
    """A confusion-matrix metric (`metric_name`: sensitivity, specificity, precision, f1, mcc, ... with their
    usual aliases) of one-hot predictions `y_pred` (N, C, ...) against one-hot `y`. With
    `calculation_method=False` the counts of every batch are summed and the metric computed once at `eval`;
    with True the metric is computed per sample and class, reduced by `decrease` and averaged over batches
    (inputs of 2 dims, or 3 with a last dim of 1, always take the first way, as in MindSpore).

    Differences from MindSpore 2.10: `decrease="mean_batch"` reduces over the batch (MindSpore fails with a
    TypeError there); an unknown `metric_name` raises a ValueError listing the names at construction
    (MindSpore: NotImplementedError at the first `update`)."""

    def __init__(self, skip_channel: bool = True, metric_name: str = "sensitivity", calculation_method: bool = False,
                 decrease: str = "mean") -> None:
        self.skip_channel = _check_bool("ConfusionMatrixMetric", "skip_channel", skip_channel)
        self.calculation_method = _check_bool("ConfusionMatrixMetric", "calculation_method", calculation_method)
        if not isinstance(metric_name, str):
            raise TypeError(f"ConfusionMatrixMetric: metric_name must be a str, got {type(metric_name).__name__}")
        self.metric_name = metric_name
        self._short = _short_name(metric_name)
        self.decrease = _check_choice("ConfusionMatrixMetric", "decrease", decrease, _DECREASES)
        super().__init__()

    def clear(self) -> None:
        self._total_num = 0.0
        self._class_num = 0
        self._totals = np.zeros(4)

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        self._check_count(inputs, 2)
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if not np.all(y.astype(np.uint8) == y):
            raise ValueError("ConfusionMatrixMetric.update: the true value (input[1]) must be binarized (0/1)")
        if y_pred.ndim < 2:
            raise ValueError(f"ConfusionMatrixMetric.update: the predicted value (input[0]) must have at least 2 "
                             f"dims, got shape {y_pred.shape}")
        counts = _counts(y_pred, y, self.skip_channel)
        per_sample = self.calculation_method and not (y_pred.ndim == 2 or (y_pred.ndim == 3 and y_pred.shape[-1] == 1))
        if per_sample:
            score, n = _decrease(_metric(self._short, counts), self.decrease)
            score, n = np.asarray(score), np.asarray(n)
            if score.size != 1 or n.size != 1:
                raise ValueError(f"ConfusionMatrixMetric.update: decrease={self.decrease!r} leaves {score.shape} "
                                 f"scores per batch; eval averages one per batch (use 'mean' or 'sum')")
            self._total_num += score.item() * int(n.item())
            self._class_num += int(n.item())
        else:
            self._totals += counts.reshape(-1, 4).sum(axis=0)

    def eval (self) -> np.ndarray:
        if self.calculation_method and self._class_num:
            return self._total_num / self._class_num
        if self.calculation_method and not self._totals.any():
            raise RuntimeError("ConfusionMatrixMetric can not be calculated, because the number of samples is 0: "
                               "call update with non-empty inputs before eval")
        return _metric(self._short, self._totals.copy())


__all__ = ["ConfusionMatrixMetric", "HausdorffDistance", "MeanSurfaceDistance", "RootMeanSquareDistance"]
