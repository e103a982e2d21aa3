"""The ops of MindSpore's embedding cache (`ops.PadAndShift`, `SubAndFilter`, `UpdateCache`, `CacheSwapTable`,
`DynamicAssign`, `MapCacheIdx`): the host-side bookkeeping of a device cache of embedding rows, with MindSpore
2.10's CPU (and, for CacheSwapTable, AiCPU) kernel semantics.

- `UpdateCache`, `CacheSwapTable` and `DynamicAssign` write their first input in place (a Parameter or Tensor,
  a state write under `msx.jit`); their own outputs are never written by MindSpore's kernels (a [1] tensor
  of stale memory), msx returns zeros of that shape for UpdateCache, the swapped-out rows for CacheSwapTable
  and the assigned variable for DynamicAssign.
- `PadAndShift`, `SubAndFilter` and `MapCacheIdx` give results whose shapes depend on the input values: they
  run eagerly only (inside a compiled graph XLA needs every shape first; they raise there, saying so).
  `MapCacheIdx` is MindSpore's hash map, entry for entry: rows `[key, value, step, tag]` (tag 0: empty), the
  golden-ratio hash, linear probing, eviction of the first entry not used in this or the previous step, and
  the compaction after it; it writes the hashmap and `step + 1` back.
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from ..errors import OpError, OpIndexError, OpTypeError
from ..tensor import Tensor
from . import bounds
from .api import expose
from .apply_prim import apply, describe, known_value
from .index_ops import eager_only
from .primitive import primitive

_INTS = ("int32", "int64")
_STATE = {"category": "state", "multiple_results": True, "differentiable": False}
_GOLDEN = 0.6180339  # MindSpore's kGoldenRatio (utils/cache_embedding_hashmap_struct.h)


def _dt(a) -> str:
    return np.dtype(a._data.dtype).name


def _int_tensor(op: str, name: str, a, got: str) -> None:
    if not isinstance(a, Tensor) or _dt(a) not in _INTS:
        kind = _dt(a) if isinstance(a, Tensor) else type(a).__name__
        raise OpTypeError(f"{op}: {name} must be an int32 or int64 Tensor, got {kind}; got ({got})")


def _int_value(op: str, name: str, a, got: str) -> int:
    """An int, or a one-element integer Tensor whose value is known now."""
    if isinstance(a, Tensor):
        if a.size != 1 or _dt(a) not in _INTS:
            raise OpTypeError(f"{op}: {name} must be an int or a one-element int Tensor, got {describe(a)}; "
                              f"got ({got})")
        v = bounds.concrete(known_value(a))
        if v is None:
            raise OpError(f"{op}: {name} must be known when the op runs (the result's shape depends on it); "
                          f"inside a compiled graph pass a Python int")
        return int(v.reshape(-1)[0])
    if isinstance(a, bool) or not isinstance(a, (int, np.integer)):
        raise OpTypeError(f"{op}: {name} must be an int, got {describe(a)}; got ({got})")
    return int(a)


def _got(names, args) -> str:
    return ", ".join(f"{n}={describe(a)}" for n, a in zip(names, args))


# ---------------------------------------------------------------- PadAndShift, SubAndFilter
@primitive("PadAndShift", attrs=("shift_idx",), category="shape", differentiable=False,
           internal="the rule of the class op ops.PadAndShift (msx/ops/embedding_cache_ops.py)")
def pad_and_shift(input_x, cum_sum_arr, *, shift_idx):
    """`out = [-1] * cum[-1]; out[cum[i]:cum[i+1]] = input_x[:cum[i+1] - cum[i]]`."""
    eager_only("PadAndShift", input_x, cum_sum_arr)
    cum = np.asarray(cum_sum_arr)
    start, end, n = int(cum[shift_idx]), int(cum[shift_idx + 1]), int(cum[-1])
    out = jnp.full((n,), -1, input_x.dtype)
    return out.at[start:end].set(input_x[:end - start])


@expose(cls="PadAndShift", init=(), prim="PadAndShift")
def pad_and_shift_op(input_x, cum_sum_arr, shift_idx) -> Tensor:
    op = "PadAndShift"
    got = _got(("input_x", "cum_sum_arr", "shift_idx"), (input_x, cum_sum_arr, shift_idx))
    _int_tensor(op, "input_x", input_x, got)
    _int_tensor(op, "cum_sum_arr", cum_sum_arr, got)
    if input_x.ndim != 1 or cum_sum_arr.ndim != 1:
        raise OpError(f"{op}: input_x and cum_sum_arr must be 1-D; got ({got})")
    k = _int_value(op, "shift_idx", shift_idx, got)
    if not 0 <= k < cum_sum_arr.shape[0] - 1:
        raise OpIndexError(f"{op}: shift_idx {k} is out of range [0, {cum_sum_arr.shape[0] - 1}) (cum_sum_arr[shift_idx "
                           f"+ 1] must exist); got ({got})")
    cum = bounds.concrete(known_value(cum_sum_arr))
    if cum is not None:
        start, end, n = int(cum[k]), int(cum[k + 1]), int(cum[-1])
        if not 0 <= start <= end <= n or n > input_x.shape[0]:
            raise OpError(f"{op}: needs 0 <= cum_sum_arr[shift_idx] <= cum_sum_arr[shift_idx + 1] <= "
                          f"cum_sum_arr[-1] <= input_x's {input_x.shape[0]} elements (MindSpore's kernel writes into "
                          f"a buffer of input_x's size), got {start}, {end}, {n}; got ({got})")
    return apply(pad_and_shift, (input_x, cum_sum_arr), {"shift_idx": k})


@primitive("SubAndFilter", category="shape", multiple_results=True, differentiable=False,
           internal="the rule of the class op ops.SubAndFilter (msx/ops/embedding_cache_ops.py)")
def sub_and_filter(input_x, max_num, offset):
    """`x - offset` for the elements (of the flattened input) with 0 <= x - offset < max_num, and their
    positions."""
    eager_only("SubAndFilter", input_x, max_num, offset)
    x = np.asarray(input_x).reshape(-1)
    res = x - np.asarray(offset).astype(x.dtype).reshape(())
    keep = np.nonzero((res >= 0) & (res < np.asarray(max_num).astype(x.dtype).reshape(())))[0]
    return jnp.asarray(res[keep], x.dtype), jnp.asarray(keep.astype(x.dtype))


@expose(cls="SubAndFilter", init=(), prim="SubAndFilter")
def sub_and_filter_op(input_x, max_num, offset):
    op = "SubAndFilter"
    got = _got(("input_x", "max_num", "offset"), (input_x, max_num, offset))
    _int_tensor(op, "input_x", input_x, got)
    m, o = _int_value(op, "max_num", max_num, got), _int_value(op, "offset", offset, got)
    return apply(sub_and_filter, (input_x, Tensor(np.array(m, _dt(input_x))), Tensor(np.array(o, _dt(input_x)))))


# ---------------------------------------------------------------- UpdateCache, CacheSwapTable, DynamicAssign
@primitive("UpdateCacheWrite", **_STATE, internal="the rule of the class op ops.UpdateCache, which writes input_x")
def update_cache_write(input_x, indices, updates, max_num):
    """`input_x[i] = updates[k]` for each `i = indices[k]` in [0, max_num) (a later duplicate wins)."""
    n = input_x.shape[0]
    idx = indices.reshape(-1).astype(jnp.int32)
    ok = (idx >= 0) & (idx < jnp.asarray(max_num).reshape(()).astype(jnp.int32)) & (idx < n)
    upd = updates.reshape((idx.shape[0],) + input_x.shape[1:]).astype(input_x.dtype)
    # a later duplicate wins: scatter the positions, keep the largest per row, then gather its update
    pos = jnp.arange(idx.shape[0], dtype=jnp.int32)
    last = jnp.full((n,), -1, jnp.int32).at[jnp.where(ok, idx, n)].max(pos, mode="drop")
    new = jnp.where((last >= 0).reshape((n,) + (1,) * (input_x.ndim - 1)), upd[jnp.maximum(last, 0)], input_x)
    return (new,)


@expose(cls="UpdateCache", init=(), prim="UpdateCacheWrite")
def update_cache(input_x, indices, updates, max_num) -> Tensor:
    op = "UpdateCache"
    got = _got(("input_x", "indices", "updates", "max_num"), (input_x, indices, updates, max_num))
    if not isinstance(input_x, Tensor) or input_x.ndim < 1:
        raise OpTypeError(f"{op}: input_x must be a Parameter or Tensor with at least 1 dimension; got ({got})")
    _int_tensor(op, "indices", indices, got)
    if not isinstance(updates, Tensor) or tuple(updates.shape) != tuple(indices.shape) + tuple(input_x.shape[1:]):
        raise OpError(f"{op}: updates must have shape indices.shape + input_x.shape[1:] = "
                      f"{tuple(indices.shape) + tuple(input_x.shape[1:])}; got ({got})")
    if isinstance(max_num, Tensor):
        if max_num.size != 1 or _dt(max_num) not in _INTS:
            raise OpTypeError(f"{op}: max_num must be an int or a one-element int Tensor; got ({got})")
    elif isinstance(max_num, bool) or not isinstance(max_num, (int, np.integer)):
        raise OpTypeError(f"{op}: max_num must be an int, got {describe(max_num)}; got ({got})")
    (new,) = apply(update_cache_write, (input_x, indices, updates, max_num))
    input_x._rebind(new)
    return Tensor(np.zeros((1,), np.dtype(input_x._data.dtype)))


@primitive("CacheSwapTableWrite", **_STATE, internal="the rule of the class op ops.CacheSwapTable, which writes "
                                                     "cache_table")
def cache_swap_table_write(cache_table, swap_cache_idx, miss_value):
    """The rows `swap_cache_idx` names swapped out (zeros for -1) and `miss_value` written in their place."""
    n = cache_table.shape[0]
    idx = swap_cache_idx.reshape(-1).astype(jnp.int32)
    ok = (idx >= 0) & (idx < n)
    rows = miss_value.reshape((idx.shape[0], cache_table.shape[1])).astype(cache_table.dtype)
    old = jnp.where(ok[:, None], cache_table[jnp.clip(idx, 0, n - 1)], jnp.zeros_like(rows))
    new = cache_table.at[jnp.where(ok, idx, n)].set(rows, mode="drop")
    return new, old.reshape(miss_value.shape)


@expose(cls="CacheSwapTable", init=(), prim="CacheSwapTableWrite")
def cache_swap_table(cache_table, swap_cache_idx, miss_value) -> Tensor:
    op = "CacheSwapTable"
    got = _got(("cache_table", "swap_cache_idx", "miss_value"), (cache_table, swap_cache_idx, miss_value))
    if not isinstance(cache_table, Tensor) or cache_table.ndim != 2:
        raise OpError(f"{op}: cache_table must be a 2-D Parameter or Tensor; got ({got})")
    _int_tensor(op, "swap_cache_idx", swap_cache_idx, got)
    if not isinstance(miss_value, Tensor) or miss_value.size != swap_cache_idx.size * cache_table.shape[1]:
        raise OpError(f"{op}: miss_value must hold one row of cache_table ({cache_table.shape[1]} values) per "
                      f"swap_cache_idx entry; got ({got})")
    values = bounds.concrete(known_value(swap_cache_idx))
    bad = None if values is None else bounds.outside(values, 0, cache_table.shape[0], allowed=-1)
    if bad is not None:
        raise OpIndexError(f"{op}: swap_cache_idx value {bad} is out of range [0, {cache_table.shape[0]}) (-1 "
                           f"skips); got ({got})")
    new, old = apply(cache_swap_table_write, (cache_table, swap_cache_idx, miss_value))
    cache_table._rebind(new)
    return old


@primitive("DynamicAssignWrite", **_STATE, internal="the rule of the class op ops.DynamicAssign, which writes "
                                                    "variable")
def dynamic_assign_write(variable, value):
    """`value` cast to the variable's dtype."""
    return (value.astype(variable.dtype),)


