"""Attention and Transformer layers: `MultiheadAttention`, `TransformerEncoderLayer`/`DecoderLayer`,
`TransformerEncoder`/`Decoder`, `Transformer` — MindSpore 2.x's (torch's) parameter names and semantics.

Masks: a bool mask marks positions to *ignore* (True = masked out); a float
mask is added to the attention scores. Inputs are (seq, batch, embed) unless
`batch_first`.
"""
from __future__ import annotations

import copy
import math
from typing import Callable

from ... import dtype as mstype
from ...ops import functional as F
from ...tensor import Tensor
from ..cell import Cell
from ..initializer import XavierNormal, XavierUniform, initializer
from ._utils import make_param
from .basic import Dense, Dropout
from .container import CellList
from .normalization import LayerNorm


def _additive(mask: Tensor | None, dtype) -> Tensor | None:
    """A bool mask (True = ignore) as 0 / -inf, a float mask as it is."""
    if mask is None:
        return None
    if mask.dtype == mstype.bool_:
        return F.where(mask, F.full(tuple(mask.shape), float("-inf"), dtype=dtype), F.zeros(tuple(mask.shape), dtype))
    return F.cast(mask, dtype)


class MultiheadAttention(Cell):
    """`softmax(Q K^T / sqrt(head_dim) + masks) V` over `num_heads` heads, then `out_proj`.

    Returns `(attn_output, attn_weights)`; the weights (averaged over heads unless
    `average_attn_weights=False`) are None when `need_weights=False`.
    """

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, has_bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim: int | None = None,
                 vdim: int | None = None, batch_first: bool = False, dtype=mstype.float32) -> None:
        super().__init__()
        name = f"MultiheadAttention(embed_dim={embed_dim}, num_heads={num_heads})"
        if embed_dim % num_heads:
            raise ValueError(f"{name}: embed_dim must be divisible by num_heads")
        self.embed_dim, self.num_heads, self.head_dim = int(embed_dim), int(num_heads), embed_dim // num_heads
        self.kdim, self.vdim = kdim or embed_dim, vdim or embed_dim
        self.same_dims = self.kdim == embed_dim and self.vdim == embed_dim
        self.dropout, self.batch_first, self.add_zero_attn = float(dropout), bool(batch_first), bool(add_zero_attn)
        init = XavierUniform()
        if self.same_dims:
            self.in_proj_weight = make_param(name, "in_proj_weight", init, (3 * embed_dim, embed_dim), dtype)
        else:
            self.q_proj_weight = make_param(name, "q_proj_weight", init, (embed_dim, embed_dim), dtype)
            self.k_proj_weight = make_param(name, "k_proj_weight", init, (embed_dim, self.kdim), dtype)
            self.v_proj_weight = make_param(name, "v_proj_weight", init, (embed_dim, self.vdim), dtype)
        self.has_bias = bool(has_bias)
        if has_bias:
            self.in_proj_bias = make_param(name, "in_proj_bias", "zeros", (3 * embed_dim,), dtype)
        # MindSpore's order (each random fill draws numpy's stream): out_proj (HeUniform(sqrt(5)) weight,
        # U(+-1/sqrt(embed_dim)) bias), then bias_k/bias_v (XavierNormal)
        self.out_proj = Dense(embed_dim, embed_dim, has_bias=has_bias, dtype=dtype)
        if add_bias_kv:
            self.bias_k = make_param(name, "bias_k", XavierNormal(), (1, 1, embed_dim), dtype)
            self.bias_v = make_param(name, "bias_v", XavierNormal(), (1, 1, embed_dim), dtype)
        self.add_bias_kv = bool(add_bias_kv)
        self.drop = Dropout(p=dropout) if dropout else None

    def _proj(self, q: Tensor, k: Tensor, v: Tensor):
        e = self.embed_dim
        if self.same_dims:
            wq, wk, wv = F.split(self.in_proj_weight, e, 0)
        else:
            wq, wk, wv = self.q_proj_weight, self.k_proj_weight, self.v_proj_weight
        bq = bk = bv = None
        if self.has_bias:
            bq, bk, bv = F.split(self.in_proj_bias, e, 0)
        lin = lambda x, w, b: F.dense(x, w, b)  # noqa: E731
        return lin(q, wq, bq), lin(k, wk, bk), lin(v, wv, bv)

    def construct(self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Tensor | None = None,
                  need_weights: bool = True, attn_mask: Tensor | None = None, average_attn_weights: bool = True):
        if self.batch_first:
            query, key, value = (F.transpose(t, (1, 0, 2)) for t in (query, key, value))
        tgt, batch, _ = query.shape
        q, k, v = self._proj(query, key, value)
        if self.add_bias_kv:
            k = F.concat([k, F.broadcast_to(self.bias_k, (1, batch, self.embed_dim))], 0)
            v = F.concat([v, F.broadcast_to(self.bias_v, (1, batch, self.embed_dim))], 0)
            attn_mask = None if attn_mask is None else F.pad(attn_mask, (0, 1))
            key_padding_mask = None if key_padding_mask is None else F.pad(key_padding_mask, (0, 1))
        h, d = self.num_heads, self.head_dim
        # (seq, batch, embed) -> (batch, heads, seq, head_dim)
        split = lambda t: F.transpose(F.reshape(t, (t.shape[0], batch, h, d)), (1, 2, 0, 3))  # noqa: E731
        q, k, v = split(q), split(k), split(v)
        if self.add_zero_attn:
            zeros = F.zeros((batch, h, 1, d), q.dtype)
            k, v = F.concat([k, zeros], 2), F.concat([v, zeros], 2)
            attn_mask = None if attn_mask is None else F.pad(attn_mask, (0, 1))
            key_padding_mask = None if key_padding_mask is None else F.pad(key_padding_mask, (0, 1))
        scores = F.matmul(q * (1.0 / math.sqrt(d)), F.transpose(k, (0, 1, 3, 2)))  # (batch, heads, tgt, src)
        src = scores.shape[-1]
        mask = _additive(attn_mask, scores.dtype)
        if mask is not None:
            scores = scores + (F.reshape(mask, (batch, h, tgt, src)) if mask.ndim == 3 else mask)
        pad = _additive(key_padding_mask, scores.dtype)
        if pad is not None:
            scores = scores + F.reshape(pad, (batch, 1, 1, src))
        weights = F.softmax(scores, -1)
        if self.drop is not None:
            self.drop.set_train(self.training)
            weights = self.drop(weights)
        out = F.matmul(weights, v)  # (batch, heads, tgt, d)
        out = F.reshape(F.transpose(out, (2, 0, 1, 3)), (tgt, batch, self.embed_dim))
        out = self.out_proj(out)
        if self.batch_first:
            out = F.transpose(out, (1, 0, 2))
        if not need_weights:
            return out, None
        return out, (F.mean(weights, 1) if average_attn_weights else weights)

    def extend_repr(self) -> str:
        return f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, dropout={self.dropout}"


