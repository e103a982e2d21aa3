"""Special functions and elementwise math MindSpore exports in `ops` (issue 22 breadth), one declaration each.

Incomplete gamma, polygamma, Hurwitz zeta, multivariate log-gamma, regularised incomplete beta come from
`jax.scipy.special` (differentiable where jax is); the rest are short jnp compositions. Each `Api` carries the
functional name, the class form (`ops.Igamma()`) and the argument names of MindSpore 2.10.
"""
from __future__ import annotations

import jax.numpy as jnp
import jax.scipy.special as jsp
import numpy as np
from jax import lax

from . import math_ops as M
from .api import REQUIRED, SURFACE, Api, Attr, declare, expose
from .attr_converters import to_ints
from .math_ops import _binary, _float_in, _ms_float, _unary
from .primitive import apply, primitive


def _int(v) -> int:
    """An int attribute (a Python int or a one-element integer Tensor); floats are refused."""
    return to_ints(v)[0]


def _opt_float(v):
    return None if v is None else float(v)


# ---------------------------------------------------------------- Bessel functions J, Y, K of orders 0 and 1
# Integral representations evaluated with fixed quadrature (exact to float32 rounding, differentiable, no
# data-dependent control flow) and Hankel's asymptotic series for large |x|, where the integrands oscillate.
_GL_T, _GL_W = np.polynomial.legendre.leggauss(96)
_GL_T, _GL_W = (_GL_T + 1) / 2, _GL_W / 2  # Gauss-Legendre on [0, 1]
_BIG = 25.0


def _hankel(x, n: int, kind: str):
    """J_n or Y_n for large x from Hankel's expansion (four terms: error below float32's at x >= 25)."""
    mu, z = 4.0 * n * n, 8.0 * x
    p = 1 - (mu - 1) * (mu - 9) / (2 * z ** 2) + (mu - 1) * (mu - 9) * (mu - 25) * (mu - 49) / (24 * z ** 4)
    q = (mu - 1) / z - (mu - 1) * (mu - 9) * (mu - 25) / (6 * z ** 3)
    chi = x - (n / 2 + 0.25) * np.pi
    amp = jnp.sqrt(2 / (np.pi * x))
    return amp * (p * jnp.cos(chi) - q * jnp.sin(chi)) if kind == "j" else amp * (p * jnp.sin(chi) + q * jnp.cos(chi))


def _bessel_jy(x, n: int, kind: str):
    ax = jnp.abs(x)
    small = jnp.minimum(ax, _BIG)[..., None]
    theta = np.pi * _GL_T
    if kind == "j":  # J_n(x) = (1/pi) int_0^pi cos(n t - x sin t) dt
        near = jnp.sum(_GL_W * jnp.cos(n * theta - small * jnp.sin(theta)), -1)
    else:  # Y_n(x) = (1/pi) int_0^pi sin(x sin t - n t) dt - (1/pi) int_0^inf (e^{nt} + (-1)^n e^{-nt}) e^{-x sinh t} dt
        first = jnp.sum(_GL_W * jnp.sin(small * jnp.sin(theta) - n * theta), -1)
        top = jnp.arcsinh(60.0 / small)  # e^{-x sinh t} < e^{-60} beyond
        t = top * _GL_T
        tail = jnp.sum(_GL_W * (jnp.exp(n * t) + (-1) ** n * jnp.exp(-n * t)) * jnp.exp(-small * jnp.sinh(t)), -1)
        near = first - top[..., 0] * tail / np.pi
    far = _hankel(jnp.maximum(ax, _BIG), n, kind)
    out = jnp.where(ax < _BIG, near, far)
    if kind == "j":
        return out * jnp.sign(x) if n % 2 else out  # J_1 is odd, J_0 even
    return jnp.where(x > 0, out, jnp.where(x == 0, -jnp.inf, jnp.nan))


def _bessel_k(x, n: int, scaled: bool):
    """K_n(x) = int_0^inf e^{-x cosh t} cosh(n t) dt for x > 0 (times e^x when `scaled`)."""
    pos = jnp.where(x > 0, x, 1.0)[..., None]
    top = jnp.arccosh(1 + 60.0 / pos)  # e^{-x (cosh t - 1)} < e^{-60} beyond
    t = top * _GL_T
    k = top[..., 0] * jnp.sum(_GL_W * jnp.exp(-pos * (jnp.cosh(t) - 1)) * jnp.cosh(n * t), -1)
    k = k if scaled else k * jnp.exp(-pos[..., 0])
    return jnp.where(x > 0, k, jnp.where(x == 0, jnp.inf, jnp.nan))


