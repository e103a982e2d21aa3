"""torch's `scaled_dot_product_attention` (issue 35), published in msx's `mint.nn.functional`: one primitive
over attention_core's `_attend` (jax's fused attention) or, with dropout, its written-out `_attend_plain`.
"""
from __future__ import annotations

import math

import jax
import jax.numpy as jnp

from ..errors import OpError, OpTypeError
from ..tensor import Tensor
from .api import expose
from .array_ops import reshape as _reshape
from .attention_core import _attend, _attend_plain, _shape_of
from .layout_ops import broadcast_to as _broadcast_to
from .primitive import apply, primitive
from .random_ops import _k, _key_for


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
