"""Rotary position embeddings (issue 35): MindSpore's `ops.rotary_position_embedding` (rotate_half or
interleaved, per element) and its inference RoPE `ops.ApplyRotaryPosEmb(cos_format)`, which rotates query and key
by rows of a cos/sin table. Both are primitives of the registry; MindSpore's CPU build has neither kernel, so
tests/test_attention.py and tests/test_apply_rotary_pos_emb.py check them against numpy.
"""
from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np

from ..errors import OpError, OpTypeError
from ..tensor import Tensor
from .api import Api, Attr, expose
from .primitive import apply, primitive


# ---------------------------------------------------------------- rotary_position_embedding
def _rotary_check(x, cos, sin, *, mode):
    if mode not in (0, 1):
        return f"mode must be 0 (rotate_half) or 1 (rotate_interleaved), got {mode!r}"
    if len(x.shape) != 4 or x.shape[-1] % 2:
        return f"x must be 4-d with an even last dimension, got shape {tuple(x.shape)}"
    return None


@primitive("RotaryPositionEmbedding", attrs=("mode",), check=_rotary_check,
           api=Api(ops="rotary_position_embedding", args=("x", "cos", "sin"), attrs=(Attr("mode", 0, int),)))
def _rotary(x, cos, sin, *, mode):
    """x * cos + rotate(x) * sin; rotate_half (mode 0, GPT-NeoX) or rotate_interleaved (mode 1, GPT-J)."""
    reason = _rotary_check(x, cos, sin, mode=mode)
    if reason is not None:
        raise OpError(f"rotary_position_embedding: {reason}")
    if mode == 0:
        half = x.shape[-1] // 2
        rotated = jnp.concatenate([-x[..., half:], x[..., :half]], axis=-1)
    else:
        pairs = x.reshape(*x.shape[:-1], -1, 2)
        rotated = jnp.stack([-pairs[..., 1], pairs[..., 0]], axis=-1).reshape(x.shape)
    return x * cos.astype(x.dtype) + rotated * sin.astype(x.dtype)


# ---------------------------------------------------------------- ApplyRotaryPosEmb (MindSpore's inference RoPE)
# What `cos_format` selects is documented only by MindSpore's own kernel test
# (tests/st/ops/ascend/test_apply_rotary_pos_emb.py in mindspore's source): 0/1 take a [max_seq_len, head_dim]
# table whose rows `position_ids` picks, 2/3 rows already gathered per token ([batch * seq_len, head_dim]);
# 0/2 hold the frequencies as two halves (rotate_half, GPT-NeoX), 1/3 interleaved in pairs (GPT-J).
COS_FORMATS = (0, 1, 2, 3)
_QK_TYPES = ("float16", "bfloat16", "float32")
_POS_TYPES = ("int32", "int64", "uint32", "uint64")


def _rope_rows(cos, position_ids, batch: int, seq: int, cos_format: int):
    """cos/sin as (batch, seq, 1, head_dim): the table's rows at `position_ids` (formats 0/1: one per batch row
    when seq == 1, one per position otherwise) or the per-token rows as given (formats 2/3)."""
    d = cos.shape[-1]
    table = cos.reshape(-1, d)
    if cos_format >= 2:
        return table.reshape(batch, seq, 1, d)
    rows = jnp.take(table, position_ids.reshape(-1).astype(jnp.int32), axis=0)
    return rows.reshape(batch, 1, 1, d) if seq == 1 else rows.reshape(1, seq, 1, d)


def _rope_one(x, c, s, *, interleaved: bool):
    """x * cos + rotate(x) * sin in float32 over (batch, seq, heads, head_dim); rotate pairs or halves."""
    if interleaved:
        pairs = x.reshape(*x.shape[:-1], -1, 2)
        rotated = jnp.stack([-pairs[..., 1], pairs[..., 0]], axis=-1).reshape(x.shape)
    else:
        half = x.shape[-1] // 2
        rotated = jnp.concatenate([-x[..., half:], x[..., :half]], axis=-1)
    return x * c + rotated * s


@primitive("ApplyRotaryPosEmb", attrs=("cos_format",), category="other", multiple_results=True,
           internal="the rule of ops.ApplyRotaryPosEmb (msx/ops/rotary_ops.py)")
def _apply_rotary_pos_emb(query, key, cos, sin, position_ids, *, cos_format):
    """(query_embed, key_embed): both rotated by the same cos/sin rows; computed in float32 from cos/sin
    rounded to query's dtype (what MindSpore's reference does), returned in query's / key's dtype."""
    d = cos.shape[-1]
    batch, seq = (query.shape[0], 1) if query.ndim == 2 else query.shape[:2]
    c = _rope_rows(cos, position_ids, batch, seq, cos_format).astype(query.dtype).astype(jnp.float32)
    s = _rope_rows(sin, position_ids, batch, seq, cos_format).astype(query.dtype).astype(jnp.float32)
    outs = []
    for x in (query, key):
        x4 = x.astype(jnp.float32).reshape(batch, seq, -1, d)
        outs.append(_rope_one(x4, c, s, interleaved=cos_format in (1, 3)).reshape(x.shape).astype(x.dtype))
    return tuple(outs)


