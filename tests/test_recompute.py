"""`Cell.recompute()` and `ms.recompute(block, *args)` as `jax.checkpoint` inside the compiled graph.

Reference: the same network without recompute (gradients must be equal, eagerly and under jit in every capture
mode). Evidence of rematerialisation: the captured graph holds one recompute node per recomputed Cell call,
and its StableHLO carries one `optimization_barrier` per node (jax.checkpoint's mark that keeps XLA from
merging the recomputed forward back into the saved one); the network without recompute has none.
"""
import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import msx
from msx import nn, ops

W = 16
X = np.random.default_rng(1).standard_normal((8, W)).astype(np.float32)


class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Dense(W, W), nn.Dense(W, W)

    def construct(self, x):
        return ops.tanh(self.b(ops.tanh(self.a(x))))


class Net(nn.Cell):
    def __init__(self, how: str):
        super().__init__()
        self.how = how
        self.blocks = nn.CellList([Block() for _ in range(3)])
        if how == "cell":
            for b in self.blocks:
                b.recompute()

    def construct(self, x):
        for b in self.blocks:
            x = msx.recompute(b, x) if self.how == "function" else b(x)
        return (x * x).sum()


def _net(how):
    msx.set_seed(0)
    return Net(how)


def _step(net):
    return msx.value_and_grad(net, None, net.trainable_params())


@pytest.fixture(scope="module")
def reference():
    loss, grads = _step(_net("none"))(msx.Tensor(X))
    return loss.asnumpy(), [g.asnumpy() for g in grads]


def _same(got, reference):
    loss, grads = got
    np.testing.assert_allclose(loss.asnumpy(), reference[0], rtol=1e-6)
    for g, w in zip(grads, reference[1]):
        np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("how", ["cell", "function"])
def test_eager_gradients_equal_without_recompute(reference, how):
    _same(_step(_net(how))(msx.Tensor(X)), reference)


@pytest.mark.parametrize("mode", ["ast", "bytecode", "trace"])
@pytest.mark.parametrize("how", ["cell", "function"])
def test_jit_rematerialises_and_keeps_gradients(reference, mode, how):
    step = _step(_net(how))
    jf = msx.jit(lambda x: step(x), capture_mode=mode)
    lowered = jf.lower(msx.Tensor(X))
    assert str(lowered.graph).count(".recompute#") == 3, str(lowered.graph)
    assert lowered.as_text().count("optimization_barrier") == 3
    for _ in range(2):
        _same(jf(msx.Tensor(X)), reference)
    assert jf.compiles == 1   # the wrapper Cell of ms.recompute is the same on every call: no recompile


def test_without_recompute_the_graph_has_no_barrier():
    step = _step(_net("none"))
    lowered = msx.jit(lambda x: step(x)).lower(msx.Tensor(X))
    assert ".recompute#" not in str(lowered.graph) and "optimization_barrier" not in lowered.as_text()


def test_mindspore_keywords():
    b = Block()
    b.recompute(mp_comm_recompute=True, parallel_optimizer_comm_recompute=True)
    with pytest.warns(UserWarning, match="mp_comm_recompute=False is not honoured"):
        Block().recompute(mp_comm_recompute=False)
    with pytest.warns(UserWarning, match="recompute_slice_activation"):
        Block().recompute(recompute_slice_activation=True)
    with pytest.raises(TypeError, match="unknown keyword"):
        Block().recompute(select_recompute=True)
    with pytest.raises(ValueError, match="context_fn"):
        Block().recompute(context_fn=lambda: None)
    with pytest.raises(RuntimeError, match="only once"):
        b.recompute()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Block().recompute(use_reentrant=False, output_recompute=True, early_stop=False)


def test_a_recomputed_cell_that_writes_parameters_is_refused():
    class Stats(nn.Cell):
        def __init__(self):
            super().__init__()
            self.bn = nn.BatchNorm1d(W)

        def construct(self, x):
            return self.bn(x)

    s = Stats()
    s.recompute()
    s.set_train(True)
    with pytest.raises(msx.errors.CaptureError, match="writes its Parameters"):
        msx.grad(lambda x: s(x).sum())(msx.Tensor(X))


