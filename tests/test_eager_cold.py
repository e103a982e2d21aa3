"""A cold eager start: ops never compiled before are deferred and a segment of them compiles as ONE executable
when it is read; a first backward with new nodes is one executable too (`MSX_FUSE_FIRST`, docs/eager.md).
Results equal the per-op path (`MSX_FUSE_FIRST=0`) within float32 rounding and an independent jax reference."""
from __future__ import annotations

import os
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax, monitoring
from jax._src import monitoring as jax_monitoring  # (the public module has no unregister)

import msx
from msx import nn, ops
from msx.eager import dispatch, lazy
from msx.errors import MsxError
from msx.tensor import Tensor

from tolerance import assert_same_float32

_XLA = [0]  # XLA compiles, counted only while this module's tests run (see `fresh`)


def _counter(box: list):
    def count(name: str, _secs: float, **_kw) -> None:  # reads no global: a trace capture elsewhere would
        if name == "/jax/core/compile/backend_compile_duration":  # guard one it saw changing (a recompile)
            box[0] += 1
    return count
RNG = np.random.default_rng(5)
X = RNG.normal(size=(2, 3, 8, 8)).astype(np.float32)


class Small(nn.Cell):
    """conv-BN-ReLU twice, a mean and a Dense: the shape of a CNN's forward, tiny."""

    def __init__(self) -> None:
        super().__init__()
        self.c1, self.b1 = nn.Conv2d(3, 4, 3, pad_mode="pad", padding=1), nn.BatchNorm2d(4)
        self.c2, self.b2 = nn.Conv2d(4, 4, 3, pad_mode="pad", padding=1), nn.BatchNorm2d(4)
        self.fc = nn.Dense(4, 3)

    def construct(self, x):
        y = ops.relu(self.b1(self.c1(x)))
        y = ops.relu(self.b2(self.c2(y)) + y)
        return self.fc(y.mean(axis=(2, 3)))


def _reference(net: Small, x: np.ndarray) -> np.ndarray:
    """The same forward written with jax directly (eval-mode BatchNorm from the moving statistics)."""
    def conv(c, v):  # MindSpore's Conv2d has no bias by default
        return lax.conv_general_dilated(v, jnp.asarray(c.weight.asnumpy()), (1, 1), [(1, 1), (1, 1)],
                                        dimension_numbers=("NCHW", "OIHW", "NCHW"))

    def bn(b, v):
        shape = (1, -1, 1, 1)
        m, var = b.moving_mean.asnumpy().reshape(shape), b.moving_variance.asnumpy().reshape(shape)
        return (v - m) / jnp.sqrt(var + b.eps) * b.gamma.asnumpy().reshape(shape) + b.beta.asnumpy().reshape(shape)

    y = jax.nn.relu(bn(net.b1, conv(net.c1, x)))
    y = jax.nn.relu(bn(net.b2, conv(net.c2, y)) + y)
    return np.asarray(y.mean(axis=(2, 3)) @ net.fc.weight.asnumpy().T + net.fc.bias.asnumpy())


@pytest.fixture(scope="module")
def net() -> Small:
    msx.set_seed(1)
    return Small()


@pytest.fixture(autouse=True)
def fresh():
    msx.eager.clear_cache()
    count = _counter(_XLA)
    monitoring.register_event_duration_secs_listener(count)
    yield
    jax_monitoring.unregister_event_duration_listener(count)  # a capture-mode jit run later must not see it
    dispatch.FUSE_FIRST[0] = True
    msx.eager.clear_cache()


def _per_op(fn):
    """`fn()` on the per-op path (the switch off), from a fresh cache."""
    dispatch.FUSE_FIRST[0] = False
    msx.eager.clear_cache()
    try:
        return fn()
    finally:
        dispatch.FUSE_FIRST[0] = True
        msx.eager.clear_cache()


def test_a_first_forward_is_one_compile_and_equals_the_per_op_path(net):
    x = Tensor(X)
    before = _XLA[0]
    first = net(x).asnumpy()
    assert _XLA[0] - before == 1  # the whole forward: one XLA executable (per op it is one per new key)
    assert msx.eager.cache_info()["forward_compiles"] == 1
    before = _XLA[0]
    second = net(x).asnumpy()
    assert _XLA[0] == before and np.array_equal(first, second)  # the same executable, nothing compiled
    per_op_compiles = [0]

    def per_op():
        start = _XLA[0]
        out = net(x).asnumpy()
        per_op_compiles[0] = _XLA[0] - start
        return out

    assert_same_float32(first, _per_op(per_op))
    assert per_op_compiles[0] > 5  # what it saves: every new op key compiled on its own
    assert_same_float32(first, _reference(net, X), rtol=1e-4, atol=1e-5)


