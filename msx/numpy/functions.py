"""`mindspore.numpy`'s functions on msx Tensors: msx's own ops where one exists, else an `Np*` primitive.

The elementwise math and comparison functions are msx's ops (`msx.ops.functional`: `mnp.sin` is the `Sin`
primitive, so a graph holds the same node `ops.sin` makes). The rest are declared here, one line each, as
primitives computed by `jax.numpy` (`prims.declare`); a function whose result is a sequence (`split`,
`meshgrid`, `histogram`) is a primitive with several results, returned as a tuple (MindSpore returns tuples
and lists alike; msx gives what MindSpore gives, see `_AS_LIST`).
"""
from __future__ import annotations

from typing import Any, Callable

import jax.numpy as jnp

from .. import dtype as mstype
from ..ops import functional as F
from ..tensor import Tensor
from .prims import call, constant, declare


def _fix(x):
    return jnp.trunc(x)


def _in1d(ar1, ar2, invert=False):
    return jnp.isin(jnp.ravel(ar1), ar2, invert=invert)


def _pad(arr, pad_width, mode="constant", stat_length=None, constant_values=0, end_values=0, reflect_type="even"):
    kw: dict = {}
    if mode == "constant":
        kw["constant_values"] = constant_values
    elif mode in ("maximum", "minimum", "mean", "median"):
        kw["stat_length"] = stat_length
    elif mode == "linear_ramp":
        kw["end_values"] = end_values
    elif mode in ("reflect", "symmetric"):
        kw["reflect_type"] = reflect_type
    return jnp.pad(arr, pad_width, mode=mode, **kw)


def _average(x, axis=None, weights=None, returned=False):
    return jnp.average(x, axis=axis, weights=weights, returned=returned)


def _linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    return jnp.linspace(start, stop, num, endpoint, retstep, dtype, axis)


def _gradient(f, *varargs, axis=None, edge_order=1):
    if edge_order != 1:
        raise ValueError(f"gradient: edge_order={edge_order!r} is not supported (only 1, MindSpore's default)")
    out = jnp.gradient(f, *varargs, axis=axis)
    return out if isinstance(out, list) else [out]


def _where(condition, x=None, y=None):
    return jnp.nonzero(condition) if x is None and y is None else jnp.where(condition, x, y)


def _atleast(fn):
    def at(*arys):
        out = fn(*arys)
        return list(out) if isinstance(out, (list, tuple)) else [out]

    return at


def _unique(x, return_inverse=False):
    out = jnp.unique(x, return_inverse=return_inverse)
    return list(out) if isinstance(out, tuple) else [out]


def _intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    out = jnp.intersect1d(ar1, ar2, assume_unique, return_indices)
    return list(out) if isinstance(out, tuple) else [out]


def _indices(dimensions, dtype=jnp.int32, sparse=False):
    return list(jnp.indices(dimensions, dtype, sparse))  # MindSpore returns one array per dimension


def _trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    return jnp.trace(a, offset, axis1, axis2, dtype)


def _var(x, axis=None, ddof=0, keepdims=False):
    """numpy's var; for an integer input MindSpore 2.10 subtracts the mean rounded to the input's dtype
    (toward zero), and msx gives the same answer."""
    if jnp.issubdtype(x.dtype, jnp.integer):
        mean = jnp.mean(x, axis=axis, keepdims=True).astype(x.dtype).astype(jnp.float32)
        d = x.astype(jnp.float32) - mean
        n = x.size if axis is None else int(jnp.prod(jnp.asarray([x.shape[a] for a in jnp.atleast_1d(
            jnp.asarray(axis)).tolist()])))
        return jnp.sum(d * d, axis=axis, keepdims=keepdims) / (n - ddof)
    return jnp.var(x, axis=axis, ddof=ddof, keepdims=keepdims)


def _std(x, axis=None, ddof=0, keepdims=False):
    return jnp.sqrt(_var(x, axis, ddof, keepdims))


def _float32(fn):
    """MindSpore 2.10 answers float32 counts and indices for these (`bincount`, `histogram2d`, ...)."""
    def f(*args, **kwargs):
        out = fn(*args, **kwargs)
        if isinstance(out, (tuple, list)):
            return [jnp.asarray(out[0], jnp.float32)] + list(out[1:])
        return jnp.asarray(out, jnp.float32) if jnp.issubdtype(jnp.asarray(out).dtype, jnp.integer) else out

    f.__name__ = getattr(fn, "__name__", "f")
    return f


def _asfarray(a, dtype=jnp.float32):
    return jnp.asarray(a, dtype if jnp.issubdtype(dtype, jnp.floating) else jnp.float32)


def _multi_dot(arrays):
    return jnp.linalg.multi_dot(list(arrays))