# ---------------------------------------------------------------- per-primitive recompute: ops.Primitive.recompute()
# Reference: the same attention-like block unmarked (eager and jitted), jax's `saved_residuals` of the gradient's
# forward (what the backward keeps), and MindSpore 2.10's own answers (tests/golden_recompute/record.py).
GOLDEN = json.loads((Path(__file__).parent / "golden_recompute" / "primitive_recompute.json").read_text())
B, S, H = 2, 16, 8
XA = np.random.default_rng(2).standard_normal((B, S, H)).astype(np.float32)


class Attention(nn.Cell):
    """Scores -> softmax -> weighted values: MindFormers' select_recompute marks the score matmul, the scale
    and the softmax, whose (B, S, S) outputs are the block's largest activations."""

    def __init__(self, mark: bool):
        super().__init__()
        self.q, self.k, self.v = nn.Dense(H, H), nn.Dense(H, H), nn.Dense(H, H)
        self.qk, self.pv = ops.BatchMatMul(transpose_b=True), ops.BatchMatMul()
        self.scale, self.softmax = ops.Mul(), ops.Softmax(-1)
        if mark:
            for op in (self.qk, self.scale, self.softmax):
                op.recompute()

    def construct(self, x):
        p = self.softmax(self.scale(self.qk(self.q(x), self.k(x)), H ** -0.5))
        return (self.pv(p, self.v(x)) ** 2).mean()


def _attention(mark):
    msx.set_seed(0)
    return Attention(mark)


@pytest.fixture(scope="module")
def attention_reference():
    net = _attention(False)
    loss, grads = _step(net)(msx.Tensor(XA))
    return loss.asnumpy(), [g.asnumpy() for g in grads]


def test_primitive_recompute_sets_mindspores_attr():
    op = ops.ReLU()
    assert op.recompute() is op and op.attrs == GOLDEN["attrs_true"]
    assert op.recompute(False).attrs == GOLDEN["attrs_false"]
    kind, message = GOLDEN["non_bool_error"]
    with pytest.raises(TypeError, match=message.rstrip(".").replace("The input", "the input")):
        ops.ReLU().recompute("x")
    assert ops.BatchMatMul().recompute().attrs["recompute"] is True   # a hand-written class op too


def test_mindspores_docstring_example():
    class NetRecompute(nn.Cell):
        def __init__(self):
            super().__init__()
            self.relu = ops.ReLU().recompute()
            self.sqrt = ops.Sqrt()

        def construct(self, x):
            return self.sqrt(self.relu(x))

    class GradNet(nn.Cell):
        def __init__(self, network):
            super().__init__()
            self.network = network
            self.grad = ops.GradOperation()

        @msx.jit
        def construct(self, x):
            return self.grad(self.network)(x)

    got = GradNet(NetRecompute())(msx.Tensor(np.array(GOLDEN["grad_x"], np.float32)))
    np.testing.assert_allclose(got.asnumpy(), GOLDEN["grad"])


@pytest.mark.parametrize("mode", ["ast", "bytecode", "trace"])
def test_marked_primitives_are_recomputed_in_the_compiled_gradient(attention_reference, mode):
    eager = _step(_attention(True))(msx.Tensor(XA))   # PyNative: the mark does not act (MindSpore's too)
    _same(eager, attention_reference)
    texts = {}
    for mark in (False, True):
        jf = msx.jit(lambda x, step=_step(_attention(mark)): step(x), capture_mode=mode)
        lowered = jf.lower(msx.Tensor(XA))
        graph = str(lowered.graph)
        # the nodes the marked calls record (BatchMatMul(transpose_b=True) records SwapAxes and MatMul)
        assert graph.count("recompute=True") == (4 if mark else 0), graph
        texts[mark] = lowered.as_text()
        _same(jf(msx.Tensor(XA)), attention_reference)
    # the softmax's exp runs once more (its recomputation in the backward), behind jax.checkpoint's barrier
    assert texts[True].count("stablehlo.exponential") > texts[False].count("stablehlo.exponential")
    assert "optimization_barrier" in texts[True] and "optimization_barrier" not in texts[False]


