"""msx dtypes: MindSpore's names (`msx.float32`, ...) over numpy/jax dtypes.

A `Type` compares equal to another `Type` of the same name and to anything
numpy accepts as the same dtype (`np.float32`, `jnp.float32`, `"float32"`), so
`t.dtype == msx.float32` and `t.dtype == jnp.float32` both hold.
"""
from __future__ import annotations

import numpy as np
import jax.numpy as jnp


class Type:
    """One msx dtype; `np_dtype` is the numpy dtype jax stores."""

    __slots__ = ("name", "np_dtype")

    def __init__(self, name: str, np_dtype) -> None:
        self.name = name
        self.np_dtype = np.dtype(np_dtype)

    def __repr__(self) -> str:
        """MindSpore's spelling: Float32, Int64, UInt8, BFloat16, Bool."""
        name = self.name.rstrip("_")
        for prefix, shown in (("uint", "UInt"), ("bfloat", "BFloat")):
            if name.startswith(prefix):
                return shown + name[len(prefix):]
        return name[0].upper() + name[1:]

    __str__ = __repr__

    def __eq__(self, other) -> bool:
        if isinstance(other, Type):
            return self.np_dtype == other.np_dtype
        if other is None:  # np.dtype(None) is float64; None is no dtype
            return False
        try:
            return self.np_dtype == np.dtype(other)
        except TypeError:
            return False

    def __hash__(self) -> int:
        return hash(self.np_dtype)

    @property
    def is_floating(self) -> bool:
        return jnp.issubdtype(self.np_dtype, jnp.floating)

    @property
    def itemsize(self) -> int:
        return self.np_dtype.itemsize


float16 = Type("float16", jnp.float16)
bfloat16 = Type("bfloat16", jnp.bfloat16)
float32 = Type("float32", jnp.float32)
float64 = Type("float64", jnp.float64)
int8 = Type("int8", jnp.int8)
int16 = Type("int16", jnp.int16)
int32 = Type("int32", jnp.int32)
int64 = Type("int64", jnp.int64)
uint8 = Type("uint8", jnp.uint8)
uint16 = Type("uint16", jnp.uint16)
uint32 = Type("uint32", jnp.uint32)
uint64 = Type("uint64", jnp.uint64)
bool_ = Type("bool_", jnp.bool_)
complex64 = Type("complex64", jnp.complex64)
complex128 = Type("complex128", jnp.complex128)

float_ = float32
half = float16
double = float64
int_ = int32

_ALL = (float16, bfloat16, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool_,
        complex64, complex128)
_BY_NP = {t.np_dtype: t for t in _ALL}


def to_msx(dtype) -> Type:
    """The msx `Type` for any dtype-like (msx Type, numpy/jax dtype, string)."""
    if isinstance(dtype, Type):
        return dtype
    try:
        return _BY_NP[np.dtype(dtype)]
    except (KeyError, TypeError):
        raise TypeError(f"unsupported dtype {dtype!r}; msx supports {', '.join(t.name for t in _ALL)}") from None


def to_np(dtype) -> np.dtype | None:
    """The numpy dtype for a dtype-like, or None for None."""
    if dtype is None:
        return None
    if isinstance(dtype, Type):
        return dtype.np_dtype
    return to_msx(dtype).np_dtype


def from_array(array) -> Type:
    """The msx `Type` of an array's dtype (fast path for Tensor.dtype)."""
    return _BY_NP[array.dtype]
