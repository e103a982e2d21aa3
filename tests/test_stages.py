"""`msx.stages.optimize`: a captured graph, edited by hand, handed back through verify, passes, build and run."""
import numpy as np
import pytest

import msx
from msx import nn, ops
from msx.errors import VerifyError

X = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = msx.Parameter(msx.Tensor(np.arange(12, dtype=np.float32).reshape(3, 4) / 10), name="w")

    def construct(self, x):
        return ops.relu(ops.matmul(x, self.w)) * 2.0


@pytest.mark.parametrize("jit_level,backend", [("O0", None), ("O1", None), ("O1", "ascend")])
def test_an_edited_graph_runs_and_agrees_with_numpy(jit_level, backend):
    net = Net()
    graph = msx.jit(net, capture_mode="trace").capture(msx.Tensor(X))
    relu = next(n for n in graph.nodes if n.op == "ReLU")
    relu.op = "Exp"  # the edit: exp instead of relu
    lowered = msx.stages.optimize(graph, params=net, backend=backend, jit_level=jit_level)
    assert "Exp" in lowered.graph.primitives_used() or "Fused" in lowered.graph.primitives_used()
    out = lowered.compile()(msx.Tensor(X))
    w = net.w.asnumpy()
    rtol = 1e-2 if backend == "ascend" else 1e-6  # the simulated chip multiplies in float16
    np.testing.assert_allclose(out.asnumpy(), np.exp(X @ w) * 2.0, rtol=rtol)


def test_a_captured_training_step_edited_and_handed_back_writes_its_parameters():
    net = Net()
    opt = nn.SGD(net.trainable_params(), learning_rate=0.5)
    grad_fn = msx.value_and_grad(lambda x: net(x).sum(), None, opt.parameters)

    def step(x):
        loss, grads = grad_fn(x)
        opt(grads)
        return loss

    captured = msx.jit(step, capture_mode="trace").captured(msx.Tensor(X))
    w0 = net.w.asnumpy().copy()
    body = next(n for n in captured.graph.nodes if n.op == "Grad").subgraphs["body"]
    next(n for n in body.nodes if n.op == "ReLU").op = "Exp"  # differentiate exp instead
    compiled = msx.stages.optimize(captured).compile()
    loss = compiled(msx.Tensor(X))
    np.testing.assert_allclose(loss.asnumpy(), (np.exp(X @ w0) * 2.0).sum(), rtol=1e-5)
    grad_w = X.T @ (np.exp(X @ w0) * 2.0)  # d/dw sum(2 exp(xw))
    np.testing.assert_allclose(net.w.asnumpy(), w0 - 0.5 * grad_w, rtol=1e-5)


def test_a_bad_edit_is_a_verify_error_naming_the_node_not_a_jax_error():
    net = Net()
    graph = msx.jit(net, capture_mode="trace").capture(msx.Tensor(X))
    next(n for n in graph.nodes if n.op == "MatMul").op = "Concat"  # an op that rejects these inputs
    with pytest.raises(VerifyError, match=r"node 0 \(Concat\)"):
        msx.stages.optimize(graph, params=net)


def test_a_graph_reading_a_parameter_needs_it_given():
    graph = msx.jit(Net(), capture_mode="trace").capture(msx.Tensor(X))
    with pytest.raises(VerifyError, match=r"reads Parameter\(s\) \['w'\]"):
        msx.stages.optimize(graph)


def test_the_o1_pipeline_leaves_the_graph_it_was_given_as_it_was():
    """docs/passes.md: passes return new graphs; the captured graph's text is the same after optimising it
    (here every O1 pass has something to do: `*1`, `+0`, `-(-y)`, a common `exp`)."""
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.d = nn.Dense(3, 3)

        def construct(self, x):
            y = self.d(x) * 1.0 + 0.0
            return ops.relu(y) + ops.neg(ops.neg(y)) * 2.0 + ops.exp(y) * ops.exp(y)

    net = Net()
    x = msx.Tensor(np.ones((2, 3), np.float32))
    graph = msx.jit(net).capture(x)
    before = str(graph)
    optimized = msx.stages.optimize(graph, params=net, jit_level="O1")
    assert str(graph) == before
    assert len(optimized.graph.nodes) < len(graph.nodes)