@expose(cls="DynamicAssign", init=(), prim="DynamicAssignWrite")
def dynamic_assign(variable, value) -> Tensor:
    op = "DynamicAssign"
    got = _got(("variable", "value"), (variable, value))
    if not isinstance(variable, Tensor) or not isinstance(value, Tensor):
        raise OpTypeError(f"{op}: variable must be a Parameter or Tensor and value a Tensor; got ({got})")
    if tuple(variable.shape) != tuple(value.shape):
        raise OpError(f"{op}: value must have variable's shape {tuple(variable.shape)} (MindSpore's CPU kernel), "
                      f"got {tuple(value.shape)}; got ({got})")
    (new,) = apply(dynamic_assign_write, (variable, value))
    return variable._rebind(new)


# ---------------------------------------------------------------- MapCacheIdx
def _hash(key: int, length: int) -> int:
    g = _GOLDEN * key
    return int((g - np.floor(g)) * length)


def _compress(h: np.ndarray, entry: int) -> None:
    """MindSpore's `Compress`: move the entries after a freed slot back towards their home slots."""
    length = h.shape[0]
    i, off = (entry + 1) % length, 1
    while h[i, 3] != 0:
        if h[i, 3] > off:
            h[entry, :3] = h[i, :3]
            h[entry, 3] = h[i, 3] - off
            h[i, 3] = 0
            off, entry = 0, i
        i, off = (i + 1) % length, off + 1