# name -> (jax function, several results). One line per mindspore.numpy function msx has no op for.
_TABLE: dict[str, tuple[Callable, bool]] = {
    "amax": (jnp.max, False), "amin": (jnp.min, False), "max": (jnp.max, False), "min": (jnp.min, False),
    "append": (jnp.append, False), "arange": (jnp.arange, False), "argmax": (jnp.argmax, False),
    "argmin": (jnp.argmin, False), "argwhere": (jnp.argwhere, False), "around": (jnp.round, False),
    "round": (jnp.round, False), "array_equal": (jnp.array_equal, False), "array_equiv": (jnp.array_equiv, False),
    "array_split": (jnp.array_split, True), "asfarray": (_asfarray, False), "average": (_average, False),
    "bartlett": (jnp.bartlett, False), "bincount": (_float32(jnp.bincount), False), "blackman": (jnp.blackman, False),
    "broadcast_arrays": (jnp.broadcast_arrays, True), "broadcast_to": (jnp.broadcast_to, False),
    "cbrt": (jnp.cbrt, False), "choose": (jnp.choose, False), "clip": (jnp.clip, False),
    "column_stack": (jnp.column_stack, False), "concatenate": (jnp.concatenate, False),
    "convolve": (jnp.convolve, False), "copy": (jnp.array, False), "corrcoef": (jnp.corrcoef, False),
    "correlate": (jnp.correlate, False), "count_nonzero": (jnp.count_nonzero, False), "cov": (jnp.cov, False),
    "cross": (jnp.cross, False), "cumprod": (jnp.cumprod, False), "cumsum": (jnp.cumsum, False),
    "diag": (jnp.diag, False), "diag_indices": (jnp.diag_indices, True), "diagflat": (jnp.diagflat, False),
    "diagonal": (jnp.diagonal, False), "diff": (jnp.diff, False), "digitize": (jnp.digitize, False),
    "divmod": (jnp.divmod, True), "dot": (jnp.dot, False), "dsplit": (jnp.dsplit, True), "dstack": (jnp.dstack, False),
    "ediff1d": (jnp.ediff1d, False), "expand_dims": (jnp.expand_dims, False), "eye": (jnp.eye, False),
    "fabs": (jnp.fabs, False), "fix": (_fix, False), "flip": (jnp.flip, False), "fliplr": (jnp.fliplr, False),
    "flipud": (jnp.flipud, False), "full": (jnp.full, False), "full_like": (jnp.full_like, False),
    "geomspace": (jnp.geomspace, False), "gradient": (_gradient, True), "hamming": (jnp.hamming, False),
    "hanning": (jnp.hanning, False), "histogram": (jnp.histogram, True),
    "histogram2d": (_float32(jnp.histogram2d), True),
    "histogram_bin_edges": (jnp.histogram_bin_edges, False), "histogramdd": (_float32(jnp.histogramdd), True),
    "hsplit": (jnp.hsplit, True), "hstack": (jnp.hstack, False), "identity": (jnp.identity, False),
    "in1d": (_in1d, False), "indices": (_indices, True), "inner": (jnp.inner, False), "interp": (jnp.interp, False),
    "intersect1d": (_intersect1d, True), "isclose": (jnp.isclose, False), "isin": (jnp.isin, False),
    "ix_": (jnp.ix_, True), "kron": (jnp.kron, False), "linspace": (_linspace, True),
    "logspace": (jnp.logspace, False), "matmul": (jnp.matmul, False),
    "matrix_power": (jnp.linalg.matrix_power, False), "mean": (jnp.mean, False), "meshgrid": (jnp.meshgrid, True),
    "moveaxis": (jnp.moveaxis, False), "multi_dot": (_multi_dot, False), "nancumsum": (jnp.nancumsum, False),
    "nanmax": (jnp.nanmax, False), "nanmean": (jnp.nanmean, False), "nanmin": (jnp.nanmin, False),
    "nanstd": (jnp.nanstd, False), "nansum": (jnp.nansum, False), "nanvar": (jnp.nanvar, False),
    "norm": (jnp.linalg.norm, False), "ones": (jnp.ones, False), "ones_like": (jnp.ones_like, False),
    "outer": (jnp.outer, False), "pad": (_pad, False), "polyadd": (jnp.polyadd, False),
    "polyder": (jnp.polyder, False), "polyint": (jnp.polyint, False), "polymul": (jnp.polymul, False),
    "polysub": (jnp.polysub, False), "polyval": (jnp.polyval, False), "ptp": (jnp.ptp, False),
    "ravel": (jnp.ravel, False), "ravel_multi_index": (_float32(jnp.ravel_multi_index), False),
    "repeat": (jnp.repeat, False),
    "reshape": (jnp.reshape, False), "roll": (jnp.roll, False), "rollaxis": (jnp.rollaxis, False),
    "rot90": (jnp.rot90, False), "searchsorted": (jnp.searchsorted, False), "select": (jnp.select, False),
    "setdiff1d": (jnp.setdiff1d, False), "sometrue": (jnp.any, False), "split": (jnp.split, True),
    "squeeze": (jnp.squeeze, False), "stack": (jnp.stack, False), "std": (_std, False),
    "sum": (jnp.sum, False), "swapaxes": (jnp.swapaxes, False), "take": (jnp.take, False),
    "take_along_axis": (jnp.take_along_axis, False), "tensordot": (jnp.tensordot, False), "tile": (jnp.tile, False),
    "trace": (_trace, False), "transpose": (jnp.transpose, False), "trapz": (jnp.trapezoid, False),
    "tri": (jnp.tri, False), "tril": (jnp.tril, False), "tril_indices": (jnp.tril_indices, True),
    "tril_indices_from": (jnp.tril_indices_from, True), "triu": (jnp.triu, False),
    "triu_indices": (jnp.triu_indices, True), "triu_indices_from": (jnp.triu_indices_from, True),
    "unique": (_unique, True), "unravel_index": (jnp.unravel_index, True), "unwrap": (jnp.unwrap, False),
    "vander": (jnp.vander, False), "var": (_var, False), "vsplit": (jnp.vsplit, True),
    "vstack": (jnp.vstack, False), "where": (_where, True), "zeros": (jnp.zeros, False),
    "zeros_like": (jnp.zeros_like, False), "atleast_1d": (_atleast(jnp.atleast_1d), True),
    "atleast_2d": (_atleast(jnp.atleast_2d), True), "atleast_3d": (_atleast(jnp.atleast_3d), True),
    "float_power": (jnp.float_power, False), "heaviside": (jnp.heaviside, False),
    "logaddexp2": (jnp.logaddexp2, False), "copysign": (jnp.copysign, False), "signbit": (jnp.signbit, False),
}
# Results MindSpore gives as a list (the rest of the sequence results are tuples).
_AS_LIST = frozenset({"array_split", "split", "hsplit", "vsplit", "dsplit", "meshgrid", "broadcast_arrays",
                      "gradient", "atleast_1d", "atleast_2d", "atleast_3d"})
