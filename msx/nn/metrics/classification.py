"""More of MindSpore's metrics (numpy on the host, like the others): `Precision`, `Recall`, `Fbeta`, `F1`,
top-k accuracies, `ConfusionMatrix`, `ROC` and `auc`, `Dice`, `Perplexity`, `CosineSimilarity`, `BleuScore`."""
from __future__ import annotations

import collections
import math
from typing import Any

import numpy as np

from ._base import Metric


def _scores_and_labels(metric: Metric, y_pred, y) -> tuple[np.ndarray, np.ndarray]:
    """(N, C) scores and (N, C) one-hot labels; y may be indices (N,) or one-hot (N, C)."""
    y_pred, y = metric._convert_data(y_pred), metric._convert_data(y)
    if y_pred.ndim != 2:
        raise ValueError(f"{type(metric).__name__}: y_pred must be (N, C) scores, got shape {y_pred.shape}")
    n, c = y_pred.shape
    if y.shape == (n,) or y.shape == (n, 1):
        idx = y.reshape(n).astype(np.int64)
        if idx.min(initial=0) < 0 or idx.max(initial=0) >= c:
            raise ValueError(f"{type(metric).__name__}: labels must be in [0, {c}), got {idx.min()}..{idx.max()}")
        y = np.eye(c)[idx]
    elif y.shape != (n, c):
        raise ValueError(f"{type(metric).__name__}: y {y.shape} must be (N,) indices or (N, C) one-hot for "
                         f"y_pred {y_pred.shape}")
    return y_pred, y


class _PrecisionRecall(Metric):
    """Per-class counts of true positives and of predicted (precision) or actual (recall) positives.
    "classification": the arg-max class is the prediction; "multilabel": y_pred rounded."""

    def __init__(self, eval_type: str = "classification") -> None:
        if eval_type not in ("classification", "multilabel"):
            raise ValueError(f"{type(self).__name__}: eval_type must be 'classification' or 'multilabel'")
        self.eval_type = eval_type
        super().__init__()

    def clear(self) -> None:
        self._true_positives = 0
        self._positives = 0
        self._class_num = 0

    def update(self, *inputs: Any) -> None:
        self._check_count(inputs, 2)
        y_pred, y = _scores_and_labels(self, inputs[0], inputs[1])
        if self.eval_type == "classification":
            pred = np.eye(y_pred.shape[1])[y_pred.argmax(axis=1)]
        else:
            pred = np.round(y_pred)
        self._true_positives = self._true_positives + (pred * y).sum(axis=0)
        self._positives = self._positives + (pred if self._counts_predicted else y).sum(axis=0)
        self._class_num = y_pred.shape[1]

    def eval (self, average: bool = False):
        if self._class_num == 0:
            raise RuntimeError(f"{type(self).__name__} can not be calculated, because the number of samples is 0.")
        result = self._true_positives / (self._positives + np.finfo(np.float64).eps)
        return float(result.mean()) if average else result


class Precision(_PrecisionRecall):
    """Per class: true positives / predicted positives; `eval (average=True)` averages over classes."""

    _counts_predicted = True


class Recall(_PrecisionRecall):
    """Per class: true positives / actual positives; `eval (average=True)` averages over classes."""

    _counts_predicted = False


class Fbeta(Metric):
    """Per class `(1 + beta^2) P R / (beta^2 P + R)` over everything seen; `eval (average=True)` averages."""

    def __init__(self, beta: float) -> None:
        if not isinstance(beta, (int, float)) or beta <= 0:
            raise ValueError(f"Fbeta: beta must be a positive number, got {beta!r}")
        self.beta = float(beta)
        super().__init__()

    def clear(self) -> None:
        self._tp = self._pred = self._actual = 0
        self._class_num = 0

    def update(self, *inputs: Any) -> None:
        self._check_count(inputs, 2)
        y_pred, y = _scores_and_labels(self, inputs[0], inputs[1])
        pred = np.eye(y_pred.shape[1])[y_pred.argmax(axis=1)]
        self._tp = self._tp + (pred * y).sum(axis=0)
        self._pred = self._pred + pred.sum(axis=0)
        self._actual = self._actual + y.sum(axis=0)
        self._class_num = y_pred.shape[1]

    def eval (self, average: bool = False):
        if self._class_num == 0:
            raise RuntimeError(f"{type(self).__name__} can not be calculated, because the number of samples is 0.")
        eps = np.finfo(np.float64).eps
        b2 = self.beta ** 2
        result = (1 + b2) * self._tp / (b2 * self._actual + self._pred + eps)
        return float(result.mean()) if average else result


