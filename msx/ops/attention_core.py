"""The shared machinery of msx's fused attention ops (issue 35): MindSpore's layouts as jax's `(B, S, N, D)`,
MindSpore's sparse-mode keep-masks, the dropout bit mask, and the two ways of computing the attention itself.

`_attend` is `jax.nn.dot_product_attention` (XLA's fused softmax(QK^T)V on CPU, cuDNN's flash attention on GPU
where jax selects it); `_attend_plain` is the same formula written out, for dropout, which jax's fused call
does not take. flash_attention_ops (FlashAttentionScore, speed_fusion_attention) and sdpa_ops (torch's
scaled_dot_product_attention) build on them; this module declares no op.
"""
from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ..errors import OpError
from ..tensor import Tensor

LAYOUTS = ("BSH", "BNSD", "SBH", "BSND", "TND")
INT_MAX = 2147483647

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


def _alibi_bias(slopes, s1: int, s2: int, alibi: tuple[int, int, bool], seq_q=None, seq_kv=None):
    """The ALiBi bias speed_fusion_attention's pse_type 2/3 generates from per-head `slopes` ((N1,) or (B, N1)),
    float32 and broadcastable to (B, N1, S1, S2): bias[b, n, i, j] = -slopes[b, n] * |(j + kv_start) -
    (i + q_start)|, or -slopes[b, n] * sqrt(|...|) when `alibi`'s third item (pse_type 3) is set, where
    `alibi` = (q_start, kv_start, use_sqrt). That is Ascend's FlashAttentionScore kernel (ops-transformer's
    pse.h: a column-minus-row table, plus kvStartIdx - qStartIdx, Abs, Sqrt for type 3, times -slope), row 0
    aligned with the top left of QK^T. TND (`seq_q`/`seq_kv` given) counts positions within each sequence, and
    (B, N1) slopes are read per query token's sequence."""
    q_start, kv_start, use_sqrt = alibi
    if seq_q is None:
        i, j = jnp.arange(s1), jnp.arange(s2)
    else:
        seg_q, i, _ = _segments(seq_q)
        _, j, _ = _segments(seq_kv)
    dist = jnp.abs((j[None, :] + kv_start) - (i[:, None] + q_start)).astype(jnp.float32)
    if use_sqrt:
        dist = jnp.sqrt(dist)
    slopes = slopes.astype(jnp.float32)
    if slopes.ndim == 1:        # (N1,): one slope per head, the same for every batch
        return -slopes[None, :, None, None] * dist
    if seq_q is None:           # (B, N1)
        return -slopes[:, :, None, None] * dist
    return -jnp.swapaxes(slopes[seg_q], 0, 1)[None, :, :, None] * dist   # TND: (1, N1, T1, 1) * (T1, T2)


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


def _shape_of(t: Any) -> str:
    return f"shape {tuple(t.shape)}" if isinstance(t, Tensor) else type(t).__name__
