"""Arithmetic, comparison, matmul and reduction primitives."""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax

from .primitive import primitive


def _shape(x) -> tuple:
    return tuple(getattr(x, "shape", ()))


def _broadcast_check(x, y, **_) -> str | None:
    try:
        np.broadcast_shapes(_shape(x), _shape(y))
    except ValueError:
        return f"shapes {_shape(x)} and {_shape(y)} cannot be broadcast together"
    return None


def _binary(name: str, fn, category: str = "elementwise", differentiable: bool = True):
    return primitive(name, category=category, check=_broadcast_check, differentiable=differentiable)(fn)


def _unary(name: str, fn, differentiable: bool = True):
    return primitive(name, category="elementwise", differentiable=differentiable)(fn)


# ---------------------------------------------------------------- elementwise
ADD = _binary("Add", jnp.add)
SUB = _binary("Sub", jnp.subtract)
MUL = _binary("Mul", jnp.multiply)
DIV = _binary("RealDiv", jnp.true_divide)
FLOOR_DIV = _binary("FloorDiv", jnp.floor_divide, differentiable=False)
MOD = _binary("FloorMod", jnp.mod)
POW = _binary("Pow", jnp.power)
MAXIMUM = _binary("Maximum", jnp.maximum)
MINIMUM = _binary("Minimum", jnp.minimum)
ATAN2 = _binary("Atan2", jnp.arctan2)

EQUAL = _binary("Equal", jnp.equal, differentiable=False)
NOT_EQUAL = _binary("NotEqual", jnp.not_equal, differentiable=False)
LESS = _binary("Less", jnp.less, differentiable=False)
LESS_EQUAL = _binary("LessEqual", jnp.less_equal, differentiable=False)
GREATER = _binary("Greater", jnp.greater, differentiable=False)
GREATER_EQUAL = _binary("GreaterEqual", jnp.greater_equal, differentiable=False)
LOGICAL_AND = _binary("LogicalAnd", jnp.logical_and, differentiable=False)
LOGICAL_OR = _binary("LogicalOr", jnp.logical_or, differentiable=False)
LOGICAL_XOR = _binary("LogicalXor", jnp.logical_xor, differentiable=False)

NEG = _unary("Neg", jnp.negative)
ABS = _unary("Abs", jnp.abs)
EXP = _unary("Exp", jnp.exp)
LOG = _unary("Log", jnp.log)
LOG1P = _unary("Log1p", jnp.log1p)
SQRT = _unary("Sqrt", jnp.sqrt)
RSQRT = _unary("Rsqrt", lax.rsqrt)
SQUARE = _unary("Square", jnp.square)
RECIPROCAL = _unary("Reciprocal", jnp.reciprocal)
SIGN = _unary("Sign", jnp.sign)
FLOOR = _unary("Floor", jnp.floor)
CEIL = _unary("Ceil", jnp.ceil)
ROUND = _unary("Round", jnp.round)
SIN = _unary("Sin", jnp.sin)
COS = _unary("Cos", jnp.cos)
LOGICAL_NOT = _unary("LogicalNot", jnp.logical_not, differentiable=False)
ISNAN = _unary("IsNan", jnp.isnan, differentiable=False)
ISFINITE = _unary("IsFinite", jnp.isfinite, differentiable=False)
ERF = _unary("Erf", lax.erf)


@primitive("Select", category="elementwise")
def select(condition, x, y):
    """`where(condition, x, y)`: x where condition holds, else y (broadcasting)."""
    return jnp.where(condition, x, y)


@primitive("ClipByValue", attrs=("min", "max"), category="elementwise")
def clip(x, *, min=None, max=None):
    return jnp.clip(x, min, max)


# ---------------------------------------------------------------- matmul
def _matmul_check(x, y, **_) -> str | None:
    xs, ys = _shape(x), _shape(y)
    if len(xs) == 0 or len(ys) == 0:
        return f"matmul needs tensors of rank >= 1, got shapes {xs} and {ys}"
    kx = xs[-1]
    ky = ys[-2] if len(ys) >= 2 else ys[0]
    if kx != ky:
        return (f"contracting dims differ: {xs} @ {ys}: dim -1 of the first ({kx}) != "
                f"dim {-2 if len(ys) >= 2 else 0} of the second ({ky})")
    return _broadcast_check(np.empty(xs[:-2]), np.empty(ys[:-2])) if len(xs) > 2 and len(ys) > 2 else None