class F1(Fbeta):
    """Fbeta with beta = 1."""

    def __init__(self) -> None:
        super().__init__(1.0)


class TopKCategoricalAccuracy(Metric):
    """The fraction of samples whose label is among the k highest scores."""

    def __init__(self, k: int) -> None:
        if not isinstance(k, int) or isinstance(k, bool) or k < 1:
            raise ValueError(f"TopKCategoricalAccuracy: k must be a positive int, got {k!r}")
        self.k = k
        super().__init__()

    def clear(self) -> None:
        self._correct_num = 0
        self._samples_num = 0

    def update(self, *inputs: Any) -> None:
        self._check_count(inputs, 2)
        y_pred, y = _scores_and_labels(self, inputs[0], inputs[1])
        labels = y.argmax(axis=1)
        top = np.argsort(-y_pred, axis=1, kind="stable")[:, :self.k]
        self._correct_num += int((top == labels[:, None]).any(axis=1).sum())
        self._samples_num += y_pred.shape[0]

    def eval (self) -> float:
        if self._samples_num == 0:
            raise RuntimeError("TopKCategoricalAccuracy can not be calculated, because the number of samples is 0.")
        return self._correct_num / self._samples_num


class Top1CategoricalAccuracy(TopKCategoricalAccuracy):
    def __init__(self) -> None:
        super().__init__(1)


class Top5CategoricalAccuracy(TopKCategoricalAccuracy):
    def __init__(self) -> None:
        super().__init__(5)


class ConfusionMatrix(Metric):
    """`matrix[true class, predicted class]` counts; y_pred scores (N, C) take the arg-max, 0/1 predictions
    of shape (N,) or (N, ...) are thresholded at `threshold`. `normalize`: "no_norm", "target" (rows sum to 1),
    "prediction" (columns) or "all"."""

    def __init__(self, num_classes: int, normalize: str = "no_norm", threshold: float = 0.5) -> None:
        if normalize not in ("no_norm", "target", "prediction", "all"):
            raise ValueError(f"ConfusionMatrix: normalize must be 'no_norm', 'target', 'prediction' or 'all', "
                             f"got {normalize!r}")
        self.num_classes, self.normalize, self.threshold = int(num_classes), normalize, float(threshold)
        super().__init__()

    def clear(self) -> None:
        self.confusion_matrix = np.zeros((self.num_classes, self.num_classes))
        self._is_update = False

    def update(self, *inputs: Any) -> None:
        self._check_count(inputs, 2)
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if y_pred.ndim == y.ndim + 1:
            y_pred = y_pred.argmax(axis=1)
        elif y_pred.shape == y.shape:
            y_pred = (y_pred >= self.threshold).astype(np.int64) if y_pred.dtype.kind == "f" else y_pred
        else:
            raise ValueError(f"ConfusionMatrix: y_pred {y_pred.shape} and y {y.shape} do not match")
        pred, true = y_pred.reshape(-1).astype(np.int64), y.reshape(-1).astype(np.int64)
        np.add.at(self.confusion_matrix, (true, pred), 1)
        self._is_update = True

    def eval (self) -> np.ndarray:
        if not self._is_update:
            raise RuntimeError("ConfusionMatrix can not be calculated, because the number of samples is 0.")
        m = self.confusion_matrix
        with np.errstate(invalid="ignore", divide="ignore"):
            if self.normalize == "target":
                m = m / m.sum(axis=1, keepdims=True)
            elif self.normalize == "prediction":
                m = m / m.sum(axis=0, keepdims=True)
            elif self.normalize == "all":
                m = m / m.sum()
        return np.nan_to_num(m)


class Dice(Metric):
    """Mean over samples of `2 |y_pred * y| / (|y_pred| + |y|)`, with `smooth` added to the denominator."""

    def __init__(self, smooth: float = 1e-5) -> None:
        if smooth <= 0:
            raise ValueError(f"Dice: smooth must be > 0, got {smooth}")
        self.smooth = float(smooth)
        super().__init__()

    def clear(self) -> None:
        self._dice_coeff_sum = 0.0
        self._samples_num = 0

    def update(self, *inputs: Any) -> None:
        self._check_count(inputs, 2)
        y_pred, y = self._convert_data(inputs[0]).astype(np.float64), self._convert_data(inputs[1]).astype(np.float64)
        if y_pred.shape != y.shape:
            raise ValueError(f"Dice: y_pred {y_pred.shape} and y {y.shape} must have one shape")
        self._samples_num += y.shape[0]
        inter = np.dot(y_pred.reshape(-1), y.reshape(-1))
        union = np.dot(y_pred.reshape(-1), y_pred.reshape(-1)) + np.dot(y.reshape(-1), y.reshape(-1))
        self._dice_coeff_sum += 2 * float(inter) / (float(union) + self.smooth)

    def eval (self) -> float:
        if self._samples_num == 0:
            raise RuntimeError("Dice can not be calculated, because the number of samples is 0.")
        return self._dice_coeff_sum / float(self._samples_num)