def _saved(mark):
    """The shapes of what jax's VJP of the gradient's forward (the Grad node's body, as msx lowers it) keeps for
    the backward: the leaves of the `jax.vjp` pullback, a pytree of its residuals."""
    import jax
    from msx.ir.interpret import evaluate
    from msx.ir.recompute import has_marked, rematerialised

    net = _attention(mark)
    step = _step(net)
    body = msx.jit(lambda x: step(x)).capture(msx.Tensor(XA)).nodes[0].subgraphs["body"]
    assert has_marked(body) is mark
    f = lambda *a: evaluate(body, list(a))[0][0]   # noqa: E731
    args = [np.zeros(v.abstract.shape, v.abstract.dtype) for v in body.inputs]
    _, pullback = jax.vjp(rematerialised(f) if mark else f, *args)
    return [tuple(np.shape(r)) for r in jax.tree_util.tree_leaves(pullback)]


def test_the_backward_keeps_no_output_of_a_marked_primitive():
    scores = (B, S, S)
    assert scores in _saved(False)          # the softmax's (B, S, S) values are kept ...
    assert scores not in _saved(True)       # ... unless it and the score matmul are marked


def test_marked_primitives_beside_a_recomputed_cell(reference):
    class Mixed(Net):
        def __init__(self):
            super().__init__("cell")
            self.act = ops.Tanh().recompute()

        def construct(self, x):
            for b in self.blocks:
                x = b(self.act(x) if b is self.blocks[0] else x)
            return (x * x).sum()

    msx.set_seed(0)
    net = Mixed()
    eager = _step(net)(msx.Tensor(X))
    for mode in ("ast", "bytecode"):
        got = msx.jit(lambda x, step=_step(net): step(x), capture_mode=mode)(msx.Tensor(X))
        np.testing.assert_allclose(got[0].asnumpy(), eager[0].asnumpy(), rtol=1e-6)
        for g, w in zip(got[1], eager[1]):
            np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-5, atol=1e-6)


def test_a_marked_dropout_recomputes_the_same_mask():
    class Drop(nn.Cell):
        def __init__(self, mark):
            super().__init__()
            self.fc, self.drop = nn.Dense(W, W), ops.Dropout(0.5)
            if mark:
                self.drop.recompute()

        def construct(self, x):
            h = self.fc(x)
            return (self.drop(h)[0] * h).sum()

    got = []
    for mark in (False, True):
        msx.set_seed(3)
        net = Drop(mark)
        net.set_train()
        loss, grads = msx.jit(lambda x, step=_step(net): step(x))(msx.Tensor(X))
        got.append([loss.asnumpy()] + [g.asnumpy() for g in grads])
    for a, b in zip(*got):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_context_fn():
    import contextlib
    entered = []

    @contextlib.contextmanager
    def forward():
        entered.append("forward")
        yield

    b = Block()
    b.recompute(use_reentrant=False, context_fn=lambda: (forward(), contextlib.nullcontext()))
    msx.grad(lambda x: b(x).sum())(msx.Tensor(X))
    assert entered == ["forward"]
    loss = msx.recompute(b.construct, msx.Tensor(X), use_reentrant=False,
                         context_fn=lambda: (contextlib.nullcontext(), contextlib.nullcontext()))
    assert loss.shape == (8, W)
    with pytest.raises(ValueError, match="only supported when use_reentrant=False"):
        msx.recompute(Block(), msx.Tensor(X), context_fn=lambda: None)
    c = Block()
    c.recompute(use_reentrant=False, context_fn=lambda: (contextlib.nullcontext(), forward()))
    with pytest.raises(ValueError, match="second context"):
        msx.grad(lambda x: c(x).sum())(msx.Tensor(X))
    d = Block()
    d.recompute(output_recompute=True, context_fn=lambda: None)
    with pytest.raises(TypeError, match="tuple of two context managers"):
        d(msx.Tensor(X))


def test_recompute_false_inside_a_recomputed_cell_warns():
    class Inner(Block):
        def __init__(self):
            super().__init__()
            self.act = ops.Tanh().recompute(False)

        def construct(self, x):
            return self.act(self.a(x))

    b = Inner()
    b.recompute()
    with pytest.warns(UserWarning, match="not honoured"):
        msx.grad(lambda x: b(x).sum())(msx.Tensor(X))
