"""Cold eager starts (issue 31): first-sighted ops are traced, deferred and compiled with their segment as ONE
executable (not one per op), and a first backward is compiled whole (not one VJP per tape node); values equal
numpy / jax, later structures reuse per-op executables, side effects still run at their call."""
from __future__ import annotations

import threading

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import msx
from msx import nn, ops
from msx.eager import dispatch
from msx.eager import tape as tape_mod
from msx.tensor import Tensor

from tolerance import assert_same_float32

RNG = np.random.default_rng(11)
A = RNG.normal(size=(5, 7)).astype(np.float32)  # shapes no other test module uses: first sightings here
W = RNG.normal(size=(7, 3)).astype(np.float32)
XLA_COMPILES = [0]
jax.monitoring.register_event_duration_secs_listener(
    lambda name, secs, **kw: XLA_COMPILES.__setitem__(0, XLA_COMPILES[0] + (name.endswith("backend_compile_duration"))))


def chain(x, w):
    y = ops.sin(x) * 2.0 + x
    return ops.exp(ops.matmul(y, w) * 0.1).sum(axis=1) - 1


def numpy_chain(x, w):
    return np.exp(((np.sin(x) * 2.0 + x) @ w) * 0.1).sum(axis=1) - 1


@pytest.fixture(autouse=True)
def fresh():
    msx.eager.clear_cache()


def test_a_first_sighting_is_one_compile_of_its_segment_and_later_ones_replay_it():
    x, w = Tensor(A), Tensor(W)
    before = XLA_COMPILES[0]
    out = chain(x, w)
    assert type(out._placeholder) is dispatch.Pending  # deferred although none of its ops was compiled
    assert out.shape == (5,)
    assert_same_float32(out.asnumpy(), numpy_chain(A, W))
    info = msx.eager.cache_info()
    assert info["forward_compiles"] == 1 and info["compiles"] == 0
    assert XLA_COMPILES[0] - before == 1  # seven ops, one XLA compile
    again = chain(x, w).asnumpy()
    assert msx.eager.cache_info()["forward_replays"] == 2 and XLA_COMPILES[0] - before == 1
    assert_same_float32(again, numpy_chain(A, W))


def test_spent_ops_in_another_structure_run_one_by_one_and_never_refuse_a_second_fused_compile():
    x, w = Tensor(A), Tensor(W)
    chain(x, w).asnumpy()
    y = ops.sin(x) * 2.0  # the same (op, shapes) keys in a new structure: each compiles on its own now
    assert_same_float32(y.asnumpy(), np.sin(A) * 2.0)
    info = msx.eager.cache_info()
    assert info["forward_compiles"] == 1 and info["compiles"] == 0  # walked through jit calls, not fused again
    assert_same_float32((ops.sin(x) * 2.0).asnumpy(), np.sin(A) * 2.0)
    z = ops.cos(x)  # a single first-sighted op: its own executable, as before
    assert_same_float32(z.asnumpy(), np.cos(A))
    assert msx.eager.cache_info()["forward_compiles"] == 1


def test_an_op_with_several_results_is_deferred_and_each_result_is_its_own():
    x = Tensor(A)
    values, indices = ops.topk(x * 3.0, 2)
    assert type(values._placeholder) is dispatch.Pending and indices.shape == (5, 2)
    order = np.argsort(-A, axis=1)[:, :2]
    np.testing.assert_array_equal(indices.asnumpy(), order)
    assert_same_float32(values.asnumpy(), np.take_along_axis(A * 3.0, order, axis=1))
    lo, hi = ops.split(x + 1.0, 1, axis=1)[:2]  # several results, most never read
    assert type(hi._placeholder) is dispatch.Pending
    del lo
    assert_same_float32(hi.asnumpy(), A[:, 1:2] + 1.0)


def test_a_side_effect_still_runs_at_its_call():
    got = []
    msx.ops.summary_ops.set_sink(lambda kind, tag, value: got.append((tag, float(value))))
    try:
        for _ in range(2):  # the second sighting would be deferred if the op were pure
            ops.ScalarSummary()("s", Tensor(np.float32(2.5)) * 2.0)
        msx.ops.summary_ops.wait()
    finally:
        msx.ops.summary_ops.set_sink(None)
    assert got == [("s", 5.0), ("s", 5.0)]


def _mlp():
    msx.set_seed(5)
    return nn.SequentialCell([nn.Dense(7, 9), nn.Tanh(), nn.Dense(9, 3)])


def _reference_grads(net, x):
    w0, b0, w1, b1 = [jnp.asarray(p.asnumpy()) for p in net.trainable_params()]

    def loss(w0, b0, w1, b1):
        return jnp.sum(jnp.tanh(x @ w0.T + b0) @ w1.T + b1) ** 2 * 0.01

    return jax.grad(loss, argnums=(0, 1, 2, 3))(w0, b0, w1, b1)


def test_a_first_backward_is_one_compile_with_the_gradients_of_jax():
    net = _mlp()
    grad_fn = msx.value_and_grad(lambda x: (net(x).sum() ** 2) * 0.01, None, net.trainable_params())
    x = Tensor(A)
    per_node = len(tape_mod._BWD)
    _, grads = grad_fn(x)
    info = msx.eager.cache_info()
    assert info["replay_compiles"] == 1 and info["replays"] == 1 and len(tape_mod._BWD) == per_node  # no VJP each
    for g, want in zip(grads, _reference_grads(net, A)):
        assert_same_float32(g.asnumpy(), np.asarray(want), rtol=1e-4, atol=1e-5)
    _, grads = grad_fn(x)  # the same structure: the same executable
    assert msx.eager.cache_info()["replay_compiles"] == 1 and msx.eager.cache_info()["replays"] == 2

    def other(x):  # a new structure of spent nodes plus one new one: walked node by node, no second replay
        return (ops.sin(net(x)).sum() ** 2) * 0.01

    _, g2 = msx.value_and_grad(other, None, net.trainable_params())(x)
    assert msx.eager.cache_info()["replay_compiles"] == 1 and len(tape_mod._BWD) > per_node
    w0, b0, w1, b1 = [p.asnumpy() for p in net.trainable_params()]
    h = np.tanh(A @ w0.T + b0)
    y = h @ w1.T + b1
    s = np.sin(y).sum()
    dy = 2 * s * 0.01 * np.cos(y)
    assert_same_float32(g2[2].asnumpy(), dy.T @ h, rtol=1e-4, atol=1e-5)


def test_first_sightings_from_two_threads():
    x, w = Tensor(A), Tensor(W)
    results, errors = {}, []

    def work(i):
        try:
            results[i] = [chain(x, w).asnumpy() for _ in range(3)]
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for runs in results.values():
        for r in runs:
            assert_same_float32(r, numpy_chain(A, W))


def test_a_second_training_step_compiles_nothing():
    """The optimizer's zero state is made on the host and placed like the weights: a committed state would
    commit the updated weights, and every executable compiled for the first step would compile again."""
    net = _mlp()
    opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
    grad_fn = msx.value_and_grad(lambda x: (net(x).sum() ** 2) * 0.01, None, opt.parameters)
    x = Tensor(A)
    net(x).asnumpy()  # a forward first, as a script does (its ops compiled as one segment)
    before_state = XLA_COMPILES[0]
    nn.Momentum(net.trainable_params(), 0.01, 0.9)
    assert XLA_COMPILES[0] == before_state  # zero state: no compile per parameter shape
    for step in range(3):
        before = XLA_COMPILES[0]
        loss, grads = grad_fn(x)
        opt(grads)
        loss.asnumpy()
        if step:
            assert XLA_COMPILES[0] == before, step
