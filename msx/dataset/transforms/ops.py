"""The general transforms: type casts, one-hot, concatenation, fills, masks, and composing other transforms."""
from __future__ import annotations

import enum
import operator
from typing import Any, Callable, Sequence

import numpy as np

from ... import dtype as mstype
from ...errors import DatasetError
from ...tensor import Tensor
from .. import _random
from .._init_args import record_init


def as_array(value: Any, op: str) -> np.ndarray:
    """A transform's input as a numpy array (a Tensor, a PIL image or a number too)."""
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, Tensor):
        return value.asnumpy()
    try:
        return np.asarray(value)
    except Exception as exc:
        raise DatasetError(f"{op}: cannot use a {type(value).__name__} as an array: {exc}") from None


def np_dtype(op: str, data_type: Any) -> np.dtype:
    try:
        dtype = mstype.to_np(data_type)
    except (TypeError, ValueError, KeyError):
        dtype = None
    if dtype is None:
        try:
            dtype = np.dtype(data_type)
        except TypeError:
            raise DatasetError(f"{op}: data_type must be an msx or numpy dtype, got {data_type!r}") from None
    return np.dtype(dtype)


class TensorOperation:
    """Base of every msx dataset transform: `__call__` on one sample, by MindSpore's rules.

    `uses_rng`: the transform draws from `_random.rng()` (so `map` gives each row its own generator).
    """

    uses_rng = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        record_init(cls)  # serialize stores a transform by its constructor's arguments

    def __call__(self, *args: Any) -> Any:
        raise NotImplementedError

    def batched(self, rows: np.ndarray) -> np.ndarray | None:
        """The transform of each row of `rows` (rows stacked on a new first axis), as one array, or None.

        A transform whose result per row does not depend on the other rows
        and that computes the same IEEE operations on a stack as on one row
        (elementwise arithmetic, casts, a transpose) returns that stack here,
        so a `map` right before a `batch` runs once per batch instead of once
        per row, with identical values (tf.data's "map vectorization"). None
        means: not possible, run it per row.
        """
        return None

    @property
    def name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        return f"{self.name}()"


def _call(op: Callable, args: tuple) -> tuple:
    out = op(*args)
    return out if isinstance(out, tuple) else (out,)


def _check_transforms(where: str, transforms: Any) -> list[Callable]:
    ops = list(transforms) if isinstance(transforms, (list, tuple)) else None
    if not ops or not all(callable(t) for t in ops):
        raise DatasetError(f"{where}: transforms must be a non-empty list of callables, got {transforms!r}")
    return ops


class Compose(TensorOperation):
    """Apply `transforms` in order; each one's outputs are the next one's inputs."""

    def __init__(self, transforms: Sequence[Callable]) -> None:
        self.transforms = _check_transforms("Compose", transforms)

    def __call__(self, *args: Any) -> Any:
        for t in self.transforms:
            args = _call(t, args)
        return args if len(args) > 1 else args[0]


class RandomApply(TensorOperation):
    """Apply all of `transforms` (in order) with probability `prob`, else none."""

    uses_rng = True

    def __init__(self, transforms: Sequence[Callable], prob: float = 0.5) -> None:
        self.transforms = _check_transforms("RandomApply", transforms)
        if not isinstance(prob, (int, float)) or not 0 <= prob <= 1:
            raise DatasetError(f"RandomApply: prob must be in [0, 1], got {prob!r}")
        self.prob = float(prob)

    def __call__(self, *args: Any) -> Any:
        if _random.rng().random() < self.prob:
            return Compose(self.transforms)(*args)
        return args if len(args) > 1 else args[0]


class RandomChoice(TensorOperation):
    """Apply one of `transforms`, chosen uniformly at random."""

    uses_rng = True

    def __init__(self, transforms: Sequence[Callable]) -> None:
        self.transforms = _check_transforms("RandomChoice", transforms)

    def __call__(self, *args: Any) -> Any:
        return self.transforms[int(_random.rng().integers(len(self.transforms)))](*args)


class RandomOrder(TensorOperation):
    """Apply all of `transforms` in a random order."""

    uses_rng = True

    def __init__(self, transforms: Sequence[Callable]) -> None:
        self.transforms = _check_transforms("RandomOrder", transforms)

    def __call__(self, *args: Any) -> Any:
        order = _random.rng().permutation(len(self.transforms))
        return Compose([self.transforms[i] for i in order])(*args)


class TypeCast(TensorOperation):
    """Cast to `data_type` (an msx dtype such as `ms.int32`, or a numpy dtype)."""

    def __init__(self, data_type: Any) -> None:
        self.data_type = np_dtype("TypeCast", data_type)

    def __call__(self, x: Any) -> np.ndarray:
        array = as_array(x, "TypeCast")
        if array.dtype.kind in "US" and self.data_type.kind not in "US":
            raise DatasetError(f"TypeCast: cannot cast strings to {self.data_type}; use text.ToNumber")
        return array.astype(self.data_type)

    def batched(self, rows: np.ndarray) -> np.ndarray:
        return self(rows)  # a cast is elementwise


