"""Scatter, gather and segment primitives (MindSpore's `scatter_*`, `scatter_nd_*`, `tensor_scatter_*`, segments).

`Scatter` (torch-style, along an axis) and `Gather` (MindSpore's, with its generated `ops.gather`) are declared
here too, beside their class forms `ScatterAddWithAxis` and `SparseGatherV2`.

Three index forms, each one primitive with a `kind` attribute (add, sub, mul, div, max, min, update):
- `ScatterRows`: `indices` pick rows (dim 0) of `input_x`; `updates` has shape `indices.shape + x.shape[1:]`;
- `ScatterNdOp`: the last dim of `indices` is a coordinate tuple into `input_x` (`scatter_nd_*`,
  `tensor_scatter_*`);
- `SegmentReduce`: rows of `x` reduced into `num_segments` segments by `segment_ids`.
MindSpore's `scatter_*` / `scatter_nd_*` write into their first input (a Parameter, or the Tensor itself in
PyNative) and return it; `tensor_scatter_*` return a new tensor. Index values are range-checked wherever
they are known, as MindSpore's CPU kernels do (jax would drop an out-of-range update silently).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtype as mstype
from ..ignored_args import not_honoured
from ..tensor import Tensor
from . import bounds
from .api import REQUIRED, Api, Attr, expose
from .index_ops import eager_only
from .primitive import apply, primitive
from .sparse_apply_ops import NO_LOCKING

# ---------------------------------------------------------------- along an axis (torch-style) and gather
@primitive("Scatter", attrs=("axis", "reduce"), category="shape")
def scatter(x, index, src, *, axis, reduce="none"):
    """torch-style scatter along `axis`: out[index[i][j]][j] = src[i][j] (or added, for reduce="add")."""
    idx = list(jnp.meshgrid(*[jnp.arange(n) for n in index.shape], indexing="ij"))
    idx[axis] = index
    src = src[tuple(slice(0, n) for n in index.shape)] if src.shape != index.shape else src  # src may be larger
    at = x.at[tuple(idx)]
    return at.add(src.astype(x.dtype)) if reduce == "add" else at.set(src.astype(x.dtype))


@primitive("Gather", attrs=("axis", "batch_dims"), category="shape",
           api=Api("gather", args=("input_params", "input_indices"),
                   attrs=(Attr("axis", REQUIRED, int), Attr("batch_dims", 0, int)), cls="Gather GatherV2",
                   init=("batch_dims",)), values=bounds.gather)
def gather(params, indices, *, axis=0, batch_dims=0):
    """MindSpore's Gather: take slices of `params` along `axis` at `indices`."""
    if batch_dims:
        fn = lambda p, i: jnp.take(p, i, axis=axis - batch_dims)  # noqa: E731
        for _ in range(batch_dims):
            fn = jax.vmap(fn)
        return fn(params, indices)
    return jnp.take(params, indices, axis=axis)


KINDS = ("add", "sub", "mul", "div", "max", "min", "update")


def _at(at, kind: str, v):
    if kind == "add":
        return at.add(v)
    if kind == "sub":
        return at.add(-v)
    if kind == "mul":
        return at.multiply(v)
    if kind == "div":
        return at.divide(v)
    if kind == "max":
        return at.max(v)
    if kind == "min":
        return at.min(v)
    return at.set(v)


def _rows_values(x, indices, updates, *, kind) -> str | None:
    values = bounds.concrete(indices)
    n = bounds._along(x, 0)
    bad = None if values is None else bounds.outside(values, 0, n)
    return None if bad is None else f"indices value {bad} is out of range [0, {n}) of input_x's dim 0"


def _nd_values(x, indices, updates, *, kind) -> str | None:
    return bounds.gather_nd(x, indices)


@primitive("ScatterRows", attrs=("kind",), category="shape", values=_rows_values)
def scatter_rows(x, indices, updates, *, kind):
    """`x[indices[...]] (op)= updates` along dim 0; duplicates apply in turn."""
    return _at(x.at[indices], kind, updates.astype(x.dtype))


@primitive("ScatterNdOp", attrs=("kind",), category="shape", values=_nd_values)
def scatter_nd_op(x, indices, updates, *, kind):
    """`x[tuple(indices[..., :])] (op)= updates`."""
    return _at(x.at[tuple(jnp.moveaxis(indices, -1, 0))], kind, updates.astype(x.dtype))


