"""`RecurrentLayer`: one layer of `nn.RNN`/`nn.LSTM`/`nn.GRU` in one direction over a whole sequence, as one op.

Written as a Python loop of per-step ops, a recurrent layer is T x (a dozen) ops: eagerly each first call
dispatches and compiles all of them, and under `jit` the graph holds the loop unrolled, so XLA compiles T copies
of the step and T copies of its backward (a 2-layer bidirectional LSTM over 32 tokens took 37 s for its first
training step, against 1.1 s in MindSpore). Here the step is the body of one `lax.scan`: the input projection
`x @ W_ih^T + b_ih` of every step runs as one matmul before the scan, the recurrence inside it, and jax
differentiates the scan, so eager calls, every capture mode and the gradient see one op whose compile cost does not
grow with T.

The math is MindSpore's (= torch's): LSTM gates (i, f, g, o), `c' = sigmoid(f) c + sigmoid(i) tanh(g)`,
`h' = sigmoid(o) tanh(c')`; GRU gates (r, z, n), `n = tanh(x_n + r (h W_hn^T + b_hn))`, `h' = (1 - z) n + z h`;
Elman `h' = tanh|relu(x W_ih^T + b_ih + h W_hh^T + b_hh)`. With a mask (T, B, 1) of valid steps (`seq_length`),
a sequence past its length keeps its state and outputs zeros. The state is carried in the dtype of
`x @ W^T` (a float16 input with float32 weights computes in float32, as the per-step ops promoted it).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
from jax import lax

from .primitive import primitive

MODES = ("RNN_TANH", "RNN_RELU", "LSTM", "GRU")


def recurrent_step(mode: str, gx, state, w_hh, b_hh):
    """One step from the projected input `gx` (B, gates * H); returns (new state, output)."""
    if mode == "LSTM":
        h, c = state
        gates = gx + h @ w_hh.T + (0 if b_hh is None else b_hh)
        i, f, g, o = jnp.split(gates, 4, axis=-1)
        c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
        h = jax.nn.sigmoid(o) * jnp.tanh(c)
        return (h, c), h
    (h,) = state
    gh = h @ w_hh.T + (0 if b_hh is None else b_hh)
    if mode == "GRU":
        i_r, i_z, i_n = jnp.split(gx, 3, axis=-1)
        h_r, h_z, h_n = jnp.split(gh, 3, axis=-1)
        r, z = jax.nn.sigmoid(i_r + h_r), jax.nn.sigmoid(i_z + h_z)
        h = (1 - z) * jnp.tanh(i_n + r * h_n) + z * h
    else:
        pre = gx + gh
        h = jnp.tanh(pre) if mode == "RNN_TANH" else jax.nn.relu(pre)
    return (h,), h


@primitive("RecurrentLayer", attrs=("mode", "has_bias", "masked", "zero_state", "reverse"), multiple_results=True,
           internal="run by nn.RNN, nn.LSTM and nn.GRU for each layer and direction")
def recurrent_layer_(*operands, mode: str, has_bias: bool, masked: bool, zero_state: bool = False,
                     reverse: bool = False):
    """(outputs (T, B, H), h_T[, c_T]) of `seq` (T, B, I) from the initial state, over operands
    `seq[, h0[, c0]], w_ih, w_hh[, b_ih, b_hh][, mask]` (which are present follows the attrs: `zero_state`
    starts from zeros without taking them). `reverse` runs from the last step to the first, outputs in step
    order: the backward direction of a bidirectional layer without `seq_length`."""
    operands = list(operands)
    seq = operands.pop(0)
    n_state = 2 if mode == "LSTM" else 1
    state = [] if zero_state else [operands.pop(0) for _ in range(n_state)]
    w_ih, w_hh = operands.pop(0), operands.pop(0)
    b_ih, b_hh = (operands.pop(0), operands.pop(0)) if has_bias else (None, None)
    mask = operands.pop(0) if masked else None
    gxs = jnp.einsum("tbi,gi->tbg", seq, w_ih) + (0 if b_ih is None else b_ih)
    dtype = jnp.result_type(gxs.dtype, w_hh.dtype)
    if zero_state:
        state = [jnp.zeros((seq.shape[1], w_hh.shape[1]), dtype)] * n_state
    state = tuple(s.astype(dtype) for s in state)

    def body(carry, step):
        gx, m = step
        new, out = recurrent_step(mode, gx, carry, w_hh, b_hh)
        new = tuple(n.astype(dtype) for n in new)
        if m is not None:
            new = tuple(m * n + (1 - m) * s for n, s in zip(new, carry))
            out = new[0] * m
        return new, out.astype(dtype)

    final, outs = lax.scan(body, state, (gxs, mask), reverse=reverse)
    return (outs,) + tuple(final)
