"""Norms, distances, differences and ranges of MindSpore's `ops` (issue 22): `vector_norm`, `matrix_norm`,
`LpNorm`, `renorm`, `cdist`/`pdist`/`dist`, `L2Normalize`, `diff`, `trapz`, `logspace`, `LinSpace`.
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from .api import SURFACE, Api, Attr, expose
from .array_ops import _np_dtype
from .attr_converters import scalar, to_dtype_or_none, to_ints
from .math_ops import _axis
from .primitive import apply, primitive


def _int(v) -> int:
    return to_ints(v)[0]


def _p(v) -> float:
    v = scalar(v)
    return float(v) if not isinstance(v, str) else v


def _float(x):
    return x if x.dtype.kind in "fc" else x.astype(np.float32)


# ---------------------------------------------------------------- norms
@primitive("VectorNorm", attrs=("ord", "axis", "keepdims"), category="reduce")
def vector_norm_(x, *, ord=2.0, axis=None, keepdims=False):  # noqa: A002
    """The p-norm of x over `axis` (all elements when None); inf/-inf: max/min |x|; 0: the non-zero count."""
    a = jnp.abs(_float(x))
    if ord == float("inf"):
        return jnp.max(a, axis=axis, keepdims=keepdims)
    if ord == float("-inf"):
        return jnp.min(a, axis=axis, keepdims=keepdims)
    if ord == 0:
        return jnp.sum(a != 0, axis=axis, keepdims=keepdims).astype(a.dtype)
    if ord == 2:
        return jnp.sqrt(jnp.sum(a * a, axis=axis, keepdims=keepdims))
    return jnp.sum(a ** ord, axis=axis, keepdims=keepdims) ** (1.0 / ord)


def _cast_to(x, dtype):
    return x if dtype is None else SURFACE["ops"]["cast"](x, dtype)


@expose(ops="vector_norm")
def vector_norm(x, ord=2, axis=None, keepdims=False, *, dtype=None):  # noqa: A002
    return apply(vector_norm_, (_cast_to(x, dtype),), {"ord": float(ord), "axis": _axis(axis),
                                                       "keepdims": bool(keepdims)})


@expose(mint="norm", prim="VectorNorm")
def norm_ext(input, p="fro", dim=None, keepdim=False, *, dtype=None):
    """`mint.norm`: 'fro' (and a number) is the vector p-norm over `dim` (every element when None);
    'nuc' the nuclear norm of the matrices over the two dims `dim` (the last two when None)."""
    if p == "nuc":
        return matrix_norm(input, "nuc", (-2, -1) if dim is None else dim, keepdim, dtype=dtype)
    if p == "fro":
        p = 2.0
    if isinstance(p, str) or isinstance(p, bool):
        raise ValueError(f"mint.norm: p must be 'fro', 'nuc' or a number, got {p!r}")
    return vector_norm(input, p, dim, keepdim, dtype=dtype)


@primitive("MatrixNorm", attrs=("ord", "axis", "keepdims"), category="reduce")
def matrix_norm_(x, *, ord="fro", axis=(-2, -1), keepdims=False):  # noqa: A002
    """Frobenius, nuclear, 1/-1 (column sums), inf/-inf (row sums) or 2/-2 (singular values) matrix norms."""
    return jnp.linalg.matrix_norm(_float(x), ord=ord, keepdims=keepdims) if tuple(axis) in ((-2, -1),) else \
        jnp.linalg.norm(_float(x), ord=ord, axis=axis, keepdims=keepdims)


@expose(ops="matrix_norm", prim="MatrixNorm")
def matrix_norm(A, ord="fro", axis=(-2, -1), keepdims=False, *, dtype=None):  # noqa: N803,A002
    if ord not in ("fro", "nuc", 1, -1, 2, -2, float("inf"), float("-inf")):
        raise ValueError(f"matrix_norm: ord must be 'fro', 'nuc', 1, -1, 2, -2, inf or -inf, got {ord!r}")
    return apply(matrix_norm_, (_cast_to(A, dtype),), {"ord": ord if isinstance(ord, str) else float(ord),
                                                       "axis": to_ints(axis), "keepdims": bool(keepdims)})


@expose(cls="LpNorm", init=("axis", "p", "keep_dims", "epsilon"))
def _lp_norm_cls(input, axis, p=2, keep_dims=False, epsilon=1e-12):
    """`ops.LpNorm(axis, p=2, keep_dims=False, epsilon=1e-12)(x)`: the p-norm over `axis`."""
    return apply(vector_norm_, (input,), {"ord": float(p), "axis": _axis(axis), "keepdims": bool(keep_dims)})


@expose(cls="EuclideanNorm", init=("keep_dims",))
def _euclidean_norm_cls(x, axes, keep_dims=False):
    """`ops.EuclideanNorm(keep_dims=False)(x, axes)`: the 2-norm over `axes`."""
    return apply(vector_norm_, (x,), {"ord": 2.0, "axis": _axis(to_ints(axes)), "keepdims": bool(keep_dims)})


@primitive("Renorm", attrs=("p", "axis", "maxnorm"), category="reduce")
def renorm_(x, *, p, axis, maxnorm):
    """Scale each slice along `axis` whose p-norm exceeds `maxnorm` down to norm `maxnorm`."""
    others = tuple(i for i in range(x.ndim) if i != axis % x.ndim)
    norm = jnp.sum(jnp.abs(x) ** p, axis=others, keepdims=True) ** (1.0 / p)
    return x * jnp.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0).astype(x.dtype)


@expose(ops="renorm", tensor="renorm", prim="Renorm")
def renorm(input, p, axis, maxnorm):
    return apply(renorm_, (input,), {"p": float(p), "axis": _int(axis), "maxnorm": float(maxnorm)})


@expose(cls="Renorm", init=("p", "dim", "maxnorm"))
def _renorm_cls(input, p, dim, maxnorm):
    return renorm(input, p, dim, maxnorm)


@primitive("L2Normalize", attrs=("axis", "epsilon"), category="reduce",
           api=Api(args=("x",), attrs=(Attr("axis", 0, _axis), Attr("epsilon", 1e-4, float)), cls="L2Normalize",
                   init=("axis", "epsilon")))
def l2_normalize(x, *, axis=0, epsilon=1e-4):
    """x / sqrt(max(sum(x^2 over axis), epsilon))."""
    return x / jnp.sqrt(jnp.maximum(jnp.sum(x * x, axis=axis, keepdims=True), epsilon))


@primitive("L2Loss", category="loss", api=Api(args=("input",), cls="L2Loss"))
def l2_loss(x):
    """sum(x^2) / 2."""
    return jnp.sum(x * x) / 2


@primitive("SquareSumAll", category="reduce", multiple_results=True, api=Api(args=("x", "y"), cls="SquareSumAll"))
def square_sum_all(x, y):
    """(sum(x^2), sum(y^2))."""
    return jnp.sum(x * x), jnp.sum(y * y)


# ---------------------------------------------------------------- distances
@primitive("Cdist", attrs=("p",), category="matmul")
def cdist_(x1, x2, *, p=2.0):
    """The p-norm distance between each row of x1 and each row of x2 (batched)."""
    d = jnp.abs(x1[..., :, None, :] - x2[..., None, :, :])
    if p == float("inf"):
        return jnp.max(d, axis=-1)
    if p == 0:
        return jnp.sum(d != 0, axis=-1).astype(x1.dtype)
    if p == 2:  # sqrt has no derivative at 0: the distance of a row to itself gets gradient 0
        s = jnp.sum(d * d, axis=-1)
        return jnp.where(s > 0, jnp.sqrt(jnp.where(s > 0, s, 1.0)), 0.0)
    return jnp.sum(d ** p, axis=-1) ** (1.0 / p)


@expose(ops="cdist", cls="Cdist", init=("p",))
def cdist(x1, x2, p=2.0):
    return apply(cdist_, (x1, x2), {"p": float(p)})


_CDIST_MODES = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist")


@expose(mint="cdist", prim="Cdist")
def cdist_ext(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """`mint.cdist`; `compute_mode` chooses torch's matmul shortcut for p=2, whose values msx's direct
    difference form matches, so every mode gives the same distances here."""
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"mint.cdist: compute_mode must be one of {_CDIST_MODES}, got {compute_mode!r}")
    return apply(cdist_, (x1, x2), {"p": float(p)})


@primitive("Pdist", attrs=("p",), category="matmul")
def pdist_(x, *, p=2.0):
    """The distances of each pair of rows i < j, in row-major order."""
    i, j = np.triu_indices(x.shape[-2], 1)
    return cdist_.impl(x, x, p=p)[..., i, j]


@expose(ops="pdist", cls="Pdist", init=("p",), prim="Pdist")
def pdist(input, p=2.0):
    return apply(pdist_, (input,), {"p": float(p)})


@expose(ops="dist")
def dist(input, other, p=2):
    """The p-norm of input - other (all elements)."""
    return vector_norm(SURFACE["ops"]["sub"](input, other), p)


# ---------------------------------------------------------------- differences and integrals
@primitive("Diff", attrs=("n", "axis", "has_prepend", "has_append"), category="shape")
def diff_(x, *extra, n=1, axis=-1, has_prepend=False, has_append=False):
    parts = list(extra)
    pre = parts.pop(0) if has_prepend else None
    app = parts.pop(0) if has_append else None
    return jnp.diff(x, n=n, axis=axis, prepend=pre, append=app)



@expose(ops="diff", tensor="diff")
def diff(x, n=1, axis=-1, prepend=None, append=None):
    """The n-th forward difference along `axis`, after joining `prepend`/`append` to x."""
    extra = tuple(t for t in (prepend, append) if t is not None)
    return apply(diff_, (x,) + extra, {"n": _int(n), "axis": _int(axis), "has_prepend": prepend is not None,
                                       "has_append": append is not None})


@expose(ops="diff_ext", mint="diff", prim="Diff")
def diff_ext(input, n=1, dim=-1, prepend=None, append=None):
    """`mint.diff`: `diff` with torch's argument name `dim`."""
    return diff(input, n, dim, prepend, append)


