"""Argument converters shared by op declarations: user values -> plain-data primitive attributes."""
from __future__ import annotations

import numpy as np

from .. import dtype as mstype
from ..errors import OpError, OpTypeError
from ..tensor import Tensor


def to_dtype(dtype) -> mstype.Type:
    """`msx.float32`, `"float32"`, `np.float32`... as an msx dtype (a clear OpTypeError otherwise)."""
    try:
        return mstype.to_msx(dtype)
    except TypeError as exc:
        raise OpTypeError(str(exc)) from None


def to_dtype_or_none(dtype) -> mstype.Type | None:
    return None if dtype is None else to_dtype(dtype)


class AttrError(OpTypeError):
    """An attribute value of the wrong kind; the generated op functions prefix the op's name (`named`)."""

    def named(self, op: str) -> OpTypeError:
        return OpTypeError(f"{op}: {self.message}", loc=self.loc)


def _int(v, what: str) -> int:
    """`v` as an int when it is one (a Python/numpy int or an integer Tensor of one element); never truncates."""
    if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
        return int(v)
    if isinstance(v, Tensor) and v.size == 1 and not v.dtype.is_floating and v.dtype != mstype.bool_:
        return int(v)
    kind = f"a float ({v!r})" if isinstance(v, (float, np.floating)) else \
        f"a {v.dtype} Tensor" if isinstance(v, Tensor) else f"a {type(v).__name__} ({v!r})"
    raise AttrError(f"{what} must be ints, got {kind}")


def to_shape(shape, what: str = "shape") -> tuple[int, ...]:
    """An int, a sequence of ints or a 1-D integer Tensor, as a shape tuple (floats and strings are refused)."""
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, (bool, np.bool_)):
        return (int(shape),)
    if isinstance(shape, Tensor):
        if shape.dtype.is_floating or shape.dtype == mstype.bool_:
            raise AttrError(f"{what} must be ints, got a {shape.dtype} Tensor")
        return tuple(int(s) for s in shape.asnumpy().reshape(-1))
    if isinstance(shape, np.ndarray) and shape.ndim <= 1:
        shape = shape.reshape(-1).tolist()
    if not isinstance(shape, (tuple, list)):
        raise AttrError(f"{what} must be an int or a tuple of ints, got a {type(shape).__name__} ({shape!r})")
    return tuple(_int(s, what) for s in shape)


def to_int(v, what: str) -> int:
    """`v` as an int when it is one (never truncates a float, never takes None): `AttrError` naming `what`."""
    if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
        return int(v)
    raise AttrError(f"{what} must be an int, got {type(v).__name__} ({v!r})")


def to_axis(axis, rank: int, op: str) -> int:
    """An axis of a rank-`rank` tensor, non-negative: a TypeError for a non-int, a ValueError out of range
    (MindSpore's types), each naming `op`."""
    try:
        axis = to_int(axis, "axis")
    except AttrError as exc:
        raise exc.named(op) from None
    if not -rank <= axis < max(rank, 1):
        raise OpError(f"{op}: axis {axis} is out of range for a tensor of rank {rank}")
    return axis % max(rank, 1)


def to_ints(values, what: str = "the values") -> tuple[int, ...]:
    if isinstance(values, (tuple, list)):
        return tuple(_int(v, what) for v in values)
    if isinstance(values, (np.ndarray, Tensor)) and values.size != 1:
        return tuple(_int(v, what) for v in np.asarray(values).reshape(-1).tolist())
    return (_int(values, what),)


def to_pair(v) -> tuple[int, int]:
    return (int(v), int(v)) if isinstance(v, int) else tuple(int(x) for x in v)


def scalar(v):
    """A one-element Tensor as its Python value; other values unchanged."""
    return v.item() if isinstance(v, Tensor) else v


def reduction(value: str) -> str:
    if value not in ("mean", "sum", "none"):
        raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {value!r}")
    return value