def _bessel(kind: str, n: int, scaled: bool = False):
    def impl(x):
        x = x if x.dtype.kind in "fV" else x.astype(np.float32)
        wide = x.astype(np.float64) if x.dtype == np.float64 else x.astype(np.float32)
        out = _bessel_k(wide, n, scaled) if kind == "k" else _bessel_jy(wide, n, kind)
        return out.astype(x.dtype)

    impl.__doc__ = f"The Bessel function {kind.upper()}_{n}{' scaled by exp(x)' if scaled else ''}."
    return impl


for _kind, _n, _scaled, _name in (("j", 0, False, "J0"), ("j", 1, False, "J1"), ("y", 0, False, "Y0"),
                                  ("y", 1, False, "Y1"), ("k", 0, False, "K0"), ("k", 1, False, "K1"),
                                  ("k", 0, True, "K0e"), ("k", 1, True, "K1e")):
    _unary(f"Bessel{_name}", _bessel(_kind, _n, _scaled), f"bessel_{_name.lower()}", args=("x",))


# ---------------------------------------------------------------- gamma family
IGAMMA = _binary("Igamma", _ms_float(jsp.gammainc), "igamma", tensor="igamma", differentiable=False)
IGAMMAC = _binary("Igammac", _ms_float(jsp.gammaincc), "igammac", tensor="igammac", differentiable=False)
ZETA = _binary("Zeta", _ms_float(jsp.zeta), "zeta", differentiable=False)


@primitive("Polygamma", attrs=("n",), category="elementwise")
def polygamma_(x, *, n):
    """The n-th derivative of digamma (n = 0: digamma itself)."""
    x = x if x.dtype.kind in "fV" else x.astype(np.float32)
    return jsp.polygamma(n, x).astype(x.dtype)


@expose(ops="polygamma", cls="Polygamma", prim="Polygamma")
def polygamma(n, input):
    """`ops.polygamma(n, input)`: n is an int or a one-element integer Tensor (MindSpore's class takes a Tensor)."""
    return apply(polygamma_, (input,), {"n": _int(n)})


@primitive("Mvlgamma", attrs=("p",), category="elementwise",
           api=Api("mvlgamma", args=("input",), attrs=(Attr("p", REQUIRED, _int),), cls="Mvlgamma", init=("p",),
                   tensor="mvlgamma"))
def mvlgamma(x, *, p):
    """Multivariate log-gamma of dimension p."""
    return jsp.multigammaln(x, p).astype(x.dtype)


@primitive("Betainc", category="elementwise", differentiable=False,
           api=Api(args=("a", "b", "x"), cls="Betainc"))
def betainc(a, b, x):
    """The regularised incomplete beta function I_x(a, b)."""
    return jsp.betainc(a, b, x)


# ---------------------------------------------------------------- elementwise arithmetic
LDEXP = _binary("Ldexp", _ms_float(lambda x, other: x * jnp.exp2(other).astype(jnp.result_type(x, jnp.float32))),
                "ldexp", cls="", tensor="ldexp", args=("x", "other"))


@primitive("NanToNum", attrs=("nan", "posinf", "neginf"), category="elementwise",
           api=Api("nan_to_num", attrs=(Attr("nan", None, _opt_float), Attr("posinf", None, _opt_float),
                                        Attr("neginf", None, _opt_float)),
                   cls="NanToNum", init=("nan", "posinf", "neginf"), tensor="nan_to_num", mint="nan_to_num"))
def nan_to_num(x, *, nan=None, posinf=None, neginf=None):
    """NaN -> `nan` (0.0), +inf -> `posinf` (the dtype's max), -inf -> `neginf` (the dtype's lowest)."""
    return jnp.nan_to_num(x, nan=0.0 if nan is None else nan, posinf=posinf, neginf=neginf)


@primitive("IsClose", attrs=("rtol", "atol", "equal_nan"), category="elementwise", differentiable=False,
           api=Api("isclose", args=("input", "other"), attrs=(Attr("rtol", 1e-05, float), Attr("atol", 1e-08, float),
                                                             Attr("equal_nan", False, bool)),
                   cls="IsClose", init=("rtol", "atol", "equal_nan"), tensor="isclose", mint="isclose"))
