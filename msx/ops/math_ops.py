"""Arithmetic, comparison, matmul and reduction primitives, each with its MindSpore surface (`api.Api`).

Those only hand-written wrappers run are declared beside them: `Dense` in `functional_nn.py`; `ClipByValue`,
`Norm`, `AddN` in `functional_math.py`."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import jax.scipy.special as jsp
import numpy as np
from jax import lax

from .api import REQUIRED, Api, Attr, expose
from .attr_converters import AttrError
from .primitive import apply, primitive


def _shape(x) -> tuple:
    return tuple(getattr(x, "shape", ()))


def _broadcast_check(x, y, **_) -> str | None:
    try:
        np.broadcast_shapes(_shape(x), _shape(y))
    except ValueError:
        return f"shapes {_shape(x)} and {_shape(y)} cannot be broadcast together"
    return None


_F64 = np.dtype(np.float64)
_I64 = np.dtype(np.int64)


def _ms_float(fn):
    """MindSpore computes integer (and Python-float-with-integer) inputs of float-valued ops in float32.

    jax with x64 would give float64; the result is float64 only when an input really was float64.
    Scalar operands follow `_scalar_operands` first.
    """
    def impl(*xs, **kw):
        xs = _scalar_operands(xs)
        out = fn(*xs, **kw)
        if out.dtype is _F64 and not any(_really_f64(x) for x in xs):
            return out.astype(np.float32)
        return out

    impl.__doc__ = fn.__doc__
    return impl


def _scalar_operands(xs: tuple) -> tuple:
    """MindSpore's rule for a scalar operand (Python or numpy, any numpy dtype) beside a tensor, in every mode.

    The scalar is weakly typed: its own width never widens the result. Beside a float tensor the result has
    the tensor's dtype (`f16 + np.float64(0.7)` is float16); a float scalar beside an integer or bool tensor
    gives float32; an integer or bool scalar beside an integer tensor takes the tensor's dtype, wrapping
    (`u8 + np.int32(256)` is `u8 + 0`); an integer scalar beside a bool tensor gives int64. Capture stores a
    numpy scalar as the Python scalar it holds, so eager and compiled calls see the same operands.
    """
    if len(xs) != 2:
        return xs
    x, y = (x.item() if isinstance(x, np.generic) else x for x in xs)
    return _wrap_int(x, y), _wrap_int(y, x)


def _wrap_int(s, other):
    """An integer/bool Python scalar beside an integer tensor, as a 0-d array of that tensor's dtype (wrapped)."""
    if not isinstance(s, int) or isinstance(other, (bool, int, float, complex)) or not hasattr(other, "dtype"):
        return s
    dt = np.dtype(other.dtype)
    if dt.kind not in "iu":
        return s
    bits = 8 * dt.itemsize
    return np.array(int(s) % (1 << bits), np.uint64).astype(dt)  # two's complement wrap, as MindSpore's cast


def _really_f64(x) -> bool:
    """A float64 input, not a Python float that jax traces as a weakly typed float64 (the shape rule and
    the verifier trace Python scalars; eager calls see them as plain floats): the same answer in both."""
    return getattr(x, "dtype", None) is _F64 and not getattr(getattr(x, "aval", None), "weak_type", False)


def _float_in(fn):
    """Float-valued unary ops take integer/bool inputs as float32 (MindSpore's result dtype)."""
    def impl(x):
        if getattr(x, "dtype", _I64).kind not in "fcV":  # V: bfloat16 and the other ml_dtypes floats
            x = jnp.asarray(x, jnp.float32)
        return fn(x)

    impl.__doc__ = fn.__doc__
    return impl


def _binary(name: str, fn, ops="", cls=None, tensor=(), mint=(), operator=(), args=("input", "other"),
            category: str = "elementwise", differentiable: bool = True, extra: tuple = (), inplace=(), **traits):
    api = Api(ops=ops, args=args, cls=name if cls is None else cls, tensor=tensor, mint=mint, operator=operator,
              inplace=inplace)
    return primitive(name, category=category, check=_broadcast_check, differentiable=differentiable, **traits,
                     api=((api,) if ops or cls or tensor or mint or operator else ()) + tuple(extra))(fn)


