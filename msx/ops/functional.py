"""`msx.ops.functional` (MindSpore's `ops.functional`, `F`): every functional op with MindSpore's names.

Ops without argument logic are generated from their primitive's declaration (`api.Api`, next to the
primitive in math_ops/array_ops/nn_ops); this module holds only the wrappers that do real work on their
arguments, each registered with `expose` under its public names. `__all__` is the whole functional surface.
"""
from __future__ import annotations

import builtins
from typing import Sequence

import jax.numpy as jnp

from .. import context
from ..tensor import Tensor
from . import array_ops as A
from . import math_ops as M
from . import nn_ops as N
from .api import SURFACE, expose
from .convert import scalar as _scalar
from .convert import to_dtype as _msx_dtype
from .convert import to_pair as _pair
from .convert import to_shape as _shape_attr
from .convert import AttrError, to_ints
from ..errors import OpError, OpTypeError
from .array_ops import _np_dtype
from .sizes import check_size
from . import bounds as _bounds
from .primitive import describe as _describe
from .primitive import apply, known_value

# generated views the hand-written wrappers below build on
_ops = SURFACE["ops"]
cast, reshape, transpose, swapaxes, neg, mul, sub, sqrt, expand_dims = (_ops[n] for n in (
    "cast", "reshape", "transpose", "swapaxes", "neg", "mul", "sub", "sqrt", "expand_dims"))


# ---------------------------------------------------------------- arithmetic






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














































@expose(ops="clamp clip", tensor="clamp clip", mint="clamp clip")
def clamp(input, min=None, max=None):
    if min is None and max is None:
        raise ValueError("clamp: min and max cannot both be None")
    return apply(M.clip, (input,), {"min": _scalar(min), "max": _scalar(max)})






@expose(ops="dense", cls="Dense")
def dense(input, weight, bias=None):
    return apply(M.dense, (input, weight) if bias is None else (input, weight, bias))






# ---------------------------------------------------------------- comparison and logic
























# ---------------------------------------------------------------- reductions
def _reduce(prim, input, axis, keep_dims):
    return apply(prim, (input,), {"axis": M._axis(axis), "keepdims": bool(keep_dims)})




@expose(ops="sum", mint="sum")
def sum(input, dim=None, keepdim=False, *, dtype=None):
    out = _reduce(M.REDUCE_SUM, input, dim, keepdim)
    return out if dtype is None else cast(out, dtype)






def _maybe_cast(x, dtype):
    return x if dtype is None else cast(x, dtype)


@expose(ops="prod")
def prod(input, axis=None, keep_dims=False, dtype=None):
    return _reduce(M.REDUCE_PROD, _maybe_cast(input, dtype), axis, keep_dims)


@expose(ops="nansum", tensor="nansum")
def nansum(input, axis=None, keepdims=False, *, dtype=None):
    """Sum treating NaN as zero."""
    return _reduce(M.NANSUM, _maybe_cast(input, dtype), axis, keepdims)


@expose(ops="nanmean", tensor="nanmean")
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


def _no_where(name, initial, where):
    if initial is not None or where is not None:
        raise ValueError(f"{name}: `initial` and `where` are supported by ops.amax/amin (values only); "
                         f"ops.{name} also returns indices, which they would not define")








@expose(ops="max")
def max(input, axis=None, keepdims=False, *, initial=None, where=None):
    """MindSpore's `ops.max`: (values, indices) along `axis`; over all elements when axis is None."""
    _no_where("max", initial, where)
    if axis is None:
        flat = reshape(input, (-1,))
        return apply(M.argmax_with_value, (flat,), {"axis": 0, "keepdims": False})
    return apply(M.argmax_with_value, (input,), {"axis": int(axis), "keepdims": bool(keepdims)})


@expose(ops="min")
def min(input, axis=None, keepdims=False, *, initial=None, where=None):
    """MindSpore's `ops.min`: (values, indices) along `axis`."""
    _no_where("min", initial, where)
    if axis is None:
        flat = reshape(input, (-1,))
        return apply(M.argmin_with_value, (flat,), {"axis": 0, "keepdims": False})
    return apply(M.argmin_with_value, (input,), {"axis": int(axis), "keepdims": bool(keepdims)})










@expose(ops="cumsum")
def cumsum(x, axis, dtype=None):
    out = apply(M.cumsum, (x,), {"axis": int(axis), "exclusive": False, "reverse": False})
    return out if dtype is None else cast(out, dtype)


