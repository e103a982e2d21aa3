"""Metrics (MindSpore's `mindspore.train` names): `Accuracy`, `Loss`, `MAE`, `MSE`.

A metric accumulates over batches: `clear()`, `update(*inputs)` per batch,
`eval` for the value. `Model.eval` feeds `Loss` the batch loss and the
others `(network output, label)`. Inputs may be Tensors or numpy arrays; they
are read on the host.
"""
from __future__ import annotations

import abc
import functools
from typing import Any

import numpy as np

from ...tensor import Tensor


def _numpy(name: str, x: Any) -> np.ndarray:
    if isinstance(x, Tensor):
        return x.asnumpy()
    if isinstance(x, (np.ndarray, list, tuple, int, float, np.number)):
        return np.asarray(x)
    raise TypeError(f"{name}: inputs must be Tensors or numpy arrays, got {type(x).__name__}")


class Metric(abc.ABC):
    """Base of metrics. `metric(*inputs)` clears, updates once and evaluates."""

    def __init__(self) -> None:
        self.clear()

    @abc.abstractmethod
    def clear(self) -> None:
        """Forget everything accumulated."""

    @abc.abstractmethod
    def update(self, *inputs: Any) -> None:
        """Accumulate one batch."""

    @abc.abstractmethod
    def eval (self) -> float:  # MindSpore's Metric API name
        """The metric over everything since the last `clear`."""

    def _convert_data(self, data: Any) -> np.ndarray:
        return _numpy(type(self).__name__, data)

    def _check_count(self, inputs: tuple, count: int) -> None:
        if len(inputs) != count:
            raise ValueError(f"{type(self).__name__}.update needs {count} inputs, got {len(inputs)}")

    @property
    def indexes(self):
        """The input positions `update` reads (set by `set_indexes`), or None for all in order."""
        return getattr(self, "_indexes", None)

    def set_indexes(self, indexes: list[int]) -> "Metric":
        """Make `update` (decorated with `rearrange_inputs`) read inputs at these positions, in this order."""
        if not isinstance(indexes, list) or not all(isinstance(i, int) for i in indexes):
            raise ValueError(f"{type(self).__name__}.set_indexes: indexes must be a list of ints, got {indexes!r}")
        self._indexes = indexes
        return self

    def __call__(self, *inputs: Any) -> float:
        self.clear()
        self.update(*inputs)
        return self.eval ()


def rearrange_inputs(func):
    """Decorator for `Metric.update`: pass it the inputs at `self.indexes` (when set), in that order."""
    @functools.wraps(func)
    def wrapper(self, *inputs):
        indexes = self.indexes
        return func(self, *(inputs if indexes is None else [inputs[i] for i in indexes]))

    return wrapper


class Accuracy(Metric):
    """The fraction of correct predictions. `update(y_pred, y)`.

    "classification": `y_pred` holds scores (N, C) and `y` class indices (N,)
    or one-hot rows (N, C). "multilabel": `y_pred` and `y` are (N, C) of 0/1
    (`y_pred` is rounded); a sample counts when all its labels match.
    """

    def __init__(self, eval_type: str = "classification") -> None:
        if eval_type not in ("classification", "multilabel"):
            raise ValueError(f"Accuracy: eval_type must be 'classification' or 'multilabel', got {eval_type!r}")
        self.eval_type = eval_type
        super().__init__()

    def clear(self) -> None:
        self._correct_num = 0
        self._total_num = 0

    def update(self, *inputs: Any) -> None:
        self._check_count(inputs, 2)
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if y_pred.ndim == 0 or y.ndim == 0 or y_pred.shape[0] != y.shape[0]:
            raise ValueError(f"Accuracy: y_pred {y_pred.shape} and y {y.shape} must hold the same number of samples")
        if self.eval_type == "multilabel":
            if y_pred.shape != y.shape:
                raise ValueError(f"Accuracy (multilabel): y_pred {y_pred.shape} and y {y.shape} must have one shape")
            correct = np.all(np.round(y_pred) == y, axis=tuple(range(1, y.ndim)))
        else:
            if y.shape == y_pred.shape and y.ndim >= 2:
                y = y.argmax(axis=-1)  # one-hot labels
            if y_pred.ndim != y.ndim + 1:
                raise ValueError(f"Accuracy: y_pred {y_pred.shape} must be scores with one more dim than the "
                                 f"class indices y {y.shape}")
            correct = y_pred.argmax(axis=-1) == y
        self._correct_num += int(correct.sum())
        self._total_num += int(correct.size)

    def eval (self) -> float:  # MindSpore's Metric API name
        if self._total_num == 0:
            raise RuntimeError("Accuracy can not be calculated, because the number of samples is 0.")
        return self._correct_num / self._total_num


