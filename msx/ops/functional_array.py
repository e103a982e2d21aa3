"""Hand-written functional ops, part of `msx.ops.functional`: shape, indexing, creation and scatter.

concat/split/stack families, gathers with bounds checks, pad, topk, ones/zeros/full/arange/eye with size
checks, scatter, einsum, and the graph-order ops (depend, print_, assign). The primitives only these wrappers
run (`Stack`, `Flatten`, `GatherD`, `OneHot`, `Pad`, `TopK`) are declared here, beside them.

Each is registered with `expose` under its public names; `functional` imports this module and re-exports
the whole surface.
"""
from __future__ import annotations

import builtins
from typing import Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..tensor import Parameter, Tensor
from . import array_ops as A
from . import layout_ops as LO
from . import scatter_ops as S
from .api import SURFACE, expose
from .attr_converters import scalar as _scalar
from .attr_converters import to_dtype as _msx_dtype
from .attr_converters import to_shape as _shape_attr
from .attr_converters import AttrError, to_axis, to_ints
from ..errors import OpError, OpTypeError
from .array_ops import _np_dtype
from ..sizes import check_size
from . import bounds as _bounds
from .primitive import describe as _describe
from .primitive import apply, known_value, primitive

# generated views the wrappers below build on
_ops = SURFACE["ops"]
cast, reshape, swapaxes, neg, expand_dims = (_ops[n] for n in ("cast", "reshape", "swapaxes", "neg", "expand_dims"))


@expose(ops="concat cat", cls="Concat", init=("axis",))
def concat(tensors: Sequence, axis=0):
    return apply(A.concat, tuple(tensors), {"axis": int(axis)})


@primitive("Stack", attrs=("axis",), category="shape")
def stack_(*xs, axis=0):
    return jnp.stack(xs, axis=axis)


@expose(ops="stack", cls="Stack Pack", init=("axis",), prim="Stack")
def stack(tensors: Sequence, axis=0):
    return apply(stack_, tuple(tensors), {"axis": int(axis)})


@expose(ops="split")
def split(tensor, split_size_or_sections, axis=0):
    """torch/MindSpore 2.x split: an int is the size of each chunk; a list gives the chunk sizes."""
    axis = to_axis(axis, len(tensor.shape), "split")
    size = tensor.shape[axis]
    if isinstance(split_size_or_sections, int):
        points = tuple(range(split_size_or_sections, size, split_size_or_sections))
    else:
        acc, points = 0, []
        for s in list(split_size_or_sections)[:-1]:
            acc += int(s)
            points.append(acc)
        points = tuple(points)
    return apply(LO.split, (tensor,), {"indices_or_sections": points, "axis": int(axis)})


@primitive("Flatten", attrs=("start_dim", "end_dim"), category="shape")
def flatten_(x, *, start_dim=1, end_dim=-1):
    """Merge dims `start_dim..end_dim` into one."""
    shape = x.shape
    if not shape:
        return jnp.reshape(x, (1,))
    start, end = start_dim % len(shape), end_dim % len(shape)
    if start > end:  # jnp would insert a dim of size 1; MindSpore refuses
        raise ValueError(f"start_dim {start_dim} comes after end_dim {end_dim} for a tensor of rank {len(shape)}")
    merged = int(np.prod(shape[start:end + 1]))
    return jnp.reshape(x, shape[:start] + (merged,) + shape[end + 1:])


@expose(ops="flatten", prim="Flatten")
def flatten(input, order="C", *, start_dim=1, end_dim=-1):
    if order != "C":
        raise ValueError(f"flatten: only order='C' is supported, got {order!r}")
    return apply(flatten_, (input,), {"start_dim": int(start_dim), "end_dim": int(end_dim)})


@primitive("GatherD", attrs=("dim",), category="shape", values=_bounds.gather_d)
def gather_d_(x, index, *, dim):
    """torch-style gather: out[i][j] = x[i][index[i][j]] along `dim`."""
    return jnp.take_along_axis(x, index, axis=dim)


@expose(ops="gather_d", cls="GatherD", prim="GatherD")
def gather_d(x, dim, index):
    return gather_elements(x, dim, index)


@expose(ops="gather_elements", tensor="gather_elements")
def gather_elements(input, dim, index):
    return apply(gather_d_, (input, index), {"dim": int(dim)})


