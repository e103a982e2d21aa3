"""Fused attention (issue 35): MindSpore's `ops.flash_attention_score`, torch's
`mint.nn.functional.scaled_dot_product_attention`, `ops.rotary_position_embedding` and MindSpore's inference RoPE
`ops.ApplyRotaryPosEmb(cos_format)`.

Each is one primitive of the registry, so it runs eagerly, under every capture mode and under gradients
like any op; its implementation is `jax.nn.dot_product_attention` (XLA's fused softmax(QK^T)V on CPU,
cuDNN's flash attention on GPU where jax selects it), reached in the `(B, S, N, D)` layout jax takes.
The public functions translate MindSpore's (and torch's) layouts and masks into that call and refuse, by
name, what msx does not honour (the global/dilated/block_local sparse modes, which MindSpore 2.10 does not
implement either): a silently different attention would be worse than an error. A call with dropout
(`keep_prob < 1`) is the same formula written out (`_attend_plain`), since jax's fused call has no dropout.

MindSpore's CPU build registers none of these kernels (`The kernel FlashAttentionScore unregistered`), so
their tests are against a plain softmax(scale * QK^T + bias)V in numpy/jax (tests/test_attention.py).
"""
from __future__ import annotations

import math
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ..errors import OpError, OpTypeError
from ..ignored_args import not_honoured
from ..tensor import Tensor
from .api import Api, Attr, expose
from .array_ops import reshape as _reshape
from .layout_ops import broadcast_to as _broadcast_to
from .primitive import apply, primitive
from .random_ops import _k, _key_for

LAYOUTS = ("BSH", "BNSD", "SBH", "BSND", "TND")
INT_MAX = 2147483647
_HONOURED_SPARSE_MODES = (0, 1, 2, 3, 4, 5)
_UNIMPLEMENTED_MODES = {6: "global", 7: "dilated", 8: "block_local"}


