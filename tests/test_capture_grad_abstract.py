"""Bytecode capture differentiates abstractly: a `value_and_grad` step's body is recorded under `jax.eval_shape`
(the graph computes the call's results), not run op by op on the call's values, where every primitive of the
forward and of the backward was an XLA compile of its own. The graph, the results and the errors are those of
eager execution."""
import numpy as np
import pytest

import msx
from msx import Tensor, nn, ops

from compiles import count_xla_compiles
from tolerance import assert_same_float32

RNG = np.random.default_rng(3)
X = RNG.normal(size=(2, 3, 8, 8)).astype(np.float32)
Y = np.array([1, 3], np.int32)


class Small(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.conv, self.bn = nn.Conv2d(3, 4, 3, pad_mode="pad", padding=1), nn.BatchNorm2d(4)
        self.fc = nn.Dense(4, 5)

    def construct(self, x):
        return self.fc(ops.relu(self.bn(self.conv(x))).mean(axis=(2, 3)))


def _step(mode: str | None, bad_shape: bool = False):
    msx.set_seed(0)
    net = Small()
    loss_fn = nn.CrossEntropyLoss()
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)

    def forward(a, b):
        logits = net(a)
        if bad_shape:
            logits = ops.matmul(logits, ops.ones((3, 2)))   # (2, 5) @ (3, 2)
        return loss_fn(logits, b)

    grad_fn = msx.value_and_grad(forward, None, opt.parameters)

    def step(a, b):
        loss, grads = grad_fn(a, b)
        opt(grads)
        return loss

    return net, (step if mode is None else msx.jit(step, capture_mode=mode, fullgraph=True))


def _train(mode, steps=2):
    net, step = _step(mode)
    losses = [float(step(Tensor(X), Tensor(Y)).asnumpy()) for _ in range(steps)]
    return losses, {p.name: p.asnumpy() for p in net.get_parameters()}, step


def test_bytecode_step_equals_eager_in_one_graph():
    losses, params, step = _train("bytecode")
    want_losses, want_params, _ = _train(None)
    assert_same_float32(np.array(losses), np.array(want_losses))
    for name, value in want_params.items():
        assert_same_float32(params[name], value)
    assert step.captures == 1 and not step.recompile_reasons   # one graph (fullgraph: a break raises)


def test_bytecode_first_call_compiles_the_graph_not_each_op():
    """Counted on a warm process (the graph's own compile, and the few msx shares with every capture): the body's
    12 convolution, batch-norm and matmul primitives with their backward were 40 compiles before."""
    x, y = Tensor(X), Tensor(Y)
    _step("ast")[1](x, y)   # the stand-ins' and the optimizer's host work, done once in this process
    compiles = count_xla_compiles(lambda: _step("bytecode")[1](x, y))
    ast_compiles = count_xla_compiles(lambda: _step("ast")[1](x, y))
    assert compiles <= ast_compiles + 2, (compiles, ast_compiles)


def test_an_error_in_the_differentiated_function_is_eager_s():
    messages = []
    for mode in (None, "bytecode"):
        with pytest.raises(msx.errors.MsxError) as info:
            _step(mode, bad_shape=True)[1](Tensor(X), Tensor(Y))
        messages.append(str(info.value))
    assert all("MatMul" in m and "(2, 5)" in m and "(3, 2)" in m for m in messages), messages


@pytest.mark.parametrize("mode", [None, "ast", "bytecode", "trace"])
@pytest.mark.parametrize("sens, said", [
    (np.ones(3, np.float16), "sensitivity 0 is float16[3] but the function's output 0 is float32[3]"),
    (np.ones(4, np.float32), "sensitivity 0 is float32[4] but the function's output 0 is float32[3]"),
    ((np.ones(3, np.float32),) * 2, "structure of the function's output, float32[3]; got (float32[3], float32[3])"),
], ids=["dtype", "shape", "structure"])
def test_a_sensitivity_unlike_the_output_is_a_grad_error(mode, sens, said):
    grad = msx.grad(lambda x: x * 2.0, 0, sens_param=True)
    fn = grad if mode is None else msx.jit(lambda x, s: grad(x, s), capture_mode=mode)
    s = tuple(Tensor(a) for a in sens) if isinstance(sens, tuple) else Tensor(sens)
    with pytest.raises(msx.errors.GradError, match="sens_param") as info:
        fn(Tensor(np.ones(3, np.float32)), s)
    assert said in str(info.value)


@pytest.mark.parametrize("mode", [None, "ast", "bytecode", "trace"])
def test_a_sensitivity_in_a_one_tuple_is_the_output_s(mode):
    """As MindSpore 2.10's PyNative takes it (its graph mode refuses it: msx follows PyNative in every mode)."""
    grad = msx.grad(lambda x: x * 2.0, 0, sens_param=True)
    fn = grad if mode is None else msx.jit(lambda x, s: grad(x, s), capture_mode=mode)
    out = fn(Tensor(np.ones(3, np.float32)), (Tensor(np.full(3, 0.5, np.float32)),))
    np.testing.assert_array_equal(out.asnumpy(), [1.0, 1.0, 1.0])