def _map_cache_idx(h: np.ndarray, indices: np.ndarray, step: int, emb_max_num: int, offset: int):
    length = h.shape[0]
    cache_idx = np.full(indices.shape, -1, h.dtype)
    flat = cache_idx.reshape(-1)
    miss_pos, miss_keys = [], []
    for i, raw in enumerate(indices.reshape(-1).tolist()):
        key = raw - offset
        if key >= emb_max_num or key < 0:
            continue
        e, count = _hash(key, length), 1
        while h[e, 3] != 0 and h[e, 0] != key:
            e = (e + 1) % length
            if count > length:
                raise OpError("MapCacheIdx: the hashmap is full, searching a key failed (a larger hashmap, "
                              "vocab_cache_size, is needed)")
            count += 1
        if h[e, 3] == 0:
            miss_pos.append(i)
            miss_keys.append(key)
        else:
            flat[i] = h[e, 1]
            h[e, 2] = step
    old, swap = [], []
    for key in miss_keys:
        e, tag = _hash(key, length), 1
        while h[e, 3] != 0:
            e = (e + 1) % length
            if tag > length:
                raise OpError("MapCacheIdx: the hashmap is full, inserting a key failed (a larger hashmap is needed)")
            tag += 1
        h[e, 0], h[e, 2], h[e, 3] = key, step, tag
        t, count = (e + 1) % length, 1
        while h[t, 3] == 0 or h[t, 2] >= step - 1:
            t = (t + 1) % length
            if count > length:
                raise OpError("MapCacheIdx: the hashmap is full, no entry unused in this and the previous step to "
                              "evict (a larger hashmap, vocab_cache_size, is needed)")
            count += 1
        swap.append(int(h[t, 1]))
        old.append(int(h[t, 0]))
        h[e, 1] = h[t, 1]
        h[t, 3] = 0
        _compress(h, t)
    for pos, s in zip(miss_pos, swap):
        flat[pos] = s
    dt = h.dtype
    return cache_idx, np.array(old, dt), np.array(miss_keys, dt), np.array(swap, dt)


