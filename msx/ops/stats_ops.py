"""Statistics, norms and distances of MindSpore's `ops` (issue 22): std/var, median/quantile, histograms,
vector/matrix norms, pairwise distances, and the ranges `logspace`/`LinSpace`. One primitive (jnp) per op.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .api import SURFACE, Api, Attr, expose
from .attr_converters import to_ints
from .math_ops import _axis
from .primitive import apply, primitive


def _int(v) -> int:
    return to_ints(v)[0]


def _ddof(v) -> int:
    return int(v) if isinstance(v, bool) else _int(v)


def _float(x):
    return x if x.dtype.kind in "fc" else x.astype(np.float32)


# ---------------------------------------------------------------- spread
@primitive("StdVar", attrs=("axis", "ddof", "keepdims", "kind"), category="reduce", multiple_results=True,
           internal=("the shared kernel of ops.std, ops.var, ops.std_mean and ops.var_mean (stats_ops._spread), each "
                     "taking its part"))
def std_var(x, *, axis=None, ddof=0, keepdims=False, kind="std"):
    """(std or var, mean) over `axis` with `ddof` degrees of freedom removed."""
    x = _float(x)
    fn = jnp.std if kind == "std" else jnp.var
    return fn(x, axis=axis, ddof=ddof, keepdims=keepdims), jnp.mean(x, axis=axis, keepdims=keepdims)


def _spread(input, axis, ddof, keepdims, kind):
    return apply(std_var, (input,), {"axis": _axis(axis), "ddof": _ddof(ddof), "keepdims": bool(keepdims),
                                     "kind": kind})


@expose(ops="std")
def std(input, axis=None, ddof=0, keepdims=False):
    return _spread(input, axis, ddof, keepdims, "std")[0]


@expose(ops="var")
def var(input, axis=None, ddof=0, keepdims=False):
    return _spread(input, axis, ddof, keepdims, "var")[0]


@expose(ops="std_mean")
def std_mean(input, axis=None, ddof=0, keepdims=False):
    """(std, mean)."""
    return _spread(input, axis, ddof, keepdims, "std")


@expose(ops="var_mean")
def var_mean(input, axis=None, ddof=0, keepdims=False):
    """(var, mean)."""
    return _spread(input, axis, ddof, keepdims, "var")


def _corrected(name: str, input, dim, correction, keepdim):
    if isinstance(correction, bool) or not isinstance(correction, int):
        raise TypeError(f"mint.{name}: correction must be an int, got {correction!r}")
    return _spread(input, dim, int(correction), keepdim, name[:3])


@expose(mint="std")
def std_ext(input, dim=None, *, correction=1, keepdim=False):
    """`mint.std`: the spread over `dim` with `correction` degrees of freedom removed (1: Bessel's)."""
    return _corrected("std", input, dim, correction, keepdim)[0]


@expose(mint="var")
def var_ext(input, dim=None, *, correction=1, keepdim=False):
    return _corrected("var", input, dim, correction, keepdim)[0]


@expose(mint="std_mean")
def std_mean_ext(input, dim=None, *, correction=1, keepdim=False):
    """(std, mean), as `mint.std` and `mint.mean` over one `dim`."""
    return _corrected("std_mean", input, dim, correction, keepdim)


@expose(mint="var_mean")
def var_mean_ext(input, dim=None, *, correction=1, keepdim=False):
    return _corrected("var_mean", input, dim, correction, keepdim)


@expose(cls="ReduceStd", init=("axis", "unbiased", "keep_dims"))
def _reduce_std_cls(x, axis=(), unbiased=True, keep_dims=False):
    """`ops.ReduceStd(axis=(), unbiased=True, keep_dims=False)(x)` -> (std, mean); an empty axis means all."""
    return _spread(x, axis, 1 if unbiased else 0, keep_dims, "std")


# ---------------------------------------------------------------- order statistics
@primitive("Median", attrs=("axis", "keepdims", "ignore_nan"), category="reduce", multiple_results=True)
def median_(x, *, axis=-1, keepdims=False, ignore_nan=False):
    """(the lower median along `axis`, its index); `ignore_nan` skips NaNs (nanmedian)."""
    axis = axis % max(x.ndim, 1)
    if x.ndim == 0:
        return x, jnp.zeros((), jnp.int64)
    key = jnp.where(jnp.isnan(x), jnp.inf, x)  # NaNs sort last
    order = jnp.argsort(key, axis=axis, stable=True)
    if ignore_nan:
        count = jnp.sum(~jnp.isnan(x), axis=axis, keepdims=True)
        k = jnp.maximum((count - 1) // 2, 0)
    else:
        has_nan = jnp.any(jnp.isnan(x), axis=axis, keepdims=True)
        n = x.shape[axis]
        first_nan = jnp.argmax(jnp.isnan(jnp.take_along_axis(x, order, axis)), axis=axis, keepdims=True)
        k = jnp.where(has_nan, first_nan, (n - 1) // 2)
    idx = jnp.take_along_axis(order, k, axis=axis)
    values = jnp.take_along_axis(x, idx, axis=axis)
    if not keepdims:
        values, idx = jnp.squeeze(values, axis), jnp.squeeze(idx, axis)
    return values, idx.astype(jnp.int64)


@expose(ops="median")
def median(input, axis=-1, keepdims=False):
    """(values, indices) of the median along `axis` (the lower one of an even count; NaN if any is NaN)."""
    return apply(median_, (input,), {"axis": _int(axis), "keepdims": bool(keepdims), "ignore_nan": False})


@expose(mint="median", prim="Median")
def median_ext(input, dim=None, keepdim=False):
    """`mint.median`: the lower median of all elements (a 0-d tensor), or (values, indices) along `dim`."""
    if dim is None:
        flat = SURFACE["ops"]["reshape"](input, (-1,))
        return apply(median_, (flat,), {"axis": 0, "keepdims": False, "ignore_nan": False})[0]
    return apply(median_, (input,), {"axis": _int(dim), "keepdims": bool(keepdim), "ignore_nan": False})


@primitive("Kthvalue", attrs=("k", "axis", "keepdims"), category="reduce", multiple_results=True)
def kthvalue_(x, *, k, axis=-1, keepdims=False):
    """(the k-th smallest value along `axis`, its index as int64); ties keep the first index (a stable sort)."""
    if x.ndim == 0:
        return x, jnp.zeros((), jnp.int64)
    order = jnp.argsort(x, axis=axis, stable=True)
    idx = jax.lax.slice_in_dim(order, k - 1, k, axis=axis)
    values = jnp.take_along_axis(x, idx, axis=axis)
    if not keepdims:
        values, idx = jnp.squeeze(values, axis), jnp.squeeze(idx, axis)
    return values, idx.astype(jnp.int64)


@expose(mint="kthvalue", tensor="kthvalue", prim="Kthvalue")
def kthvalue(input, k, dim=-1, keepdim=False):
    """(values, indices) of the `k`-th smallest element along `dim` (k counts from 1)."""
    rank = len(input.shape)
    d = _int(dim)
    if not -max(rank, 1) <= d < max(rank, 1):
        raise ValueError(f"kthvalue: dim {d} is out of range for a tensor of rank {rank}")
    size = input.shape[d] if rank else 1
    k = _int(k)
    if not 1 <= k <= size:
        raise ValueError(f"kthvalue: k must be in [1, {size}] for dim {d} of size {size}, got {k}")
    return apply(kthvalue_, (input,), {"k": k, "axis": d % max(rank, 1), "keepdims": bool(keepdim)})


@expose(ops="nanmedian", tensor="nanmedian")
def nanmedian(input, axis=-1, keepdims=False):
    """`median` ignoring NaNs."""
    return apply(median_, (input,), {"axis": _int(axis), "keepdims": bool(keepdims), "ignore_nan": True})


@expose(cls="Median", init=("global_median", "axis", "keep_dims", "ignore_nan"))
def _median_cls(x, global_median=False, axis=0, keep_dims=False, ignore_nan=False):
    """`ops.Median(global_median, axis, keep_dims, ignore_nan)(x)` -> (values, indices)."""
    if global_median:
        flat = SURFACE["ops"]["reshape"](x, (-1,))
        values, idx = apply(median_, (flat,), {"axis": 0, "keepdims": False, "ignore_nan": bool(ignore_nan)})
        return values, SURFACE["ops"]["zeros_like"](idx)  # MindSpore gives index 0 for the global median
    return apply(median_, (x,), {"axis": _int(axis), "keepdims": bool(keep_dims), "ignore_nan": bool(ignore_nan)})


@primitive("Quantile", attrs=("axis", "keepdims", "ignore_nan"), category="reduce")
def quantile_(x, q, *, axis=None, keepdims=False, ignore_nan=False):
    """The q-th quantiles along `axis` (linear interpolation); `ignore_nan`: nanquantile."""
    fn = jnp.nanquantile if ignore_nan else jnp.quantile
    return fn(x, q, axis=axis, keepdims=keepdims).astype(x.dtype)


def _quantile(input, q, axis, keepdims, ignore_nan):
    q = q if hasattr(q, "shape") else float(q)
    return apply(quantile_, (input, q), {"axis": None if axis is None else _int(axis), "keepdims": bool(keepdims),
                                         "ignore_nan": ignore_nan})


@expose(ops="quantile", tensor="quantile")
def quantile(input, q, axis=None, keepdims=False):
    return _quantile(input, q, axis, keepdims, False)


@expose(ops="nanquantile", tensor="nanquantile")
def nanquantile(input, q, axis=None, keepdims=False):
    return _quantile(input, q, axis, keepdims, True)


@expose(cls="Quantile", init=("dim", "keep_dims", "ignore_nan"), prim="Quantile")
def _quantile_cls(input, q, dim=None, keep_dims=False, ignore_nan=False):
    """`ops.Quantile(dim=None, keep_dims=False, ignore_nan=False)(input, q)`."""
    return _quantile(input, q, dim, keep_dims, bool(ignore_nan))


@primitive("AMinMax", attrs=("axis", "keepdims"), category="reduce", multiple_results=True)
def aminmax_(x, *, axis=0, keepdims=False):
    return jnp.min(x, axis=axis, keepdims=keepdims), jnp.max(x, axis=axis, keepdims=keepdims)


@expose(ops="aminmax", tensor="aminmax", prim="AMinMax")
def aminmax(input, *, axis=0, keepdims=False):
    """(min, max) along `axis`."""
    return apply(aminmax_, (input,), {"axis": _int(axis), "keepdims": bool(keepdims)})


@primitive("Histc", attrs=("bins", "min", "max"), category="reduce", differentiable=False)
def histc_(x, *, bins=100, min=0.0, max=0.0):  # noqa: A002  (MindSpore's argument names)
    """Counts of `bins` equal-width bins over [min, max] (the data's range when both are 0), as float32."""
    lo, hi = (jnp.min(x), jnp.max(x)) if min == max == 0.0 else (jnp.asarray(min), jnp.asarray(max))
    hi = jnp.where(hi == lo, hi + 1, hi)
    lo = jnp.where(hi == lo, lo - 1, lo) if min == max == 0.0 else lo
    xf = x.astype(jnp.float32)
    inside = (xf >= lo) & (xf <= hi)
    idx = jnp.clip(jnp.floor((xf - lo) / (hi - lo) * bins).astype(jnp.int32), 0, bins - 1)
    counts = jnp.zeros(bins, jnp.float32).at[jnp.where(inside, idx, bins)].add(1.0, mode="drop")
    return counts.astype(x.dtype if x.dtype.kind == "f" else jnp.float32)


@expose(ops="histc", cls="Histogram", init=("bins", "min", "max"), mint="histc", tensor="histc", prim="Histc")
def histc(input, bins=100, min=0.0, max=0.0):  # noqa: A002
    return apply(histc_, (input,), {"bins": _int(bins), "min": float(min), "max": float(max)})


@primitive("Cov", attrs=("correction", "has_f", "has_a"), category="reduce")
def cov_(x, *weights, correction=1, has_f=False, has_a=False):
    w = list(weights)
    fw = w.pop(0) if has_f else None
    aw = w.pop(0) if has_a else None
    return jnp.cov(x, ddof=correction, fweights=fw, aweights=aw).astype(_float(x).dtype)



@expose(ops="cov", tensor="cov", prim="Cov")
def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the rows of `input` (variables) over its columns (observations)."""
    weights = tuple(w for w in (fweights, aweights) if w is not None)
    return apply(cov_, (input,) + weights, {"correction": _int(correction), "has_f": fweights is not None,
                                            "has_a": aweights is not None})


def _histogram_fixed_width_check(x, range, *, nbins, dtype="int32") -> str | None:
    if np.dtype(x.dtype).name not in ("int32", "float16", "float32"):
        return f"x dtype must be int32, float16 or float32, got {np.dtype(x.dtype).name}"
    if range.dtype != x.dtype or tuple(range.shape) != (2,):
        return f"range must have x's dtype ({np.dtype(x.dtype).name}) and shape (2,), got " \
               f"{np.dtype(range.dtype).name}{tuple(range.shape)}"
    if isinstance(nbins, bool) or not isinstance(nbins, (int, np.integer)) or nbins < 1:
        return f"nbins must be a positive int, got {nbins!r}"
    if dtype != "int32":
        return f"dtype must be 'int32', got {dtype!r}"
    return None


@primitive("HistogramFixedWidth", attrs=("nbins", "dtype"), check=_histogram_fixed_width_check, differentiable=False,
           api=Api(args=("x", "range"), attrs=(Attr("nbins"), Attr("dtype", "int32")), cls="HistogramFixedWidth",
                   init=("nbins", "dtype")))
def histogram_fixed_width(x, range, *, nbins, dtype="int32"):
    """Counts of `x` in `nbins` equal bins over [range[0], range[1]); values below fall in the first bin, values
    at or above range[1] in the last."""
    reason = _histogram_fixed_width_check(x, range, nbins=nbins, dtype=dtype)
    if reason is not None:
        raise (TypeError if "dtype" in reason and "x" in reason else ValueError)(reason)
    lo, hi = range[0], range[1]
    if jnp.issubdtype(x.dtype, jnp.integer):
        scaled = (x.astype(jnp.float64 if jax.config.jax_enable_x64 else jnp.float32) - lo) / (hi - lo) * nbins
    else:
        scaled = (x.astype(jnp.float32) - lo.astype(jnp.float32)) / (hi - lo).astype(jnp.float32) * nbins
    bins = jnp.clip(jnp.floor(scaled), 0, nbins - 1).astype(jnp.int32)
    return jnp.zeros((nbins,), jnp.int32).at[bins.reshape(-1)].add(1)
