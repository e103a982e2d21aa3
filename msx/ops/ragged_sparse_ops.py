"""MindSpore's ragged and sparse-COO ops whose result length depends on the values: `ops.RaggedRange`,
`ops.EditDistance`, `ops.Coalesce` / `ops.coalesce` and `ops.sparse_segment_mean`.

Each result's shape is set by the input values (the number of range elements, of distinct indices, the last
segment id, the dense shape a shape Tensor holds), which a compiled graph only knows when it runs (XLA needs
static shapes): they run eagerly, and inside `msx.jit` they raise an `OpError` naming the op
(`index_ops.eager_only`, as the NMS ops in `detection_ops.py`). The rules are MindSpore 2.10's CPU kernels':

- `RaggedRange(Tsplits)(starts, limits, deltas)`: for each i the range starts[i], starts[i] + deltas[i], ...
  up to (not including) limits[i] (empty when deltas[i] points away from limits[i]); the splits (Tsplits) and
  the values (the inputs' dtype); 0-D inputs count as one range;
- `EditDistance(normalize)`: the Levenshtein distance of each sequence of the hypothesis sparse tensor (the
  entries sharing all index components but the last, in the order given: MindSpore does not sort them) to the
  truth's, as float32 of shape
  max(hypothesis_shape[:-1], truth_shape[:-1]); normalised by the truth's length (an empty truth gives inf,
  or 0 when the hypothesis is empty too);
- `Coalesce`: the distinct index columns in lexicographic order, with the sum of their values;
- `sparse_segment_mean(x, indices, segment_ids)`: row s is the mean of x[indices[j]] over the j with
  segment_ids[j] == s (0 for a segment with none), for s up to segment_ids[-1]; segment_ids must be sorted.
  Only segment_ids sets the shape: a compiled graph takes it as a constant (a graph input is refused), and
  the gradient with respect to x flows.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtype as mstype
from ..errors import OpError, OpTypeError
from ..tensor import Tensor
from .api import expose
from .apply_prim import known_value
from .attr_converters import to_dtype
from .detection_ops import static_values
from .index_ops import eager_only
from .primitive import apply, primitive

_RANGE_DTYPES = tuple(np.dtype(d) for d in ("int32", "int64", "float32", "float64"))


def refuse_graph_values(op: str, *tensors) -> None:
    """Refuse, naming `op`, inputs whose values a graph being captured only knows when it runs (its inputs and
    computed values; a constant is fine), before the op is recorded."""
    for t in tensors:
        if isinstance(t, Tensor) and isinstance(known_value(t), (jax.ShapeDtypeStruct, jax.core.Tracer)):
            raise OpError(f"{op}: the result's shape depends on the input values, which a compiled graph only "
                          f"knows when it runs; call it outside jit (XLA needs static shapes)")


def _fail(op: str, reason: str | None, kind=OpError) -> None:
    if reason is not None:
        raise kind(f"{op}: {reason}")


# ---------------------------------------------------------------- RaggedRange
def _ragged_check(starts, limits, deltas, **_) -> str | None:
    shapes = [tuple(t.shape) for t in (starts, limits, deltas)]
    if any(len(s) > 1 for s in shapes):
        return f"starts, limits and deltas must be 0-D or 1-D, got shapes {shapes}"
    if len(set(shapes)) != 1:
        return f"starts, limits and deltas must have the same shape, got {shapes}"
    dts = [np.dtype(t.dtype) for t in (starts, limits, deltas)]
    if dts[0] not in _RANGE_DTYPES:
        return f"starts must be int32, int64, float32 or float64, got {dts[0]}"
    if len(set(dts)) != 1:
        return f"starts, limits and deltas must have one dtype, got {[str(d) for d in dts]}"
    return None


@primitive("RaggedRange", attrs=("Tsplits",), category="shape", check=_ragged_check, differentiable=False,
           multiple_results=True)
def ragged_range(starts, limits, deltas, *, Tsplits=mstype.int64):  # noqa: N803  (MindSpore's attribute name)
    """(rt_nested_splits (Tsplits), rt_dense_values (the inputs' dtype)) of the ranges [starts[i], limits[i])
    stepped by deltas[i]."""
    eager_only("RaggedRange", starts, limits, deltas)
    _fail("RaggedRange", _ragged_check(starts, limits, deltas))
    dt = np.dtype(starts.dtype)
    s, lim, d = (np.asarray(t, dt).reshape(-1) for t in (starts, limits, deltas))
    if (d == 0).any():
        raise OpError(f"RaggedRange: deltas must not be 0, got {d.tolist()}")
    forward = ((d > 0) & (s < lim)) | ((d < 0) & (s > lim))
    if np.issubdtype(dt, np.integer):
        span, step = np.abs(lim.astype(np.int64) - s), np.abs(d.astype(np.int64))
        sizes = (span + step - 1) // step
    else:
        sizes = np.ceil(np.abs((lim - s) / d)).astype(np.int64)
    sizes = np.where(forward, sizes, 0)
    splits = np.concatenate([[0], np.cumsum(sizes)]).astype(mstype.to_np(Tsplits))
    values = np.concatenate([s[i] + np.arange(n, dtype=dt) * d[i] for i, n in enumerate(sizes)] or
                            [np.zeros((0,), dt)]).astype(dt)
    return jnp.asarray(splits), jnp.asarray(values)


@expose(cls="RaggedRange", init=("Tsplits",), prim="RaggedRange")
def _ragged_range_cls(starts, limits, deltas, *, Tsplits):  # noqa: N803
    tsplits = to_dtype(Tsplits)
    if tsplits not in (mstype.int32, mstype.int64):
        raise OpTypeError(f"RaggedRange: Tsplits must be mindspore.int32 or mindspore.int64, got {tsplits}")
    refuse_graph_values("RaggedRange", starts, limits, deltas)
    return apply(ragged_range, (starts, limits, deltas), {"Tsplits": tsplits})


# ---------------------------------------------------------------- EditDistance
def _levenshtein(a: np.ndarray, b: np.ndarray) -> int:
    row = np.arange(len(b) + 1)
    for i, x in enumerate(a, 1):
        prev, row = row, np.empty_like(row)
        row[0] = i
        for j, y in enumerate(b, 1):
            row[j] = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (x != y))
    return int(row[-1])


def _edit_check(hi, hv, hs, ti, tv, ts, **_) -> str | None:
    for side, (ix, vals, shape) in (("hypothesis", (hi, hv, hs)), ("truth", (ti, tv, ts))):
        if np.dtype(ix.dtype) != np.int64 or np.dtype(shape.dtype) != np.int64:
            return f"{side}_indices and {side}_shape must be int64, got {ix.dtype} and {shape.dtype}"
        if len(ix.shape) != 2 or len(vals.shape) != 1 or ix.shape[0] != vals.shape[0]:
            return f"{side}_indices must be (N, R) and {side}_values (N,), got {tuple(ix.shape)} and " \
                   f"{tuple(vals.shape)}"
        if len(shape.shape) != 1 or shape.shape[0] != ix.shape[1]:
            return f"{side}_shape must be a vector of length R={ix.shape[1]}, got shape {tuple(shape.shape)}"
    if hi.shape[1] != ti.shape[1]:
        return f"the hypothesis and the truth must have the same rank, got {hi.shape[1]} and {ti.shape[1]}"
    if hv.dtype != tv.dtype:
        return f"hypothesis_values and truth_values must have one dtype, got {hv.dtype} and {tv.dtype}"
    return None


def _sequences(op: str, side: str, indices: np.ndarray, values: np.ndarray, shape: np.ndarray) -> dict:
    if ((indices < 0) | (indices >= shape)).any():
        raise OpError(f"{op}: {side}_indices must lie inside {side}_shape {shape.tolist()}")
    groups: dict = {}
    for k in range(len(indices)):  # in the order given, as MindSpore's kernel reads them
        groups.setdefault(tuple(indices[k, :-1].tolist()), []).append(values[k])
    return {key: np.asarray(v) for key, v in groups.items()}


@primitive("EditDistance", attrs=("normalize",), category="shape", check=_edit_check, differentiable=False)
def edit_distance(hypothesis_indices, hypothesis_values, hypothesis_shape, truth_indices, truth_values,
                  truth_shape, *, normalize=True):
    """The Levenshtein distance (float32) of each hypothesis sequence to the truth one, by leading index."""
    op = "EditDistance"
    args = (hypothesis_indices, hypothesis_values, hypothesis_shape, truth_indices, truth_values, truth_shape)
    eager_only(op, *args)
    _fail(op, _edit_check(*args))
    hi, hv, hs, ti, tv, ts = (np.asarray(a) for a in args)
    hyp, truth = _sequences(op, "hypothesis", hi, hv, hs), _sequences(op, "truth", ti, tv, ts)
    out = np.zeros(tuple(np.maximum(hs[:-1], ts[:-1]).tolist()), np.float32)
    empty = np.zeros((0,), hv.dtype)
    for key in set(hyp) | set(truth):
        a, b = hyp.get(key, empty), truth.get(key, empty)
        dist = float(_levenshtein(a, b))
        if normalize:
            dist = dist / len(b) if len(b) else (np.inf if len(a) else 0.0)
        out[key] = dist
    return jnp.asarray(out)


@expose(cls="EditDistance", init=("normalize",), prim="EditDistance")
def _edit_distance_cls(hypothesis_indices, hypothesis_values, hypothesis_shape, truth_indices, truth_values,
                       truth_shape, *, normalize=True):
    if not isinstance(normalize, bool):
        raise OpTypeError(f"EditDistance: normalize must be a bool, got {type(normalize).__name__}")
    refuse_graph_values("EditDistance", hypothesis_indices, hypothesis_values, hypothesis_shape, truth_indices,
                        truth_values, truth_shape)
    return apply(edit_distance, (hypothesis_indices, hypothesis_values, hypothesis_shape, truth_indices,
                                 truth_values, truth_shape), {"normalize": normalize})


# ---------------------------------------------------------------- Coalesce
def _coalesce_check(x_indices, x_values, x_shape, **_) -> str | None:
    if np.dtype(x_values.dtype) not in (np.float16, np.float32):
        return f"x_values must be float16 or float32, got {x_values.dtype}"
    if np.dtype(x_indices.dtype) != np.int64 or np.dtype(x_shape.dtype) != np.int64:
        return f"x_indices and x_shape must be int64, got {x_indices.dtype} and {x_shape.dtype}"
    if len(x_indices.shape) != 2:
        return f"x_indices must be 2-D (rank, nnz), got shape {tuple(x_indices.shape)}"
    if len(x_values.shape) != 1 or len(x_shape.shape) != 1:
        return f"x_values and x_shape must be 1-D, got shapes {tuple(x_values.shape)} and {tuple(x_shape.shape)}"
    if x_indices.shape[1] != x_values.shape[0]:
        return f"x_indices has {x_indices.shape[1]} columns but x_values {x_values.shape[0]} values"
    if x_indices.shape[0] != x_shape.shape[0]:
        return f"x_indices has {x_indices.shape[0]} rows but x_shape {x_shape.shape[0]} dimensions"
    return None


@primitive("Coalesce", category="shape", check=_coalesce_check, differentiable=False, multiple_results=True)
def coalesce_(x_indices, x_values, x_shape):
    """(y_indices, y_values, y_shape): the distinct index columns, sorted, each with the sum of its values."""
    eager_only("Coalesce", x_indices, x_values, x_shape)
    _fail("Coalesce", _coalesce_check(x_indices, x_values, x_shape))
    ix, vals, shape = np.asarray(x_indices), np.asarray(x_values), np.asarray(x_shape)
    if (ix < 0).any():
        raise OpError(f"Coalesce: x_indices must be non-negative, got {ix.min()}")
    bad = np.argwhere(ix >= shape[:, None])
    if len(bad):
        r, c = bad[0]
        raise OpError(f"Coalesce: x_indices[{r}][{c}] = {ix[r, c]} exceeds the limit x_shape[{r}] = {shape[r]}")
    cols, inverse = np.unique(ix.T, axis=0, return_inverse=True)
    summed = np.zeros((len(cols),), vals.dtype)
    np.add.at(summed, inverse.reshape(-1), vals)
    return jnp.asarray(cols.T.reshape(ix.shape[0], -1)), jnp.asarray(summed), jnp.asarray(shape)


@expose(ops="coalesce", cls="Coalesce", prim="Coalesce")
def coalesce(x_indices: Tensor, x_values: Tensor, x_shape: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    for what, t in (("x_indices", x_indices), ("x_values", x_values), ("x_shape", x_shape)):
        if not isinstance(t, Tensor):
            raise OpTypeError(f"Coalesce: {what} must be a Tensor, got {type(t).__name__}")
    refuse_graph_values("Coalesce", x_indices, x_values, x_shape)
    return apply(coalesce_, (x_indices, x_values, x_shape))


# ---------------------------------------------------------------- sparse_segment_mean
def _dt(t) -> np.dtype:
    return mstype.to_np(t.dtype) if isinstance(t, Tensor) else np.dtype(t.dtype)


def _segment_check(x, indices, segment_ids, **_) -> str | None:
    if _dt(x) not in (np.float16, np.float32, np.float64):
        return f"x must be float16, float32 or float64, got {x.dtype}"
    if len(x.shape) < 1:
        return "x must have at least one dimension, got a 0-D tensor"
    if len(indices.shape) != 1 or len(segment_ids.shape) != 1 or indices.shape != segment_ids.shape:
        return f"indices and segment_ids must be 1-D of one length, got {tuple(indices.shape)} and " \
               f"{tuple(segment_ids.shape)}"
    if _dt(indices) not in (np.int32, np.int64) or _dt(indices) != _dt(segment_ids):
        return f"indices and segment_ids must be int32 or int64, of one dtype, got {indices.dtype} and " \
               f"{segment_ids.dtype}"
    return None


@primitive("SparseSegmentMean", attrs=("num_segments",), category="reduce", check=_segment_check)
def sparse_segment_mean_(x, indices, segment_ids, *, num_segments):
    """Row s: the mean of x[indices[j]] over segment_ids[j] == s (0 when none), s in [0, num_segments)."""
    acc = jnp.float32 if x.dtype == jnp.float16 else x.dtype
    shape = (num_segments,) + tuple(x.shape[1:])
    total = jnp.zeros(shape, acc).at[segment_ids].add(jnp.take(x, indices, axis=0).astype(acc))
    count = jnp.zeros((num_segments,), acc).at[segment_ids].add(1)
    return (total / jnp.maximum(count, 1).reshape((num_segments,) + (1,) * (x.ndim - 1))).astype(x.dtype)


@expose(ops="sparse_segment_mean", prim="SparseSegmentMean")
def sparse_segment_mean(x: Tensor, indices: Tensor, segment_ids: Tensor) -> Tensor:
    """The number of segments is segment_ids[-1] + 1: read from its values (eagerly, or as a constant of the
    graph being captured; a graph input is refused by name)."""
    op = "SparseSegmentMean"
    for what, t in (("x", x), ("indices", indices), ("segment_ids", segment_ids)):
        if not isinstance(t, Tensor):
            raise OpTypeError(f"sparse_segment_mean: {what} must be a Tensor, got {type(t).__name__}")
    _fail(op, _segment_check(x, indices, segment_ids), OpTypeError)
    seg = static_values(op, "segment_ids", segment_ids).reshape(-1)
    if len(seg) and (np.diff(seg) < 0).any():
        raise OpError(f"{op}: segment_ids must be sorted, got {seg.tolist()}")
    if len(seg) and seg[0] < 0:
        raise OpError(f"{op}: segment_ids must be non-negative, got {seg.tolist()}")
    idx = known_value(indices)
    if not isinstance(idx, (jax.ShapeDtypeStruct, jax.core.Tracer)):
        idx = np.asarray(idx)
        bad = idx[(idx < 0) | (idx >= x.shape[0])]
        if bad.size:
            raise OpError(f"{op}: indices value {bad[0]} is out of range [0, {x.shape[0]})")
    return apply(sparse_segment_mean_, (x, indices, segment_ids),
                 {"num_segments": int(seg[-1]) + 1 if len(seg) else 0})
