"""Hand-written functional ops, part of `msx.ops.functional`: arithmetic, comparison and reductions.

Division modes, clamp, sums with dtype, extrema with `initial`/`where`, cumulative ops, arg-with-value and
the small compositions built from them. The primitives only hand-written wrappers run (`ClipByValue`, `Norm`,
`Einsum`, `AddN`) are declared here, beside them.

Each is registered with `expose` under its public names; `functional` imports this module and re-exports
the whole surface.
"""
from __future__ import annotations

import jax.numpy as jnp

from ..tensor import Tensor
from . import array_ops as A
from . import math_ops as M
from .api import SURFACE, expose
from .attr_converters import AttrError
from .attr_converters import scalar as _scalar
from .primitive import apply, primitive

# generated views the wrappers below build on
_ops = SURFACE["ops"]
cast, reshape, neg, mul, sub, sqrt = (_ops[n] for n in ("cast", "reshape", "neg", "mul", "sub", "sqrt"))


@expose(ops="div divide", tensor="div divide", mint="div divide")
def div(input, other, rounding_mode=None):
    """`rounding_mode`: None (true division), "floor" or "trunc"."""
    if rounding_mode is None:
        return apply(M.DIV, (input, other))
    if rounding_mode == "floor":
        return apply(M.FLOOR_DIV, (input, other))
    if rounding_mode == "trunc":
        q = apply(M.DIV, (input, other))
        out = apply(M.MUL, (apply(M.SIGN, (q,)), apply(M.FLOOR, (apply(M.ABS, (q,)),))))
        result = jnp.result_type(*[x._data if isinstance(x, Tensor) else x for x in (input, other)])
        if jnp.issubdtype(result, jnp.integer):
            out = cast(out, result)
        return out  # integer inputs keep an integer result, as with rounding_mode="floor"
    raise ValueError(f"div: rounding_mode must be None, 'floor' or 'trunc', got {rounding_mode!r}")


@primitive("ClipByValue", attrs=("min", "max"), category="elementwise")
def clip(x, *, min=None, max=None):
    return jnp.clip(x, min, max)


@expose(ops="clamp clip", tensor="clamp clip", mint="clamp clip", prim="ClipByValue")
def clamp(input, min=None, max=None):
    if min is None and max is None:
        raise ValueError("clamp: min and max cannot both be None")
    return apply(clip, (input,), {"min": _scalar(min), "max": _scalar(max)})


def _reduce(prim, input, axis, keep_dims):
    try:
        axis = M._axis(axis)
    except AttrError as exc:
        raise exc.named(prim.name) from None
    return apply(prim, (input,), {"axis": axis, "keepdims": bool(keep_dims)})


@expose(ops="sum", mint="sum")
def sum(input, dim=None, keepdim=False, *, dtype=None):
    out = _reduce(M.REDUCE_SUM, input, dim, keepdim)
    return out if dtype is None else cast(out, dtype)


def _maybe_cast(x, dtype):
    return x if dtype is None else cast(x, dtype)


@expose(ops="prod")
def prod(input, axis=None, keep_dims=False, dtype=None):
    return _reduce(M.REDUCE_PROD, _maybe_cast(input, dtype), axis, keep_dims)


@expose(mint="prod", prim="ReduceProd")
def prod_ext(input, dim=None, keepdim=False, *, dtype=None):
    """`mint.prod`: the product over `dim` (every element when None), in `dtype` when given."""
    return _reduce(M.REDUCE_PROD, _maybe_cast(input, dtype), dim, keepdim)


@expose(mint="nansum", prim="ReduceNanSum")
def nansum_ext(input, dim=None, keepdim=False, *, dtype=None):
    return _reduce(M.NANSUM, _maybe_cast(input, dtype), dim, keepdim)


@expose(ops="nansum", tensor="nansum")
def nansum(input, axis=None, keepdims=False, *, dtype=None):
    """Sum treating NaN as zero."""
    return _reduce(M.NANSUM, _maybe_cast(input, dtype), axis, keepdims)


