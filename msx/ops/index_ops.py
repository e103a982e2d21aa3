"""Indexing primitives: selecting by mask or index, writing at indices, slicing (MindSpore's names).

Ops whose result shape depends on the values (`nonzero`, `masked_select`) run eagerly only: inside a compiled
graph XLA needs every shape before the graph runs, so they raise there, saying so. Index values are checked
wherever they are known (eagerly and in the call being captured), as MindSpore's CPU kernels do: jax would
clamp or drop an out-of-range index silently.
"""
from __future__ import annotations

import builtins

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..errors import OpError
from ..tensor import Parameter, Tensor
from . import array_ops as A, bounds
from .api import REQUIRED, Api, Attr, SURFACE, expose
from .attr_converters import scalar, to_ints
from .primitive import apply, primitive


builtin_slice = builtins.slice


def _shape(x) -> tuple:
    return tuple(getattr(x, "shape", ()))


def eager_only(op: str, *arrays) -> None:
    """Refuse a data-dependent result shape inside a compiled graph, naming why."""
    if any(isinstance(a, jax.core.Tracer) for a in arrays):
        raise OpError(f"{op}: the result's shape depends on the input values, which a compiled graph only knows "
                      f"when it runs; call it outside jit (XLA needs static shapes)")


def rows_rule(what: str, pos: int, axis_attr: str | None = "axis", allow_negative: bool = False):
    """A `values` rule: the integer input at `pos` indexes dim `axis` (an attr, or 0) of input 0."""
    def rule(*arrays, **attrs) -> str | None:
        values = bounds.concrete(arrays[pos])
        if values is None:
            return None
        axis = attrs.get(axis_attr, 0) if axis_attr else 0
        n = bounds._along(arrays[0], axis)
        bad = bounds.outside(values, -n if allow_negative else 0, n)
        return None if bad is None else f"{what} value {bad} is out of range [{-n if allow_negative else 0}, {n}) " \
                                        f"along axis {axis}"
    return rule


def _write_back(target, result):
    """MindSpore's in-place ops on a Parameter update it and return it; on a plain Tensor they return the result."""
    if isinstance(target, Parameter):
        return target._rebind(result)
    return result


# ---------------------------------------------------------------- data-dependent selection
@primitive("NonZero", category="shape", differentiable=False,
           api=(Api("argwhere", cls="NonZero", tensor="argwhere"),))
def nonzero(x):
    """Indices (int64, one row per non-zero element) of the non-zero elements of `x`."""
    eager_only("NonZero", x)
    return jnp.argwhere(x).astype(jnp.int64)


@expose(ops="nonzero", mint="nonzero", tensor="nonzero")
def nonzero_(input, *, as_tuple=False):
    out = apply(nonzero, (input,))
    if not as_tuple:
        return out
    return tuple(apply(A.select_index, (out,), {"axis": 1, "index": i}) for i in range(out.shape[1]))


@primitive("MaskedSelect", category="shape", api=Api("masked_select", args=("input", "mask"), cls="MaskedSelect",
                                                     tensor="masked_select", mint="masked_select"))
def masked_select(x, mask):
    """The elements of `x` where `mask` (broadcast together) holds, as a 1-D tensor."""
    eager_only("MaskedSelect", mask)
    x, mask = jnp.broadcast_arrays(x, mask)
    return x[np.asarray(mask)]


@primitive("MaskedScatter", category="shape", api=Api(args=("input", "mask", "source"), cls="MaskedScatter",
                                                      tensor="masked_scatter"))
def masked_scatter(x, mask, source):
    """`x` with the positions where `mask` holds filled, in row-major order, by the leading elements of `source`."""
    mask = jnp.broadcast_to(mask, x.shape).reshape(-1)
    order = jnp.cumsum(mask) - 1
    picked = jnp.take(source.reshape(-1), jnp.clip(order, 0, max(source.size - 1, 0)))
    return jnp.where(mask, picked.astype(x.dtype), x.reshape(-1)).reshape(x.shape)


