"""The class op `ops.LSTM(input_size, hidden_size, num_layers, has_bias, bidirectional, dropout, proj_size=0)`
`(x, h, c, w)`, with the one flat weight MindSpore 2.10's CPU kernel (oneDNN) reads.

The math is `nn.LSTM`'s (`msx/nn/layer/rnn.py`, gates (i, f, g, o), `c' = sigmoid(f) c + sigmoid(i) tanh(g)`,
`h' = sigmoid(o) tanh(c')`, then `h' @ W_proj^T` with `proj_size`), run here as one `lax.scan` per layer and
direction. `w` is (N, 1, 1) (any shape; read flat): first every input weight (4H, I_l) for each (layer,
direction) in that order (I_0 = input_size, later layers (proj_size or H) * directions), then every recurrent
weight (4H, proj_size or H), then every projection (proj_size, H) when proj_size > 0, then one bias (4H,) per
(layer, direction) when has_bias: the *sum* b_ih + b_hh, as MindSpore's `nn.LSTM` builds it on CPU. A longer
`w` is accepted and its tail unused (as there). MindSpore's GPU kernel (cuDNN) orders the same weights another
way and keeps two biases; msx follows the CPU layout.

Results: output (T, B, D * Hout), h_n (L * D, B, Hout), c_n (L * D, B, H) and two placeholders for the CPU
kernel's oneDNN workspace outputs (`reserve`, `state`), which no MindSpore API reads: zeros of shape (1, 1) here
(MindSpore's size depends on oneDNN). `dropout` between layers is not applied, as MindSpore's CPU kernel does not
apply it (a warning says so). Gradients are jax's (MindSpore's LSTMGrad gives the same for x, h, c and w).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..errors import OpError
from ..ignored_args import not_honoured
from .api import SURFACE, PrimitiveOp
from .primitive import apply, primitive
from .recurrent_ops import recurrent_step


def weight_layout(input_size: int, hidden_size: int, num_layers: int, has_bias: bool, bidirectional: bool,
                  proj_size: int = 0) -> list[tuple[str, int, int, tuple[int, ...]]]:
    """[(kind, layer, direction, shape)] in the flat weight's order (kinds: w_ih, w_hh, w_proj, bias)."""
    dirs = 2 if bidirectional else 1
    out_h = proj_size or hidden_size
    cells = [(layer, d) for layer in range(num_layers) for d in range(dirs)]
    entries = [("w_ih", layer, d, (4 * hidden_size, input_size if layer == 0 else out_h * dirs))
               for layer, d in cells]
    entries += [("w_hh", layer, d, (4 * hidden_size, out_h)) for layer, d in cells]
    if proj_size:
        entries += [("w_proj", layer, d, (proj_size, hidden_size)) for layer, d in cells]
    if has_bias:
        entries += [("bias", layer, d, (4 * hidden_size,)) for layer, d in cells]
    return entries


def _run_direction(x, h0, c0, w_ih, w_hh, bias, w_proj, reverse: bool):
    """One layer in one direction over x (T, B, I): (outputs (T, B, Hout), h_T, c_T)."""
    xs = jnp.einsum("tbi,gi->tbg", x, w_ih) + (0 if bias is None else bias)

    def cell(carry, gx):
        (h, c), h = recurrent_step("LSTM", gx, carry, w_hh, None)   # nn.LSTM's step (msx/ops/recurrent_ops.py)
        if w_proj is not None:
            h = h @ w_proj.T
        return (h, c), h

    (h, c), ys = lax.scan(cell, (h0, c0), xs, reverse=reverse)
    return ys, h, c


@primitive("LSTM", attrs=("input_size", "hidden_size", "num_layers", "has_bias", "bidirectional", "proj_size"),
           category="other", multiple_results=True,
           internal="run by the class op ops.LSTM, which checks the shapes and the flat weight's size")
def lstm_(x, h, c, w, *, input_size, hidden_size, num_layers, has_bias, bidirectional, proj_size=0):
    """(output, h_n, c_n, reserve, state) of a multi-layer (bidirectional) LSTM over the flat CPU weight."""
    flat = w.reshape(-1)
    parts: dict[tuple[str, int, int], jax.Array] = {}
    offset = 0
    for kind, layer, d, shape in weight_layout(input_size, hidden_size, num_layers, has_bias, bidirectional,
                                               proj_size):
        size = int(np.prod(shape))
        parts[(kind, layer, d)] = flat[offset:offset + size].reshape(shape).astype(x.dtype)
        offset += size
    dirs = 2 if bidirectional else 1
    layer_in, hs, cs = x, [], []
    for layer in range(num_layers):
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            ys, h_t, c_t = _run_direction(layer_in, h[k], c[k], parts[("w_ih", layer, d)],
                                          parts[("w_hh", layer, d)], parts.get(("bias", layer, d)),
                                          parts.get(("w_proj", layer, d)), reverse=d == 1)
            outs.append(ys)
            hs.append(h_t)
            cs.append(c_t)
        layer_in = outs[0] if dirs == 1 else jnp.concatenate(outs, axis=-1)
    placeholder = jnp.zeros((1, 1), x.dtype)
    return layer_in, jnp.stack(hs), jnp.stack(cs), placeholder, placeholder