def _activation(activation: str | Cell | Callable) -> Callable:
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    if callable(activation):
        return activation
    raise ValueError(f"activation must be 'relu', 'gelu' or a callable, got {activation!r}")


class TransformerEncoderLayer(Cell):
    """Self-attention + feed-forward (`dense1`, `dense2`), each with a residual and LayerNorm (after the
    block, or before it with `norm_first`)."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation="relu", layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, dtype=mstype.float32) -> None:
        super().__init__()
        # what MindSpore's TransformerEncoder/Decoder re-read to build a fresh layer of the same shape
        self._config = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first,
                        norm_first, dtype)
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, dtype=dtype)
        self.dense1 = Dense(d_model, dim_feedforward, dtype=dtype)
        self.dropout = Dropout(p=dropout)
        self.dense2 = Dense(dim_feedforward, d_model, dtype=dtype)
        self.norm_first = bool(norm_first)
        self.norm1 = LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype)
        self.norm2 = LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype)
        self.dropout1, self.dropout2 = Dropout(p=dropout), Dropout(p=dropout)
        self.activation = _activation(activation)

    def _sa_block(self, x, mask, padding_mask):
        return self.dropout1(self.self_attn(x, x, x, attn_mask=mask, key_padding_mask=padding_mask,
                                            need_weights=False)[0])

    def _ff_block(self, x):
        return self.dropout2(self.dense2(self.dropout(self.activation(self.dense1(x)))))

    def construct(self, src: Tensor, src_mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None):
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask)
            return x + self._ff_block(self.norm2(x))
        x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask))
        return self.norm2(x + self._ff_block(x))


class TransformerDecoderLayer(Cell):
    """Self-attention, cross-attention over `memory`, feed-forward; residuals and LayerNorms as the encoder."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation="relu", layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, dtype=mstype.float32) -> None:
        super().__init__()
        # what MindSpore's TransformerEncoder/Decoder re-read to build a fresh layer of the same shape
        self._config = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first,
                        norm_first, dtype)
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, dtype=dtype)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first,
                                                 dtype=dtype)
        self.dense1 = Dense(d_model, dim_feedforward, dtype=dtype)
        self.dropout = Dropout(p=dropout)
        self.dense2 = Dense(dim_feedforward, d_model, dtype=dtype)
        self.norm_first = bool(norm_first)
        self.norm1 = LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype)
        self.norm2 = LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype)
        self.norm3 = LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype)
        self.dropout1, self.dropout2, self.dropout3 = Dropout(p=dropout), Dropout(p=dropout), Dropout(p=dropout)
        self.activation = _activation(activation)

    def construct(self, tgt: Tensor, memory: Tensor, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                  memory_key_padding_mask=None):
        def sa(x):
            return self.dropout1(self.self_attn(x, x, x, attn_mask=tgt_mask, key_padding_mask=tgt_key_padding_mask,
                                                need_weights=False)[0])

        def mha(x):
            return self.dropout2(self.multihead_attn(x, memory, memory, attn_mask=memory_mask,
                                                     key_padding_mask=memory_key_padding_mask,
                                                     need_weights=False)[0])

        def ff(x):
            return self.dropout3(self.dense2(self.dropout(self.activation(self.dense1(x)))))

        x = tgt
        if self.norm_first:
            x = x + sa(self.norm1(x))
            x = x + mha(self.norm2(x))
            return x + ff(self.norm3(x))
        x = self.norm1(x + sa(x))
        x = self.norm2(x + mha(x))
        return self.norm3(x + ff(x))