# ---------------------------------------------------------------- writing at indices along an axis
def _moved(fn):
    """Apply `fn(x_moved, index, y_moved)` with `axis` moved to the front, and move it back."""
    def impl(x, index, y, *, axis):
        axis = axis % x.ndim
        xm = jnp.moveaxis(x, axis, 0)
        ym = jnp.moveaxis(jnp.broadcast_to(y, x.shape[:axis] + (index.size,) + x.shape[axis + 1:])
                          if y.ndim else y, axis, 0) if y.ndim else y
        return jnp.moveaxis(fn(xm, index.reshape(-1), ym), 0, axis)
    return impl


@primitive("IndexAdd", attrs=("axis",), category="shape", values=rows_rule("indices", 1))
def index_add(x, indices, y, *, axis):
    """`x` with rows `y` added at `indices` along `axis` (duplicates accumulate)."""
    return _moved(lambda xm, i, ym: xm.at[i].add(ym.astype(xm.dtype)))(x, indices, y, axis=axis)


@expose(ops="index_add")
def index_add_(x, indices, y, axis, use_lock=True, check_index_bound=True):
    return _write_back(x, apply(index_add, (x, indices, y), {"axis": int(axis)}))


@expose(mint="index_add", prim="IndexAdd")
def index_add_ext(input, dim, index, source, *, alpha=1):
    """`mint.index_add`: a new tensor, `input` with `alpha * source` added at `index` along `dim`."""
    rank = len(input.shape)
    if not -max(rank, 1) <= int(dim) < max(rank, 1):
        raise ValueError(f"mint.index_add: dim {dim} is out of range for a tensor of rank {rank}")
    src = source if alpha == 1 else SURFACE["ops"]["mul"](source, alpha)
    return apply(index_add, (input, index, src), {"axis": int(dim) % max(rank, 1)})


@expose(cls="IndexAdd", init=("axis", "use_lock", "check_index_bound"), prim="IndexAdd")
def _index_add_cls(input_x, indices, input_y, *, axis, use_lock=True, check_index_bound=True):
    return index_add_(input_x, indices, input_y, axis)


@expose(ops="inplace_index_add", cls="InplaceIndexAdd", init=("axis",), prim="IndexAdd")
def inplace_index_add(var, indices, updates, axis):
    return index_add_(var, indices, updates, axis)


@primitive("IndexFill", attrs=("axis",), category="shape", values=rows_rule("index", 1, allow_negative=True))
def index_fill(x, index, value, *, axis):
    """`x` with the slices at `index` along `axis` set to the scalar `value`."""
    n = x.shape[axis]
    hit = jnp.zeros((n,), bool).at[index.reshape(-1) % max(n, 1)].set(True)
    shape = [1] * x.ndim
    shape[axis] = n
    return jnp.where(hit.reshape(shape), jnp.asarray(value).astype(x.dtype), x)


@expose(ops="index_fill", tensor="index_fill", prim="IndexFill")
def index_fill_(x, axis, index, value):
    index = index if isinstance(index, Tensor) else Tensor(np.asarray(index, np.int32))
    return apply(index_fill, (x, index, value if isinstance(value, Tensor) else float(value) if isinstance(
        value, float) else value), {"axis": int(axis) % max(len(x.shape), 1)})


@expose(cls="IndexFill")
def _index_fill_cls(x, dim, index, value):
    return index_fill_(x, dim, index, value)


@primitive("IndexPut", attrs=("accumulate",), category="shape")
def index_put(x, values, *indices, accumulate=0):
    at = x.at[tuple(indices)]
    return at.add(values.astype(x.dtype)) if accumulate else at.set(values.astype(x.dtype))


@expose(cls="IndexPut", init=("accumulate",), prim="IndexPut")
def _index_put_cls(x1, x2, indices, *, accumulate=0):
    if accumulate not in (0, 1):
        raise ValueError(f"IndexPut: accumulate must be 0 or 1, got {accumulate}")
    return _write_back(x1, apply(index_put, (x1, x2, *indices), {"accumulate": int(accumulate)}))