def _count(op: str, what: str, v, low: int) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{op}: {what} must be an int, got {type(v).__name__} ({v!r})")
    if v < low:
        raise ValueError(f"{op}: {what} must be >= {low}, got {v}")
    return int(v)


class LSTM(PrimitiveOp):
    """`ops.LSTM(input_size, hidden_size, num_layers, has_bias, bidirectional, dropout, proj_size=0)(x, h, c, w)`
    -> (output, h_n, c_n, reserve, state); x (T, B, input_size), h (L * D, B, proj_size or H), c (L * D, B, H)."""

    name = "LSTM"

    def __init__(self, input_size, hidden_size, num_layers, has_bias, bidirectional, dropout, proj_size=0) -> None:
        super().__init__()
        op = "LSTM"
        self.input_size = _count(op, "input_size", input_size, 1)
        self.hidden_size = _count(op, "hidden_size", hidden_size, 1)
        self.num_layers = _count(op, "num_layers", num_layers, 1)
        self.proj_size = _count(op, "proj_size", proj_size, 0)
        if self.proj_size >= self.hidden_size:
            raise ValueError(f"LSTM: proj_size must be smaller than hidden_size ({hidden_size}), got {proj_size}")
        for what, v in (("has_bias", has_bias), ("bidirectional", bidirectional)):
            if not isinstance(v, bool):
                raise TypeError(f"LSTM: {what} must be a bool, got {type(v).__name__} ({v!r})")
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0.0 <= dropout <= 1.0:
            raise ValueError(f"LSTM: dropout must be a float in [0, 1], got {dropout!r}")
        self.has_bias, self.bidirectional, self.dropout = has_bias, bidirectional, float(dropout)
        not_honoured("ops.LSTM", "dropout", self.dropout, 0.0,
                     "no dropout between layers (MindSpore's CPU kernel applies none either)")
        self.num_directions = 2 if bidirectional else 1
        self.attrs.update(input_size=self.input_size, hidden_size=self.hidden_size, num_layers=self.num_layers,
                          has_bias=has_bias, bidirectional=bidirectional, dropout=self.dropout,
                          proj_size=self.proj_size)

    def weight_size(self) -> int:
        """How many elements `w` must hold at least."""
        return sum(int(np.prod(s)) for *_, s in weight_layout(self.input_size, self.hidden_size, self.num_layers,
                                                               self.has_bias, self.bidirectional, self.proj_size))

    def __call__(self, x, h, c, w):
        ld = self.num_layers * self.num_directions
        out_h = self.proj_size or self.hidden_size
        got = f"x {tuple(x.shape)}, h {tuple(h.shape)}, c {tuple(c.shape)}, w {tuple(w.shape)}"
        if x.ndim != 3 or x.shape[2] != self.input_size:
            raise OpError(f"LSTM: x must be (seq_len, batch, {self.input_size}); got {got}")
        batch = x.shape[1]
        if tuple(h.shape) != (ld, batch, out_h) or tuple(c.shape) != (ld, batch, self.hidden_size):
            raise OpError(f"LSTM: h must be ({ld}, {batch}, {out_h}) and c ({ld}, {batch}, {self.hidden_size}) "
                          f"(num_layers * directions, batch, hidden); got {got}")
        need = self.weight_size()
        if int(np.prod(w.shape)) < need:
            raise OpError(f"LSTM: w must hold at least {need} elements (the flat CPU layout of {self.num_layers} "
                          f"layer(s), {self.num_directions} direction(s), has_bias={self.has_bias}); got {got}")
        for what, t in (("x", x), ("h", h), ("c", c), ("w", w)):
            if t.dtype != x.dtype or not t.dtype.is_floating:
                raise OpError(f"LSTM: x, h, c and w must share one float dtype; {what} is {t.dtype} "
                              f"(x is {x.dtype})")
        return apply(lstm_, (x, h, c, w), {"input_size": self.input_size, "hidden_size": self.hidden_size,
                                           "num_layers": self.num_layers, "has_bias": self.has_bias,
                                           "bidirectional": self.bidirectional, "proj_size": self.proj_size})


SURFACE.add("cls", "LSTM", LSTM)
