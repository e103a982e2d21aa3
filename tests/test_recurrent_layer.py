"""nn.RNN/LSTM/GRU run each layer and direction as one `RecurrentLayer` op (a `lax.scan`): the outputs and
gradients equal a per-step loop written here in jax, eagerly and under every capture mode, and a captured
graph holds one op per layer and direction whatever the sequence length (MindSpore goldens of the forwards:
tests/golden_nn, cases RNN/LSTM/GRU)."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import msx as ms
from msx import nn

T, B, I, H = 5, 2, 3, 4
LENGTHS = np.array([5, 3], np.int32)


def reference(mode, x, params, num_layers, bidirectional, lengths=None):
    """The layer stack as a Python loop of steps (MindSpore's math), in jax, batch-first in and out."""
    seq = jnp.transpose(x, (1, 0, 2))
    dirs = 2 if bidirectional else 1
    steps = seq.shape[0]
    mask = None if lengths is None else (jnp.arange(steps)[:, None] < lengths[None, :]).astype(x.dtype)[..., None]
    for layer in range(num_layers):
        outs = []
        for d in range(dirs):
            sfx = "_reverse" if d else ""
            w_ih, w_hh, b_ih, b_hh = (params[f"{k}_l{layer}{sfx}"] for k in ("weight_ih", "weight_hh", "bias_ih",
                                                                               "bias_hh"))
            order = list(range(steps))
            if d:
                order = order[::-1] if lengths is None else None
            h = jnp.zeros((seq.shape[1], H))
            c = jnp.zeros((seq.shape[1], H))
            ys = [None] * steps
            for t in (order if order is not None else range(steps)):
                if order is None:                       # reversed within each sequence's own length
                    src = jnp.where(t < lengths, lengths - 1 - t, t)
                    xt = seq[src, jnp.arange(seq.shape[1])]
                else:
                    xt = seq[t]
                gi, gh = xt @ w_ih.T + b_ih, h @ w_hh.T + b_hh
                if mode == "LSTM":
                    i, f, g, o = jnp.split(gi + gh, 4, -1)
                    c_new = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
                    h_new = jax.nn.sigmoid(o) * jnp.tanh(c_new)
                else:
                    i_r, i_z, i_n = jnp.split(gi, 3, -1)
                    h_r, h_z, h_n = jnp.split(gh, 3, -1)
                    r, z = jax.nn.sigmoid(i_r + h_r), jax.nn.sigmoid(i_z + h_z)
                    h_new, c_new = (1 - z) * jnp.tanh(i_n + r * h_n) + z * h, c
                if mask is not None:
                    m = mask[t]
                    h_new, c_new = m * h_new + (1 - m) * h, m * c_new + (1 - m) * c
                    ys[t] = h_new * m
                else:
                    ys[t] = h_new
                h, c = h_new, c_new
            out = jnp.stack(ys)
            if d and lengths is not None:               # back to each sequence's own order
                src = jnp.where(jnp.arange(steps)[:, None] < lengths, lengths - 1 - jnp.arange(steps)[:, None],
                                jnp.arange(steps)[:, None])
                out = out[src, jnp.arange(seq.shape[1])[None, :]]
            outs.append(out)
        seq = jnp.concatenate(outs, -1)
    return jnp.transpose(seq, (1, 0, 2))


CASES = {
    "lstm_bi_2layer": ("LSTM", lambda: nn.LSTM(I, H, num_layers=2, batch_first=True, bidirectional=True), False),
    "gru_seq_length": ("GRU", lambda: nn.GRU(I, H, batch_first=True, bidirectional=True), True),
    "lstm_seq_length": ("LSTM", lambda: nn.LSTM(I, H, batch_first=True), True),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_forward_and_gradients_equal_a_per_step_loop(name):
    mode, make, with_lengths = CASES[name]
    ms.set_seed(3)
    np.random.seed(3)
    net = make()
    x = np.random.default_rng(0).standard_normal((B, T, I)).astype(np.float32)
    lengths = LENGTHS if with_lengths else None
    names = [p.name for p in net.trainable_params()]
    values = {p.name: jnp.asarray(p.asnumpy()) for p in net.trainable_params()}

    def ref_loss(params):
        return jnp.sum(reference(mode, jnp.asarray(x), params, net.num_layers, net.bidirectional,
                                 None if lengths is None else jnp.asarray(lengths)) ** 2)

    want_out = reference(mode, jnp.asarray(x), values, net.num_layers, net.bidirectional,
                         None if lengths is None else jnp.asarray(lengths))
    want_grads = jax.grad(ref_loss)(values)

    def loss(a, *rest):
        out = net(a, None, *rest)[0]
        return (out * out).sum()

    args = (ms.Tensor(x),) + ((ms.Tensor(lengths),) if with_lengths else ())
    grad_fn = ms.value_and_grad(loss, None, net.trainable_params())
    out = net(*args[:1], None, *args[1:])[0]
    np.testing.assert_allclose(out.asnumpy(), np.asarray(want_out), rtol=1e-5, atol=1e-5)
    for how in ("eager", "ast", "bytecode", "trace"):
        fn = grad_fn if how == "eager" else ms.jit(grad_fn, capture_mode=how)
        value, grads = fn(*args)
        np.testing.assert_allclose(float(value), float(ref_loss(values)), rtol=1e-5, err_msg=how)
        for n, g in zip(names, grads):
            np.testing.assert_allclose(g.asnumpy(), np.asarray(want_grads[n]), rtol=1e-4, atol=1e-5,
                                       err_msg=f"{how}: {n}")


def test_a_captured_graph_holds_one_op_per_layer_and_direction():
    net = nn.LSTM(I, H, num_layers=2, bidirectional=True)
    for steps in (3, 40):
        graph = ms.jit(net.construct).lower(ms.Tensor(np.zeros((steps, B, I), np.float32))).graph
        ops = [n.op for n in graph.nodes]
        assert ops.count("RecurrentLayer") == 4, ops
        assert len(ops) < 40, f"{steps} steps: {len(ops)} nodes"


def test_float16_inputs_compute_with_float32_weights_as_the_step_ops_did():
    net = nn.GRU(I, H)
    x = np.random.default_rng(1).standard_normal((T, B, I)).astype(np.float16)
    out, h = net(ms.Tensor(x))
    assert out.dtype == ms.float32 and h.dtype == ms.float32
    values = {p.name: jnp.asarray(p.asnumpy()) for p in net.trainable_params()}
    want = reference("GRU", jnp.transpose(jnp.asarray(x, jnp.float32), (1, 0, 2)), values, 1, False)
    np.testing.assert_allclose(out.asnumpy(), np.transpose(np.asarray(want), (1, 0, 2)), rtol=2e-3, atol=2e-3)


def _cell_reference(mode, x, state, w_ih, w_hh, b_ih, b_hh):
    """One step of MindSpore's cell math, in numpy (float64)."""
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    h = state[0] if mode == "LSTM" else state
    gi, gh = x @ w_ih.T + b_ih, h @ w_hh.T + b_hh
    if mode == "LSTM":
        i, f, g, o = np.split(gi + gh, 4, -1)
        c = sig(f) * state[1] + sig(i) * np.tanh(g)
        return sig(o) * np.tanh(c), c
    if mode == "GRU":
        i_r, i_z, i_n = np.split(gi, 3, -1)
        h_r, h_z, h_n = np.split(gh, 3, -1)
        r, z = sig(i_r + h_r), sig(i_z + h_z)
        return (1 - z) * np.tanh(i_n + r * h_n) + z * h
    return np.tanh(gi + gh)


@pytest.mark.parametrize("mode", ["RNN_TANH", "GRU", "LSTM"])
@pytest.mark.parametrize("batched", [True, False], ids=["batched", "unbatched"])
@pytest.mark.parametrize("given_state", [True, False], ids=["hx", "no_hx"])
def test_a_cell_is_one_step_of_the_layer_s_op(mode, batched, given_state):
    """RNNCell/GRUCell/LSTMCell: one step, eagerly and under jit, equal to the gate math in numpy (a batch
    of rows or one unbatched row; the state given or zeros)."""
    ms.set_seed(5)
    cell = {"RNN_TANH": nn.RNNCell, "GRU": nn.GRUCell, "LSTM": nn.LSTMCell}[mode](I, H)
    rng = np.random.default_rng(1)
    shape = (B,) if batched else ()
    x = rng.standard_normal(shape + (I,)).astype(np.float32)
    hs = [rng.standard_normal(shape + (H,)).astype(np.float32) for _ in range(2 if mode == "LSTM" else 1)]
    weights = [p.asnumpy().astype(np.float64) for p in (cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh)]
    state = [h if given_state else np.zeros_like(h) for h in hs]
    want = _cell_reference(mode, x.astype(np.float64), tuple(state) if mode == "LSTM" else state[0], *weights)
    hx = None if not given_state else (tuple(ms.Tensor(h) for h in hs) if mode == "LSTM" else ms.Tensor(hs[0]))
    for run in (cell, ms.jit(cell)):
        got = run(ms.Tensor(x)) if hx is None else run(ms.Tensor(x), hx)
        got = [g.asnumpy() for g in got] if mode == "LSTM" else [got.asnumpy()]
        for g, w in zip(got, want if mode == "LSTM" else [want]):
            assert g.shape == w.shape
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