def isclose(x, y, *, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|x - y| <= atol + rtol * |y|, elementwise."""
    return jnp.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan)


@primitive("AllClose", attrs=("rtol", "atol", "equal_nan"), differentiable=False,
           api=Api(mint="allclose", tensor="allclose", args=("input", "other"),
                   attrs=(Attr("rtol", 1e-05, float), Attr("atol", 1e-08, float), Attr("equal_nan", False, bool)),
                   result=bool))
def allclose(x, y, *, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Every |x - y| <= atol + rtol * |y| (broadcast); MindSpore's `mint.allclose` answers a Python bool and
    refuses operands of different dtypes."""
    if jnp.result_type(x) != jnp.result_type(y):
        raise TypeError(f"allclose takes operands of one dtype, got {jnp.result_type(x)} and {jnp.result_type(y)}")
    return jnp.all(jnp.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan))


@primitive("ApproximateEqual", attrs=("tolerance",), category="elementwise", differentiable=False,
           api=Api("approximate_equal", args=("x", "y"), attrs=(Attr("tolerance", 1e-05, float),),
                   cls="ApproximateEqual", init=("tolerance",), tensor="approximate_equal"))
def approximate_equal(x, y, *, tolerance=1e-05):
    """|x - y| < tolerance, elementwise."""
    return jnp.abs(x - y) < tolerance


@primitive("PopulationCount", category="elementwise", differentiable=False,
           api=Api("population_count", args=("input_x",), cls="PopulationCount"))
def population_count(x):
    """The number of set bits of each element, as uint8."""
    return lax.population_count(x).astype(jnp.uint8)


@primitive("Eps", category="elementwise", differentiable=False, api=Api("eps", args=("x",), cls="Eps"))
def eps(x):
    """A tensor like `x` filled with its float dtype's machine epsilon (MindSpore's `Eps`)."""
    return jnp.full(x.shape, jnp.finfo(x.dtype).eps, x.dtype)


@primitive("LerpScalar", category="elementwise", api=Api(args=("input", "end", "weight"), cls="LerpScalar"))
def lerp_scalar(x, end, weight):
    """`input + weight * (end - input)` with a Python float weight."""
    return x + weight * (end - x)


# ---------------------------------------------------------------- complex construction
@primitive("Complex", category="elementwise", api=Api(args=("real", "imag"), cls="Complex"))
def complex_(real, imag):
    """real + 1j * imag (float32 -> complex64, float64 -> complex128)."""
    return lax.complex(real, imag)


@primitive("Polar", category="elementwise", api=Api("polar", args=("abs", "angle"), cls="Polar", mint="polar"))
def polar(r, theta):
    """abs * (cos(angle) + 1j sin(angle))."""
    return lax.complex(r * jnp.cos(theta), r * jnp.sin(theta))


# ---------------------------------------------------------------- running reductions
@primitive("CumulativeLogsumexp", attrs=("axis", "exclusive", "reverse"), category="reduce",
           api=(Api("logcumsumexp", attrs=(Attr("axis", REQUIRED, _int),), tensor="logcumsumexp"),
                Api(args=("x",), attrs=(Attr("axis", REQUIRED, _int), Attr("exclusive", False, bool),
                                        Attr("reverse", False, bool)),
                    cls="CumulativeLogsumexp", init=("exclusive", "reverse"))))
def logcumsumexp(x, *, axis, exclusive=False, reverse=False):
    """log(cumsum(exp(x))) along `axis`, computed stably; `exclusive` leaves each element out."""
    if reverse:
        x = jnp.flip(x, axis)
    out = lax.cumlogsumexp(x, axis=axis % x.ndim)
    if exclusive:
        # MindSpore fills the empty leading sum with the dtype's lowest finite value, not -inf
        lowest = jnp.full_like(lax.slice_in_dim(out, 0, 1, axis=axis), jnp.finfo(out.dtype).min)
        out = jnp.concatenate([lowest, lax.slice_in_dim(out, 0, out.shape[axis] - 1, axis=axis)], axis=axis)
    return jnp.flip(out, axis) if reverse else out


# ---------------------------------------------------------------- MindSpore's other names for existing ops
def _alias(prim, names: str, args: tuple = ("input", "other")) -> None:
    """More functional names of an op already declared (MindSpore's `ops.tensor_add` is `Add`)."""
    declare(prim, (Api(names, args=args),))


