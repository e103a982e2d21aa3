"""The eager tape's trace-once replay: a backward whose node sequence repeats runs as one compiled executable,
with the gradients of the node-by-node walk; a sequence that differs (Python control flow) is walked again."""
from __future__ import annotations

import numpy as np
import pytest

import msx
from msx import nn, ops
from msx.eager import tape as tape_mod
from msx.tensor import Tensor

RNG = np.random.default_rng(1)
X = RNG.normal(size=(6, 5)).astype(np.float32)
Y = RNG.integers(0, 3, 6)


def _grads(fn, args, weights, steps: int) -> list:
    grad_fn = msx.value_and_grad(fn, 0, weights)
    out = []
    for _ in range(steps):
        loss, (gx, gw) = grad_fn(*args)
        out.append([loss.asnumpy(), gx.asnumpy()] + [g.asnumpy() for g in gw])
    return out


@pytest.fixture(scope="module")
def net():
    msx.set_seed(3)
    return nn.SequentialCell([nn.Dense(5, 8), nn.ReLU(), nn.Dense(8, 3)])


def test_replay_equals_the_node_by_node_walk(net, monkeypatch):
    loss_fn = nn.CrossEntropyLoss()

    def f(x, y):
        return loss_fn(net(x), y) * 0.5 + ops.tanh(x).sum() * 0.25

    args = (Tensor(X), Tensor(Y))
    weights = net.trainable_params()
    steps = tape_mod.REPLAY_AFTER + 3
    before = msx.eager.cache_info()
    replayed = _grads(f, args, weights, steps)
    info = msx.eager.cache_info()
    assert info["replay_compiles"] == before["replay_compiles"] + 1
    assert info["replays"] >= before["replays"] + 2
    monkeypatch.setattr(tape_mod, "REPLAY_AFTER", 10 ** 9)
    walked = _grads(f, args, weights, steps)
    for a, b in zip(replayed, walked):
        for u, v in zip(a, b):
            np.testing.assert_allclose(u, v, rtol=1e-6, atol=1e-7)


def test_a_different_sequence_is_not_replayed(net):
    """Python control flow on a value changes the tape: the guard (the recorded sequence) sends it node by node."""
    calls = {"n": 0}

    def f(x):
        calls["n"] += 1
        y = net(x)
        if calls["n"] % 3 == 0:  # every third call takes another path
            y = ops.sin(y)
        return (y * y).sum()

    x = Tensor(X)
    grad_fn = msx.grad(f)
    for i in range(1, 13):
        got = grad_fn(x).asnumpy()
        y = net(x).asnumpy()
        w0, b0 = net[0].weight.asnumpy(), net[0].bias.asnumpy()
        w2 = net[2].weight.asnumpy()
        h = X @ w0.T + b0
        dy = 2 * (np.sin(y) * np.cos(y) if i % 3 == 0 else y)
        want = ((dy @ w2) * (h > 0)) @ w0
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_clear_cache_forgets_replays(net):
    msx.eager.clear_cache()
    assert msx.eager.cache_info()["replay_compiles"] == 0
    assert not tape_mod._REPLAYS
