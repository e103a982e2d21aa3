"""msx.eager: compiled per-primitive dispatch and the eager autograd tape, against jax.grad of the same math
and against today's jax-vjp path (forced), plus the tape's memory and the cache's recompiles."""
from __future__ import annotations

import numpy as np
import jax
import jax.numpy as jnp
import pytest

import msx
from msx import nn, ops
from msx.eager import grad as eager_grad, tape as tape_mod
from msx.tensor import Tensor

RNG = np.random.default_rng(0)
X = RNG.uniform(0.2, 0.9, (3, 4)).astype(np.float32)
W = RNG.normal(size=(4, 4)).astype(np.float32)


def program(x, w):
    """A loss through many primitives (each term small, so the sum stays finite)."""
    terms = [
        ops.sin(x), ops.cos(x), ops.exp(x), ops.log(x), ops.tanh(x), ops.sigmoid(x), ops.relu(x - 0.5),
        ops.sqrt(x), ops.square(x), ops.abs(x - 0.5), ops.neg(x), x + w[:3], x - w[1:], x * w[:3], x / (x + 1),
        ops.pow(x, 3), ops.matmul(x, w), ops.transpose(x, (1, 0)), ops.reshape(x, (4, 3)), ops.sum(x, 1),
        ops.mean(x, 0), ops.amax(x, 1), ops.maximum(x, 0.5), ops.minimum(x, 0.5), ops.softmax(x, -1),
        ops.log_softmax(x, -1), ops.concat((x, x), 0), ops.stack((x, x), 0), ops.expand_dims(x, 0),
        ops.squeeze(ops.expand_dims(x, 0), 0), ops.tile(x, (2, 1)), ops.broadcast_to(x[0], (3, 4)),
        ops.clamp(x, 0.3, 0.7), ops.where(x > 0.5, x, w[:3]), ops.log1p(x), ops.expm1(x), ops.erf(x),
        ops.gelu(x), ops.silu(x), ops.softplus(x), ops.elu(x - 0.5), ops.leaky_relu(x - 0.5, 0.1),
        ops.cumsum(x, 1), ops.prod(x, 1), ops.reciprocal(x), ops.rsqrt(x), ops.sinh(x), ops.cosh(x),
        ops.atan(x), ops.asinh(x), ops.flip(x, (0,)), ops.cast(x, msx.float64), ops.dense(x, w, w[0]),
        ops.logsumexp(x, 1), ops.tan(x), ops.asin(x), ops.acos(x), ops.atan2(x, x + 1),
    ]
    return sum((t.astype(msx.float32) if t.dtype != msx.float32 else t).sum() for t in terms) + x[1, 2] * 3


def _spy_prims(monkeypatch) -> set:
    names: set = set()
    record = tape_mod.Tape.record

    def spy(self, prim, arrays, attrs, out):
        n = len(self.nodes)
        record(self, prim, arrays, attrs, out)
        if len(self.nodes) > n:
            names.add(prim.name)

    monkeypatch.setattr(tape_mod.Tape, "record", spy)
    return names


def test_tape_grads_through_50_primitives_equal_jax_grad(monkeypatch):
    names = _spy_prims(monkeypatch)
    gx, gw = msx.grad(program, grad_position=(0, 1))(Tensor(X), Tensor(W))
    assert len(names) >= 50, sorted(names)
    # jax.grad of the same math: the ops run on jax tracers, so the tape plays no part
    ref = jax.grad(lambda a, b: program(Tensor._from(a), Tensor._from(b))._data, (0, 1))(jnp.asarray(X),
                                                                                         jnp.asarray(W))
    np.testing.assert_allclose(gx.asnumpy(), ref[0], rtol=2e-5, atol=2e-5)
    np.testing.assert_allclose(gw.asnumpy(), ref[1], rtol=2e-5, atol=2e-5)


def test_tape_matches_handwritten_jax_on_an_mlp():
    msx.set_seed(1)
    net = nn.SequentialCell([nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 3)])
    loss_fn = nn.CrossEntropyLoss()
    x, y = Tensor(RNG.normal(size=(5, 4)).astype(np.float32)), Tensor(np.array([0, 1, 2, 1, 0]))
    loss, grads = msx.value_and_grad(lambda a, b: loss_fn(net(a), b), None, net.trainable_params())(x, y)

    def ref(p):
        h = jax.nn.relu(x._data @ p[0].T + p[1]) @ p[2].T + p[3]
        return -jnp.mean(jax.nn.log_softmax(h)[jnp.arange(5), y._data])

    rl, rg = jax.value_and_grad(ref)([jnp.asarray(p.asnumpy()) for p in net.trainable_params()])
    np.testing.assert_allclose(float(loss), float(rl), rtol=1e-6)
    for g, r in zip(grads, rg):
        np.testing.assert_allclose(g.asnumpy(), r, rtol=1e-5, atol=1e-6)