def test_a_repeated_first_segment_is_compiled_fully_once_it_repeats(net):
    x = Tensor(X)
    before = _XLA[0]
    outs = [net(x).asnumpy() for _ in range(lazy.REPLAY_AFTER + 3)]
    if lazy.QUICK_OPTIONS:  # the quick first executable, then (on the REPLAY_AFTER+2th sighting) the full one
        assert msx.eager.cache_info()["forward_compiles"] == 2 and _XLA[0] - before == 2
    for o in outs:
        assert_same_float32(o, outs[-1])
    np.testing.assert_array_equal(outs[0], outs[1])  # the same executable: the same bits
    np.testing.assert_array_equal(outs[-2], outs[-1])


class Transcendental(nn.Cell):
    """A depthwise conv and the transcendental ops of a mobile CNN's block and a transformer's MLP: where a
    quick compile's code generation (level 0, XLA CPU's LLVM-IR emitters) could round differently."""

    def __init__(self) -> None:
        super().__init__()
        self.dw = nn.Conv2d(3, 3, 3, pad_mode="pad", padding=1, group=3, has_bias=True)

    def construct(self, x):
        y = self.dw(x)
        y = y * ops.sigmoid(y) + ops.tanh(y) + ops.gelu(y) + ops.exp(-y * y)
        y = ops.log(ops.abs(y) + 1.0) + ops.rsqrt(y * y + 1.0) + ops.pow(ops.abs(y), 1.5)
        return ops.softmax(y.mean(axis=(2, 3)), axis=-1)


def test_the_quick_first_executable_rounds_as_the_optimised_one():
    msx.set_seed(3)
    net, x = Transcendental(), Tensor(X)
    before = _XLA[0]
    outs = [net(x).asnumpy() for _ in range(lazy.REPLAY_AFTER + 3)]
    assert msx.eager.cache_info()["forward_compiles"] == 1 + bool(lazy.QUICK_OPTIONS) == _XLA[0] - before
    assert_same_float32(outs[0], outs[-1])  # the quick executable against the fully optimised one
    w, b = jnp.asarray(net.dw.weight.asnumpy()), jnp.asarray(net.dw.bias.asnumpy())
    y = lax.conv_general_dilated(X, w, (1, 1), [(1, 1), (1, 1)], feature_group_count=3,
                                 dimension_numbers=("NCHW", "OIHW", "NCHW")) + b.reshape(1, -1, 1, 1)
    y = y * jax.nn.sigmoid(y) + jnp.tanh(y) + jax.nn.gelu(y, approximate=False) + jnp.exp(-y * y)
    y = jnp.log(jnp.abs(y) + 1.0) + lax.rsqrt(y * y + 1.0) + jnp.abs(y) ** 1.5
    assert_same_float32(outs[0], jax.nn.softmax(y.mean(axis=(2, 3)), axis=-1), rtol=1e-5, atol=1e-6)


def test_an_op_traced_inside_a_segment_is_spliced_in_not_called():
    x = Tensor(X[0])
    (ops.exp(ops.sin(x)) * 2.0).asnumpy()  # a first segment of new keys, fused
    fns = {f.__name__: f for f in dispatch._CACHE.values() if f is not None}
    sin, exp = fns["Sin"], fns["Exp"]
    module = jax.jit(lambda a: exp(sin(a))).lower(X[0]).as_text()
    # each op's cached jaxpr joins the caller's: one flat function, not one private function (and call) per op
    assert "func.func private" not in module and "call @" not in module, module
    assert module.count("stablehlo.exponential") == 1 and module.count("stablehlo.sine") == 1
    assert_same_float32(jax.jit(lambda a: exp(sin(a)))(X[0]), np.exp(np.sin(X[0])))


def test_a_one_off_op_costs_one_compile_and_stays_compiled():
    x = Tensor(X[0, 0])
    before = _XLA[0]
    np.testing.assert_array_equal((x * 3.0).asnumpy(), X[0, 0] * np.float32(3.0))
    assert _XLA[0] - before == 1
    (x * 2.0).asnumpy()  # the same key (a float is data): nothing new
    assert _XLA[0] - before == 1 and msx.eager.cache_info()["forward_compiles"] == 0