@expose(ops="cumprod", tensor="cumprod", mint="cumprod")
def cumprod(input, dim, dtype=None):
    out = apply(M.cumprod, (input,), {"axis": int(dim), "exclusive": False, "reverse": False})
    return out if dtype is None else cast(out, dtype)


@expose(ops="norm")
def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):  # noqa: N803  (MindSpore's argument name)
    return apply(M.norm, (_maybe_cast(A, dtype),), {"ord": ord, "axis": M._axis(dim), "keepdims": bool(keepdim)})


# ---------------------------------------------------------------- activations
@expose(ops="relu", mintf="relu")
def relu(input, inplace=False):
    """max(input, 0); `inplace=True` also writes the result into `input` (MindSpore's in-place form)."""
    out = apply(N.RELU, (input,))
    return input._rebind(out) if inplace else out








@expose(ops="silu")
def silu(input):
    return apply(N.SILU, (input,))


@expose(mintf="silu")
def mint_silu(input, inplace=False):
    """x * sigmoid(x); `inplace=True` also writes the result into `input`."""
    out = apply(N.SILU, (input,))
    return input._rebind(out) if inplace else out


@expose(ops="softplus", mintf="softplus")
def softplus(input, beta=1, threshold=20):
    return apply(N.SOFTPLUS, (input,)) if beta == 1 else div(apply(N.SOFTPLUS, (mul(input, beta),)), beta)






@expose(ops="softmax")
def softmax(input, axis=-1, *, dtype=None):
    x = input if dtype is None else cast(input, dtype)
    return apply(N.softmax, (x,), {"axis": M._axis(axis)})




# ---------------------------------------------------------------- shape












@expose(ops="concat cat", cls="Concat", init=("axis",))
def concat(tensors: Sequence, axis=0):
    return apply(A.concat, tuple(tensors), {"axis": int(axis)})




@expose(ops="stack", cls="Stack Pack", init=("axis",))
def stack(tensors: Sequence, axis=0):
    return apply(A.stack, tuple(tensors), {"axis": int(axis)})


@expose(ops="split")
def split(tensor, split_size_or_sections, axis=0):
    """torch/MindSpore 2.x split: an int is the size of each chunk; a list gives the chunk sizes."""
    size = tensor.shape[axis]
    if isinstance(split_size_or_sections, int):
        points = tuple(range(split_size_or_sections, size, split_size_or_sections))
    else:
        acc, points = 0, []
        for s in list(split_size_or_sections)[:-1]:
            acc += int(s)
            points.append(acc)
        points = tuple(points)
    return apply(A.split, (tensor,), {"indices_or_sections": points, "axis": int(axis)})








@expose(ops="flatten")
def flatten(input, order="C", *, start_dim=1, end_dim=-1):
    if order != "C":
        raise ValueError(f"flatten: only order='C' is supported, got {order!r}")
    return apply(A.flatten, (input,), {"start_dim": int(start_dim), "end_dim": int(end_dim)})








@expose(ops="gather_d", cls="GatherD")
def gather_d(x, dim, index):
    return gather_elements(x, dim, index)


@expose(ops="gather_elements", tensor="gather_elements")
def gather_elements(input, dim, index):
    return apply(A.gather_d, (input, index), {"dim": int(dim)})




@expose(ops="index_select", tensor="index_select")
def index_select(input, axis, index):
    """The slices of `input` along `axis` at the 1-D integer `index` (MindSpore's `ops.index_select`)."""
    if not isinstance(index, Tensor) or index.ndim != 1 or index.dtype.is_floating:
        raise OpTypeError(f"index_select: index must be a 1-D integer Tensor, got {_describe(index)}")
    axis = int(axis)
    _bounds.require("index_select", _bounds.gather(input._data, known_value(index), axis=axis))
    return apply(A.gather, (input, index), {"axis": axis % builtins.max(input.ndim, 1), "batch_dims": 0})


@expose(mint="index_select")
def _mint_index_select(input, dim, index):
    return index_select(input, dim, index)


@expose(ops="one_hot")
def one_hot(indices, depth, on_value=1.0, off_value=0.0, axis=-1):
    return apply(A.one_hot, (indices,), {"depth": int(depth), "on_value": float(on_value),
                                         "off_value": float(off_value), "axis": int(axis)})