@primitive("MatMul", category="matmul", check=_matmul_check)
def matmul(x, y):
    """Matrix product with numpy's broadcasting rules for batch dims."""
    return jnp.matmul(x, y)


@primitive("Dense", category="matmul",
           check=lambda x, w, *b: _matmul_check(x, np.empty(_shape(w)[::-1])) if _shape(w) else None)
def dense(x, w, b=None):
    """`x @ w.T + b` (MindSpore's Dense primitive; w is (out, in))."""
    y = jnp.matmul(x, jnp.swapaxes(w, -1, -2))
    return y if b is None else y + b


# ---------------------------------------------------------------- reductions
def _axis(axis):
    """Normalise an axis attribute to None, an int or a tuple of ints (hashable, plain data)."""
    if axis is None or isinstance(axis, int):
        return axis
    axis = tuple(int(a) for a in axis)
    return None if axis == () else axis


def _reduce_check(x, *, axis=None, **_) -> str | None:
    rank = len(_shape(x))
    for a in (() if axis is None else (axis,) if isinstance(axis, int) else axis):
        if not -rank <= a < max(rank, 1):
            return f"axis {a} is out of range for a tensor of rank {rank}"
    return None


def _reduction(name: str, fn, differentiable: bool = True):
    def impl(x, *, axis=None, keepdims=False):
        return fn(x, axis=axis, keepdims=keepdims)

    impl.__doc__ = f"{name} over `axis` (None: all axes)."
    return primitive(name, attrs=("axis", "keepdims"), category="reduce", check=_reduce_check,
                     differentiable=differentiable)(impl)


REDUCE_SUM = _reduction("ReduceSum", jnp.sum)
REDUCE_MEAN = _reduction("ReduceMean", jnp.mean)
REDUCE_MAX = _reduction("ReduceMax", jnp.max)
REDUCE_MIN = _reduction("ReduceMin", jnp.min)
REDUCE_PROD = _reduction("ReduceProd", jnp.prod)
REDUCE_ALL = _reduction("ReduceAll", jnp.all, differentiable=False)
REDUCE_ANY = _reduction("ReduceAny", jnp.any, differentiable=False)


@primitive("Argmax", attrs=("axis", "keepdims"), category="reduce", check=_reduce_check, differentiable=False)
def argmax(x, *, axis=None, keepdims=False):
    return jnp.argmax(x, axis=axis, keepdims=keepdims).astype(jnp.int64)


@primitive("Argmin", attrs=("axis", "keepdims"), category="reduce", check=_reduce_check, differentiable=False)
def argmin(x, *, axis=None, keepdims=False):
    return jnp.argmin(x, axis=axis, keepdims=keepdims).astype(jnp.int64)


@primitive("ArgMaxWithValue", attrs=("axis", "keepdims"), category="reduce", check=_reduce_check,
           multiple_results=True)
def argmax_with_value(x, *, axis=0, keepdims=False):
    """(max values, their indices) along `axis` — MindSpore's `ops.max` with an axis."""
    return jnp.max(x, axis=axis, keepdims=keepdims), jnp.argmax(x, axis=axis, keepdims=keepdims).astype(jnp.int64)


@primitive("ArgMinWithValue", attrs=("axis", "keepdims"), category="reduce", check=_reduce_check,
           multiple_results=True)
def argmin_with_value(x, *, axis=0, keepdims=False):
    return jnp.min(x, axis=axis, keepdims=keepdims), jnp.argmin(x, axis=axis, keepdims=keepdims).astype(jnp.int64)


@primitive("CumSum", attrs=("axis",), category="reduce", check=_reduce_check)
def cumsum(x, *, axis=0):
    return jnp.cumsum(x, axis=axis)


@primitive("Norm", attrs=("ord", "axis", "keepdims"), category="reduce")
def norm(x, *, ord=None, axis=None, keepdims=False):
    return jnp.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims)