@primitive("InplaceOp", attrs=("indices", "kind"), category="shape")
def inplace_op(x, v, *, indices, kind):
    """Rows `indices` (axis 0) of `x` updated with `v`: kind "add", "sub" or "update"."""
    idx = np.asarray(indices)
    v = v.reshape((len(idx),) + x.shape[1:]).astype(x.dtype)
    at = x.at[idx]
    return at.add(v) if kind == "add" else at.add(-v) if kind == "sub" else at.set(v)


def _inplace(kind: str):
    def fn(x, v, indices):
        idx = to_ints(indices.asnumpy() if isinstance(indices, Tensor) else indices)
        n = _shape(x)[0]
        for i in idx:
            if not -n <= i < n:
                raise IndexError(f"inplace_{kind}: index {i} is out of range [{-n}, {n}) of dim 0")
        return apply(inplace_op, (x, v), {"indices": idx, "kind": kind})
    return fn


for _kind in ("add", "sub", "update"):
    _fn = _inplace(_kind)
    _fn.__name__ = f"inplace_{_kind}"
    expose(ops=f"inplace_{_kind}", tensor="inplace_update" if _kind == "update" else ())(_fn)
    expose(cls=f"Inplace{_kind.capitalize()}", init=("indices",), prim="InplaceOp")(
        (lambda f: lambda x, v, *, indices: f(x, v, indices))(_fn))


@expose(cls="InplaceUpdateV2", prim="InplaceOp")
def _inplace_update_v2(x, indices, v):
    return _inplace("update")(x, v, indices)


# ---------------------------------------------------------------- scatter into views
@expose(ops="select")
def select(condition, input, other):
    return SURFACE["ops"]["where"](condition, input, other)


@primitive("SliceScatter", attrs=("axis", "start", "end", "step"), category="shape")
def slice_scatter(x, src, *, axis, start, end, step):
    idx = [builtin_slice(None)] * x.ndim
    idx[axis] = builtin_slice(start, end, step)
    return x.at[tuple(idx)].set(src.astype(x.dtype))


@expose(ops="slice_scatter", tensor="slice_scatter", prim="SliceScatter")
def slice_scatter_(input, src, axis=0, start=None, end=None, step=1):
    return apply(slice_scatter, (input, src), {"axis": int(axis), "start": start, "end": end, "step": int(step)})


@expose(ops="select_scatter", tensor="select_scatter")
def select_scatter(input, src, axis, index):
    n = input.shape[axis]
    if not -n <= index < n:
        raise IndexError(f"select_scatter: index {index} is out of range [{-n}, {n}) for axis {axis}")
    index %= n
    src = SURFACE["ops"]["expand_dims"](src, axis)
    return apply(slice_scatter, (input, src), {"axis": int(axis), "start": index, "end": index + 1, "step": 1})


@primitive("DiagonalScatter", attrs=("offset", "dim1", "dim2"), category="shape")
def diagonal_scatter(x, src, *, offset=0, dim1=0, dim2=1):
    rows, cols = x.shape[dim1], x.shape[dim2]
    n = max(0, min(rows, cols - offset) if offset >= 0 else min(rows + offset, cols))
    i = jnp.arange(n) + max(-offset, 0)
    j = jnp.arange(n) + max(offset, 0)
    xm = jnp.moveaxis(x, (dim1, dim2), (-2, -1))
    return jnp.moveaxis(xm.at[..., i, j].set(src.astype(x.dtype)), (-2, -1), (dim1, dim2))


@expose(ops="diagonal_scatter", tensor="diagonal_scatter", prim="DiagonalScatter")
def diagonal_scatter_(input, src, offset=0, dim1=0, dim2=1):
    nd = len(input.shape)
    return apply(diagonal_scatter, (input, src), {"offset": int(offset), "dim1": dim1 % nd, "dim2": dim2 % nd})