# Several results only for some arguments: return the one array when that is what the call asked for.
_SINGLE_WHEN: dict[str, Callable[..., bool]] = {
    "unique": lambda x, return_inverse=False: not return_inverse,
    "intersect1d": lambda *a, return_indices=False, **k: not (a[3] if len(a) > 3 else return_indices),
    "linspace": lambda *a, retstep=False, **k: not (a[4] if len(a) > 4 else retstep),
    "where": lambda condition, x=None, y=None: x is not None or y is not None,
    "gradient": lambda f, *v, axis=None, **k: _gradient_single(f, axis),
    "atleast_1d": lambda *arys: len(arys) == 1, "atleast_2d": lambda *arys: len(arys) == 1,
    "atleast_3d": lambda *arys: len(arys) == 1,
}
# Elementwise functions that are msx ops already: (mindspore.numpy name, msx.ops.functional name, arity).
_OPS = [("abs", "abs", 1), ("absolute", "abs", 1), ("add", "add", 2), ("arccos", "arccos", 1),
        ("arccosh", "arccosh", 1), ("arcsin", "arcsin", 1), ("arcsinh", "arcsinh", 1), ("arctan", "arctan", 1),
        ("arctan2", "arctan2", 2), ("arctanh", "arctanh", 1), ("bitwise_and", "bitwise_and", 2),
        ("bitwise_or", "bitwise_or", 2), ("bitwise_xor", "bitwise_xor", 2), ("bitwise_not", "invert", 1),
        ("invert", "invert", 1), ("ceil", "ceil", 1), ("cos", "cos", 1), ("cosh", "cosh", 1),
        ("deg2rad", "deg2rad", 1), ("radians", "deg2rad", 1), ("rad2deg", "rad2deg", 1), ("divide", "true_divide", 2),
        ("true_divide", "true_divide", 2), ("equal", "equal", 2), ("exp", "exp", 1), ("exp2", "exp2", 1),
        ("expm1", "expm1", 1), ("floor", "floor", 1), ("floor_divide", "floor_divide", 2), ("fmod", "fmod", 2),
        ("gcd", "gcd", 2), ("lcm", "lcm", 2), ("greater", "greater", 2), ("greater_equal", "greater_equal", 2),
        ("hypot", "hypot", 2), ("isfinite", "isfinite", 1), ("isinf", "isinf", 1), ("isnan", "isnan", 1),
        ("isneginf", "isneginf", 1), ("isposinf", "isposinf", 1), ("less", "less", 2),
        ("less_equal", "less_equal", 2), ("log", "log", 1), ("log10", "log10", 1), ("log1p", "log1p", 1),
        ("log2", "log2", 1), ("logaddexp", "logaddexp", 2), ("logical_and", "logical_and", 2),
        ("logical_not", "logical_not", 1), ("logical_or", "logical_or", 2), ("logical_xor", "logical_xor", 2),
        ("maximum", "maximum", 2), ("minimum", "minimum", 2), ("mod", "remainder", 2),
        ("remainder", "remainder", 2), ("multiply", "multiply", 2), ("negative", "negative", 1),
        ("not_equal", "not_equal", 2), ("positive", "positive", 1), ("power", "pow", 2),
        ("reciprocal", "reciprocal", 1), ("rint", "rint", 1), ("sign", "sign", 1), ("sin", "sin", 1),
        ("sinh", "sinh", 1), ("sqrt", "sqrt", 1), ("square", "square", 1), ("subtract", "subtract", 2),
        ("tan", "tan", 1), ("tanh", "tanh", 1), ("trunc", "trunc", 1)]