def _unary(name: str, fn, ops="", cls=None, tensor=(), mint=(), differentiable: bool = True, args=("input",),
           extra: tuple = (), inplace=(), **traits):
    """`extra`: more `Api`s of the same op, for names MindSpore spells with other argument names."""
    api = Api(ops=ops, args=args, cls=name if cls is None else cls, tensor=tensor, mint=mint, inplace=inplace)
    return primitive(name, category="elementwise", differentiable=differentiable, **traits,
                     api=((api,) if ops or tensor or mint else ()) + tuple(extra))(fn)


# ---------------------------------------------------------------- elementwise binary
ADD = _binary("Add", _ms_float(jnp.add), "add", cls="Add TensorAdd", tensor="add", operator="__add__ __radd__",
              mindir="Add")
SUB = _binary("Sub", _ms_float(jnp.subtract), "sub", tensor="sub", operator="__sub__ __rsub__", mindir="Sub")
MUL = _binary("Mul", _ms_float(jnp.multiply), "mul multiply", tensor="mul multiply", mint="mul", operator="__mul__ __rmul__",
              mindir="Mul", inplace="mul_")
DIV = _binary("RealDiv", _ms_float(jnp.true_divide), "true_divide", cls="RealDiv Div", tensor="true_divide",
              args=("dividend", "divisor"), operator="__truediv__ __rtruediv__", mindir="RealDiv")
FLOOR_DIV = _binary("FloorDiv", _ms_float(jnp.floor_divide), "floor_divide", tensor="floor_divide",
                    mint="floor_divide", differentiable=False, operator="__floordiv__ __rfloordiv__", mindir="FloorDiv",
                    inplace="floor_divide_")
MOD = _binary("FloorMod", _ms_float(jnp.mod), "remainder", cls="FloorMod", extra=(Api("floor_mod", args=("x", "y")),), tensor="remainder",
              mint="remainder", operator="__mod__ __rmod__", mindir="FloorMod", inplace="remainder_")

POW = _binary("Pow", _ms_float(jnp.power), "pow", args=("input", "exponent"), tensor="pow", mint="pow",
              operator="__pow__ __rpow__", mindir="Pow")
MAXIMUM = _binary("Maximum", _ms_float(jnp.maximum), "maximum", tensor="maximum", mint="maximum", mindir="Maximum")
MINIMUM = _binary("Minimum", _ms_float(jnp.minimum), "minimum", tensor="minimum", mint="minimum", mindir="Minimum")
ATAN2 = _binary("Atan2", _ms_float(jnp.arctan2), "atan2 arctan2", tensor="atan2 arctan2", mint="atan2 arctan2",
                mindir="Atan2")
FMOD = _binary("Mod", _ms_float(jnp.fmod), "fmod", tensor="fmod", mint="fmod")
HYPOT = _binary("Hypot", _ms_float(jnp.hypot), "hypot", tensor="hypot")
LOGADDEXP = _binary("LogAddExp", _ms_float(jnp.logaddexp), "logaddexp", cls="", tensor="logaddexp",
                    mint="logaddexp")
LOGADDEXP2 = _binary("LogAddExp2", _ms_float(jnp.logaddexp2), "logaddexp2", cls="", tensor="logaddexp2",
                     mint="logaddexp2")
COPYSIGN = _binary("CopySign", _ms_float(jnp.copysign), "copysign", cls="", tensor="copysign", args=("x", "other"))
NEXTAFTER = _binary("NextAfter", jnp.nextafter, "nextafter", tensor="nextafter", differentiable=False)
HEAVISIDE = _binary("Heaviside", jnp.heaviside, "heaviside", tensor="heaviside", args=("input", "values"),
                    differentiable=False)
FMAX = _binary("Fmax", jnp.fmax, "fmax", tensor="fmax")
FMIN = _binary("Fmin", jnp.fmin, "fmin", tensor="fmin")
XLOGY = _binary("Xlogy", _ms_float(jsp.xlogy), "xlogy", tensor="xlogy", mint="xlogy")
XDIVY = _binary("Xdivy", _ms_float(lambda x, y: jnp.where(x == 0, jnp.zeros((), jnp.result_type(x, y)), x / y)),
                "xdivy", tensor="xdivy", args=("x", "y"))