@expose(ops="nanmean", tensor="nanmean", prim="ReduceNanMean")
def nanmean(input, axis=None, keepdims=False, *, dtype=None):
    """Mean over the non-NaN elements."""
    return _reduce(M.NANMEAN, _maybe_cast(input, dtype), axis, keepdims)


def _extreme(prim, cmp, input, axis, keepdims, initial, where, name):
    if where is not None:
        if initial is None:
            raise ValueError(f"{name}: `where` needs an `initial` value for the masked-out elements")
        input = apply(M.select, (where, input, initial))
    out = _reduce(prim, input, axis, keepdims)
    return out if initial is None else apply(cmp, (out, initial))


@expose(ops="amax", tensor="amax")
def amax(input, axis=None, keepdims=False, *, initial=None, where=None):
    """Maximum over `axis` (all axes when None); `where` masks elements, replaced by `initial`."""
    return _extreme(M.REDUCE_MAX, M.MAXIMUM, input, axis, keepdims, initial, where, "amax")


@expose(ops="amin", tensor="amin")
def amin(input, axis=None, keepdims=False, *, initial=None, where=None):
    """Minimum over `axis` (all axes when None); `where` masks elements, replaced by `initial`."""
    return _extreme(M.REDUCE_MIN, M.MINIMUM, input, axis, keepdims, initial, where, "amin")


def _values_and_indices(prim, name, input, axis, keepdims, initial, where):
    """MindSpore's `ops.max`/`ops.min`: (values, indices) along `axis`, over all elements when axis is None;
    `initial` and `where` are amax/amin's only (indices would not be defined)."""
    if initial is not None or where is not None:
        raise ValueError(f"{name}: `initial` and `where` are supported by ops.amax/amin (values only); "
                         f"ops.{name} also returns indices, which they would not define")
    if axis is None:
        return apply(prim, (reshape(input, (-1,)),), {"axis": 0, "keepdims": False})
    return apply(prim, (input,), {"axis": int(axis), "keepdims": bool(keepdims)})


@expose(ops="max")
def max(input, axis=None, keepdims=False, *, initial=None, where=None):
    """MindSpore's `ops.max`: (values, indices) along `axis`; over all elements when axis is None."""
    return _values_and_indices(M.argmax_with_value, "max", input, axis, keepdims, initial, where)


@expose(ops="min")
def min(input, axis=None, keepdims=False, *, initial=None, where=None):
    """MindSpore's `ops.min`: (values, indices) along `axis`."""
    return _values_and_indices(M.argmin_with_value, "min", input, axis, keepdims, initial, where)


@expose(ops="cumsum")
def cumsum(x, axis, dtype=None):
    out = apply(M.cumsum, (x,), {"axis": int(axis), "exclusive": False, "reverse": False})
    return out if dtype is None else cast(out, dtype)


@expose(ops="cumprod", tensor="cumprod", mint="cumprod")
def cumprod(input, dim, dtype=None):
    out = apply(M.cumprod, (input,), {"axis": int(dim), "exclusive": False, "reverse": False})
    return out if dtype is None else cast(out, dtype)


@primitive("Norm", attrs=("ord", "axis", "keepdims"), category="reduce")
def norm_(x, *, ord=None, axis=None, keepdims=False):
    return jnp.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims)


@expose(ops="norm", prim="Norm")
def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):  # noqa: N803  (MindSpore's argument name)
    return apply(norm_, (_maybe_cast(A, dtype),), {"ord": ord, "axis": M._axis(dim), "keepdims": bool(keepdim)})


@expose(ops="subtract", tensor="subtract")
def subtract(input, other, *, alpha=1):
    """`input - alpha * other`."""
    return sub(input, other if alpha == 1 else mul(other, alpha))


def _with_value(prim, input, axis, keep_dims):
    values, indices = apply(prim, (input,), {"axis": int(axis), "keepdims": bool(keep_dims)})
    return indices, values