@expose(ops="index_select", tensor="index_select")
def index_select(input, axis, index):
    """The slices of `input` along `axis` at the 1-D integer `index` (MindSpore's `ops.index_select`)."""
    if not isinstance(index, Tensor) or index.ndim != 1 or index.dtype.is_floating:
        raise OpTypeError(f"index_select: index must be a 1-D integer Tensor, got {_describe(index)}")
    axis = int(axis)
    _bounds.require("index_select", _bounds.gather(input._data, known_value(index), axis=axis))
    return apply(S.gather, (input, index), {"axis": axis % builtins.max(input.ndim, 1), "batch_dims": 0})


@expose(mint="index_select")
def _mint_index_select(input, dim, index):
    return index_select(input, dim, index)


def _one_hot_value(value, what: str) -> tuple[float | int, np.dtype]:
    """(the Python number, its dtype) of an on/off value as MindSpore types it: a Python int is int64, a float
    float32, a Tensor or numpy scalar its own dtype; bool is refused."""
    dtype = value.dtype.np_dtype if isinstance(value, Tensor) else np.asarray(value).dtype
    if dtype == np.bool_ or not (np.issubdtype(dtype, np.integer) or np.issubdtype(dtype, np.floating)):
        raise OpTypeError(f"one_hot: {what} must be an int or float number or Tensor, got {value!r}")
    if isinstance(value, (int, float)) and not isinstance(value, np.generic):
        dtype = np.dtype(np.int64 if isinstance(value, int) else np.float32)
    number = known_value(value) if isinstance(value, Tensor) else value
    if number is None:
        raise OpError(f"one_hot: {what} must be a known value under jit, got a Tensor computed in the graph")
    return (int(number) if np.issubdtype(dtype, np.integer) else float(number)), dtype


@primitive("OneHot", attrs=("depth", "on_value", "off_value", "axis", "dtype"), category="elementwise",
           differentiable=False)
def one_hot_(indices, *, depth, on_value=1.0, off_value=0.0, axis=-1, dtype="float32"):
    """Out-of-range indices give an all-`off_value` row, as MindSpore documents; the result has the on/off
    values' `dtype`."""
    if not jnp.issubdtype(indices.dtype, jnp.integer):
        raise OpTypeError(f"OneHot: indices must be integers, got dtype {np.dtype(indices.dtype).name} of shape "
                          f"{tuple(indices.shape)}")
    if depth < 0:
        raise OpError(f"OneHot: depth must be >= 0, got {depth}")
    target = np.dtype(dtype)
    hot = jax.nn.one_hot(indices, depth, axis=axis, dtype=target)
    return hot * jnp.asarray(on_value - off_value, target) + jnp.asarray(off_value, target)


@expose(ops="one_hot", prim="OneHot")
def one_hot(indices, depth, on_value=1, off_value=0, axis=-1):
    """MindSpore's dtype rule: the result has the on/off values' dtype (they must agree): `1`/`0` (the
    defaults) give int64, `1.0`/`0.0` float32, Tensors their own."""
    (on, on_dtype), (off, off_dtype) = _one_hot_value(on_value, "on_value"), _one_hot_value(off_value, "off_value")
    if on_dtype != off_dtype:
        raise OpTypeError(f"one_hot: on_value and off_value must have the same dtype, got {on_dtype.name} "
                          f"({on_value!r}) and {off_dtype.name} ({off_value!r})")
    return apply(one_hot_, (indices,), {"depth": int(depth), "on_value": on, "off_value": off, "axis": int(axis),
                                         "dtype": on_dtype.name})


@primitive("Pad", attrs=("paddings", "value"), category="shape")
def pad_(x, *, paddings, value=0.0):
    """`paddings`: ((before, after), ...) per dim."""
    return jnp.pad(x, paddings, constant_values=value)


@expose(ops="pad", prim="Pad")
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
    return apply(pad_, (input_x,), {"paddings": tuple(pairs), "value": 0.0 if value is None else value})


@primitive("TopK", attrs=("k",), multiple_results=True)
def topk_(x, *, k):
    values, idx = lax.top_k(x, k)
    return values, idx.astype(jnp.int32)  # MindSpore 2.10: ops.topk's indices are int32, as ops.TopK()'s


@expose(ops="topk", prim="TopK")
def topk(input, k, dim=None, largest=True, sorted=True):
    """(values, indices) of the `k` largest (or smallest) entries along `dim` (default: the last)."""
    dim = -1 if dim is None else int(dim)
    last = dim in (-1, input.ndim - 1)
    x = input if last else swapaxes(input, dim, -1)
    if not largest:
        x = neg(x)
    values, indices = apply(topk_, (x,), {"k": int(k)})
    if not largest:
        values = neg(values)
    if not last:
        values, indices = swapaxes(values, dim, -1), swapaxes(indices, dim, -1)
    return values, indices


