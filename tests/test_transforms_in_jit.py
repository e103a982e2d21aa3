"""`msx.vmap`, `vjp`, `jvp`, `jacrev`, `jacfwd` inside a captured function, equal to eager (jax's transforms of
the same function) in every capture mode. `vmap` is one `Vmap` node over the mapped function's subgraph —
per-sample gradients, unmapped and closed-over values, Parameters, axes other than 0, nested maps — checked,
printed and parsed like the other higher-order ops; `vjp`/`jvp`/the Jacobians are `Grad` and `Vmap` nodes.
MindSpore 2.10's answers for the tutorial's uses are in tests/port/autodiff_tutorials.mindspore.txt."""
import warnings

import jax
import numpy as np
import pytest

import msx
from msx import Tensor, nn, ops
from msx.ir.parse import parse_graph
from msx.ir.verifier import verify

MODES = ("ast", "bytecode", "trace")
rng = np.random.default_rng(7)
W = Tensor(rng.normal(size=(4,)).astype(np.float32))
XS = Tensor(rng.normal(size=(5, 4)).astype(np.float32))
YS = Tensor(rng.normal(size=(5,)).astype(np.float32))
CLOSED = Tensor(rng.normal(size=(4,)).astype(np.float32))


def sample_loss(w, x, y):
    return ops.square(ops.tensor_dot(x, w, 1) - y)


per_sample_grads = msx.vmap(msx.grad(sample_loss), in_axes=(None, 0, 0))


def columns(m):
    def scaled(col):
        return ops.sin(col) * CLOSED, col.sum()
    return msx.vmap(scaled, in_axes=1, out_axes=(1, 0))(m)


def nested(m):
    return msx.vmap(msx.vmap(lambda v: v * CLOSED.sum() + 1.0))(m.reshape(5, 2, 2))


CASES = {"per-sample grads": (per_sample_grads, (W, XS, YS)),
         "axis 1, two outputs, a closed-over Tensor": (columns, (XS.T,)),
         "nested": (nested, (XS,))}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", sorted(CASES))
def test_vmap_under_jit_equals_eager(case, mode):
    fn, args = CASES[case]
    eager = fn(*args)
    jitted = msx.jit(fn, capture_mode=mode)
    got = jitted(*args)
    eager, got = (eager, got) if isinstance(eager, tuple) else ((eager,), (got,))
    for e, g in zip(eager, got):
        assert g.shape == e.shape
        np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=1e-6, atol=1e-6)
    graph = jitted.capture(*args)
    assert "Vmap[" in str(graph), f"{case} ({mode}) was not captured as a Vmap node:\n{graph}"


def test_per_sample_grads_match_the_loop_and_compile_once():
    step = msx.jit(per_sample_grads)
    got = step(W, XS, YS).asnumpy()
    loop = np.stack([msx.grad(sample_loss)(W, XS[i], YS[i]).asnumpy() for i in range(5)])
    np.testing.assert_allclose(got, loop, rtol=1e-5, atol=1e-6)
    step(W, XS * 2, YS)
    assert step.cache_info()["compiles"] == 1


def test_per_sample_grads_of_a_cells_parameters():
    net = nn.Dense(4, 1)
    net.weight.set_data(Tensor(rng.normal(size=(1, 4)).astype(np.float32)))

    def loss(x, y):
        return ops.square(net(x.reshape(1, 4)).reshape(()) - y)

    grads = msx.vmap(msx.grad(loss, grad_position=None, weights=net.trainable_params()), in_axes=(0, 0))
    eager = grads(XS, YS)
    jitted = msx.jit(grads)(XS, YS)
    assert [g.shape for g in jitted] == [(5, 1, 4), (5, 1)]
    for e, g in zip(eager, jitted):
        np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=1e-5, atol=1e-6)


def test_a_state_write_inside_a_captured_vmap_is_refused_and_undone():
    bn = nn.BatchNorm1d(2)
    bn.set_train(True)
    before = bn.moving_mean.asnumpy().copy()

    def f(x):
        return msx.vmap(lambda a: bn(a))(x)

    with pytest.raises(Exception, match="state"):
        msx.jit(f, capture_mode="trace")(Tensor(np.ones((3, 4, 2), np.float32)))
    np.testing.assert_array_equal(bn.moving_mean.asnumpy(), before)


def test_mismatched_batch_sizes_are_named():
    with pytest.raises(Exception, match="one size"):
        msx.jit(lambda a, b: msx.vmap(lambda u, v: u * v)(a, b))(XS, Tensor(np.ones((3, 4), np.float32)))


def test_the_vmap_node_prints_parses_and_is_verified():
    graph = msx.jit(per_sample_grads).capture(W, XS, YS)
    text = str(graph)
    assert "Vmap[in_axes=(None, 0, 0), out_axes=(0,), axis_size=5" in text
    assert parse_graph(text).structurally_equal(graph)
    verify(graph)
    node = next(n for n in graph.nodes if n.op == "Vmap")
    node.attrs["axis_size"] = 4
    with pytest.raises(Exception, match="axis"):
        verify(graph)


def _vector(x, w):
    return ops.tanh((w * x).sum(axis=1))


def _scalar(x):
    return (ops.sin(x) * x).sum()


V = Tensor(rng.normal(size=(3,)).astype(np.float32))
M = Tensor(rng.normal(size=(2, 3)).astype(np.float32))
COT = Tensor(np.array([1.0, -2.0], np.float32))


def jacobians_and_friends(x, w):
    return (msx.jacrev(_vector, grad_position=(0, 1))(x, w), msx.jacfwd(_vector)(x, w),
            msx.vjp(_vector, x, w)[1](COT), msx.jvp(lambda a: _vector(a, w), x, ops.ones_like(x)),
            msx.jacfwd(msx.jacrev(_scalar))(x))


@pytest.mark.parametrize("mode", MODES)
def test_jacobians_vjp_jvp_and_a_hessian_under_jit_equal_eager(mode):
    """MindSpore's Jacobian/Hessian tutorial inside jit: no eager fallback (a warning is an error here), each
    transform part of the graph, and the values eager gives (itself jax.jacrev/jacfwd/vjp/jvp)."""
    eager = jax.tree_util.tree_leaves(jacobians_and_friends(V, M), is_leaf=lambda t: isinstance(t, Tensor))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jitted = msx.jit(jacobians_and_friends, capture_mode=mode)
        got = jax.tree_util.tree_leaves(jitted(V, M), is_leaf=lambda t: isinstance(t, Tensor))
    assert [g.shape for g in got] == [e.shape for e in eager] == [(2, 3), (2, 2, 3), (2, 3), (3,), (2, 3), (2,),
                                                                  (2,), (3, 3)]
    for e, g in zip(eager, got):
        np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=1e-5, atol=1e-6)
    assert "Vmap[" in str(jitted.capture(V, M)) and "Grad[" in str(jitted.capture(V, M))


def test_a_jacobian_of_a_tuple_output_under_jit_is_refused_by_name():
    with pytest.raises(Exception, match="jacrev inside jit"):
        msx.jit(lambda a: msx.jacrev(lambda b: (b, b * 2))(a), capture_mode="trace")(V)
