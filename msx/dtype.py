"""msx dtypes: MindSpore's names (`msx.float32`, ...) over numpy/jax dtypes.

A `Type` compares equal to another `Type` of the same name and to anything
numpy accepts as the same dtype (`np.float32`, `jnp.float32`, `"float32"`), so
`t.dtype == msx.float32` and `t.dtype == jnp.float32` both hold.
"""
from __future__ import annotations

import builtins

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
float8_e4m3fn = Type("float8_e4m3fn", jnp.float8_e4m3fn)
float8_e5m2 = Type("float8_e5m2", jnp.float8_e5m2)



class _ShownType(Type):
    """A dtype MindSpore prints under another name than its own (`qint4x2` prints as `Int4`)."""

    __slots__ = ("shown",)

    def __init__(self, name: str, np_dtype, shown: str) -> None:
        super().__init__(name, np_dtype)
        self.shown = shown

    def __repr__(self) -> str:
        return self.shown

    __str__ = __repr__


class NoArrayType:
    """A MindSpore dtype with no numpy/XLA storage format (Ascend's HiFloat8): it can be named, compared and
    sized, but no Tensor can hold it; making one raises a TypeError saying so."""

    __slots__ = ("name", "shown", "itemsize")

    def __init__(self, name: str, shown: str, itemsize: builtins.int) -> None:
        self.name, self.shown, self.itemsize = name, shown, itemsize

    def __repr__(self) -> str:
        return self.shown

    __str__ = __repr__

    def __eq__(self, other) -> bool:
        return other is self

    def __hash__(self) -> builtins.int:
        return hash(self.name)

    @property
    def is_floating(self) -> bool:
        return True

    @property
    def np_dtype(self):
        raise TypeError(self.reason())

    def reason(self) -> str:
        return (f"msx has no {self.name} storage: {self.shown} is an Ascend-only format that numpy and XLA do "
                f"not have; use float8_e4m3fn or float8_e5m2")


qint4x2 = _ShownType("qint4x2", jnp.int4, "Int4")  # MindSpore's packed 4-bit ints: XLA's int4
hifloat8 = NoArrayType("hifloat8", "HiFloat8", 1)

float_ = float32
half = float16
double = float64
int_ = int32

_ALL = (float16, bfloat16, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool_,
        complex64, complex128, float8_e4m3fn, float8_e5m2, qint4x2)
_BY_NP = {t.np_dtype: t for t in _ALL}


def to_msx(dtype) -> Type:
    """The msx `Type` for any dtype-like (msx Type, numpy/jax dtype, string)."""
    if isinstance(dtype, Type):
        return dtype
    if isinstance(dtype, NoArrayType):
        raise TypeError(dtype.reason())
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


# the module defines `float`, `int` and `bool` (MindSpore's dtype aliases) at the end: use builtins by name
_BOOL, _INT, _FLOAT, _COMPLEX = builtins.bool, builtins.int, builtins.float, builtins.complex


def dtype_to_nptype(type_) -> type:
    """The numpy scalar type of an msx dtype (`float32` -> `numpy.float32`)."""
    return to_msx(type_).np_dtype.type


def dtype_to_pytype(type_) -> type:
    """The Python type holding values of an msx dtype (`float32` -> `float`, `int8` -> `int`)."""
    kind = to_msx(type_).np_dtype.kind
    return {"b": _BOOL, "i": _INT, "u": _INT, "f": _FLOAT, "V": _FLOAT, "c": _COMPLEX}[kind]


def pytype_to_dtype(obj) -> Type:
    """The msx dtype MindSpore gives a Python type: bool -> bool_, int -> int64, float -> float64."""
    if isinstance(obj, Type):
        return obj
    table = {_BOOL: bool_, _INT: int64, _FLOAT: float64, _COMPLEX: complex128}
    if obj in table:
        return table[obj]
    return to_msx(obj)


def get_py_obj_dtype(obj) -> Type:
    """The dtype of a Python value or Tensor (`1.0` -> float64, a Tensor -> its dtype)."""
    if hasattr(obj, "dtype") and isinstance(getattr(obj, "dtype"), Type):
        return obj.dtype
    if isinstance(obj, type):
        return pytype_to_dtype(obj)
    return pytype_to_dtype(type(obj))


# MindSpore 2.x's torch-style aliases (`ms.float` is float32, `ms.long` int64, `ms.byte` int8 as in MindSpore)
single, cfloat, cdouble = float32, complex64, complex128
byte, short, intc, long, intp = int8, int16, int32, int64, int64
ubyte, ushort, uintc, uintp = uint8, uint16, uint32, uint64
globals().update({"float": float32, "int": int32, "bool": bool_})  # after every use of the builtins above

int_type = (int8, int16, int32, int64)
uint_type = (uint8, uint16, uint32, uint64)
float_type = (float16, float32, float64, bfloat16)
complex_type = (complex64, complex128)
signed_type = int_type + float_type + complex_type
number_type = int_type + uint_type + float_type + complex_type
all_types = (bool_,) + number_type


def type_size_in_bytes(dtype) -> builtins.int:
    if isinstance(dtype, NoArrayType):
        return dtype.itemsize
    return to_msx(dtype).itemsize


__all__ = sorted(n for n, v in list(globals().items())
                 if not n.startswith("_") and n not in ("annotations", "builtins", "np", "jnp", "NoArrayType"))