def _shape_check(op: str, x, indices, updates, nd: bool) -> None:
    xs, ish, us = tuple(x.shape), tuple(indices.shape), tuple(updates.shape)
    want = (ish[:-1] + xs[ish[-1]:]) if nd else (ish + xs[1:])
    if nd and (not ish or ish[-1] > len(xs)):
        raise ValueError(f"{op}: the last dim of indices ({ish}) must be <= the rank of input_x {xs}")
    if us != want:
        raise ValueError(f"{op}: updates must have shape {want} for input_x {xs} and indices {ish}, got {us}")
    if mstype.to_np(indices.dtype).kind not in "iu":
        raise TypeError(f"{op}: indices must be integers, got {indices.dtype}")


def _in_place(target, result):
    """MindSpore's RW scatter ops write into their first input and return it."""
    if isinstance(target, Tensor):
        return target._rebind(result)
    return result


def _rows(kind: str):
    def fn(input_x, indices, updates):
        _shape_check(f"scatter_{kind}", input_x, indices, updates, nd=False)
        return _in_place(input_x, apply(scatter_rows, (input_x, indices, updates), {"kind": kind}))
    fn.__name__ = f"scatter_{kind}"
    fn.__doc__ = f"`input_x[indices] {kind}= updates` along dim 0, in place (MindSpore's `ops.scatter_{kind}`)."
    return fn


def _nd(kind: str, in_place: bool):
    name = f"scatter_nd_{kind}" if in_place else f"tensor_scatter_{kind}"

    def fn(input_x, indices, updates):
        _shape_check(name, input_x, indices, updates, nd=True)
        out = apply(scatter_nd_op, (input_x, indices, updates), {"kind": kind})
        return _in_place(input_x, out) if in_place else out
    fn.__name__ = name
    return fn


def _locked(op: str, use_locking, default: bool) -> None:
    """MindSpore's `use_locking`: a value other than the op's default warns once (`NO_LOCKING`)."""
    if not isinstance(use_locking, (bool, np.bool_)):
        raise TypeError(f"{op}: use_locking must be a bool, got {use_locking!r}")
    not_honoured(op, "use_locking", bool(use_locking), default, NO_LOCKING)


def _cls_call(fn, locking: bool, op: str):
    def call(input_x, indices, updates, *, use_locking=locking):
        _locked(op, use_locking, locking)
        return fn(input_x, indices, updates)
    return call


for _kind in KINDS:
    _cap = _kind.capitalize()
    _f = _rows(_kind)
    expose(ops="" if _kind == "sub" else f"scatter_{_kind}")(_f)
    expose(cls=f"Scatter{_cap}", init=("use_locking",), prim="ScatterRows")(
        _cls_call(_f, _kind == "update", f"Scatter{_cap}"))
    _g = _nd(_kind, True)
    if _kind != "update":
        def _with_lock(f=_g, op=f"scatter_nd_{_kind}"):
            def scatter_nd(input_x, indices, updates, use_locking=False):
                _locked(op, use_locking, False)
                return f(input_x, indices, updates)
            return scatter_nd
        expose(ops=f"scatter_nd_{_kind}", prim="ScatterNdOp")(_with_lock())
    expose(cls=f"ScatterNd{_cap}", init=("use_locking",), prim="ScatterNdOp")(
        _cls_call(_g, _kind == "update", f"ScatterNd{_cap}"))
    if _kind not in ("add", "update"):  # tensor_scatter_add/update are array_ops' declarations
        _h = _nd(_kind, False)
        # MindSpore's Tensor.scatter_<kind> is the out-of-place tensor_scatter_<kind>
        expose(ops=f"tensor_scatter_{_kind}", cls=f"TensorScatter{_cap}", tensor=f"scatter_{_kind}",
               prim="ScatterNdOp")(_h)


@expose(ops="scatter_nd_update", prim="ScatterNdOp")
def scatter_nd_update(input_x, indices, updates, use_locking=True):
    _locked("scatter_nd_update", use_locking, True)
    return _nd("update", True)(input_x, indices, updates)


@expose(cls="ScatterNonAliasingAdd", prim="ScatterNdOp")
def _scatter_non_aliasing_add(input_x, indices, updates):
    return _nd("add", True)(input_x, indices, updates)


@expose(cls="ScatterAddWithAxis", init=("axis",), prim="Scatter")
def _scatter_add_with_axis(input_x, indices, updates, *, axis=0):
    """`input_x` with `updates` added along `axis` at `indices` (tensor_scatter_elements's "add")."""
    return _in_place(input_x, apply(scatter, (input_x, indices, updates),
                                    {"axis": int(axis) % len(input_x.shape), "reduce": "add"}))