SQUARED_DIFFERENCE = _binary("SquaredDifference", lambda x, y: jnp.square(x - y), cls="SquaredDifference",
                             args=("x", "y"))
DIV_NO_NAN = _binary("DivNoNan", _ms_float(lambda x, y: jnp.where(y == 0, jnp.zeros((), jnp.result_type(x, y)),
                                                                  x / jnp.where(y == 0, 1, y))),
                     cls="DivNoNan", args=("x1", "x2"))
MUL_NO_NAN = _binary("MulNoNan", lambda x, y: jnp.where(y == 0, jnp.zeros((), jnp.result_type(x, y)), x * y),
                     cls="MulNoNan", args=("x", "y"))


def _truncate_div(x, y):
    """Division rounded toward zero (C semantics), for integers and floats."""
    dt = jnp.result_type(x, y)
    x, y = jnp.broadcast_arrays(jnp.asarray(x, dt), jnp.asarray(y, dt))
    return jnp.trunc(x / y) if jnp.issubdtype(dt, jnp.inexact) else lax.div(x, y)


TRUNCATE_DIV = _binary("TruncateDiv", _truncate_div, cls="TruncateDiv", args=("x", "y"), differentiable=False)
TRUNCATE_MOD = _binary("TruncateMod", jnp.fmod, cls="TruncateMod", args=("x", "y"))
GCD = _binary("Gcd", jnp.gcd, "gcd", tensor="gcd", mint="gcd", differentiable=False)
LCM = _binary("Lcm", jnp.lcm, "lcm", tensor="lcm", differentiable=False)
BITWISE_AND = _binary("BitwiseAnd", jnp.bitwise_and, "bitwise_and", tensor="bitwise_and", mint="bitwise_and",
                      differentiable=False)
BITWISE_OR = _binary("BitwiseOr", jnp.bitwise_or, "bitwise_or", tensor="bitwise_or", mint="bitwise_or",
                     differentiable=False)
BITWISE_XOR = _binary("BitwiseXor", jnp.bitwise_xor, "bitwise_xor", tensor="bitwise_xor", mint="bitwise_xor",
                      differentiable=False)
LEFT_SHIFT = _binary("LeftShift", jnp.left_shift, "bitwise_left_shift", tensor="bitwise_left_shift",
                     differentiable=False)
RIGHT_SHIFT = _binary("RightShift", jnp.right_shift, "bitwise_right_shift", tensor="bitwise_right_shift",
                      differentiable=False)

EQUAL = _binary("Equal", jnp.equal, "equal eq", tensor="equal eq", mint="equal eq", differentiable=False,
                mindir="Equal")
NOT_EQUAL = _binary("NotEqual", jnp.not_equal, "not_equal ne", tensor="not_equal ne", mint="not_equal ne",
                    differentiable=False, mindir="NotEqual")
LESS = _binary("Less", jnp.less, "less lt", tensor="less lt", mint="less lt", operator="__lt__",
               differentiable=False, mindir="Less")
LESS_EQUAL = _binary("LessEqual", jnp.less_equal, "less_equal le", tensor="less_equal le", mint="less_equal le",
                     operator="__le__", differentiable=False, mindir="LessEqual")
GREATER = _binary("Greater", jnp.greater, "greater gt", tensor="greater gt", mint="greater gt",
                  operator="__gt__", differentiable=False, mindir="Greater")
GREATER_EQUAL = _binary("GreaterEqual", jnp.greater_equal, "greater_equal ge", tensor="greater_equal ge",
                        mint="greater_equal ge", operator="__ge__", differentiable=False, mindir="GreaterEqual")
LOGICAL_AND = _binary("LogicalAnd", jnp.logical_and, "logical_and", tensor="logical_and", mint="logical_and",
                      operator="__and__ __rand__", differentiable=False, mindir="LogicalAnd")
LOGICAL_OR = _binary("LogicalOr", jnp.logical_or, "logical_or", tensor="logical_or", mint="logical_or",
                     operator="__or__ __ror__", differentiable=False, mindir="LogicalOr")
LOGICAL_XOR = _binary("LogicalXor", jnp.logical_xor, "logical_xor", tensor="logical_xor", mint="logical_xor",
                      operator="__xor__", differentiable=False)

