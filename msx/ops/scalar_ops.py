"""MindSpore's scalar, bool and sequence helpers of `ops` (`scalar_add`, `tuple_len`, `make_range`, ...).

In MindSpore these are graph-mode primitives on Python scalars and tuples; in PyNative they compute with Python's
rules, which is all they can mean here too: under `msx.jit` their operands are Python constants of the captured
program, so plain Python is exact in every mode. The helpers that make Tensors (`scalar_to_tensor`,
`tuple_to_array`) go through `Tensor`, with MindSpore's default dtypes.
"""
from __future__ import annotations

import math
import operator

import numpy as np

from .. import dtype as mstype
from ..tensor import Tensor
from .api import SURFACE, expose
from .attr_converters import scalar, to_dtype


def _binary(name: str, fn, doc: str):
    def call(x, y):
        return fn(x, y)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = doc
    return expose(ops=name)(call)


def _unary(name: str, fn, doc: str):
    def call(x):
        return fn(x)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = doc
    return expose(ops=name)(call)


scalar_add = _binary("scalar_add", operator.add, "x + y of two Python scalars.")
scalar_sub = _binary("scalar_sub", operator.sub, "x - y of two Python scalars.")
scalar_mul = _binary("scalar_mul", operator.mul, "x * y of two Python scalars.")
scalar_div = _binary("scalar_div", operator.truediv, "x / y (true division: always a float).")
scalar_floordiv = _binary("scalar_floordiv", operator.floordiv, "x // y (Python's floor division).")
scalar_mod = _binary("scalar_mod", operator.mod, "x % y (Python's sign of the divisor).")
scalar_pow = _binary("scalar_pow", operator.pow, "x ** y.")
scalar_eq = _binary("scalar_eq", operator.eq, "x == y.")
scalar_lt = _binary("scalar_lt", operator.lt, "x < y.")
scalar_le = _binary("scalar_le", operator.le, "x <= y.")
scalar_gt = _binary("scalar_gt", operator.gt, "x > y.")
scalar_ge = _binary("scalar_ge", operator.ge, "x >= y.")
scalar_max = _binary("scalar_max", max, "max(x, y).")
scalar_min = _binary("scalar_min", min, "min(x, y).")
scalar_log = _unary("scalar_log", math.log, "The natural logarithm of a Python scalar.")
scalar_uadd = _unary("scalar_uadd", operator.pos, "+x.")
scalar_usub = _unary("scalar_usub", operator.neg, "-x.")
tuple_len = _unary("tuple_len", len, "len(t) of a tuple.")
list_len = _unary("list_len", len, "len(l) of a list.")
tuple_getitem = _binary("tuple_getitem", operator.getitem, "t[i] of a tuple.")
list_getitem = _binary("list_getitem", operator.getitem, "l[i] of a list.")
tuple_equal = _binary("tuple_equal", operator.eq, "t1 == t2 of two tuples.")
list_equal = _binary("list_equal", operator.eq, "l1 == l2 of two lists.")


@expose(ops="tuple_reversed")
def tuple_reversed(x):
    """The tuple in reverse order."""
    return tuple(reversed(x))