for _prim, _names, _args in (
        (M.ADD, "tensor_add", ("input", "other")), (M.SUB, "tensor_sub", ("input", "other")),
        (M.MUL, "tensor_mul tensor_muls", ("input", "other")), (M.DIV, "tensor_div", ("x", "y")),
        (M.EXP, "tensor_exp", ("input",)), (M.EXPM1, "tensor_expm1", ("input",)),
        (M.FLOOR_DIV, "tensor_floordiv floordiv", ("input", "other")), (M.FLOOR_DIV, "floor_div", ("x", "y")),
        (M.MOD, "tensor_mod floormod", ("x", "y")), (M.POW, "tensor_pow pows", ("input", "exponent")),
        (M.GREATER_EQUAL, "tensor_ge", ("input", "other")), (M.GREATER, "tensor_gt", ("input", "other")),
        (M.LESS_EQUAL, "tensor_le", ("input", "other")), (M.LESS, "tensor_lt", ("input", "other")),
        (M.RECIPROCAL, "inv", ("x",)), (M.TRUNCATE_DIV, "truncate_div", ("x", "y")),
        (M.TRUNCATE_MOD, "truncate_mod", ("x", "y"))):
    _alias(_prim, _names, _args)
declare(M.CUMMAX, (Api(attrs=(Attr("axis", REQUIRED, _int),), cls="Cummax", init=("axis",)),))
declare(M.CUMMIN, (Api(attrs=(Attr("axis", REQUIRED, _int),), cls="Cummin", init=("axis",)),))

_ops = SURFACE["ops"]


@expose(cls="Argmin", init=("axis", "output_type"))
def _argmin_cls(x, axis=-1, output_type=None):
    """`ops.Argmin(axis=-1, output_type=ms.int32)(x)`: indices of the minimum along `axis`."""
    out = _ops["argmin"](x, axis)
    return out if output_type is None else _ops["cast"](out, output_type)


@expose(cls="Logit", init=("eps",))
def _logit_cls(input, eps=-1.0):
    """`ops.Logit(eps=-1.0)(x)`: a negative eps means no clamping."""
    return _ops["logit"](input, None if eps < 0 else eps)


@expose(cls="Cross", init=("dim",))
def _cross_cls(input, other, dim=-65530):
    """`ops.Cross(dim=-65530)(a, b)`: MindSpore's default dim means the first dim of size 3."""
    return _ops["cross"](input, other, None if dim == -65530 else dim)


@expose(cls="Gelu")
def _gelu_tanh(x):
    """MindSpore's deprecated `ops.Gelu()`: GeLU with the tanh approximation (as `ops.GeLU()`)."""
    return _ops["gelu"](x, approximate="tanh")


def _bitpack_check(x, threshold) -> str | None:
    kinds = ("bool", "float16", "float32", "float64", "int8", "int16", "int32", "int64")
    if np.dtype(x.dtype).name not in kinds:
        return f"x dtype must be one of {', '.join(kinds)}, got {np.dtype(x.dtype).name}"
    if threshold.dtype != x.dtype:
        return f"threshold dtype must be x's ({np.dtype(x.dtype).name}), got {np.dtype(threshold.dtype).name}"
    if np.ndim(threshold) != 0:
        return f"threshold must be a 0-D Tensor, got shape {tuple(threshold.shape)}"
    if x.ndim == 0 or x.shape[-1] % 8:
        return f"x's innermost dimension must be divisible by 8, got shape {tuple(x.shape)}"
    return None


@primitive("CompareAndBitpack", check=_bitpack_check, differentiable=False,
           api=Api(args=("x", "threshold"), cls="CompareAndBitpack"))
def compare_and_bitpack(x, threshold):
    """`x > threshold`, each run of 8 along the last dim packed into a uint8 (the first element the highest bit).
    A bool `x` is packed as it is, the first element the lowest bit, `threshold` unused (MindSpore's CPU kernel)."""
    reason = _bitpack_check(x, threshold)
    if reason is not None:
        raise (TypeError if "dtype" in reason else ValueError)(reason)
    flag = x if x.dtype == jnp.bool_ else x > threshold
    bits = flag.astype(jnp.uint8).reshape(x.shape[:-1] + (x.shape[-1] // 8, 8))
    order = [1, 2, 4, 8, 16, 32, 64, 128] if x.dtype == jnp.bool_ else [128, 64, 32, 16, 8, 4, 2, 1]
    weights = jnp.asarray(order, jnp.uint8)
    return jnp.sum(bits * weights, axis=-1, dtype=jnp.uint8)