@expose(ops="pad")
def pad(input_x, padding, mode="constant", value=None):
    """torch-style `padding`: (left, right) pairs starting from the last dim."""
    if mode != "constant":
        raise ValueError(f"pad: only mode='constant' is supported, got {mode!r}")
    padding = to_ints(padding, "padding")
    if len(padding) % 2 or len(padding) // 2 > input_x.ndim:
        raise OpError(f"pad: padding {padding} must hold (before, after) pairs, at most one per dim of the "
                      f"{input_x.ndim}-D input of shape {tuple(input_x.shape)}; got {len(padding)} values")
    pairs = [(0, 0)] * input_x.ndim
    for i in range(len(padding) // 2):
        pairs[input_x.ndim - 1 - i] = (int(padding[2 * i]), int(padding[2 * i + 1]))
    return apply(A.pad, (input_x,), {"paddings": tuple(pairs), "value": 0.0 if value is None else value})




@expose(ops="topk")
def topk(input, k, dim=None, largest=True, sorted=True):
    """(values, indices) of the `k` largest (or smallest) entries along `dim` (default: the last)."""
    dim = -1 if dim is None else int(dim)
    last = dim in (-1, input.ndim - 1)
    x = input if last else swapaxes(input, dim, -1)
    if not largest:
        x = neg(x)
    values, indices = apply(A.topk, (x,), {"k": int(k)})
    if not largest:
        values = neg(values)
    if not last:
        values, indices = swapaxes(values, dim, -1), swapaxes(indices, dim, -1)
    return values, indices


# ---------------------------------------------------------------- creation
def _new_shape(op: str, shape, dtype) -> tuple[int, ...]:
    """A creation op's shape: ints, none negative, and a tensor the device can hold (checked before XLA)."""
    try:
        dims = _shape_attr(shape)
    except AttrError as exc:
        raise exc.named(op) from None
    if builtins.any(d < 0 for d in dims):
        raise OpError(f"{op}: shape {dims} has a negative dimension")
    check_size(op, dims, _np_dtype(dtype, "float32"))
    return dims


@expose(ops="ones")
def ones(shape, dtype=None):
    dtype = _msx_dtype(dtype or "float32")
    return apply(A.fill, (), {"shape": _new_shape("ones", shape, dtype), "value": 1.0, "dtype": dtype})


@expose(ops="zeros")
def zeros(size, dtype=None):
    dtype = _msx_dtype(dtype or "float32")
    return apply(A.fill, (), {"shape": _new_shape("zeros", size, dtype), "value": 0.0, "dtype": dtype})


@expose(ops="full", mint="full")
def full(size, fill_value, *, dtype=None):
    dtype = None if dtype is None else _msx_dtype(dtype)
    value = _scalar(fill_value)
    if not isinstance(value, (bool, int, float, complex)):
        raise OpTypeError(f"full: fill_value must be a number or a one-element Tensor, got "
                          f"{type(fill_value).__name__} ({fill_value!r:.40})")
    shape = _new_shape("full", size, dtype if dtype is not None else A.fill_default(value))
    return apply(A.fill, (), {"shape": shape, "value": value, "dtype": dtype})


@expose(ops="ones_like", cls="OnesLike", mint="ones_like")
def ones_like(input, *, dtype=None):
    return apply(A.fill_like, (input,), {"value": 1, "dtype": None if dtype is None else _msx_dtype(dtype)})


@expose(ops="zeros_like", cls="ZerosLike", mint="zeros_like")
def zeros_like(input, *, dtype=None):
    return apply(A.fill_like, (input,), {"value": 0, "dtype": None if dtype is None else _msx_dtype(dtype)})


@expose(ops="full_like", mint="full_like")
def full_like(input, fill_value, *, dtype=None):
    return apply(A.fill_like, (input,), {"value": _scalar(fill_value), "dtype": None if dtype is None else _msx_dtype(dtype)})


@expose(ops="arange", mint="arange")
def arange(start=0, end=None, step=1, *, dtype=None):
    if end is None:
        start, end = 0, start
    return apply(A.arange, (), {"start": start, "end": end, "step": step,
                                "dtype": None if dtype is None else _msx_dtype(dtype)})


@expose(ops="eye", mint="eye")
def eye(n, m=None, dtype=None):
    return apply(A.eye, (), {"n": int(n), "m": None if m is None else int(m),
                             "dtype": None if dtype is None else _msx_dtype(dtype)})


# ---------------------------------------------------------------- nn functions
@expose(ops="conv2d")
def conv2d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1, groups=1):
    if pad_mode not in ("valid", "same", "pad"):
        raise ValueError(f"conv2d: pad_mode must be 'valid', 'same' or 'pad', got {pad_mode!r}")
    attrs = {"stride": _pair(stride), "pad_mode": pad_mode, "padding": _pad4(padding),
             "dilation": _pair(dilation), "groups": int(groups)}
    return apply(N.conv2d, (input, weight) if bias is None else (input, weight, bias), attrs)