# ---------------------------------------------------------------- elementwise unary
NEG = _unary("Neg", jnp.negative, "neg negative", tensor="neg negative", mint="neg negative", mindir="Neg")
ABS = _unary("Abs", jnp.abs, "abs absolute", cls="Abs ComplexAbs", tensor="abs absolute", mint="abs", mindir="Abs")
EXP = _unary("Exp", _float_in(jnp.exp), "exp", tensor="exp", mint="exp", mindir="Exp", inplace="exp_")
LOG = _unary("Log", _float_in(jnp.log), "log", tensor="log", mint="log", mindir="Log", inplace="log_")
LOG1P = _unary("Log1p", _float_in(jnp.log1p), "log1p", tensor="log1p", mint="log1p", mindir="Log1p")
SQRT = _unary("Sqrt", _float_in(jnp.sqrt), "sqrt", args=("x",), tensor="sqrt", extra=(Api(mint="sqrt"),), mindir="Sqrt")
RSQRT = _unary("Rsqrt", _float_in(lax.rsqrt), "rsqrt", tensor="rsqrt", mint="rsqrt", mindir="Rsqrt")
SQUARE = _unary("Square", jnp.square, "square", tensor="square", mint="square", mindir="Square")
RECIPROCAL = _unary("Reciprocal", _float_in(jnp.reciprocal), "reciprocal", cls="Reciprocal Inv",
                    tensor="reciprocal inv", mint="reciprocal", mindir="Reciprocal")
SIGN = _unary("Sign", jnp.sign, "sign", tensor="sign", mint="sign", mindir="Sign", inplace="sign_")
SGN = _unary("Sgn", jnp.sign, "sgn", cls="", tensor="sgn")
FLOOR = _unary("Floor", jnp.floor, "floor", tensor="floor", mint="floor", mindir="Floor", inplace="floor_")
CEIL = _unary("Ceil", jnp.ceil, "ceil", tensor="ceil", mint="ceil", mindir="Ceil")


@primitive("Round", attrs=("decimals",), category="elementwise",
           api=Api("round", attrs=(Attr("decimals", 0, int, kw_only=True),), cls="Round", tensor="round",
                   mint="round"))
def round_(x, *, decimals=0):
    """Round half to even (numpy/MindSpore), to `decimals` places."""
    return jnp.round(x, decimals)


RINT = _unary("Rint", jnp.rint, "rint")
TRUNC = _unary("Trunc", jnp.trunc, "trunc fix", tensor="trunc fix", mint="trunc fix")
FRAC = _unary("Frac", lambda x: x - jnp.trunc(x), "frac", args=("x",), cls="", tensor="frac",
              extra=(Api(mint="frac"),))
SIN = _unary("Sin", _float_in(jnp.sin), "sin", tensor="sin", mint="sin", mindir="Sin")
COS = _unary("Cos", _float_in(jnp.cos), "cos", tensor="cos", mint="cos", mindir="Cos")
TAN = _unary("Tan", _float_in(jnp.tan), "tan", tensor="tan", mint="tan")
ASIN = _unary("Asin", _float_in(jnp.arcsin), "asin", tensor="asin arcsin", mint="asin",
              extra=(Api("arcsin", args=("x",), mint="arcsin"),))