# ---------------------------------------------------------------- layouts
def _split_heads(x, heads: int, what: str):
    """(..., H) -> (..., heads, H // heads)."""
    if x.shape[-1] % heads:
        raise OpError(f"flash_attention_score: {what}'s hidden size {x.shape[-1]} does not divide into "
                      f"{heads} heads; got shape {tuple(x.shape)}")
    return x.reshape(*x.shape[:-1], heads, x.shape[-1] // heads)


def _to_bsnd(x, layout: str, heads: int):
    """`x` in `layout` as (B, S, N, D); TND is one batch of T tokens."""
    if layout == "BSH":
        return _split_heads(x, heads, "the tensor")
    if layout == "SBH":
        return jnp.swapaxes(_split_heads(x, heads, "the tensor"), 0, 1)
    if layout == "BNSD":
        return jnp.swapaxes(x, 1, 2)
    if layout == "BSND":
        return x
    return x[None]  # TND


def _from_bsnd(y, layout: str):
    if layout == "BSH":
        return y.reshape(*y.shape[:2], -1)
    if layout == "SBH":
        return jnp.swapaxes(y, 0, 1).reshape(y.shape[1], y.shape[0], -1)
    if layout == "BNSD":
        return jnp.swapaxes(y, 1, 2)
    if layout == "BSND":
        return y
    return y[0]


def _ndim_for(layout: str) -> int:
    return 3 if layout in ("BSH", "SBH", "TND") else 4


# ---------------------------------------------------------------- masks
def _band(s1: int, s2: int, offset, lo: int, hi: int, pos_q=None, pos_k=None):
    """keep[i, j] = lo <= (j - i - offset) <= hi, over positions (within a sequence for TND)."""
    i = jnp.arange(s1)[:, None] if pos_q is None else pos_q[:, None]
    j = jnp.arange(s2)[None, :] if pos_k is None else pos_k[None, :]
    d = j - i - offset
    keep = jnp.ones(d.shape, bool)
    if lo > -INT_MAX:
        keep = keep & (d >= lo)
    if hi < INT_MAX:
        keep = keep & (d <= hi)
    return keep


def _segments(cum: tuple[int, ...]):
    """Per token of a packed (TND) sequence: its sequence's index, its position in it, and the length."""
    ends = np.asarray(cum, np.int64)
    starts = np.concatenate([[0], ends[:-1]])
    seg = np.repeat(np.arange(len(ends)), ends - starts)
    return jnp.asarray(seg), jnp.asarray(np.arange(ends[-1]) - starts[seg]), jnp.asarray((ends - starts)[seg])


def _prefix_keep(s1: int, s2: int, prefix: tuple[int, ...]):
    """sparse_mode 5's keep-mask, (B, 1, S1, S2): causal from the bottom right, plus the first prefix[b] key
    columns of batch b seen by every query row."""
    cols = jnp.arange(s2)[None, None, None, :] < jnp.asarray(prefix)[:, None, None, None]
    return cols | _band(s1, s2, s2 - s1, -INT_MAX, 0)[None, None]


def _sparse_keep(s1: int, s2: int, sparse_mode: int, pre: int, nxt: int, user_keep, seq_q, seq_kv, prefix=None):
    """The boolean keep-mask (broadcastable to (B, N, S1, S2)) of MindSpore's `sparse_mode`, or None, and
    whether the mask is exactly top-left causal (jax's `is_causal`, which cuDNN computes without a mask)."""
    if sparse_mode == 5:    # attn_mask (full, (B, N1|1, S1, S2)) and the prefix pattern both have to keep
        keep = _prefix_keep(s1, s2, prefix)
        return (keep if user_keep is None else keep & user_keep), False
    rule = None     # (offset kind, lo, hi)
    if sparse_mode == 0 and user_keep is not None and (pre < INT_MAX or nxt < INT_MAX):
        rule = ("top_left", -pre, nxt)
    elif sparse_mode == 2:
        rule = ("top_left", -INT_MAX, 0)
    elif sparse_mode == 3:
        rule = ("bottom_right", -INT_MAX, 0)
    elif sparse_mode == 4:
        rule = ("bottom_right", -pre, nxt)
    keep = user_keep if sparse_mode in (0, 1) else None   # modes 2-4: attn_mask is only the compressed band
    if seq_q is None:
        if rule is not None and rule[1:] == (-INT_MAX, 0) and (rule[0] == "top_left" or s1 == s2) and keep is None:
            return None, True
        if rule is not None:
            band = _band(s1, s2, 0 if rule[0] == "top_left" else s2 - s1, rule[1], rule[2])
            keep = band if keep is None else keep & band
        return keep, False
    seg_q, pos_q, len_q = _segments(seq_q)
    seg_k, pos_k, len_k = _segments(seq_kv)
    same = seg_q[:, None] == seg_k[None, :]
    if rule is not None:
        offset = 0 if rule[0] == "top_left" else (len_k[None, :] - len_q[:, None])
        same = same & _band(s1, s2, offset, rule[1], rule[2], pos_q, pos_k)
    return (same if keep is None else keep & same), False


def _attend(q, k, v, bias, keep, is_causal: bool, scale: float):
    """softmax(scale * q k^T + bias, masked) v in jax's (B, S, N, D) layout; GQA when N_q is a multiple of N_kv."""
    if q.shape[2] % k.shape[2]:
        raise OpError(f"attention: the query's {q.shape[2]} heads are not a multiple of the key's {k.shape[2]} "
                      f"heads")
    if bias is not None:
        bias = jnp.reshape(bias, (1,) * (4 - bias.ndim) + bias.shape).astype(q.dtype)
    if keep is not None:
        keep = jnp.reshape(keep, (1,) * (4 - keep.ndim) + keep.shape)
    return jax.nn.dot_product_attention(q, k, v, bias=bias, mask=keep, scale=scale, is_causal=is_causal)


def _attend_plain(q, k, v, bias, keep, is_causal: bool, scale: float, kept, keep_prob: float):
    """`_attend` with dropout on the softmax probabilities, written out (jax's fused call takes no dropout):
    softmax(scale * q k^T + bias, masked) * kept / keep_prob, then @ v. (B, S, N, D) inputs; `keep`, `bias` and
    `kept` (bool, True keeps) broadcast to (B, N, S1, S2). Scores and softmax in float32."""
    group = q.shape[2] // k.shape[2]
    kr, vr = jnp.repeat(k, group, axis=2), jnp.repeat(v, group, axis=2)
    logits = jnp.einsum("bqnd,bknd->bnqk", q, kr, preferred_element_type=jnp.float32) * scale
    if bias is not None:
        logits = logits + jnp.reshape(bias, (1,) * (4 - bias.ndim) + bias.shape).astype(jnp.float32)
    allowed = jnp.ones(logits.shape[-2:], bool) if keep is None else jnp.reshape(keep, (1,) * (4 - keep.ndim) +
                                                                                 keep.shape)
    if is_causal:
        allowed = allowed & jnp.tril(jnp.ones(logits.shape[-2:], bool))
    weights = jax.nn.softmax(jnp.where(allowed, logits, jnp.finfo(jnp.float32).min), axis=-1)
    weights = jnp.where(kept, weights / keep_prob, 0.0).astype(q.dtype)
    return jnp.einsum("bnqk,bknd->bqnd", weights, vr)


def _unpack_drop_mask(bits, heads: int, s1: int, s2: int, seq_q, seq_kv):
    """MindSpore's uint8 drop_mask as a bool keep-mask (B, N1, S1, S2): one bit per probability, bit k of byte
    j is element 8j+k of the flattened mask (little-endian within a byte, msx's documented choice; Ascend's
    generator's own bits are not reproducible off Ascend anyway). TND's flat (qk_pointer * N1 // 8,) mask holds
    the sequences one after another, each as (N1, S1_b, S2_b); tokens of different sequences never meet."""
    flat = jnp.unpackbits(bits, axis=-1, bitorder="little").astype(bool)
    if seq_q is None:
        return flat
    index = np.zeros((heads, s1, s2), np.int64)      # where each (n, t1, t2) of a sequence reads its bit
    start = 0
    for (q0, q1), (k0, k1) in zip(zip((0,) + seq_q[:-1], seq_q), zip((0,) + seq_kv[:-1], seq_kv)):
        block = heads * (q1 - q0) * (k1 - k0)
        index[:, q0:q1, k0:k1] = start + np.arange(block).reshape(heads, q1 - q0, k1 - k0)
        start += block
    return jnp.take(flat, jnp.asarray(index))[None]


# ---------------------------------------------------------------- flash_attention_score
_FA_ATTRS = ("head_num", "input_layout", "scale", "pre_tokens", "next_tokens", "sparse_mode", "inputs", "seq_qlen",
             "seq_kvlen", "keep_prob", "prefix", "shift_scale")


def _prepare(q, k, v, extra, *, head_num, input_layout, scale, pre_tokens, next_tokens, sparse_mode, inputs,
             seq_qlen, seq_kvlen, keep_prob=1.0, prefix=None, shift_scale=1.0):
    """The (B, S, N, D) query/key/value, real_shift, keep-mask and causal flag of one FlashAttentionScore call.
    `inputs` names the optional tensors after q, k, v: real_shift, attn_mask, drop_mask, rng_key (drawn by the
    caller when keep_prob < 1 and no drop_mask is given). `shift_scale` multiplies real_shift
    (speed_fusion_attention's pse_type=1: scale * (pse + QK^T))."""
    given = dict(zip(inputs, extra))
    qh = _to_bsnd(q, input_layout, head_num)
    d = qh.shape[-1]
    kv_heads = k.shape[-1] // d if input_layout in ("BSH", "SBH") else None
    kh, vh = _to_bsnd(k, input_layout, kv_heads), _to_bsnd(v, input_layout, kv_heads)
    if qh.shape[2] != head_num:
        raise OpError(f"flash_attention_score: head_num={head_num} but the query has {qh.shape[2]} heads "
                      f"(layout {input_layout}, shape {tuple(q.shape)})")
    if kh.shape[-1] != d or vh.shape != kh.shape or kh.shape[0] != qh.shape[0]:
        raise OpError(f"flash_attention_score: key and value must have the query's batch and head size and "
                      f"equal shapes; got query {tuple(q.shape)}, key {tuple(k.shape)}, value {tuple(v.shape)} "
                      f"(layout {input_layout})")
    mask = given.get("attn_mask")
    user_keep = None
    if mask is not None and sparse_mode in (0, 1):
        user_keep = jnp.logical_not(mask.astype(bool))   # MindSpore: 1/True discards, 0/False keeps
        if user_keep.ndim == 4 and input_layout == "TND":
            raise OpError("flash_attention_score: with input_layout='TND' attn_mask must be (T1, T2)")
    elif mask is not None and sparse_mode == 5:
        user_keep = jnp.logical_not(mask.astype(bool))
    keep, causal = _sparse_keep(qh.shape[1], kh.shape[1], sparse_mode, pre_tokens, next_tokens, user_keep, seq_qlen,
                                seq_kvlen, prefix)
    shift = given.get("real_shift")
    if shift is not None and shift_scale != 1.0:
        shift = shift * jnp.asarray(shift_scale, shift.dtype)
    return qh, kh, vh, shift, keep, causal


def _kept(given: dict, shape: tuple, keep_prob: float, seq_q, seq_kv):
    """The dropout keep-mask (B, N1, S1, S2) of a call with keep_prob < 1: the given drop_mask's bits, or a draw
    from msx's generator (the key the caller split off the seeded state)."""
    if "drop_mask" in given:
        return _unpack_drop_mask(given["drop_mask"], shape[1], shape[2], shape[3], seq_q, seq_kv)
    return jax.random.bernoulli(_k(given["rng_key"]), keep_prob, shape)


@primitive("FlashAttentionScore", attrs=_FA_ATTRS)
def _flash_attention_score(q, k, v, *extra, **attrs):
    """MindSpore's FlashAttentionScore: attention_out = softmax(mask(scale * Q K^T + real_shift)) V."""
    qh, kh, vh, bias, keep, causal = _prepare(q, k, v, extra, **attrs)
    if attrs["keep_prob"] == 1.0:
        out = _attend(qh, kh, vh, bias, keep, causal, attrs["scale"])
    else:
        shape = (qh.shape[0], qh.shape[2], qh.shape[1], kh.shape[1])
        kept = _kept(dict(zip(attrs["inputs"], extra)), shape, attrs["keep_prob"], attrs["seq_qlen"],
                     attrs["seq_kvlen"])
        out = _attend_plain(qh, kh, vh, bias, keep, causal, attrs["scale"], kept, attrs["keep_prob"])
    return _from_bsnd(out, attrs["input_layout"])


@primitive("FlashAttentionScoreSoftmaxStats", attrs=_FA_ATTRS, multiple_results=True, differentiable=False,
           internal=("the softmax statistics ops.FlashAttentionScore returns beside its attention "
                     "(attention_ops._flash_attention_score_cls)"))
def _softmax_stats(q, k, v, *extra, **attrs):
    """The class-style op's softmax_max and softmax_sum: per query row, the max of the masked scores and the sum
    of exp(score - max), float32, repeated 8 times on the last axis ((B, N1, S1, 8); (T1, N1, 8) for TND)."""
    qh, kh, _, bias, keep, causal = _prepare(q, k, v, extra, **attrs)
    kr = jnp.repeat(kh, qh.shape[2] // kh.shape[2], axis=2)
    s = jnp.einsum("bqnd,bknd->bnqk", qh, kr, preferred_element_type=jnp.float32) * attrs["scale"]
    if bias is not None:
        s = s + jnp.reshape(bias, (1,) * (4 - bias.ndim) + bias.shape).astype(jnp.float32)
    allowed = jnp.ones(s.shape[-2:], bool) if keep is None else jnp.reshape(keep, (1,) * (4 - keep.ndim) + keep.shape)
    if causal:
        allowed = allowed & jnp.tril(jnp.ones(s.shape[-2:], bool))
    s = jnp.where(allowed, s, -jnp.inf)
    top = jnp.max(s, axis=-1, keepdims=True)
    total = jnp.sum(jnp.exp(s - top), axis=-1, keepdims=True)
    if attrs["input_layout"] == "TND":
        top, total = (jnp.swapaxes(t[0], 0, 1) for t in (top, total))
    return tuple(jnp.broadcast_to(t, t.shape[:-1] + (8,)) for t in (top, total))


def _seq_lens(value, name: str) -> tuple[int, ...] | None:
    if value is None:
        return None
    if isinstance(value, Tensor):
        try:
            value = value.asnumpy().tolist()
        except Exception:
            raise OpError(f"flash_attention_score: {name} must be known when the graph is built (a tuple of ints "
                          f"or a constant Tensor), not a value computed in the graph") from None
    out = tuple(int(x) for x in value)
    if not out or any(b < a for a, b in zip((0,) + out, out)):
        raise OpError(f"flash_attention_score: {name} must be non-decreasing cumulative lengths, got {out}")
    return out


def _refuse(what: str) -> OpError:
    return OpError(f"flash_attention_score: {what} is not supported by msx yet (issue 35)")


def _batch_seq(x, layout: str) -> tuple[int, int]:
    """(B, S) of a query/key in `layout` (TND: one batch of T tokens)."""
    shape = tuple(x.shape)
    return {"BSH": shape[:2], "BSND": shape[:2], "SBH": shape[1::-1], "BNSD": (shape[0], shape[2]),
            "TND": (1, shape[0])}[layout]


def _prefix_arg(prefix, b: int, s1: int, s2: int) -> tuple[int, ...]:
    """sparse_mode 5's `prefix` as B ints checked against MindSpore's ranges (S1 > S2: 0..S2, else S2-S1..S2).
    Read when the graph is built, as `actual_seq_qlen` is: the mask's shape depends on nothing else, and the
    range check needs the values."""
    if prefix is None:
        raise OpError("flash_attention_score: sparse_mode=5 (prefix) needs prefix, B ints")
    if isinstance(prefix, Tensor):
        try:
            prefix = prefix.asnumpy().reshape(-1).tolist()
        except Exception:
            raise OpError("flash_attention_score: prefix must be known when the graph is built (a tuple of ints "
                          "or a constant Tensor), not a value computed in the graph") from None
    try:
        out = tuple(int(n) for n in prefix)
    except (TypeError, ValueError):
        raise OpError(f"flash_attention_score: prefix must be B ints, got {prefix!r}") from None
    if len(out) != b:
        raise OpError(f"flash_attention_score: prefix must hold one int per batch (B={b}), got {len(out)}: {out}")
    lo = 0 if s1 > s2 else s2 - s1
    bad = [n for n in out if not lo <= n <= s2]
    if bad:
        raise OpError(f"flash_attention_score: prefix values must lie in [{lo}, {s2}] (S1={s1}, S2={s2}; "
                      f"MindSpore's range), got {out}")
    return out


def _drop_mask_shape(b: int, n1: int, s1: int, s2: int, seq_q, seq_kv) -> tuple[int, ...]:
    if seq_q is None:
        if s2 % 8:
            raise OpError(f"flash_attention_score: a drop_mask needs S2 a multiple of 8 (one bit per element), "
                          f"got S2={s2}")
        return (b, n1, s1, s2 // 8)
    lens = [(q1 - q0) * (k1 - k0) for q0, q1, k0, k1 in zip((0,) + seq_q[:-1], seq_q, (0,) + seq_kv[:-1], seq_kv)]
    if (sum(lens) * n1) % 8:
        raise OpError(f"flash_attention_score: with TND a drop_mask needs qk_pointer * N1 ({sum(lens)} * {n1}) a "
                      f"multiple of 8 (one bit per element)")
    return (sum(lens) * n1 // 8,)


def _fa_call(query, key, value, head_num, real_shift, drop_mask, padding_mask, attn_mask, prefix, actual_seq_qlen,
             actual_seq_kvlen, keep_prob, scalar_value, pre_tokens, next_tokens, input_layout, sparse_mode,
             op: str = "flash_attention_score", shift_scale: float | None = None):
    """The checked inputs and attributes of one flash attention call (the functional, the class and
    speed_fusion_attention share it)."""
    if not isinstance(input_layout, str) or input_layout not in LAYOUTS:
        raise OpError(f"{op}: input_layout must be one of {LAYOUTS}, got {input_layout!r}")
    if not isinstance(head_num, int) or isinstance(head_num, bool) or head_num < 1:
        raise OpError(f"{op}: head_num must be an int >= 1, got {head_num!r}")
    if not isinstance(sparse_mode, int) or sparse_mode not in range(9):
        raise OpError(f"{op}: sparse_mode must be an int in 0..8, got {sparse_mode!r}")
    if sparse_mode in _UNIMPLEMENTED_MODES:
        raise OpError(f"{op}: sparse_mode={sparse_mode} ({_UNIMPLEMENTED_MODES[sparse_mode]}) is documented by "
                      f"MindSpore 2.10 as not implemented yet, and msx does not implement it either")
    if isinstance(keep_prob, bool) or not isinstance(keep_prob, (int, float)) or not 0.0 < keep_prob <= 1.0:
        raise OpError(f"{op}: keep_prob must be a float in (0, 1], got {keep_prob!r}")
    keep_prob = float(keep_prob)
    if keep_prob == 1.0 and drop_mask is not None:
        raise OpError(f"{op}: drop_mask must be None when keep_prob is 1.0 (MindSpore 2.10's rule); pass "
                      f"keep_prob < 1 to apply it")
    if padding_mask is not None:
        raise OpError(f"{op}: padding_mask is reserved and not implemented in MindSpore 2.10; msx does not take "
                      f"it either")
    if sparse_mode == 1 and attn_mask is None:
        raise OpError(f"{op}: sparse_mode=1 (allMask) needs attn_mask")
    for name, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, Tensor) or t.ndim != _ndim_for(input_layout):
            raise OpError(f"{op}: {name} must be a {_ndim_for(input_layout)}-d Tensor for layout "
                          f"{input_layout}, got {_shape_of(t)}")
    if query.dtype != key.dtype or key.dtype != value.dtype or not jnp.issubdtype(query._data.dtype, jnp.floating):
        raise OpTypeError(f"{op}: query, key and value must have one float dtype, got "
                          f"{query.dtype}, {key.dtype}, {value.dtype}")
    if attn_mask is not None and sparse_mode in (2, 3, 4) and tuple(attn_mask.shape) != (2048, 2048):
        raise OpError(f"{op}: with sparse_mode={sparse_mode} attn_mask is MindSpore's compressed "
                      f"(2048, 2048) mask, got shape {tuple(attn_mask.shape)}")
    seq_q, seq_kv = _seq_lens(actual_seq_qlen, "actual_seq_qlen"), _seq_lens(actual_seq_kvlen, "actual_seq_kvlen")
    if (input_layout == "TND") != (seq_q is not None and seq_kv is not None):
        raise OpError(f"{op}: actual_seq_qlen and actual_seq_kvlen are given exactly when input_layout='TND'")
    if seq_q is not None:
        if len(seq_q) != len(seq_kv) or seq_q[-1] != query.shape[0] or seq_kv[-1] != key.shape[0]:
            raise OpError(f"{op}: actual_seq_qlen {seq_q} / actual_seq_kvlen {seq_kv} must have "
                          f"one entry per sequence and end at T1={query.shape[0]} / T2={key.shape[0]}")
    (b, s1), (_, s2) = _batch_seq(query, input_layout), _batch_seq(key, input_layout)
    prefix_ints = None
    if sparse_mode == 5:
        if input_layout == "TND":
            raise OpError(f"{op}: sparse_mode=5 (prefix) does not take input_layout='TND' (MindSpore: prefix is "
                          f"None with TND)")
        prefix_ints = _prefix_arg(prefix, b, s1, s2)
        if attn_mask is not None and (attn_mask.ndim != 4 or tuple(attn_mask.shape[:1]) + tuple(attn_mask.shape[2:])
                                      != (b, s1, s2) or attn_mask.shape[1] not in (1, head_num)):
            raise OpError(f"{op}: with sparse_mode=5 attn_mask must be (B, N1, S1, S2) or (B, 1, S1, S2) = "
                          f"({b}, {head_num} or 1, {s1}, {s2}), got shape {tuple(attn_mask.shape)}")
    else:
        not_honoured(op, "prefix", prefix, None, "prefix takes effect only with sparse_mode=5, as in MindSpore")
    extras = [(n, t) for n, t in (("real_shift", real_shift), ("attn_mask", attn_mask)) if t is not None]
    if keep_prob < 1.0 and drop_mask is not None:
        want = _drop_mask_shape(b, head_num, s1, s2, seq_q, seq_kv)
        if not isinstance(drop_mask, Tensor) or tuple(drop_mask.shape) != want or \
                np.dtype(drop_mask._data.dtype) != np.uint8:
            got = f"{_shape_of(drop_mask)}" + (f", {drop_mask.dtype}" if isinstance(drop_mask, Tensor) else "")
            raise OpError(f"{op}: drop_mask must be a uint8 Tensor of shape {want} (one bit per attention "
                          f"probability; {'(qk_pointer * N1 // 8,)' if seq_q else '(B, N1, S1, S2 // 8)'}), "
                          f"got {got}")
        extras.append(("drop_mask", drop_mask))
    elif keep_prob < 1.0:
        extras.append(("rng_key", _key_for()))
    scale = float(scalar_value)
    attrs = {"head_num": head_num, "input_layout": input_layout, "scale": scale,
             "pre_tokens": int(pre_tokens), "next_tokens": int(next_tokens), "sparse_mode": sparse_mode,
             "inputs": tuple(n for n, _ in extras), "seq_qlen": seq_q, "seq_kvlen": seq_kv, "keep_prob": keep_prob,
             "prefix": prefix_ints, "shift_scale": 1.0 if shift_scale is None else float(shift_scale)}
    return (query, key, value, *[t for _, t in extras]), attrs


@expose(ops="flash_attention_score")
def flash_attention_score(query, key, value, head_num, real_shift=None, drop_mask=None, padding_mask=None,
                          attn_mask=None, prefix=None, actual_seq_qlen=None, actual_seq_kvlen=None, keep_prob=1.0,
                          scalar_value=1.0, pre_tokens=INT_MAX, next_tokens=INT_MAX, inner_precise=0,
                          input_layout="BSH", sparse_mode=0):
    """MindSpore's `ops.flash_attention_score` (2.10 signature) on `jax.nn.dot_product_attention`.

    Honoured: the five layouts, `head_num`, `real_shift` (added after the scale), `attn_mask` (True/1
    discards), `scalar_value`, `pre_tokens`/`next_tokens`, `sparse_mode` 0-4, GQA (N1 a multiple of N2),
    TND with `actual_seq_qlen`/`actual_seq_kvlen`, `sparse_mode` 5 (causal from the bottom right plus the first
    `prefix[b]` key columns; an `attn_mask` (B, N1|1, S1, S2) discards on top), dropout of the softmax
    probabilities with `keep_prob < 1`: the bits of `drop_mask` (uint8 (B, N1, S1, S2 // 8), element 8j+k is bit
    k of byte j, 1 keeps; kept ones scaled by 1/keep_prob) or, without one, a draw from msx's seeded generator.
    Refused: `padding_mask` (reserved in MindSpore too), sparse modes 6-8 (not implemented in MindSpore 2.10
    either), a drop_mask with keep_prob=1.0 (MindSpore: it must be None then).
    Float32 inputs are taken too (MindSpore's kernel takes float16/bfloat16 only)."""
    inputs, attrs = _fa_call(query, key, value, head_num, real_shift, drop_mask, padding_mask, attn_mask, prefix,
                             actual_seq_qlen, actual_seq_kvlen, keep_prob, scalar_value, pre_tokens, next_tokens,
                             input_layout, sparse_mode)
    return apply(_flash_attention_score, inputs, attrs)


@expose(cls="FlashAttentionScore", init=("head_num", "keep_prob", "scale_value", "pre_tokens", "next_tokens",
                                         "inner_precise", "input_layout", "sparse_mode"), prim="FlashAttentionScore")
def _flash_attention_score_cls(query, key, value, real_shift=None, drop_mask=None, padding_mask=None, attn_mask=None,
                               prefix=None, actual_seq_qlen=None, actual_seq_kvlen=None, *, head_num, keep_prob=1.0,
                               scale_value=1.0, pre_tokens=INT_MAX, next_tokens=INT_MAX, inner_precise=0,
                               input_layout="BSH", sparse_mode=0):
    """MindSpore's class `ops.FlashAttentionScore(head_num, ...)(query, key, value, ...)` ->
    (softmax_max, softmax_sum, softmax_out, attention_out); softmax_out is MindSpore's useless () output."""
    inputs, attrs = _fa_call(query, key, value, head_num, real_shift, drop_mask, padding_mask, attn_mask, prefix,
                             actual_seq_qlen, actual_seq_kvlen, keep_prob, scale_value, pre_tokens, next_tokens,
                             input_layout, sparse_mode)
    top, total = apply(_softmax_stats, inputs, attrs)
    return top, total, Tensor(np.zeros((), query._data.dtype)), apply(_flash_attention_score, inputs, attrs)


def _shape_of(t: Any) -> str:
    return f"shape {tuple(t.shape)}" if isinstance(t, Tensor) else type(t).__name__


# ---------------------------------------------------------------- scaled_dot_product_attention (torch)
@primitive("ScaledDotProductAttention", attrs=("scale", "is_causal", "mask_kind", "dropout_p"))
def _sdpa(q, k, v, *extra, scale, is_causal, mask_kind, dropout_p):
    """torch's scaled_dot_product_attention on (B, H, L, E): softmax(q k^T * scale + mask) v."""
    mask = extra[0] if mask_kind is not None else None
    bias = mask if mask_kind == "float" else None
    keep = mask if mask_kind == "bool" else None
    qh, kh, vh = (jnp.swapaxes(x, 1, 2) for x in (q, k, v))    # -> (B, L, H, E); a mask is (B, H, L, S)
    if dropout_p == 0.0:
        return jnp.swapaxes(_attend(qh, kh, vh, bias, keep, is_causal, scale), 1, 2)
    # dropout on the attention weights: jax's fused call has no dropout, so the same formula written out
    kept = jax.random.bernoulli(_k(extra[-1]), 1.0 - dropout_p, q.shape[:-1] + (k.shape[-2],))
    return jnp.swapaxes(_attend_plain(qh, kh, vh, bias, keep, is_causal, scale, kept, 1.0 - dropout_p), 1, 2)


@expose(mintf="scaled_dot_product_attention", prim="ScaledDotProductAttention")
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    """torch's `scaled_dot_product_attention` (MindSpore 2.10's mint has no such name: an msx addition with
    torch's signature and semantics). `query` is (..., Hq, L, E), `key`/`value` (..., H, S, E); a bool
    `attn_mask` keeps True, a float one is added to the scores; `is_causal` is top-left causal and excludes
    `attn_mask` (as in torch); `enable_gqa` lets Hq be a multiple of H. `dropout_p > 0` draws from msx's
    seeded generator (torch's semantics: always applied, there is no `training` flag)."""
    for name, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, Tensor) or t.ndim < 2:
            raise OpError(f"scaled_dot_product_attention: {name} must be a Tensor of at least 2 dims, got "
                          f"{_shape_of(t)}")
    if not 0.0 <= float(dropout_p) < 1.0:
        raise OpError(f"scaled_dot_product_attention: dropout_p must be in [0, 1), got {dropout_p!r}")
    if is_causal and attn_mask is not None:
        raise OpError("scaled_dot_product_attention: attn_mask and is_causal=True cannot both be given")
    if query.dtype != key.dtype or key.dtype != value.dtype:
        raise OpTypeError(f"scaled_dot_product_attention: query, key and value must have one dtype, got "
                          f"{query.dtype}, {key.dtype}, {value.dtype}")
    lead = tuple(query.shape[:-3]) if query.ndim >= 3 else ()
    hq = query.shape[-3] if query.ndim >= 3 else 1
    hk = key.shape[-3] if key.ndim >= 3 else 1
    if key.shape[-1] != query.shape[-1] or tuple(key.shape) != tuple(value.shape[:-1]) + (key.shape[-1],) or \
            value.shape[-2] != key.shape[-2] or (key.ndim >= 3 and tuple(key.shape[:-3]) != lead):
        raise OpError(f"scaled_dot_product_attention: shapes do not fit: query {tuple(query.shape)}, key "
                      f"{tuple(key.shape)}, value {tuple(value.shape)}")
    if hq != hk and not (enable_gqa and hq % hk == 0):
        raise OpError(f"scaled_dot_product_attention: query has {hq} heads and key {hk}; they must be equal, or "
                      f"enable_gqa=True with {hq} a multiple of {hk}")
    def four(t, heads):
        return apply(_reshape, (t,), {"shape": (math.prod(lead) if lead else 1, heads) + tuple(t.shape[-2:])})

    q4, k4, v4 = four(query, hq), four(key, hk), four(value, hk)
    inputs, kind = [q4, k4, v4], None
    if attn_mask is not None:
        if not isinstance(attn_mask, Tensor):
            raise OpError(f"scaled_dot_product_attention: attn_mask must be a Tensor, got {type(attn_mask).__name__}")
        kind = "bool" if attn_mask._data.dtype == jnp.bool_ else "float"
        full = lead + (hq, query.shape[-2], key.shape[-2])
        try:
            m = apply(_broadcast_to, (attn_mask,), {"shape": full})
        except Exception:
            raise OpError(f"scaled_dot_product_attention: attn_mask of shape {tuple(attn_mask.shape)} does not "
                          f"broadcast to {full}") from None
        inputs.append(four(m, hq))
    p = float(dropout_p)
    if p > 0.0:
        inputs.append(_key_for())
    e = query.shape[-1]
    attrs = {"scale": float(1.0 / math.sqrt(e) if scale is None else scale), "is_causal": bool(is_causal),
             "mask_kind": kind, "dropout_p": p}
    out = apply(_sdpa, tuple(inputs), attrs)
    return apply(_reshape, (out,), {"shape": tuple(query.shape[:-1]) + (value.shape[-1],)})


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
           internal="the rule of ops.ApplyRotaryPosEmb (msx/ops/attention_ops.py)")
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