class Perplexity(Metric):
    """`exp(mean negative log-likelihood)` of (N, C) probabilities at labels (N,), skipping `ignore_label`."""

    def __init__(self, ignore_label: int | None = None) -> None:
        self.ignore_label = ignore_label
        super().__init__()

    def clear(self) -> None:
        self._sum_metric = 0.0
        self._num_inst = 0

    def update(self, *inputs: Any) -> None:
        self._check_count(inputs, 2)
        preds, labels = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        preds = preds.reshape(-1, preds.shape[-1])
        labels = labels.reshape(-1).astype(np.int64)
        if preds.shape[0] != labels.shape[0]:
            raise ValueError(f"Perplexity: {preds.shape[0]} predictions for {labels.shape[0]} labels")
        keep = np.ones(labels.shape, bool) if self.ignore_label is None else labels != self.ignore_label
        probs = preds[np.arange(labels.shape[0]), labels]
        self._sum_metric += float(-np.log(np.maximum(probs[keep], 1e-10)).sum())
        self._num_inst += int(keep.sum())

    def eval (self) -> float:
        if self._num_inst == 0:
            raise RuntimeError("Perplexity can not be calculated, because the number of samples is 0.")
        return math.exp(self._sum_metric / self._num_inst)


class ROC(Metric):
    """Receiver operating characteristic: `eval ()` -> (fpr, tpr, thresholds) for binary scores (N,)
    against 0/1 labels (or one class `pos_label` of multi-class scores (N, C) with `class_num`)."""

    def __init__(self, class_num: int | None = None, pos_label: int | None = None) -> None:
        self.class_num, self.pos_label = class_num, 1 if pos_label is None else pos_label
        super().__init__()

    def clear(self) -> None:
        self.y_pred, self.y = [], []

    def update(self, *inputs: Any) -> None:
        self._check_count(inputs, 2)
        self.y_pred.append(self._convert_data(inputs[0]))
        self.y.append(self._convert_data(inputs[1]))

    def eval (self):
        if not self.y:
            raise RuntimeError("ROC can not be calculated, because the number of samples is 0.")
        scores, labels = np.concatenate(self.y_pred), np.concatenate(self.y)
        if scores.ndim == 2 and (self.class_num or scores.shape[1]) > 1:
            scores = scores[:, self.pos_label]
            labels = (labels == self.pos_label).astype(np.float64)
        else:
            labels = (labels == self.pos_label).astype(np.float64)
        return _roc(scores.reshape(-1), labels.reshape(-1))


def _roc(scores: np.ndarray, labels: np.ndarray):
    order = np.argsort(-scores, kind="mergesort")
    scores, labels = scores[order], labels[order]
    distinct = np.where(np.diff(scores))[0]
    ends = np.r_[distinct, labels.size - 1]
    tps = np.cumsum(labels)[ends]
    fps = 1 + ends - tps
    thresholds = scores[ends]
    tps, fps = np.r_[0, tps], np.r_[0, fps]
    thresholds = np.r_[thresholds[0] + 1, thresholds]
    fpr = fps / fps[-1] if fps[-1] > 0 else np.full(fps.shape, np.nan)
    tpr = tps / tps[-1] if tps[-1] > 0 else np.full(tps.shape, np.nan)
    return fpr, tpr, thresholds


def auc(x, y, reorder: bool = False) -> float:
    """Area under the curve (x, y) by the trapezoidal rule (x must be monotonic unless `reorder`)."""
    x, y = np.asarray(x, np.float64).reshape(-1), np.asarray(y, np.float64).reshape(-1)
    if x.shape != y.shape or x.size < 2:
        raise ValueError(f"auc: x and y must have the same length >= 2, got {x.shape} and {y.shape}")
    if reorder:
        order = np.lexsort((y, x))
        x, y = x[order], y[order]
    dx = np.diff(x)
    direction = 1
    if np.any(dx < 0):
        if np.all(dx <= 0):
            direction = -1
        else:
            raise ValueError("auc: x is neither increasing nor decreasing; use reorder=True")
    return float(direction * np.sum(dx * (y[1:] + y[:-1]) / 2))