@expose(cls="ArgMaxWithValue", init=("axis", "keep_dims"), tensor="argmax_with_value", prim="ArgMaxWithValue")
def argmax_with_value(input, axis=0, keep_dims=False):
    """MindSpore's ArgMaxWithValue: (indices, values) of the maximum along `axis`."""
    return _with_value(M.argmax_with_value, input, axis, keep_dims)


@expose(cls="ArgMinWithValue", init=("axis", "keep_dims"), tensor="argmin_with_value", prim="ArgMinWithValue")
def argmin_with_value(input, axis=0, keep_dims=False):
    """MindSpore's ArgMinWithValue: (indices, values) of the minimum along `axis`."""
    return _with_value(M.argmin_with_value, input, axis, keep_dims)


@primitive("Einsum", attrs=("equation",), category="matmul")
def einsum_(*xs, equation):
    return jnp.einsum(equation, *xs)


@expose(ops=("einsum", "einsum_ext"), mint="einsum", prim="Einsum")
def einsum(equation, *operands):
    """Einstein summation; `operands` may also be given as one list."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    return apply(einsum_, operands, {"equation": str(equation)})


@primitive("AddN", category="elementwise")
def addn_(*xs):
    """The sum of its inputs (all the same shape)."""
    out = xs[0]
    for x in xs[1:]:
        out = out + x
    return out


@expose(ops="addn", cls="AddN")
def addn(x):
    """The elementwise sum of a tuple/list of tensors of one shape."""
    return apply(addn_, tuple(x))


@expose(ops="logit", tensor="logit")
def logit(input, eps=None):
    """log(p / (1 - p)); with `eps`, p is first clamped to [eps, 1 - eps]."""
    p = input if eps is None else clamp(input, eps, 1 - eps)
    return sub(apply(M.LOG, (p,)), apply(M.LOG1P, (neg(p),)))


@expose(ops="count_nonzero")
def count_nonzero(x, axis=(), keep_dims=False, dtype="int32"):
    """The number of non-zero elements over `axis` (all axes for ())."""
    nz = cast(apply(M.NOT_EQUAL, (x, 0)), "int32")
    return cast(apply(M.REDUCE_SUM, (nz,), {"axis": M._axis(axis), "keepdims": bool(keep_dims)}), dtype)


@expose(mint="count_nonzero", prim="ReduceSum")
def count_nonzero_ext(input, dim=None):
    """`mint.count_nonzero`: the int64 count of non-zero elements over `dim` (every element when None)."""
    return count_nonzero(input, () if dim is None else dim, False, "int64")


@expose(ops="cosine_similarity")
def cosine_similarity(x1, x2, dim=1, eps=1e-08):
    """x1·x2 / max(|x1| |x2|, eps) along `dim`."""
    dot_ = apply(M.REDUCE_SUM, (mul(x1, x2),), {"axis": int(dim), "keepdims": False})
    n1 = sqrt(apply(M.REDUCE_SUM, (mul(x1, x1),), {"axis": int(dim), "keepdims": False}))
    n2 = sqrt(apply(M.REDUCE_SUM, (mul(x2, x2),), {"axis": int(dim), "keepdims": False}))
    return apply(M.DIV, (dot_, apply(M.MAXIMUM, (mul(n1, n2), float(eps)))))


@expose(ops="clip_by_value")
def clip_by_value(x, clip_value_min=None, clip_value_max=None):
    return clamp(x, clip_value_min, clip_value_max)


@expose(ops="accumulate_n", cls="AccumulateNV2", prim="AddN")
def accumulate_n(x):
    """The elementwise sum of a tuple/list of tensors of one shape (MindSpore's `AccumulateNV2`, as `addn`)."""
    return addn(x)


# MindSpore's functional in-place ops: `ops.clamp_(x, 0, 1)` writes x and returns it, as the Tensor method does
@expose(ops="clamp_")
def clamp_(input, min=None, max=None):
    return input.clamp_(min, max)


@expose(ops="erfinv_")
def erfinv_(input):
    return input.erfinv_()


@expose(ops="tanh_")
def tanh_(input):
    return input.tanh_()


@expose(ops="inplace_sigmoid")
def inplace_sigmoid(input):
    return input.sigmoid_()