ACOS = _unary("ACos", _float_in(jnp.arccos), "acos arccos", tensor="acos arccos", mint="acos arccos")
ATAN = _unary("Atan", _float_in(jnp.arctan), "atan arctan", tensor="atan arctan", mint="atan arctan")
SINH = _unary("Sinh", _float_in(jnp.sinh), "sinh", tensor="sinh", mint="sinh")
COSH = _unary("Cosh", _float_in(jnp.cosh), "cosh", tensor="cosh", mint="cosh")
ASINH = _unary("Asinh", _float_in(jnp.arcsinh), "asinh arcsinh", tensor="asinh arcsinh", mint="asinh arcsinh")
ACOSH = _unary("Acosh", _float_in(jnp.arccosh), "acosh arccosh", tensor="acosh arccosh", mint="acosh arccosh")
ATANH = _unary("Atanh", _float_in(jnp.arctanh), "atanh arctanh", tensor="atanh arctanh", mint="atanh arctanh")
ERF = _unary("Erf", _float_in(jsp.erf), "erf", tensor="erf", mint="erf", mindir="Erf")
ERFC = _unary("Erfc", _float_in(jsp.erfc), "erfc", tensor="erfc", mint="erfc")
ERFINV = _unary("Erfinv", _float_in(jsp.erfinv), "erfinv", tensor="erfinv", mint="erfinv", inplace="erfinv_")
EXPM1 = _unary("Expm1", _float_in(jnp.expm1), "expm1", tensor="expm1", mint="expm1")
EXP2 = _unary("Exp2", _float_in(jnp.exp2), "exp2", cls="", mint="exp2")
LOG2 = _unary("Log2", _float_in(jnp.log2), "log2", cls="", tensor="log2", mint="log2")
LOG10 = _unary("Log10", _float_in(jnp.log10), "log10", cls="", tensor="log10", mint="log10")
LGAMMA = _unary("Lgamma", _float_in(jsp.gammaln), "lgamma", tensor="lgamma")
DIGAMMA = _unary("Digamma", _float_in(jsp.digamma), "digamma", tensor="digamma")
I0 = _unary("BesselI0", _float_in(jsp.i0), "i0", tensor="i0", extra=(Api("bessel_i0", args=("x",)),))
I0E = _unary("BesselI0e", _float_in(jsp.i0e), "bessel_i0e", args=("x",))
I1 = _unary("BesselI1", _float_in(jsp.i1), "bessel_i1", args=("x",))
I1E = _unary("BesselI1e", _float_in(jsp.i1e), "bessel_i1e", args=("x",))
SINC = _unary("Sinc", _float_in(jnp.sinc), "sinc", tensor="sinc", mint="sinc")
DEG2RAD = _unary("Deg2Rad", _float_in(jnp.deg2rad), "deg2rad", cls="", tensor="deg2rad", args=("x",))
RAD2DEG = _unary("Rad2Deg", _float_in(jnp.rad2deg), "rad2deg", cls="", tensor="rad2deg", args=("x",))
CONJ = _unary("Conj", jnp.conj, "conj", tensor="conj")
REAL = _unary("Real", jnp.real, "real", tensor="real", mint="real")
IMAG = _unary("Imag", jnp.imag, "imag", tensor="imag", mint="imag")
ANGLE = _unary("Angle", _float_in(jnp.angle), "angle", tensor="angle")
POSITIVE = _unary("Positive", lambda x: x, "positive", cls="", tensor="positive")
BITWISE_NOT = _unary("BitwiseNot", jnp.bitwise_not, "", cls="", tensor="bitwise_not", mint="bitwise_not",
                     differentiable=False)
INVERT = _unary("Invert", jnp.invert, "invert", tensor="invert", args=("x",), differentiable=False)
LOGICAL_NOT = _unary("LogicalNot", jnp.logical_not, "logical_not", tensor="logical_not", mint="logical_not",
                     differentiable=False, mindir="LogicalNot")
ISNAN = _unary("IsNan", jnp.isnan, "isnan", tensor="isnan", differentiable=False,
               extra=(Api("isnan_ext", args=("tensor",), mint="isnan"),), mindir="IsNan")
ISFINITE = _unary("IsFinite", jnp.isfinite, "isfinite", tensor="isfinite", mint="isfinite", differentiable=False,
                  mindir="IsFinite")
ISINF = _unary("IsInf", jnp.isinf, "isinf", tensor="isinf", mint="isinf", differentiable=False)
ISNEGINF = _unary("IsNegInf", jnp.isneginf, "isneginf", cls="", tensor="isneginf", mint="isneginf",
                  differentiable=False)
ISPOSINF = _unary("IsPosInf", jnp.isposinf, "isposinf", cls="", tensor="isposinf", differentiable=False)
ISREAL = _unary("IsReal", jnp.isreal, "isreal", cls="", tensor="isreal", differentiable=False)
SIGNBIT = _unary("SignBit", jnp.signbit, "signbit", cls="", tensor="signbit", differentiable=False)


@primitive("Select", category="elementwise",
           api=Api("where", args=("condition", "input", "other"), cls="Select", mint="where"))
def select(condition, x, y):
    """`where(condition, x, y)`: x where condition holds, else y (broadcasting)."""
    return jnp.where(condition, x, y)


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