def _clones(layer: Cell, n: int, cls: type) -> CellList:
    """`n` copies of a fresh `cls` built from `layer`'s configuration, as MindSpore's TransformerEncoder and
    TransformerDecoder do (the fresh layer draws new initial values; a layer without one is copied as is)."""
    config = getattr(layer, "_config", None)
    proto = cls(*config) if config is not None else layer
    return CellList([copy.deepcopy(proto) for _ in range(n)])


class TransformerEncoder(Cell):
    """`num_layers` copies of `encoder_layer` (as `layers.0`, ...), then the optional `norm`."""

    def __init__(self, encoder_layer: Cell, num_layers: int, norm: Cell | None = None) -> None:
        super().__init__()
        self.layers = _clones(encoder_layer, num_layers, TransformerEncoderLayer)
        self.num_layers, self.norm = num_layers, norm

    def construct(self, src: Tensor, src_mask=None, src_key_padding_mask=None):
        x = src
        for layer in self.layers:
            x = layer(x, src_mask=src_mask, src_key_padding_mask=src_key_padding_mask)
        return x if self.norm is None else self.norm(x)


class TransformerDecoder(Cell):
    """`num_layers` copies of `decoder_layer`, then the optional `norm`."""

    def __init__(self, decoder_layer: Cell, num_layers: int, norm: Cell | None = None) -> None:
        super().__init__()
        self.layers = _clones(decoder_layer, num_layers, TransformerDecoderLayer)
        self.num_layers, self.norm = num_layers, norm

    def construct(self, tgt: Tensor, memory: Tensor, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                  memory_key_padding_mask=None):
        x = tgt
        for layer in self.layers:
            x = layer(x, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                      tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask)
        return x if self.norm is None else self.norm(x)


class Transformer(Cell):
    """Encoder-decoder Transformer (`encoder`, `decoder`, each ending in a LayerNorm)."""

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6, num_decoder_layers: int = 6,
                 dim_feedforward: int = 2048, dropout: float = 0.1, activation="relu", custom_encoder=None,
                 custom_decoder=None, layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, dtype=mstype.float32) -> None:
        super().__init__()
        self.encoder = custom_encoder or TransformerEncoder(
            TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first,
                                    norm_first, dtype), num_encoder_layers,
            LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype))
        self.decoder = custom_decoder or TransformerDecoder(
            TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first,
                                    norm_first, dtype), num_decoder_layers,
            LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype))
        for _, p in self.parameters_and_names():  # as MindSpore: every matrix refilled, in parameter order
            if p.ndim > 1:
                p.set_data(initializer("xavier_uniform", p.shape, p.dtype))
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first

    def construct(self, src: Tensor, tgt: Tensor, src_mask=None, tgt_mask=None, memory_mask=None,
                  src_key_padding_mask=None, tgt_key_padding_mask=None, memory_key_padding_mask=None):
        memory = self.encoder(src, src_mask=src_mask, src_key_padding_mask=src_key_padding_mask)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask)