def _pad4(padding) -> tuple[int, int, int, int]:
    if isinstance(padding, int):
        return (padding,) * 4
    padding = tuple(int(p) for p in padding)
    return (padding[0], padding[0], padding[1], padding[1]) if len(padding) == 2 else padding


@expose(ops="max_pool2d")
def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
    if return_indices or dilation not in (1, (1, 1)):
        raise ValueError("max_pool2d: return_indices and dilation != 1 are not supported")
    k = _pair(kernel_size)
    return apply(N.max_pool2d, (x,), {"kernel_size": k, "stride": _pair(stride) if stride is not None else k,
                                      "pad_mode": "pad" if padding else "valid", "padding": _pad4(padding),
                                      "ceil_mode": bool(ceil_mode)})


@expose(ops="avg_pool2d")
def avg_pool2d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    k = _pair(kernel_size)
    if divisor_override is not None and ceil_mode:
        raise ValueError("avg_pool2d: divisor_override cannot be combined with ceil_mode=True")
    out = apply(N.avg_pool2d, (input_x,), {"kernel_size": k, "stride": _pair(stride), "pad_mode": "pad" if padding
                                           else "valid", "padding": _pad4(padding), "ceil_mode": bool(ceil_mode),
                                           "count_include_pad": bool(count_include_pad or divisor_override)})
    # with a divisor override every window holds k*k terms: rescale the mean to sum / divisor
    return out if divisor_override is None else mul(out, (k[0] * k[1]) / divisor_override)


def _check_reduction(op: str, reduction: str) -> str:
    if reduction not in ("mean", "sum", "none"):
        raise OpError(f"{op}: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
    return reduction








@expose(ops="binary_cross_entropy_with_logits")
def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction="mean"):
    inputs = (input, target) + tuple(t for t in (weight, pos_weight) if t is not None)
    return apply(N.bce_with_logits, inputs, {"reduction": _check_reduction("binary_cross_entropy_with_logits", reduction),
                                             "has_weight": weight is not None, "has_pos_weight": pos_weight is not None})


@expose(ops="cross_entropy", mintf="cross_entropy")
def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    inputs = (input, target) if weight is None else (input, target, weight)
    return apply(N.cross_entropy, inputs, {"reduction": _check_reduction("cross_entropy", reduction),
                                           "ignore_index": int(ignore_index),
                                           "label_smoothing": float(label_smoothing), "has_weight": weight is not None})