@primitive("MatMul", category="matmul", check=_matmul_check,
           api=Api("matmul", args=("input", "other"), tensor="matmul", mint="matmul",
                   operator="__matmul__ __rmatmul__"))
def matmul(x, y):
    """Matrix product with numpy's broadcasting rules for batch dims. A float with an integer operand is
    refused, as MindSpore does (jnp would promote the integer one)."""
    dx, dy = getattr(x, "dtype", None), getattr(y, "dtype", None)  # (a non-array operand: jnp's error, below)
    if dx is not None and dy is not None and jnp.issubdtype(dx, jnp.inexact) != jnp.issubdtype(dy, jnp.inexact):
        raise TypeError(f"the operands' dtypes must both be floating or both integer, got {jnp.dtype(dx).name} "
                        f"and {jnp.dtype(dy).name}")
    return jnp.matmul(x, y)


# ---------------------------------------------------------------- reductions
def _axis(axis):
    """Normalise an axis attribute to None, an int or a tuple of ints (hashable, plain data)."""
    if axis is None or isinstance(axis, int):
        return axis
    if hasattr(axis, "ndim") and not axis.ndim:  # a 0-d integer Tensor or array
        return int(axis)
    if not isinstance(axis, (tuple, list)) or not all(isinstance(a, (int, np.integer)) for a in axis):
        raise AttrError(f"axis must be None, an int or a tuple of ints, got {type(axis).__name__} ({axis!r})")
    axis = tuple(int(a) for a in axis)
    return None if axis == () else axis


def _reduce_check(x, *, axis=None, **_) -> str | None:
    rank = len(_shape(x))
    for a in (() if axis is None else (axis,) if isinstance(axis, int) else axis):
        if not -rank <= a < max(rank, 1):
            return f"axis {a} is out of range for a tensor of rank {rank}"
    return None


def _ms_axes(ops="", cls="", tensor="", mint="", keep="keep_dims", axis="axis", axis_default=None, arg="input"):
    """The usual reduction signatures: MindSpore's (input, axis, keep_dims) and mint's (input, dim, keepdim)."""
    apis = []
    if ops or cls or tensor:
        apis.append(Api(ops, args=(arg,), attrs=(Attr(axis, axis_default, _axis, to="axis"),
                                                 Attr(keep, False, bool, to="keepdims")),
                        cls=cls, init=("keep_dims",) if cls else (), tensor=tensor))
    if mint:
        apis.append(Api(attrs=(Attr("dim", None, _axis, to="axis"), Attr("keepdim", False, bool, to="keepdims")),
                        mint=mint))
    return tuple(apis)


def _reduction(name: str, fn, differentiable: bool = True, api=()):
    def impl(x, *, axis=None, keepdims=False):
        return fn(x, axis=axis, keepdims=keepdims)

    impl.__doc__ = f"{name} over `axis` (None: all axes)."
    return primitive(name, attrs=("axis", "keepdims"), category="reduce", check=_reduce_check,
                     differentiable=differentiable, api=api)(impl)


# ops.reduce_sum(x, axis=()) in MindSpore; msx keeps a trailing keep_dims (an extra, never a conflict)
REDUCE_SUM = _reduction("ReduceSum", jnp.sum, api=_ms_axes("reduce_sum", arg="x"))  # class: classes.ReduceSum
def _mean(x, axis=None, keepdims=False):
    """Mean; integer inputs give an integer result truncated toward zero (MindSpore)."""
    out = jnp.mean(x, axis=axis, keepdims=keepdims)
    return out if x.dtype.kind in "fcV" else out.astype(x.dtype)


REDUCE_MEAN = _reduction("ReduceMean", _mean,
                         api=_ms_axes("mean reduce_mean", cls="ReduceMean", arg="x") + _ms_axes(tensor="mean"))
REDUCE_MAX = _reduction("ReduceMax", jnp.max, api=_ms_axes("reduce_max", cls="ReduceMax", arg="x")
                        + _ms_axes(mint="amax"))
REDUCE_MIN = _reduction("ReduceMin", jnp.min, api=_ms_axes("reduce_min", cls="ReduceMin", arg="x")
                        + _ms_axes(mint="amin"))
