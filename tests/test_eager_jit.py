"""An `msx.jit` function (or GRAPH_MODE Cell) called inside eager `grad`: one tape node whose forward is the
compiled graph and whose backward is its compiled VJP (no fallback to the jax-vjp path), against jax.grad."""
from __future__ import annotations

import numpy as np
import jax
import jax.numpy as jnp
import pytest

import msx
from msx import nn, ops
from msx.eager import grad as eager_grad, tape as tape_mod
from msx.tensor import Tensor

X = np.array([0.1, 0.7, 1.3, -0.4], np.float32)
W = np.array([2.0, -1.0, 0.5, 3.0], np.float32)


@pytest.fixture
def nodes(monkeypatch) -> list:
    """Each graph node the tape records (its fn), and a guard that nothing fell back to the jax path."""
    seen: list = []
    real = tape_mod.Tape.record_graph

    def spy(self, fn, run, inputs):
        seen.append(fn)
        return real(self, fn, run, inputs)

    monkeypatch.setattr(tape_mod.Tape, "record_graph", spy)
    return seen


def _ref(x, w):
    return jax.grad(lambda x, w: ((jnp.sin(x) * w) ** 2).sum() + (x * w).sum(), (0, 1))(x, w)


@pytest.mark.parametrize("mode", ["ast", "trace", "bytecode"])
def test_jitted_function_is_one_tape_node(mode, nodes):
    @msx.jit(capture_mode=mode)
    def g(x, w):
        return ops.sin(x) * w

    def f(x, w):
        return (g(x, w) ** 2).sum() + (x * w).sum()

    x, w = Tensor(X), Tensor(W)
    gf = msx.grad(f, grad_position=(0, 1))
    want = _ref(jnp.asarray(X), jnp.asarray(W))
    for _ in range(3):  # the first call compiles the graph under the tape, later ones hit its cache
        got = gf(x, w)
        for a, b in zip(got, want):
            np.testing.assert_allclose(a.asnumpy(), b, rtol=1e-5, atol=1e-6)
    assert len(nodes) >= 3 and f not in eager_grad._JAX_PATH
    assert g.compiles == 1  # it stayed compiled


def test_jitted_cell_weights_and_state(nodes):
    """A jitted Cell with a BatchNorm: weight gradients through the graph, its moving statistics written."""
    msx.set_seed(0)
    net = nn.SequentialCell([nn.Dense(4, 3), nn.BatchNorm1d(3), nn.ReLU()])
    net.set_train(True)
    jitted = msx.jit(net)
    x = Tensor(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4))
    weights = net.trainable_params()

    def loss(x):
        return (jitted(x) ** 2).mean()

    ref_net_state = [p.asnumpy().copy() for p in net.get_parameters()]
    (_, tape_grads) = msx.value_and_grad(loss, None, weights)(x)
    after_tape = {p.name: p.asnumpy().copy() for p in net.get_parameters()}
    for p, v in zip(net.get_parameters(), ref_net_state):
        p.set_data(Tensor(v))
    eager_grad._JAX_PATH.add(loss)  # the jax-vjp path on the same call, as the reference
    try:
        (_, jax_grads) = msx.value_and_grad(loss, None, weights)(x)
    finally:
        eager_grad._JAX_PATH.discard(loss)
    assert nodes
    for a, b in zip(tape_grads, jax_grads):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-5, atol=1e-6)
    moving = [n for n in after_tape if "moving" in n]
    assert moving
    for p in net.get_parameters():  # the moving statistics were updated once, as on the jax path
        np.testing.assert_allclose(after_tape[p.name], p.asnumpy(), rtol=1e-6)
    assert not np.allclose(after_tape[moving[0]], [v for p, v in zip(net.get_parameters(), ref_net_state)
                                                   if p.name == moving[0]][0])


def test_graph_without_a_derivative_falls_back():
    """A graph jax cannot reverse-differentiate (a While loop) is found before it runs: the jax path answers."""
    @msx.jit
    def loop(x):
        i = Tensor(0)
        while i < 3:
            x = x * 2.0
            i = i + 1
        return x

    def f(x):
        return loop(x).sum()

    x = Tensor(X)
    np.testing.assert_allclose(msx.grad(f)(x).asnumpy(), np.full(4, 8.0))
    assert f in eager_grad._JAX_PATH