def _new_shape(op: str, shape, dtype) -> tuple[int, ...]:
    """A creation op's shape: ints, none negative, and a tensor the device can hold (checked before XLA)."""
    try:
        dims = _shape_attr(shape)
    except AttrError as exc:
        raise exc.named(op) from None
    check_size(op, dims, _np_dtype(dtype, "float32"))  # (and refuses a negative dimension)
    return dims


@expose(ops="ones")
def ones(shape, dtype=None):
    dtype = _msx_dtype(dtype or "float32")
    return apply(LO.fill_, (), {"shape": _new_shape("ones", shape, dtype), "value": 1.0, "dtype": dtype})


@expose(ops="zeros")
def zeros(size, dtype=None):
    dtype = _msx_dtype(dtype or "float32")
    return apply(LO.fill_, (), {"shape": _new_shape("zeros", size, dtype), "value": 0.0, "dtype": dtype})


@expose(ops="full", mint="full")
def full(size, fill_value, *, dtype=None):
    dtype = None if dtype is None else _msx_dtype(dtype)
    value = _scalar(fill_value)
    if not isinstance(value, (bool, int, float, complex)):
        raise OpTypeError(f"full: fill_value must be a number or a one-element Tensor, got "
                          f"{type(fill_value).__name__} ({fill_value!r:.40})")
    shape = _new_shape("full", size, dtype if dtype is not None else LO.fill_default(value))
    return apply(LO.fill_, (), {"shape": shape, "value": value, "dtype": dtype})


@expose(ops="ones_like", cls="OnesLike", mint="ones_like")
def ones_like(input, *, dtype=None):
    return apply(LO.fill_like, (input,), {"value": 1, "dtype": None if dtype is None else _msx_dtype(dtype)})


@expose(ops="zeros_like", cls="ZerosLike", mint="zeros_like")
def zeros_like(input, *, dtype=None):
    return apply(LO.fill_like, (input,), {"value": 0, "dtype": None if dtype is None else _msx_dtype(dtype)})


@expose(ops="full_like", mint="full_like")
def full_like(input, fill_value, *, dtype=None):
    return apply(LO.fill_like, (input,), {"value": _scalar(fill_value), "dtype": None if dtype is None else _msx_dtype(dtype)})


@expose(ops="arange", mint="arange")
def arange(start=0, end=None, step=1, *, dtype=None):
    if end is None:
        start, end = 0, start
    return apply(LO.arange, (), {"start": start, "end": end, "step": step,
                                "dtype": None if dtype is None else _msx_dtype(dtype)})


@expose(ops="eye", mint="eye")
def eye(n, m=None, dtype=None):
    return apply(LO.eye, (), {"n": int(n), "m": None if m is None else int(m),
                             "dtype": None if dtype is None else _msx_dtype(dtype)})


@expose(ops="depend", cls="Depend")
def depend(value, expr):
    """MindSpore's `ops.depend`: returns `value`; ordering is already program order in msx."""
    return value


@primitive("Print", attrs=("template", "sep"), multiple_results=True, differentiable=False)
def print_template(*xs, template, sep=" "):
    """Print `template` (a tuple of str pieces, None where a tensor goes), joined by `sep`, at run time, in order
    (capture's `print()` rule, msx/capture/handlers.py, records this primitive too)."""
    def emit(*values):
        it = iter(values)
        print(sep.join(str(np.asarray(next(it))) if piece is None else piece for piece in template), flush=True)

    jax.debug.callback(emit, *xs, ordered=True)
    return ()


@expose(ops="print_", prim="Print")
def print_(*input_x) -> None:
    """Print strings and tensors (at run time under jit, in program order)."""
    template = tuple(x if isinstance(x, str) else None for x in input_x)
    tensors = tuple(x for x in input_x if not isinstance(x, str))
    apply(print_template, tensors, {"template": template})


def _scatter(input, axis, index, src, reduce):
    if not isinstance(src, Tensor):
        src = full_like(index, src, dtype=input.dtype)
    return apply(S.scatter, (input, index, src), {"axis": int(axis), "reduce": reduce})


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


@expose(ops="assign", cls="Assign")
def assign(variable, value):
    """Write `value` into the Parameter `variable` (cast to its dtype) and return it."""
    if not isinstance(variable, Parameter):
        raise TypeError(f"assign: variable must be a Parameter, got {type(variable).__name__}")
    return variable.assign_value(value)


# the functional spellings of Tensor's in-place `zero_` / `put_`: they write `input` and return it
@expose(ops="zero_")
def zero_(input):
    return input.zero_()


@expose(ops="put_")
def put_(input, index, source, accumulate=False):
    return input.put_(index, source, accumulate)