def _forced_jax_path(fn):
    eager_grad.remember_fallback(fn)
    return fn


def _step_parts():
    msx.set_seed(2)
    net = nn.SequentialCell([nn.Dense(6, 8), nn.ReLU(), nn.Dense(8, 3)])
    opt = nn.Adam(net.trainable_params(), learning_rate=1e-2)
    loss_fn = nn.CrossEntropyLoss()
    grad_fn = msx.value_and_grad(lambda a, b: loss_fn(net(a), b), None, opt.parameters)
    x, y = Tensor(RNG.normal(size=(4, 6)).astype(np.float32)), Tensor(np.array([0, 1, 2, 1]))

    def step():
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss

    return step


def test_tape_frees_residuals_over_1000_steps():
    step = _step_parts()
    for _ in range(5):
        step()
    jax.block_until_ready(step()._data)
    before = len(jax.live_arrays())
    for _ in range(1000):
        loss = step()
    jax.block_until_ready(loss._data)
    del loss
    assert len(jax.live_arrays()) <= before


def test_recompiles_stop_after_the_first_step():
    step = _step_parts()
    step()  # the keys are compiled on their first sighting
    compiles = msx.eager.cache_info()["compiles"]
    for _ in range(5):
        step()
    info = msx.eager.cache_info()
    assert info["compiles"] == compiles and info["hits"] > 0


def test_python_float_is_data_not_a_new_executable():
    x = Tensor(np.ones(3, np.float32))
    (x * 0.5).asnumpy()  # compiled on its first sighting
    compiles = msx.eager.cache_info()["compiles"]
    for scale in (0.25, 0.125, 3.0):
        np.testing.assert_allclose((x * scale).asnumpy(), np.full(3, scale, np.float32))
    assert msx.eager.cache_info()["compiles"] == compiles
    # a Python int is static (x ** 2 is integer_pow): a new value is a new executable, and exact
    np.testing.assert_array_equal((Tensor(np.array([-2.0], np.float32)) ** 3).asnumpy(), [-8.0])


def test_grad_of_grad_falls_back_with_the_same_result():
    def f(x):
        return (x ** 3 * ops.sin(x)).sum()

    x = Tensor(np.array([0.5, 1.5], np.float32))
    g2 = msx.grad(msx.grad(f))(x)
    a = jnp.asarray(x.asnumpy())
    ref = jax.grad(lambda v: jax.grad(lambda u: (u ** 3 * jnp.sin(u)).sum())(v).sum())(a)
    np.testing.assert_allclose(g2.asnumpy(), ref, rtol=1e-5)


def _both_paths(make):
    """Results of a fresh grad function on the tape and on the forced jax-vjp path."""
    out = []
    for forced in (False, True):
        fn, call = make()
        if forced:
            _forced_jax_path(fn)
        out.append(jax.tree_util.tree_map(lambda t: np.asarray(t.asnumpy()), call(),
                                          is_leaf=lambda t: isinstance(t, Tensor)))
    return out


def _assert_tree_close(a, b):
    for x, y in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)):
        np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-6)


def test_frozen_stop_gradient_aux_positions_and_sens_match_the_jax_path():
    def make():
        msx.set_seed(3)
        net = nn.Dense(3, 2)
        net.bias.requires_grad = False
        x = Tensor(np.random.default_rng(5).normal(size=(2, 3)).astype(np.float32))

        def fn(a, b):
            h = net(a) * ops.stop_gradient(b) + b
            return h.sum(), h

        vg = msx.value_and_grad(fn, (0, 1), net.trainable_params() + [net.bias], has_aux=True)
        b = Tensor(np.full((2, 2), 2.0, np.float32))
        return fn, lambda: vg(x, b)

    tape, jaxp = _both_paths(make)
    _assert_tree_close(tape, jaxp)

    def make_sens():
        def fn(a):
            return ops.exp(a) * 2

        go = ops.GradOperation(sens_param=True)(fn)
        return fn, lambda: go(Tensor(np.array([0.0, 1.0], np.float32)), Tensor(np.array([1.0, 3.0], np.float32)))

    tape, jaxp = _both_paths(make_sens)
    _assert_tree_close(tape, jaxp)
    np.testing.assert_allclose(tape, [2.0, 6 * np.e], rtol=1e-6)