class Loss(Metric):
    """The mean of the batch losses. `update(loss)`: a scalar, or a 1-D loss (its mean counts)."""

    def clear(self) -> None:
        self._sum_loss = 0.0
        self._total_num = 0

    def update(self, *inputs: Any) -> None:
        self._check_count(inputs, 1)
        loss = self._convert_data(inputs[0])
        if loss.ndim > 1:
            raise ValueError(f"Loss: the loss must be a scalar or 1-D, got shape {loss.shape}")
        self._sum_loss += float(loss.mean())
        self._total_num += 1

    def eval (self) -> float:  # MindSpore's Metric API name
        if self._total_num == 0:
            raise RuntimeError("Loss can not be calculated, because the number of samples is 0.")
        return self._sum_loss / self._total_num


class _ErrorSum(Metric):
    """Sum of an elementwise error over all elements, divided by the number of samples (MindSpore's MAE/MSE)."""

    def clear(self) -> None:
        self._error_sum = 0.0
        self._samples_num = 0

    @abc.abstractmethod
    def _error(self, diff: np.ndarray) -> np.ndarray:
        """The elementwise error of `y - y_pred`."""

    def update(self, *inputs: Any) -> None:
        self._check_count(inputs, 2)
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if y.size != y_pred.size:
            raise ValueError(f"{type(self).__name__}: y {y.shape} and y_pred {y_pred.shape} must have as many elements")
        diff = y.reshape(y_pred.shape).astype(np.float64) - y_pred.astype(np.float64)
        self._error_sum += float(self._error(diff).sum())
        self._samples_num += y.shape[0] if y.ndim else 1

    def eval (self) -> float:  # MindSpore's Metric API name
        if self._samples_num == 0:
            raise RuntimeError(f"{type(self).__name__} can not be calculated, because the number of samples is 0.")
        return self._error_sum / self._samples_num


class MAE(_ErrorSum):
    """Mean absolute error: sum |y - y_pred| / number of samples. `update(y_pred, y)`."""

    def _error(self, diff: np.ndarray) -> np.ndarray:
        return np.abs(diff)


class MSE(_ErrorSum):
    """Mean squared error: sum (y - y_pred)^2 / number of samples. `update(y_pred, y)`."""

    def _error(self, diff: np.ndarray) -> np.ndarray:
        return diff * diff


_BY_NAME = {"accuracy": Accuracy, "acc": Accuracy, "loss": Loss, "mae": MAE, "mse": MSE}


def get_metric_fn(name: str, *args, **kwargs) -> Metric:
    """A new metric by name ("accuracy" or "acc", "loss", "mae", "mse", "precision", ...), made with args."""
    if name not in _BY_NAME:
        raise ValueError(f"unknown metric {name!r}; known: {sorted(_BY_NAME)}")
    return _BY_NAME[name](*args, **kwargs)


def get_metrics(metrics: Any) -> dict[str, Metric]:
    """`Model`'s `metrics` argument (names, or a dict of name -> Metric) as {name: Metric}."""
    if metrics is None:
        return {}
    if isinstance(metrics, dict):
        bad = [k for k, v in metrics.items() if not isinstance(k, str) or not isinstance(v, Metric)]
        if bad:
            raise TypeError(f"metrics: a dict must map names to Metric instances; bad entry {bad[0]!r}")
        return dict(metrics)
    if isinstance(metrics, str):
        metrics = [metrics]
    if isinstance(metrics, (set, list, tuple)):
        if not all(isinstance(n, str) for n in metrics):
            raise TypeError(f"metrics: give metric names or a dict of name -> Metric, got {metrics!r}")
        return {name: get_metric_fn(name) for name in sorted(metrics)}
    raise TypeError(f"metrics: give metric names or a dict of name -> Metric, got {type(metrics).__name__}")