@expose(ops="tuple_div")
def tuple_div(x, y):
    """Elementwise integer division of two equal-length int tuples (each must divide exactly)."""
    if len(x) != len(y):
        raise ValueError(f"tuple_div: the tuples differ in length ({len(x)} and {len(y)})")
    for a, b in zip(x, y):
        if b == 0 or a % b:
            raise ValueError(f"tuple_div: {a} is not divisible by {b}")
    return tuple(a // b for a, b in zip(x, y))


def _set(copy, index, value):
    """`copy` (a fresh container: graph values are immutable) with item `index` set to `value`."""
    copy[index] = value
    return copy


@expose(ops="tuple_setitem")
def tuple_setitem(x, index, value):
    """A copy of the tuple with item `index` replaced by `value`."""
    return tuple(_set(list(x), index, value))


@expose(ops="list_setitem")
def list_setitem(x, index, value):
    """A copy of the list with item `index` replaced by `value`."""
    return _set(list(x), index, value)


@expose(ops="make_tuple")
def make_tuple(*args):
    return tuple(args)


@expose(ops="make_list")
def make_list(*args):
    return list(args)


@expose(ops="make_range")
def make_range(*args):
    """`make_range(stop)`, `(start, stop)` or `(start, stop, step)`, as a tuple of ints."""
    if not 1 <= len(args) <= 3 or not all(isinstance(a, int) for a in args):
        raise TypeError(f"make_range takes one to three ints, got {args!r}")
    return tuple(range(*args))


@expose(ops="shape_mul")
def shape_mul(input_data):
    """The product of a shape tuple's entries (the number of elements)."""
    return math.prod(input_data)


@expose(ops="bool_not")
def bool_not(x):
    """`not x`, as a bool Tensor (MindSpore's PyNative result)."""
    return Tensor(np.array(not x))


_CASTS = {mstype.int64: int, mstype.float64: float, mstype.bool_: bool}


@expose(ops="scalar_cast")
def scalar_cast(input_x, input_y):
    """A Python scalar cast to `ms.int64` (int), `ms.float64` (float) or `ms.bool_` (bool)."""
    target = to_dtype(input_y)
    if target not in _CASTS:
        raise ValueError(f"scalar_cast: the supported types are int64, float64 and bool, got {target}")
    return _CASTS[target](input_x)


@expose(ops="scalar_to_tensor")
def scalar_to_tensor(input_x, dtype=mstype.float32):
    """A 0-d Tensor holding the scalar, of `dtype` (float32 by default)."""
    if not isinstance(input_x, (bool, int, float)):
        raise TypeError(f"scalar_to_tensor: input_x must be a Python bool, int or float, got {type(input_x).__name__}")
    return Tensor(np.array(input_x, to_dtype(dtype).np_dtype))


@expose(ops="tuple_to_array")
def tuple_to_array(input_x):
    """A 1-D Tensor from a tuple of numbers: ints become int32, floats float32 (MindSpore's choice)."""
    if not isinstance(input_x, (tuple, list)) or not input_x:
        raise TypeError(f"tuple_to_array: input_x must be a non-empty tuple of numbers, got {input_x!r}")
    kind = np.float32 if any(isinstance(v, float) for v in input_x) else np.int32
    return Tensor(np.array(input_x, kind))


@expose(cls="ScalarToTensor")
def _scalar_to_tensor_cls(x, dtype=mstype.float32):
    """`ops.ScalarToTensor()(x, dtype=ms.float32)`."""
    return scalar_to_tensor(x, dtype)


@expose(cls="TupleToArray")
def _tuple_to_array_cls(input_x):
    """`ops.TupleToArray()(t)`."""
    return tuple_to_array(input_x)


@expose(cls="ScalarCast")
def _scalar_cast_cls(input_x, input_y):
    """`ops.ScalarCast()(x, ms.int64)`."""
    return scalar_cast(input_x, input_y)


# graph-mode helpers MindSpore's parser emits for Python syntax (`a and b`, `k in d`, `d[k] = v`, slices)
bool_and = _binary("bool_and", lambda x, y: bool(x) and bool(y), "`x and y` of two bools.")
bool_or = _binary("bool_or", lambda x, y: bool(x) or bool(y), "`x or y` of two bools.")
bool_eq = _binary("bool_eq", lambda x, y: bool(x) == bool(y), "`x == y` of two bools.")
scalar_ne = _binary("scalar_ne", operator.ne, "x != y.")
string_eq = _binary("string_eq", operator.eq, "s1 == s2 of two strings.")
string_concat = _binary("string_concat", operator.add, "s1 + s2 of two strings.")
is_ = _binary("is_", operator.is_, "`x is y`.")
is_not = _binary("is_not", operator.is_not, "`x is not y`.")
in_dict = _binary("in_dict", lambda key, d: key in d, "`key in d` of a dict.")
not_in_dict = _binary("not_in_dict", lambda key, d: key not in d, "`key not in d` of a dict.")
dict_getitem = _binary("dict_getitem", operator.getitem, "d[key] of a dict.")


@expose(ops="dict_setitem")
def dict_setitem(d, key, value):
    """A copy of the dict with `key` set to `value`."""
    return _set(dict(d), key, value)


@expose(ops="make_dict")
def make_dict(keys, values):
    """A dict from a tuple of keys and a tuple of values."""
    if len(keys) != len(values):
        raise ValueError(f"make_dict: {len(keys)} keys but {len(values)} values")
    return dict(zip(keys, values))


@expose(ops="make_slice")
def make_slice(start, stop, step):
    """`slice(start, stop, step)`."""
    return slice(start, stop, step)


@expose(ops="tensor_range")
def tensor_range(start, end, step):
    """`ops.tensor_range(start, end, step)` (MindSpore's `Range` primitive): arange of ints or 0-d Tensors."""
    return SURFACE["ops"]["arange"](scalar(start), scalar(end), scalar(step))