@expose(ops="nll_loss")
def nll_loss(inputs, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    if label_smoothing:
        raise ValueError(f"nll_loss: label_smoothing is not supported, got {label_smoothing!r}")
    return apply(N.nll_loss, (inputs, target) if weight is None else (inputs, target, weight),
                 {"reduction": _check_reduction("nll_loss", reduction), "ignore_index": int(ignore_index),
                  "has_weight": weight is not None})


@expose(ops="layer_norm")
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    begin = input.ndim - len(tuple(normalized_shape))
    w = weight if weight is not None else ones(normalized_shape, input.dtype)
    b = bias if bias is not None else zeros(normalized_shape, input.dtype)
    return apply(N.layer_norm, (input, w, b), {"begin_norm_axis": begin, "epsilon": float(eps)})


@expose(ops="batch_norm")
def batch_norm(input_x, running_mean, running_var, weight, bias, training=False, momentum=0.1, eps=1e-5):
    """Functional batch norm: returns the normalised tensor; in training, `running_mean`/`running_var` are
    updated in place as `(1 - momentum) * running + momentum * batch statistic` (MindSpore and torch)."""
    y, new_mean, new_var = apply(N.batch_norm, (input_x, weight, bias, running_mean, running_var),
                                 {"is_training": bool(training), "epsilon": float(eps),
                                  "momentum": 1.0 - float(momentum), "axis": 1})
    if training:
        for stat, new in ((running_mean, new_mean), (running_var, new_var)):
            if isinstance(stat, Tensor):
                stat._rebind(new)
    return y


# ---------------------------------------------------------------- random (seeded by set_seed)
def _next_key() -> Tensor:
    """Split the global PRNG state: the state Parameter moves on, the caller gets a fresh key."""
    state = context.rng_state()
    new_state, key = apply(N.random_split, (state,))
    state._rebind(new_state)
    return key


@expose(ops="uniform")
def uniform(shape, minval, maxval, seed=None, dtype=None):
    """Uniform samples in [minval, maxval); ints give integers (MindSpore's `ops.uniform`)."""
    lo, hi = _scalar(minval), _scalar(maxval)
    if isinstance(lo, int) and isinstance(hi, int) and (dtype is None or not _msx_dtype(dtype).is_floating):
        return randint(lo, hi, shape, dtype=dtype or "int64")
    return apply(N.uniform, (_next_key(),), {"shape": _shape_attr(shape), "minval": float(lo), "maxval": float(hi),
                                            "dtype": _msx_dtype(dtype or "float32")})




@expose(ops="normal")
def normal(shape, mean=0.0, stddev=1.0, seed=None):
    return apply(N.normal, (_next_key(),), {"shape": _shape_attr(shape), "mean": float(_scalar(mean)),
                                           "stddev": float(_scalar(stddev)), "dtype": _msx_dtype("float32")})


@expose(ops="standard_normal")
def standard_normal(shape, seed=None):
    return normal(shape)


@expose(ops="randn")
def randn(*size, dtype=None, seed=None):
    shape = size[0] if len(size) == 1 and not isinstance(size[0], int) else size
    return apply(N.normal, (_next_key(),), {"shape": _shape_attr(shape), "mean": 0.0, "stddev": 1.0,
                                           "dtype": _msx_dtype(dtype or "float32")})


@expose(ops="rand")
def rand(*size, dtype=None, seed=None):
    shape = size[0] if len(size) == 1 and not isinstance(size[0], int) else size
    return apply(N.uniform, (_next_key(),), {"shape": _shape_attr(shape), "minval": 0.0, "maxval": 1.0,
                                            "dtype": _msx_dtype(dtype or "float32")})


@expose(ops="randint")
def randint(low, high, size, seed=None, *, dtype=None):
    if high <= low:
        raise ValueError(f"randint: high ({high}) must be greater than low ({low})")
    return apply(N.randint, (_next_key(),), {"shape": _shape_attr(size), "low": int(low), "high": int(high),
                                            "dtype": _msx_dtype(dtype or "int64")})


@expose(ops="bernoulli")
def bernoulli(input, p=0.5, seed=None):
    return cast(apply(N.bernoulli, (_next_key(),), {"p": float(p), "shape": tuple(input.shape)}), input.dtype)


@expose(ops="dropout")
def dropout(input, p=0.5, training=True, seed=None):
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout: p must be in [0, 1], got {p}")
    if not training or p == 0.0:
        return input
    return apply(N.dropout, (input, _next_key()), {"p": float(p)})


# ---------------------------------------------------------------- autodiff / debug


@expose(ops="depend", cls="Depend")
def depend(value, expr):
    """MindSpore's `ops.depend`: returns `value`; ordering is already program order in msx."""
    return value


@expose(ops="print_")
def print_(*input_x) -> None:
    """Print strings and tensors (at run time under jit, in program order)."""
    template = tuple(x if isinstance(x, str) else None for x in input_x)
    tensors = tuple(x for x in input_x if not isinstance(x, str))
    apply(A.print_, tensors, {"template": template})


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


def _scatter(input, axis, index, src, reduce):
    if not isinstance(src, Tensor):
        src = full_like(index, src, dtype=input.dtype)
    return apply(A.scatter, (input, index, src), {"axis": int(axis), "reduce": reduce})


@expose(ops="scatter", tensor="scatter")
def scatter(input, axis, index, src):
    """out = input, then out[index[i][j]][j] = src[i][j] along `axis` (torch/MindSpore scatter)."""
    return _scatter(input, axis, index, src, "none")


@expose(mint="scatter")
def mint_scatter(input, dim, index, src):
    return _scatter(input, dim, index, src, "none")


@expose(mint="scatter_add")
def mint_scatter_add(input, dim, index, src):
    """out = input, then out[index[i][j]][j] += src[i][j] along `dim`."""
    return _scatter(input, dim, index, src, "add")


@expose(ops="tensor_scatter_elements", cls="TensorScatterElements", init=("axis", "reduction"))
def tensor_scatter_elements(input_x, indices, updates, axis=0, reduction="none"):
    if reduction not in ("none", "add"):
        raise ValueError(f"tensor_scatter_elements: reduction must be 'none' or 'add', got {reduction!r}")
    return _scatter(input_x, axis, indices, updates, reduction)


@expose(ops="einsum", mint="einsum")
def einsum(equation, *operands):
    """Einstein summation; `operands` may also be given as one list."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    return apply(A.einsum, operands, {"equation": str(equation)})


@expose(ops="addn", cls="AddN")
def addn(x):
    """The elementwise sum of a tuple/list of tensors of one shape."""
    return apply(M.addn, tuple(x))


@expose(ops="logit", tensor="logit")
def logit(input, eps=None):
    """log(p / (1 - p)); with `eps`, p is first clamped to [eps, 1 - eps]."""
    p = input if eps is None else clamp(input, eps, 1 - eps)
    return sub(apply(M.LOG, (p,)), apply(M.LOG1P, (neg(p),)))


@expose(ops="fliplr", tensor="fliplr")
def fliplr(input):
    return apply(A.flip, (input,), {"dims": (1,)})


@expose(ops="flipud", tensor="flipud")
def flipud(input):
    return apply(A.flip, (input,), {"dims": (0,)})


@expose(ops="hstack", mint="hstack")
def hstack(tensors):
    """Concatenate along dim 1 (dim 0 for 1-D tensors)."""
    tensors = list(tensors)
    return concat(tensors, 0 if builtins.all(t.ndim <= 1 for t in tensors) else 1)  # (`all` is ops.all here)


@expose(ops="vstack")
def vstack(inputs):
    """Stack rows: 1-D tensors become rows, then concatenate along dim 0."""
    return concat([reshape(t, (1, -1)) if t.ndim < 2 else t for t in inputs], 0)


@expose(ops="dstack", mint="dstack")
def dstack(tensors):
    """Concatenate along dim 2 after making every tensor at least 3-D, as numpy's dstack."""
    out = []
    for t in tensors:
        if t.ndim == 0:
            t = reshape(t, (1, 1, 1))
        elif t.ndim == 1:
            t = reshape(t, (1, -1, 1))
        elif t.ndim == 2:
            t = expand_dims(t, 2)
        out.append(t)
    return concat(out, 2)


@expose(ops="column_stack")
def column_stack(tensors):
    """1-D tensors become columns; concatenate along dim 1."""
    return concat([reshape(t, (-1, 1)) if t.ndim < 2 else t for t in tensors], 1)


@expose(ops="chunk", tensor="chunk")
def chunk(input, chunks, axis=0):
    """`chunks` pieces along `axis`, each of ceil(size / chunks) (the last may be smaller)."""
    size = input.shape[axis]
    step = -(-size // int(chunks))
    return split(input, step, axis)


@expose(mint="chunk")
def mint_chunk(input, chunks, dim=0):
    return chunk(input, chunks, dim)


@expose(ops="count_nonzero")
def count_nonzero(x, axis=(), keep_dims=False, dtype="int32"):
    """The number of non-zero elements over `axis` (all axes for ())."""
    nz = cast(apply(M.NOT_EQUAL, (x, 0)), "int32")
    return cast(apply(M.REDUCE_SUM, (nz,), {"axis": M._axis(axis), "keepdims": bool(keep_dims)}), dtype)


@expose(ops="cosine_similarity")
def cosine_similarity(x1, x2, dim=1, eps=1e-08):
    """x1·x2 / max(|x1| |x2|, eps) along `dim`."""
    dot_ = apply(M.REDUCE_SUM, (mul(x1, x2),), {"axis": int(dim), "keepdims": False})
    n1 = sqrt(apply(M.REDUCE_SUM, (mul(x1, x1),), {"axis": int(dim), "keepdims": False}))
    n2 = sqrt(apply(M.REDUCE_SUM, (mul(x2, x2),), {"axis": int(dim), "keepdims": False}))
    return apply(M.DIV, (dot_, apply(M.MAXIMUM, (mul(n1, n2), float(eps)))))


@expose(ops="assign", cls="Assign")
def assign(variable, value):
    """Write `value` into the Parameter `variable` (cast to its dtype) and return it."""
    from ..tensor import Parameter

    if not isinstance(variable, Parameter):
        raise TypeError(f"assign: variable must be a Parameter, got {type(variable).__name__}")
    return variable.assign_value(value)


@expose(ops="clip_by_value")
def clip_by_value(x, clip_value_min=None, clip_value_max=None):
    return clamp(x, clip_value_min, clip_value_max)


globals().update(SURFACE["ops"])  # every generated functional op is a name of this module
__all__ = sorted(SURFACE["ops"])