@primitive("Trapz", attrs=("dx", "dim"), category="reduce")
def trapz_(y, *x, dx=1.0, dim=-1):
    """The trapezoidal integral of y along `dim`, at sample points x (or spacing dx)."""
    return jnp.trapezoid(y, x[0] if x else None, dx=dx, axis=dim)


@expose(ops="trapz", prim="Trapz")
def trapz(y, x=None, *, dx=1.0, dim=-1):
    return apply(trapz_, (y,) if x is None else (y, x), {"dx": float(dx), "dim": _int(dim)})


# ---------------------------------------------------------------- ranges
@primitive("LogSpace", attrs=("start", "end", "steps", "base", "dtype"), category="other", differentiable=False)
def logspace_(*, start, end, steps, base=10.0, dtype=None):
    """`steps` points from base**start to base**end, evenly spaced in the exponent (float32 by default)."""
    out = np.logspace(start, end, steps, base=base)
    return jnp.asarray(out.astype(_np_dtype(dtype, np.float32)))


@expose(ops="logspace", prim="LogSpace")
def logspace(start, end, steps, base=10, *, dtype=None):
    return apply(logspace_, (), {"start": float(scalar(start)), "end": float(scalar(end)), "steps": _int(steps),
                                 "base": float(base), "dtype": to_dtype_or_none(dtype)})


@expose(cls="LogSpace", init=("steps", "base", "dtype"))
def _logspace_cls(start, end, steps=10, base=10, dtype=None):
    """`ops.LogSpace(steps=10, base=10, dtype=ms.float32)(start, end)` with 0-d Tensor bounds."""
    return logspace(start, end, steps, base, dtype=dtype)


@expose(cls="LinSpace")
def _linspace_cls(start, stop, num):
    """`ops.LinSpace()(start, stop, num)` with 0-d Tensor bounds."""
    return SURFACE["ops"]["linspace"](float(scalar(start)), float(scalar(stop)), _int(num))


@expose(cls="NuclearNorm", init=("dim", "keepdim"))
def _nuclear_norm_cls(input, dim=None, keepdim=False):
    """`ops.NuclearNorm(dim=None, keepdim=False)(x)`: the sum of singular values over `dim` (the last two dims)."""
    return matrix_norm(input, "nuc", (-2, -1) if dim is None else dim, keepdim)