def test_state_written_inside_and_control_flow_on_values():
    def make():
        msx.set_seed(4)
        bn = nn.BatchNorm1d(3)
        bn.set_train(True)
        t = Tensor(np.zeros(3, np.float32))

        def fn(a):
            y = bn(a)
            t[0] = y.sum()  # an in-place write inside the differentiated function
            if float(y.max()) > 0:  # Python control flow on a tensor value (concrete on the tape)
                y = y * 2
            return (y * a).sum()

        a = Tensor(RNG.normal(size=(4, 3)).astype(np.float32))
        return fn, lambda: (msx.grad(fn)(a), bn.moving_mean, t)

    # the jax path cannot branch on a value (it is abstract there); the tape can, and writes the state
    _, call = make()
    g, mean, t = call()
    assert np.abs(mean.asnumpy()).sum() > 0 and np.isfinite(t.asnumpy()).all()
    assert g.shape == (4, 3)


def test_print_inside_construct_prints_once_per_call(capsys):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(2, 1)

        def construct(self, x):
            y = self.fc(x)
            print("loss part", y.sum())
            return y.sum()

    net = Net()
    g = msx.value_and_grad(net, None, net.trainable_params())
    for _ in range(3):
        g(Tensor(np.ones((1, 2), np.float32)))
    assert capsys.readouterr().out.count("loss part") == 3


def test_cell_bprop_is_kept_on_the_tape():
    class Doubled(nn.Cell):
        def construct(self, x):
            return x * 1.0

        def bprop(self, x, out, dout):
            return (dout * 2,)

    cell = Doubled()
    g = msx.grad(lambda x: cell(x).sum())(Tensor(np.ones(3, np.float32)))
    np.testing.assert_allclose(g.asnumpy(), [2, 2, 2])


def test_jit_inside_grad_is_a_tape_node():
    jitted = msx.jit(lambda x: ops.sin(x) * 2, capture_mode="trace")

    def fn(x):
        return jitted(x).sum()

    x = Tensor(np.array([0.0, 1.0], np.float32))
    jitted(x)
    for _ in range(2):
        np.testing.assert_allclose(msx.grad(fn)(x).asnumpy(), 2 * np.cos([0.0, 1.0]), rtol=1e-6)
    assert fn not in eager_grad._JAX_PATH  # the tape followed it (tests/test_eager_jit.py checks more)


def test_errors_keep_their_wording():
    a, b = Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((4, 5), np.float32))
    with pytest.raises(msx.errors.OpError, match=r"MatMul.*float32\(2, 3\), float32\(4, 5\)"):
        ops.matmul(a, b)


def test_an_impl_needing_concrete_values_stays_eager():
    from msx.ops.primitive import Primitive  # not registered: a throwaway op whose output shape is data

    head = Primitive("TestHead", lambda x: x[: int(x[0])])
    x = Tensor(np.array([2.0, 5.0, 7.0], np.float32))
    before = msx.eager.cache_info()["fallbacks"]
    for _ in range(3):
        np.testing.assert_array_equal(head(x).asnumpy(), [2.0, 5.0])
    assert msx.eager.cache_info()["fallbacks"] == before + 1  # tried compiled once, then plain


def test_raw_jax_on_a_tracked_tensor_falls_back():
    def fn(x):
        return Tensor._from(jnp.sin(x)).sum() + (x * 2).sum()  # jnp reads the Tensor: the tape cannot see it

    x = Tensor(np.array([0.0, 1.0], np.float32))
    for _ in range(2):
        np.testing.assert_allclose(msx.grad(fn)(x).asnumpy(), np.cos([0.0, 1.0]) + 2, rtol=1e-6)


def test_compiled_dispatch_keeps_scalar_semantics_after_it_warms_up():
    """Once a key is compiled numpy scalars keep MindSpore's promotion and a zero's sign
    still counts: the executable for 0.0 never serves -0.0."""
    u = msx.Tensor(np.ones(2, np.uint8))
    f = msx.Tensor(np.ones(2, np.float32))
    for i in range(6):
        wrapped = u + np.int32(256)
        assert wrapped.dtype == msx.uint8 and wrapped.asnumpy().tolist() == [1, 1]
        zero = -0.0 if i % 2 else 0.0
        sign = -1.0 if i % 2 else 1.0
        assert np.all(1.0 / ops.full((2,), zero).asnumpy() == sign * np.inf)
        assert np.all(1.0 / (f * np.float32(zero)).asnumpy() == sign * np.inf)
