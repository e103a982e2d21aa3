"""`Cell.recompute()` and `ms.recompute(block, *args)` as `jax.checkpoint` inside the compiled graph.

Reference: the same network without recompute (gradients must be equal, eagerly and under jit in every capture
mode). Evidence of rematerialisation: the captured graph holds one recompute node per recomputed Cell call,
and its StableHLO carries one `optimization_barrier` per node (jax.checkpoint's mark that keeps XLA from
merging the recomputed forward back into the saved one); the network without recompute has none.
"""
import warnings

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


def test_per_primitive_recompute_is_refused_by_name():
    with pytest.raises(msx.errors.OpError, match="per-primitive recompute is not available"):
        ops.ReLU().recompute()
    op = ops.ReLU()
    assert op.recompute(mode=False) is op