class CosineSimilarity(Metric):
    """Pairwise similarity of the rows of `update(embeddings)` (N, D): 'cosine' or 'dot'; `reduction`
    'none', 'sum' or 'mean' over rows; `zero_diagonal` zeroes self-similarity."""

    def __init__(self, similarity: str = "cosine", reduction: str = "none", zero_diagonal: bool = True) -> None:
        if similarity not in ("cosine", "dot") or reduction not in ("none", "sum", "mean"):
            raise ValueError(f"CosineSimilarity: similarity must be 'cosine'/'dot' and reduction 'none'/'sum'/'mean'")
        self.similarity, self.reduction, self.zero_diagonal = similarity, reduction, bool(zero_diagonal)
        super().__init__()

    def clear(self) -> None:
        self.sqr_mtx_res = None

    def update(self, *inputs: Any) -> None:
        self._check_count(inputs, 1)
        x = self._convert_data(inputs[0]).astype(np.float64)
        if self.similarity == "cosine":
            x = x / np.linalg.norm(x, axis=1, keepdims=True)
        self.sqr_mtx_res = x @ x.T

    def eval (self):
        if self.sqr_mtx_res is None:
            raise RuntimeError("CosineSimilarity can not be calculated, because the number of samples is 0.")
        m = self.sqr_mtx_res.copy()
        if self.zero_diagonal:
            np.fill_diagonal(m, 0)
        if self.reduction == "mean":
            return m.mean(axis=-1)
        if self.reduction == "sum":
            return m.sum(axis=-1)
        return m


class BleuScore(Metric):
    """Corpus BLEU of tokenised candidates against lists of tokenised references (`update(candidates,
    references)`), up to `n_gram`, optionally with add-one smoothing."""

    def __init__(self, n_gram: int = 4, smooth: bool = False) -> None:
        if not 1 <= n_gram <= 4:
            raise ValueError(f"BleuScore: n_gram must be in [1, 4], got {n_gram}")
        self.n_gram, self.smooth = n_gram, bool(smooth)
        super().__init__()

    def clear(self) -> None:
        self._numerator = np.zeros(self.n_gram)
        self._denominator = np.zeros(self.n_gram)
        self._trans_length = 0.0
        self._ref_length = 0.0

    @staticmethod
    def _count(tokens, n: int) -> collections.Counter:
        counter: collections.Counter = collections.Counter()
        for i in range(1, n + 1):
            for j in range(len(tokens) - i + 1):
                counter[tuple(tokens[j:j + i])] += 1
        return counter

    def update(self, *inputs: Any) -> None:
        self._check_count(inputs, 2)
        candidates, references = inputs
        if len(candidates) != len(references):
            raise ValueError(f"BleuScore: {len(candidates)} candidates for {len(references)} reference lists")
        for cand, refs in zip(candidates, references):
            self._trans_length += len(cand)
            self._ref_length += len(min(refs, key=lambda r: abs(len(r) - len(cand))))
            ref_counts: collections.Counter = collections.Counter()
            for r in refs:
                ref_counts |= self._count(r, self.n_gram)
            cand_counts = self._count(cand, self.n_gram)
            for gram, cnt in (cand_counts & ref_counts).items():
                self._numerator[len(gram) - 1] += cnt
            for i in range(self.n_gram):
                self._denominator[i] += max(len(cand) - i, 0)

    def eval (self) -> float:
        if self._trans_length == 0:
            raise RuntimeError("BleuScore can not be calculated, because the number of samples is 0.")
        if min(self._numerator) == 0.0:  # MindSpore: 0 whenever some n-gram order has no match
            return 0.0
        if self.smooth:
            precision = (self._numerator + 1.0) / (self._denominator + 1.0)
        else:
            precision = self._numerator / self._denominator
        log_mean = float(np.sum(np.log(precision)) / self.n_gram)
        bp = 1.0 if self._trans_length > self._ref_length else math.exp(1 - self._ref_length / self._trans_length)
        return math.exp(log_mean) * bp


__all__ = ["Precision", "Recall", "Fbeta", "F1", "TopKCategoricalAccuracy", "Top1CategoricalAccuracy",
           "Top5CategoricalAccuracy", "ConfusionMatrix", "Dice", "Perplexity", "ROC", "auc", "CosineSimilarity",
           "BleuScore"]