class OneHot(TensorOperation):
    """Integer labels -> one-hot rows of `num_classes` (with `smoothing_rate` > 0, which puts
    `1 - smoothing_rate + smoothing_rate / num_classes` on the label and `smoothing_rate / num_classes`
    elsewhere); the label's dtype without smoothing, float64 with it (MindSpore's)."""

    def __init__(self, num_classes: int, smoothing_rate: float = 0.0) -> None:
        if isinstance(num_classes, bool) or not isinstance(num_classes, int) or num_classes < 1:
            raise DatasetError(f"OneHot: num_classes must be a positive int, got {num_classes!r}")
        if not 0 <= smoothing_rate <= 1:
            raise DatasetError(f"OneHot: smoothing_rate must be in [0, 1], got {smoothing_rate!r}")
        self.num_classes, self.smoothing_rate = num_classes, float(smoothing_rate)

    def __call__(self, label: Any) -> np.ndarray:
        array = as_array(label, "OneHot")
        if array.dtype.kind not in "iu":
            raise DatasetError(f"OneHot: labels must be integers, got dtype {array.dtype}")
        if array.size and (array.min() < 0 or array.max() >= self.num_classes):
            raise DatasetError(f"OneHot: labels must be in [0, {self.num_classes}), got {array.min()}..{array.max()}")
        if array.shape == (1,):  # MindSpore treats a one-element label as a scalar
            array = array.reshape(())
        hot = np.eye(self.num_classes, dtype=np.int64)[array]
        if self.smoothing_rate:
            return hot * (1 - self.smoothing_rate) + self.smoothing_rate / self.num_classes  # float64, as MindSpore
        return hot.astype(array.dtype)


class Fill(TensorOperation):
    """An array of the input's shape and dtype filled with `fill_value`."""

    def __init__(self, fill_value: Any) -> None:
        self.fill_value = fill_value

    def __call__(self, x: Any) -> np.ndarray:
        array = as_array(x, "Fill")
        return np.full_like(array, self.fill_value)


class Concatenate(TensorOperation):
    """The 1-D input with `prepend` before and `append` after it (along `axis` 0)."""

    def __init__(self, axis: int = 0, prepend: Any = None, append: Any = None) -> None:
        if axis not in (0, -1):
            raise DatasetError(f"Concatenate: only axis 0 (or -1) of 1-D inputs is supported, got {axis!r}")
        self.prepend = None if prepend is None else np.asarray(prepend)
        self.append = None if append is None else np.asarray(append)

    def __call__(self, x: Any) -> np.ndarray:
        array = as_array(x, "Concatenate")
        if array.ndim != 1:
            raise DatasetError(f"Concatenate: the input must be 1-D, got shape {list(array.shape)}")
        parts = [p for p in (self.prepend, array, self.append) if p is not None]
        kinds = {p.dtype.kind in "US" for p in parts}
        if len(kinds) > 1:
            raise DatasetError("Concatenate: cannot join strings and numbers")
        return np.concatenate(parts).astype(array.dtype if array.dtype.kind not in "US" else parts[0].dtype)


class Duplicate(TensorOperation):
    """Two copies of the input (map it with two output_columns)."""

    def __call__(self, x: Any) -> tuple[np.ndarray, np.ndarray]:
        array = as_array(x, "Duplicate")
        return array, array.copy()


class Relational(enum.Enum):
    """The comparisons `Mask` knows."""

    EQ = operator.eq
    NE = operator.ne
    GT = operator.gt
    GE = operator.ge
    LT = operator.lt
    LE = operator.le


class Mask(TensorOperation):
    """`input <operator> constant` elementwise, cast to `dtype` (default bool)."""

    def __init__(self, operator: Relational, constant: Any, dtype: Any = mstype.bool_) -> None:
        if not isinstance(operator, Relational):
            raise DatasetError(f"Mask: operator must be a transforms.Relational, got {operator!r}")
        self.operator, self.constant, self.dtype = operator, constant, np_dtype("Mask", dtype)

    def __call__(self, x: Any) -> np.ndarray:
        return np.asarray(self.operator.value(as_array(x, "Mask"), self.constant)).astype(self.dtype)


class PadEnd(TensorOperation):
    """Pad (or cut) the input at the end of every axis to `pad_shape` with `pad_value` (default 0 / '')."""

    def __init__(self, pad_shape: Sequence[int], pad_value: Any = None) -> None:
        self.pad_shape, self.pad_value = [int(s) for s in pad_shape], pad_value

    def __call__(self, x: Any) -> np.ndarray:
        array = as_array(x, "PadEnd")
        if array.ndim != len(self.pad_shape):
            raise DatasetError(f"PadEnd: pad_shape {self.pad_shape} has rank {len(self.pad_shape)}, the input "
                               f"{list(array.shape)}")
        array = array[tuple(slice(0, s) for s in self.pad_shape)]
        fill = self.pad_value if self.pad_value is not None else ("" if array.dtype.kind in "US" else 0)
        return np.pad(array, [(0, s - n) for s, n in zip(self.pad_shape, array.shape)], constant_values=fill)


class Slice(TensorOperation):
    """`input[slices]`: ints, Python slices, lists of indices, Ellipsis, one per axis."""

    def __init__(self, *slices: Any) -> None:
        self.slices = tuple(slices)

    def __call__(self, x: Any) -> np.ndarray:
        array = as_array(x, "Slice")
        try:
            return np.asarray(array[self.slices])
        except IndexError as exc:
            raise DatasetError(f"Slice: {exc} (input shape {list(array.shape)})") from None


class Unique(TensorOperation):
    """The 1-D input's distinct values (in first-seen order), each element's index into them, and counts."""

    def __call__(self, x: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        array = as_array(x, "Unique")
        if array.ndim != 1:
            raise DatasetError(f"Unique: the input must be 1-D, got shape {list(array.shape)}")
        values, first, inverse, counts = np.unique(array, return_index=True, return_inverse=True, return_counts=True)
        order = np.argsort(first)
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        return values[order], rank[inverse].astype(np.int32), counts[order].astype(np.int32)


def not_random(func: Callable) -> Callable:
    """Mark a Python function used in `map` as deterministic (`func.random = False`), as MindSpore does so that
    a cache may keep its results."""
    func.random = False
    return func