# Functions whose first argument is a shape or size, never an array-like to convert.
_SHAPE_FIRST = frozenset({"arange", "bartlett", "blackman", "diag_indices", "eye", "full", "geomspace", "hamming",
                          "hanning", "identity", "indices", "linspace", "logspace", "ones", "tri", "tril_indices",
                          "triu_indices", "zeros", "ravel_multi_index", "select", "multi_dot"})


def _gradient_single(f, axis) -> bool:
    ndim = len(f.shape) if hasattr(f, "shape") else 1
    return ndim == 1 or (axis is not None and not isinstance(axis, (tuple, list)))


def to_tensor(a: Any) -> Any:
    """A Python number/list/tuple as MindSpore's `mnp.asarray` makes it (int32, float32, bool); others as given."""
    if isinstance(a, (list, tuple)) and any(isinstance(v, Tensor) for v in _leaves(a)):
        return F.stack([to_tensor(v) for v in a], 0)
    if isinstance(a, (list, tuple, bool, int, float)):
        return constant(a, _default_dtype(a))
    return a



def _leaves(a):
    for v in a:
        if isinstance(v, (list, tuple)):
            yield from _leaves(v)
        else:
            yield v


def _default_dtype(a):
    vals = list(_leaves(a)) if isinstance(a, (list, tuple)) else [a]
    if all(isinstance(v, bool) for v in vals) and vals:
        return mstype.bool_
    if all(isinstance(v, (int, bool)) for v in vals):
        return mstype.int32
    return mstype.float32


def _make(name: str, fn: Callable, multiple: bool) -> Callable:
    prim = declare(name, fn, multiple=multiple)
    single_when = _SINGLE_WHEN.get(name)
    as_list = name in _AS_LIST
    convert_first = name not in _SHAPE_FIRST

    def f(*args, **kwargs):
        if convert_first and args and isinstance(args[0], (list, tuple, int, float)):
            args = (to_tensor(args[0]),) + args[1:]
        out = call(prim, args, kwargs)
        if not multiple:
            return out
        if single_when is not None and single_when(*args, **kwargs):
            return out[0]
        if name == "histogramdd":
            return out[0], list(out[1:])
        return list(out) if as_list else out

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"`mindspore.numpy.{name}` (computed by `jax.numpy`; the `{prim.name}` primitive)."
    return f


def _from_op(name: str, op: Callable, arity: int) -> Callable:
    """A mindspore.numpy elementwise function from msx's op: array-likes converted, `dtype=` cast after."""
    if arity == 1:
        def f(x, dtype=None):
            out = op(to_tensor(x))
            return F.cast(out, dtype) if dtype is not None else out
    else:
        def f(x1, x2, dtype=None):
            if not isinstance(x1, Tensor) and not isinstance(x2, Tensor):
                x1 = to_tensor(x1)
            out = op(to_tensor(x1) if not isinstance(x1, (int, float)) else x1,
                     to_tensor(x2) if not isinstance(x2, (int, float)) else x2)
            return F.cast(out, dtype) if dtype is not None else out
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"`mindspore.numpy.{name}`: msx's `ops.{op.__name__}` (one op node under jit)."
    return f


FUNCTIONS: dict[str, Callable] = {name: _make(name, fn, multiple) for name, (fn, multiple) in _TABLE.items()}
FUNCTIONS.update({name: _from_op(name, getattr(F, op), arity) for name, op, arity in _OPS})