# ---------------------------------------------------------------- slicing
@primitive("Slice", attrs=("begin", "size"), category="shape")
def slice_(x, *, begin, size):
    size = tuple(x.shape[i] - b if s == -1 else s for i, (b, s) in enumerate(zip(begin, size)))
    return lax.slice(x, begin, tuple(b + s for b, s in zip(begin, size)))


def _begin_size(x, begin, size) -> dict:
    begin, size = to_ints(begin), to_ints(size)
    shape = _shape(x)
    if len(begin) != len(shape) or len(size) != len(shape):
        raise ValueError(f"slice: begin {begin} and size {size} must have one entry per dim of shape {shape}")
    for d, (b, s) in enumerate(zip(begin, size)):
        if b < 0 or s < -1 or (s != -1 and b + s > shape[d]) or b > shape[d]:
            raise ValueError(f"slice: begin {b} and size {s} do not fit dim {d} of size {shape[d]}")
    return {"begin": begin, "size": size}


@expose(ops="slice")
def slice_op(input_x, begin, size):
    return apply(slice_, (input_x,), _begin_size(input_x, begin, size))


@expose(ops="tensor_slice")
def tensor_slice(input, begin, size):
    return slice_op(input, begin, size)


@expose(cls="Slice", prim="Slice")
def _slice_cls(input, begin, size):
    return slice_op(input, begin, size)


def _bits(mask: int, i: int) -> bool:
    return bool((mask >> i) & 1)


def strided_index(shape, begin, end, strides, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                  shrink_axis_mask=0) -> tuple:
    """The Python index that MindSpore's (TensorFlow's) StridedSlice masks describe."""
    index, dim = [], 0
    n_real = sum(1 for i in range(len(begin)) if not _bits(new_axis_mask, i) and not _bits(ellipsis_mask, i))
    for i in range(len(begin)):
        if _bits(ellipsis_mask, i):
            index.append(Ellipsis)
            dim += len(shape) - n_real
        elif _bits(new_axis_mask, i):
            index.append(None)
        elif _bits(shrink_axis_mask, i):
            index.append(int(begin[i]))
            dim += 1
        else:
            index.append(builtin_slice(None if _bits(begin_mask, i) else int(begin[i]),
                                       None if _bits(end_mask, i) else int(end[i]), int(strides[i])))
            dim += 1
    return tuple(index)


@primitive("StridedSlice", attrs=("index",), category="shape")
def strided_slice(x, *, index):
    """`x[index]` for a static index of ints, slices, None and Ellipsis (encoded as plain data)."""
    return x[tuple(builtin_slice(*i[1:]) if i[0] == "s" else None if i[0] == "n" else Ellipsis if i[0] == "e"
                   else i[1] for i in index)]


def _encode(index: tuple) -> tuple:
    return tuple(("s", i.start, i.stop, i.step) if isinstance(i, builtin_slice) else ("n",) if i is None else
                 ("e",) if i is Ellipsis else ("i", i) for i in index)


@expose(ops="strided_slice")
def strided_slice_(input_x, begin, end, strides, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                   shrink_axis_mask=0):
    begin, end, strides = to_ints(begin), to_ints(end), to_ints(strides)
    if not len(begin) == len(end) == len(strides):
        raise ValueError(f"strided_slice: begin {begin}, end {end} and strides {strides} must have the same length")
    if 0 in strides:
        raise ValueError(f"strided_slice: strides must not be 0, got {strides}")
    index = strided_index(_shape(input_x), begin, end, strides, begin_mask, end_mask, ellipsis_mask,
                          new_axis_mask, shrink_axis_mask)
    return apply(strided_slice, (input_x,), {"index": _encode(index)})


@expose(cls="StridedSlice", init=("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"),
        prim="StridedSlice")
def _strided_slice_cls(input_x, begin, end, strides, *, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                       shrink_axis_mask=0):
    return strided_slice_(input_x, begin, end, strides, begin_mask, end_mask, ellipsis_mask, new_axis_mask,
                          shrink_axis_mask)