# ---------------------------------------------------------------- segments
_REDUCERS = {"sum": jax.ops.segment_sum, "max": jax.ops.segment_max, "min": jax.ops.segment_min,
             "prod": jax.ops.segment_prod}


def _segment_values(x, ids, *, kind, num_segments, sorted_ids=False) -> str | None:
    values = bounds.concrete(ids)
    if values is None:
        return None
    if sorted_ids and values.size and (np.diff(values.reshape(-1)) < 0).any():
        return "segment_ids must be sorted in ascending order"
    if sorted_ids and values.size and values.min() < 0:
        return f"segment_ids value {int(values.min())} is negative"
    bad = None if sorted_ids else bounds.outside(values, 0, num_segments)
    return None if bad is None else f"segment_ids value {bad} is out of range [0, {num_segments})"


@primitive("SegmentReduce", attrs=("kind", "num_segments", "sorted_ids"), category="reduce",
           values=_segment_values)
def segment_reduce(x, ids, *, kind, num_segments, sorted_ids=False):
    """Rows of `x` (over `ids`' dims) reduced per segment id (ids outside [0, num_segments) are refused where known).

    An empty segment holds 0 for sum/mean and the sorted `Segment*` ops, 1 for prod, and the dtype's lowest /
    highest value for the unsorted max / min (MindSpore's CPU answers)."""
    flat = x.reshape((-1,) + x.shape[ids.ndim:])
    seg = ids.reshape(-1).astype(jnp.int32)
    if kind == "mean":
        total = jax.ops.segment_sum(flat, seg, num_segments)
        count = jax.ops.segment_sum(jnp.ones_like(seg, x.dtype), seg, num_segments)
        return total / jnp.maximum(count, 1).reshape((-1,) + (1,) * (total.ndim - 1))
    out = _REDUCERS[kind](flat, seg, num_segments)
    if sorted_ids and kind in ("max", "min"):
        count = jax.ops.segment_sum(jnp.ones_like(seg), seg, num_segments)
        out = jnp.where((count > 0).reshape((-1,) + (1,) * (out.ndim - 1)), out, jnp.zeros_like(out))
    elif kind in ("max", "min") and jnp.issubdtype(x.dtype, jnp.floating):
        info = jnp.finfo(x.dtype)
        out = jnp.where(jnp.isinf(out) & (out < 0 if kind == "max" else out > 0),
                        info.min if kind == "max" else info.max, out)
    return out.astype(x.dtype)


def _num(num_segments) -> int:
    return int(num_segments.asnumpy().reshape(()) if isinstance(num_segments, Tensor) else num_segments)


def _unsorted(kind: str):
    def fn(input_x, segment_ids, num_segments):
        return apply(segment_reduce, (input_x, segment_ids), {"kind": kind, "num_segments": _num(num_segments),
                                                             "sorted_ids": False})
    fn.__name__ = f"unsorted_segment_{kind}"
    return fn


for _kind in ("sum", "max", "min", "prod"):
    _u = _unsorted(_kind)
    expose(ops=f"unsorted_segment_{_kind}", tensor=() if _kind == "sum" else f"unsorted_segment_{_kind}",
           prim="SegmentReduce")(
        _u if _kind == "sum" else (lambda f: lambda x, segment_ids, num_segments: f(x, segment_ids, num_segments))(_u))
    expose(cls=f"UnsortedSegment{_kind.capitalize()}", prim="SegmentReduce")(
        (lambda f: lambda input_x, segment_ids, num_segments: f(input_x, segment_ids, num_segments))(_u))


def _sorted(kind: str):
    def fn(input_x, segment_ids):
        eager_only(f"Segment{kind.capitalize()}", segment_ids._data)
        values = segment_ids.asnumpy()
        n = int(values.max()) + 1 if values.size else 0
        return apply(segment_reduce, (input_x, segment_ids), {"kind": kind, "num_segments": n, "sorted_ids": True})
    return fn


for _kind in ("sum", "max", "min", "mean", "prod"):
    expose(cls=f"Segment{_kind.capitalize()}", prim="SegmentReduce")(_sorted(_kind))


@expose(cls="SparseGatherV2", prim="Gather")
def _sparse_gather_v2(input_params, input_indices, axis):
    return apply(gather, (input_params, input_indices), {"axis": int(axis), "batch_dims": 0})