REDUCE_PROD = _reduction("ReduceProd", jnp.prod, api=_ms_axes(cls="ReduceProd"))
REDUCE_ALL = _reduction("ReduceAll", jnp.all, differentiable=False,
                        api=_ms_axes("all", cls="ReduceAll", tensor="all", mint="all"))
REDUCE_ANY = _reduction("ReduceAny", jnp.any, differentiable=False,
                        api=_ms_axes("any", cls="ReduceAny", tensor="any", mint="any"))
LOGSUMEXP = _reduction("ReduceLogSumExp", jax.nn.logsumexp,
                       api=(Api("logsumexp", attrs=(Attr("dim", REQUIRED, _axis, to="axis"),
                                                    Attr("keepdim", False, bool, to="keepdims")),
                                tensor="logsumexp", mint="logsumexp"),))
NANSUM = _reduction("ReduceNanSum", jnp.nansum)
NANMEAN = _reduction("ReduceNanMean", _ms_float(jnp.nanmean))


def _arg_reduction(name, fn, api, index_dtype):
    def impl(x, *, axis=None, keepdims=False):
        return fn(x, axis=axis, keepdims=keepdims).astype(index_dtype)

    return primitive(name, attrs=("axis", "keepdims"), category="reduce", check=_reduce_check,
                     differentiable=False, api=api)(impl)


ARGMAX = _arg_reduction("Argmax", jnp.argmax, (
    Api(("argmax", "argmax_ext"), attrs=(Attr("dim", None, _axis, to="axis"),
                                         Attr("keepdim", False, bool, to="keepdims")), mint="argmax"),), jnp.int64)
ARGMIN = _arg_reduction("Argmin", jnp.argmin, (
    Api("argmin", attrs=(Attr("axis", None, _axis), Attr("keepdims", False, bool)), tensor="argmin"),
    Api(attrs=(Attr("dim", None, _axis, to="axis"), Attr("keepdim", False, bool, to="keepdims")), mint="argmin")),
    jnp.int32)  # MindSpore 2.10: argmax gives int64, argmin int32
argmax, argmin = ARGMAX, ARGMIN


def _with_value(name, fn, argfn, tensor):
    def impl(x, *, axis=0, keepdims=False):
        return fn(x, axis=axis, keepdims=keepdims), argfn(x, axis=axis, keepdims=keepdims).astype(jnp.int64)

    impl.__doc__ = f"(values, indices) of {name} along `axis` (the class-style op returns (indices, values))."
    return primitive(name, attrs=("axis", "keepdims"), category="reduce", check=_reduce_check,
                     multiple_results=True)(impl)


argmax_with_value = _with_value("ArgMaxWithValue", jnp.max, jnp.argmax, "argmax_with_value")
argmin_with_value = _with_value("ArgMinWithValue", jnp.min, jnp.argmin, "argmin_with_value")


def _cum_api(cls):
    return Api(attrs=(Attr("axis", REQUIRED, int), Attr("exclusive", False, bool), Attr("reverse", False, bool)),
               cls=cls, init=("exclusive", "reverse"))


def _cumulate(scan, exclusive_of, x, axis: int, exclusive: bool, reverse: bool):
    """A running `scan` along `axis`, from the end when `reverse`; `exclusive_of(out, x)` leaves each element out."""
    if reverse:
        x = jnp.flip(x, axis)
    out = scan(x, axis=axis)
    if exclusive:
        out = exclusive_of(out, x)
    return jnp.flip(out, axis) if reverse else out


@primitive("CumSum", attrs=("axis", "exclusive", "reverse"), category="reduce", check=_reduce_check,
           api=_cum_api("CumSum"))
def cumsum(x, *, axis=0, exclusive=False, reverse=False):
    """Running sum along `axis`; `exclusive` leaves each element out, `reverse` runs from the end."""
    return _cumulate(jnp.cumsum, lambda out, x: out - x, x, axis, exclusive, reverse)


@primitive("CumProd", attrs=("axis", "exclusive", "reverse"), category="reduce", check=_reduce_check,
           api=_cum_api("CumProd"))
