"""MindSpore's FlashAttentionScore (issue 35): the functional `ops.flash_attention_score`, the class
`ops.FlashAttentionScore` and the two primitives they (and speed_fusion_attention) share.

Each is one primitive of the registry, so it runs eagerly, under every capture mode and under gradients like
any op, computed by attention_core's `_attend` (jax's fused attention) in the `(B, S, N, D)` layout jax takes.
The public functions translate MindSpore's layouts and masks into that call and refuse, by name, what msx does
not honour (the global/dilated/block_local sparse modes, which MindSpore 2.10 does not implement either): a
silently different attention would be worse than an error. A call with dropout (`keep_prob < 1`) is the same
formula written out (`_attend_plain`), since jax's fused call has no dropout.

MindSpore's CPU build registers none of these kernels (`The kernel FlashAttentionScore unregistered`), so
their tests are against a plain softmax(scale * QK^T + bias)V in numpy (tests/test_attention.py).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ..errors import OpError, OpTypeError
from ..ignored_args import not_honoured
from ..tensor import Tensor
from .api import expose
from .attention_core import (INT_MAX, LAYOUTS, _alibi_bias, _attend, _attend_plain, _from_bsnd, _ndim_for,
                             _shape_of, _sparse_keep, _to_bsnd, _unpack_drop_mask)
from .primitive import apply, primitive
from .random_ops import _k, _key_for

_UNIMPLEMENTED_MODES = {6: "global", 7: "dilated", 8: "block_local"}


# ---------------------------------------------------------------- flash_attention_score
_FA_ATTRS = ("head_num", "input_layout", "scale", "pre_tokens", "next_tokens", "sparse_mode", "inputs", "seq_qlen",
             "seq_kvlen", "keep_prob", "prefix", "shift_scale", "alibi")


def _prepare(q, k, v, extra, *, head_num, input_layout, scale, pre_tokens, next_tokens, sparse_mode, inputs,
             seq_qlen, seq_kvlen, keep_prob=1.0, prefix=None, shift_scale=1.0, alibi=None):
    """The (B, S, N, D) query/key/value, real_shift, keep-mask and causal flag of one FlashAttentionScore call.
    `inputs` names the optional tensors after q, k, v: real_shift, attn_mask, drop_mask, rng_key (drawn by the
    caller when keep_prob < 1 and no drop_mask is given). `shift_scale` multiplies real_shift
    (speed_fusion_attention's pse_type=1: scale * (pse + QK^T)). With `alibi` = (q_start, kv_start, use_sqrt)
    (speed_fusion_attention's pse_type 2/3) real_shift holds per-head ALiBi slopes and the bias is generated
    from them here, inside the primitive, as Ascend's kernel does (`_alibi_bias`)."""
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
    if shift is not None and alibi is not None:
        shift = _alibi_bias(shift, qh.shape[1], kh.shape[1], alibi, seq_qlen, seq_kvlen)
    elif shift is not None and shift_scale != 1.0:
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
                     "(flash_attention_ops._flash_attention_score_cls)"))
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


def _check_slopes(op: str, pse, batch: int, heads: int, pse_type: int) -> None:
    """speed_fusion_attention's pse_type 2/3 `pse`: the ALiBi slopes, float32, (N1,) or (B, N1) (B: the
    sequences of a TND call), MindSpore's rule."""
    if np.dtype(pse._data.dtype) != np.float32:
        raise OpTypeError(f"{op}: with pse_type={pse_type} pse holds the ALiBi slopes and must be float32 "
                          f"(MindSpore's rule), got {pse.dtype}")
    if tuple(pse.shape) not in ((heads,), (batch, heads)):
        raise OpError(f"{op}: with pse_type={pse_type} pse holds the ALiBi slopes, shape (N1,) = ({heads},) "
                      f"or (B, N1) = ({batch}, {heads}), got shape {tuple(pse.shape)}")


def _fa_call(query, key, value, head_num, real_shift, drop_mask, padding_mask, attn_mask, prefix, actual_seq_qlen,
             actual_seq_kvlen, keep_prob, scalar_value, pre_tokens, next_tokens, input_layout, sparse_mode,
             op: str = "flash_attention_score", shift_scale: float | None = None,
             alibi: tuple[int, int, bool] | None = None):
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
    if alibi is not None:   # checked before the primitive generates the (B, N1, S1, S2) bias, and before a draw
        _check_slopes(op, real_shift, len(seq_q) if seq_q is not None else b, head_num, 3 if alibi[2] else 2)
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
             "prefix": prefix_ints, "shift_scale": 1.0 if shift_scale is None else float(shift_scale),
             "alibi": alibi}
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
