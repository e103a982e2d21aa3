"""Argument converters shared by op declarations: user values -> plain-data primitive attributes."""
from __future__ import annotations

from .. import dtype as mstype
from ..errors import OpTypeError
from ..tensor import Tensor


def to_dtype(dtype) -> mstype.Type:
    """`msx.float32`, `"float32"`, `np.float32`... as an msx dtype (a clear OpTypeError otherwise)."""
    try:
        return mstype.to_msx(dtype)
    except TypeError as exc:
        raise OpTypeError(str(exc)) from None


def to_dtype_or_none(dtype) -> mstype.Type | None:
    return None if dtype is None else to_dtype(dtype)


def to_shape(shape) -> tuple[int, ...]:
    """An int, a sequence of ints or a 1-D integer Tensor, as a shape tuple."""
    if isinstance(shape, int):
        return (shape,)
    if isinstance(shape, Tensor):
        return tuple(int(s) for s in shape.asnumpy().reshape(-1))
    return tuple(int(s) for s in shape)


def to_ints(values) -> tuple[int, ...]:
    return (int(values),) if isinstance(values, int) else tuple(int(v) for v in values)


def to_pair(v) -> tuple[int, int]:
    return (int(v), int(v)) if isinstance(v, int) else tuple(int(x) for x in v)


def scalar(v):
    """A one-element Tensor as its Python value; other values unchanged."""
    return v.item() if isinstance(v, Tensor) else v


def reduction(value: str) -> str:
    if value not in ("mean", "sum", "none"):
        raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {value!r}")
    return value