def cumprod(x, *, axis=0, exclusive=False, reverse=False):
    def shifted(out, x):  # the product before each element: 1, then the running product shifted by one
        return jnp.concatenate([jnp.ones_like(lax.slice_in_dim(out, 0, 1, axis=axis)),
                                lax.slice_in_dim(out, 0, out.shape[axis] - 1, axis=axis)], axis=axis)

    return _cumulate(jnp.cumprod, shifted, x, axis, exclusive, reverse)


def _cum_extreme(name, fn, index_dtype):
    @primitive(name, attrs=("axis",), category="reduce", check=_reduce_check, multiple_results=True,
               api=(Api(name.lower(), attrs=(Attr("axis", REQUIRED, int),), tensor=name.lower()),
                    Api(attrs=(Attr("dim", REQUIRED, int, to="axis"),), mint=name.lower())))
    def impl(x, *, axis):
        """(running extreme, index where it was reached) along `axis`."""
        axis = axis % x.ndim
        values = fn(x, axis=axis)
        n = x.shape[axis]
        idx = jnp.arange(n).reshape([-1 if i == axis else 1 for i in range(x.ndim)])
        hit = jnp.where(x == values, jnp.broadcast_to(idx, x.shape), -1)
        return values, lax.cummax(hit, axis=axis).astype(index_dtype)

    return impl


CUMMAX = _cum_extreme("Cummax", lax.cummax, jnp.int64)
CUMMIN = _cum_extreme("Cummin", lax.cummin, jnp.int32)  # MindSpore 2.10's index dtypes


# ---------------------------------------------------------------- more arithmetic (issue 22 breadth)
@primitive("Addcdiv", category="elementwise",
           api=(Api("addcdiv", args=("input", "tensor1", "tensor2", "value"), arg_defaults=(("value", 1),),
                   cls="Addcdiv", tensor="addcdiv"),))
def addcdiv(x, t1, t2, value):
    """`input + value * tensor1 / tensor2`."""
    return x + value * t1 / t2


@expose(mint="addcdiv", prim="Addcdiv")
def addcdiv_ext(input, tensor1, tensor2, *, value=1):
    """`mint.addcdiv`: `value` is keyword-only and defaults to 1."""
    return apply(addcdiv, (input, tensor1, tensor2, value))


@primitive("Addcmul", category="elementwise",
           api=(Api("addcmul", args=("input", "tensor1", "tensor2", "value"), arg_defaults=(("value", 1),),
                   cls="Addcmul", tensor="addcmul"),))
def addcmul(x, t1, t2, value):
    """`input + value * tensor1 * tensor2`."""
    return x + value * t1 * t2


@expose(mint="addcmul", prim="Addcmul")
def addcmul_ext(input, tensor1, tensor2, *, value=1):
    """`mint.addcmul`: `value` is keyword-only and defaults to 1."""
    return apply(addcmul, (input, tensor1, tensor2, value))


@primitive("Lerp", category="elementwise",
           api=Api("lerp", args=("input", "end", "weight"), cls="Lerp", tensor="lerp", mint="lerp"))
def lerp(x, end, weight):
    """`input + weight * (end - input)`."""
    return x + weight * (end - x)


FLOAT_POWER = _binary("FloatPower", lambda x, y: jnp.power(jnp.asarray(x, jnp.float64), y), "float_power",
                      cls="", tensor="float_power", mint="float_power", args=("input", "exponent"))


@primitive("Det", category="matmul", api=Api("det", cls="", tensor="det"))
def det(x):
    return jnp.linalg.det(x)


@primitive("MatrixInverse", category="matmul", api=Api("inverse", cls="", tensor="inverse",
                                                       mint="inverse"))
def inverse(x):
    return jnp.linalg.inv(x)


def _raise_if(reason: str | None, kind: type) -> None:
    """The impl's own check (the registry words the error: op name, inputs, this reason)."""
    if reason is not None:
        raise kind(reason)


def _complex_check(x) -> str | None:
    if not jnp.issubdtype(x.dtype, jnp.complexfloating):
        return f"input dtype must be complex64 or complex128, got {x.dtype}"
    return None


@primitive("ViewAsReal", check=_complex_check, api=Api("view_as_real", args=("input",)))
def view_as_real(input):
    """complex (...) -> real (..., 2): the real part, then the imaginary part."""
    _raise_if(_complex_check(input), TypeError)
    return jnp.stack([jnp.real(input), jnp.imag(input)], axis=-1)