def test_another_structure_of_the_same_new_ops_walks_them():
    x = Tensor(X[0, 0])
    (ops.exp(x) * 2.0 + 1.0).asnumpy()
    assert msx.eager.cache_info()["forward_compiles"] == 1  # three new ops: one segment executable
    before = _XLA[0]
    y = ops.exp(x) * 2.0
    z = y + 1.0
    np.testing.assert_allclose(z.asnumpy(), np.exp(X[0, 0]) * 2 + 1, rtol=1e-6)  # `y` kept: other outputs
    assert msx.eager.cache_info()["forward_compiles"] == 1 and _XLA[0] - before == 3  # each op alone, once
    y2 = ops.exp(x) * 2.0
    (y2 + 1.0).asnumpy()
    assert _XLA[0] - before == 3  # and never again


def test_an_error_of_a_first_sighting_is_raised_at_its_own_call():
    a, b = Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((4, 5), np.float32))
    y = a + 1.0  # pending
    with pytest.raises(MsxError) as err:
        ops.matmul(y, b)  # cannot be evaluated abstractly: runs at its call and words its own error
    assert "MatMul" in str(err.value)
    np.testing.assert_array_equal(y.asnumpy(), np.full((2, 3), 2, np.float32))


def test_random_draws_and_in_place_writes_are_unchanged(net):
    def run():
        msx.set_seed(7)
        x = Tensor(X[:, 0])
        y = ops.exp(x) * 0.5 + 1.0
        drop = ops.dropout(y, p=0.5, training=True)  # random: runs at its call, reads the pending `y`
        z = ops.sin(drop) + y
        z[0, 0] = 9.0  # a write to a pending result wins over its value
        return z.asnumpy(), drop.asnumpy()

    fused = run()
    per_op = _per_op(run)
    assert fused[0][0, 0, 0] == 9.0
    np.testing.assert_array_equal(fused[1] == 0, per_op[1] == 0)  # the same mask
    for f, p in zip(fused, per_op):
        assert_same_float32(f, p)


def test_a_first_backward_is_one_executable_and_equals_the_walk(net):
    loss_fn = nn.CrossEntropyLoss()
    y = Tensor(np.array([0, 2], np.int32))
    weights = net.trainable_params()

    def grads():
        grad_fn = msx.value_and_grad(lambda a, b: loss_fn(net(a), b), None, weights)
        loss, gs = grad_fn(Tensor(X), y)
        return [loss.asnumpy()] + [g.asnumpy() for g in gs]

    fused = grads()
    assert msx.eager.cache_info()["replay_compiles"] == 1  # no VJP compiled per node
    walked = _per_op(grads)
    for f, w in zip(fused, walked):
        assert_same_float32(f, w)

    def ref_loss(ws):  # jax's own autodiff of the reference forward, on the same weights
        w1, g1, be1, w2, g2, be2, wf, bf = ws

        def blk(v, w, g, be, bnet):  # MindSpore's Conv2d has no bias by default
            v = lax.conv_general_dilated(v, w, (1, 1), [(1, 1), (1, 1)], dimension_numbers=("NCHW", "OIHW", "NCHW"))
            m = bnet.moving_mean.asnumpy().reshape(1, -1, 1, 1)
            var = bnet.moving_variance.asnumpy().reshape(1, -1, 1, 1)
            return (v - m) / jnp.sqrt(var + bnet.eps) * g.reshape(1, -1, 1, 1) + be.reshape(1, -1, 1, 1)
        h = jax.nn.relu(blk(X, w1, g1, be1, net.b1))
        h = jax.nn.relu(blk(h, w2, g2, be2, net.b2) + h)
        logits = h.mean(axis=(2, 3)) @ wf.T + bf
        return -jnp.mean(jax.nn.log_softmax(logits)[jnp.arange(2), jnp.array([0, 2])])

    assert net.c1.bias is None and net.c2.bias is None
    order = [net.c1.weight, net.b1.gamma, net.b1.beta, net.c2.weight, net.b2.gamma, net.b2.beta, net.fc.weight,
             net.fc.bias]
    ref = jax.grad(ref_loss)([jnp.asarray(p.asnumpy()) for p in order])
    by_name = {p.name: g for p, g in zip(weights, fused[1:])}
    for p, g in zip(order, ref):
        assert_same_float32(by_name[p.name], g, rtol=1e-4, atol=1e-5)


def test_the_switch_is_read_from_the_environment():
    code = "import msx.eager.dispatch as d, msx.eager.lazy as l; print(d.FUSE_FIRST[0], l.FIRST is d.FUSE_FIRST)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "MSX_FUSE_FIRST": "0", "JAX_PLATFORMS": "cpu"})
    assert out.stdout.split() == ["False", "True"]