@primitive("MapCacheIdxUpdate", **_STATE, internal="the rule of the class op ops.MapCacheIdx, which writes the "
                                                   "hashmap and the step")
def map_cache_idx_update(hashmap, indices, step, emb_max_num, offset):
    """MindSpore's CPU MapCacheIdx kernel on the host (the misses decide the result shapes)."""
    eager_only("MapCacheIdx", hashmap, indices, step, emb_max_num, offset)
    h = np.array(hashmap)
    s = np.array(step)
    outs = _map_cache_idx(h, np.asarray(indices).astype(h.dtype), int(s.reshape(-1)[0]),
                          int(np.asarray(emb_max_num).reshape(-1)[0]), int(np.asarray(offset).reshape(-1)[0]))
    return tuple(jnp.asarray(o) for o in outs) + (jnp.asarray(h), jnp.asarray(s + 1))


@expose(cls="MapCacheIdx", init=(), prim="MapCacheIdxUpdate")
def map_cache_idx(hashmap, indices, step, emb_max_num, offset):
    op = "MapCacheIdx"
    names = ("hashmap", "indices", "step", "emb_max_num", "offset")
    got = _got(names, (hashmap, indices, step, emb_max_num, offset))
    _int_tensor(op, "hashmap", hashmap, got)
    if hashmap.ndim != 2 or hashmap.shape[1] != 4 or hashmap.shape[0] == 0:
        raise OpError(f"{op}: hashmap must have shape (length, 4) (rows key, value, step, tag), got "
                      f"{tuple(hashmap.shape)}; got ({got})")
    _int_tensor(op, "indices", indices, got)
    if _dt(indices) != _dt(hashmap):
        raise OpTypeError(f"{op}: indices must have hashmap's dtype {_dt(hashmap)}, got {_dt(indices)}; got ({got})")
    if not isinstance(step, Tensor) or step.size != 1 or _dt(step) not in _INTS:
        raise OpTypeError(f"{op}: step must be a one-element int Parameter or Tensor (it is incremented in place); "
                          f"got ({got})")
    m, o = _int_value(op, "emb_max_num", emb_max_num, got), _int_value(op, "offset", offset, got)
    cache_idx, old, miss, swap, new_h, new_s = apply(map_cache_idx_update, (hashmap, indices, step, m, o))
    hashmap._rebind(new_h)
    step._rebind(new_s.astype(step.dtype) if new_s.dtype != step.dtype else new_s)
    return cache_idx, old, miss, swap