def _rope_check(query, key, cos, sin, position_ids, cos_format) -> None:
    op = "ApplyRotaryPosEmb"
    names = (("query", query), ("key", key), ("cos", cos), ("sin", sin), ("position_ids", position_ids))
    for name, t in names:
        if not isinstance(t, Tensor):
            raise OpTypeError(f"For '{op}', the input '{name}' must be a Tensor, but got {type(t).__name__}")
    kind = {n: np.dtype(t._data.dtype).name for n, t in names}
    if kind["query"] not in _QK_TYPES or kind["key"] != kind["query"]:
        raise OpTypeError(f"For '{op}', query and key must be one of float16, bfloat16 (MindSpore's kernel) or "
                          f"float32 (msx), and equal, but got query {kind['query']}, key {kind['key']}")
    if kind["cos"] != kind["sin"] or kind["cos"] not in (kind["query"], "float32"):
        raise OpTypeError(f"For '{op}', cos and sin must have query's dtype ({kind['query']}) or float32, and "
                          f"equal, but got cos {kind['cos']}, sin {kind['sin']}")
    if kind["position_ids"] not in _POS_TYPES:
        raise OpTypeError(f"For '{op}', position_ids must be int32, int64, uint32 or uint64, but got "
                          f"{kind['position_ids']}")
    if isinstance(cos_format, bool) or cos_format not in COS_FORMATS:
        raise OpError(f"For '{op}', cos_format must be 0, 1, 2 or 3, but got {cos_format!r}")
    shapes = {n: tuple(t.shape) for n, t in names}
    got = ", ".join(f"{n} {shape}" for n, shape in shapes.items())
    qs, ks, cs = shapes["query"], shapes["key"], shapes["cos"]
    lead = -2 if len(qs) == 4 else -1
    if not 2 <= len(qs) <= 4 or len(ks) != len(qs) or qs[:lead] != ks[:lead]:
        raise OpError(f"For '{op}', query and key must be 2-D (tokens, heads*head_dim), 3-D (batch, seq, "
                      f"heads*head_dim) or 4-D (batch, seq, heads, head_dim) with the same leading dims; got {got}")
    if cs != shapes["sin"] or len(cs) < 2 or cs[-1] < 2 or cs[-1] % 2:
        raise OpError(f"For '{op}', cos and sin must have one shape, at least 2-D, with an even head_dim last; "
                      f"got {got}")
    d = cs[-1]
    for name, shape in (("query", qs), ("key", ks)):
        if (len(shape) == 4 and shape[-1] != d) or shape[-1] % d:
            raise OpError(f"For '{op}', {name}'s last dim must be a multiple of head_dim {d} (cos.shape[-1]); "
                          f"got {got}")
    batch, seq = (qs[0], 1) if len(qs) == 2 else qs[:2]
    rows = math.prod(cs[:-1])
    if cos_format >= 2:
        if rows != batch * seq:
            raise OpError(f"For '{op}', cos_format={cos_format} takes one cos/sin row per token ({batch * seq} "
                          f"= batch {batch} x seq {seq}), got {rows}; got {got}")
        return
    want = batch if seq == 1 else seq
    if math.prod(shapes["position_ids"]) != want:
        raise OpError(f"For '{op}', cos_format={cos_format} reads cos/sin rows at position_ids: {want} of them "
                      f"({'one per batch row when seq == 1' if seq == 1 else 'one per position'}); got {got}")
    try:
        ids = np.asarray(position_ids._data)
    except Exception:   # a traced value (inside jit): out-of-range rows read as NaN there
        return
    if ids.size and (ids.min() < 0 or ids.max() >= rows):
        raise OpError(f"For '{op}', position_ids must lie in [0, {rows}) (the rows of cos/sin), got "
                      f"[{ids.min()}, {ids.max()}]")


@expose(cls="ApplyRotaryPosEmb", init=("cos_format",), prim="ApplyRotaryPosEmb")
def _apply_rotary_pos_emb_cls(query, key, cos, sin, position_ids, *, cos_format=0):
    """MindSpore's `ops.ApplyRotaryPosEmb(cos_format=0)(query, key, cos, sin, position_ids)` ->
    (query_embed, key_embed), each `x * cos + rotate(x) * sin` per head (head_dim = cos.shape[-1]).

    `cos_format` 0/1: cos/sin are a [max_seq_len, head_dim] table, rows picked by `position_ids` ([batch] when
    seq_len == 1, decoding; [seq_len] otherwise, the same positions for every batch row); 2/3: one row per
    token, [batch * seq_len, head_dim] (`position_ids` then only type-checked, as MindSpore's kernel takes it).
    0/2: rotate_half (GPT-NeoX), 1/3: pairs interleaved (GPT-J). query/key may be (tokens, H), read as
    (tokens, 1, H), (batch, seq, H) or (batch, seq, heads, head_dim); key may have fewer heads. MindSpore's
    kernel is Ascend-only and takes float16/bfloat16 query/key; msx takes float32 too. Differentiable in
    query, key, cos and sin."""
    if isinstance(cos_format, Tensor):
        cos_format = int(np.asarray(cos_format._data))
    _rope_check(query, key, cos, sin, position_ids, cos_format)
    return apply(_apply_rotary_pos_emb, (query, key, cos, sin, position_ids), {"cos_format": int(cos_format)})
