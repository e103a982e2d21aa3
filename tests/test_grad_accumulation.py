"""GradAccumulationCell / MicroBatchInterleaved / PipelineCell (one stage) / PipelineGradReducer
(msx/nn/micro_batch.py): a step over micro-batches equals the plain, un-accumulated msx step.

Reference: the same network and optimizer stepping on the whole batch. With a sum-reduced loss the summed
micro-batch losses and gradients are the whole batch's; with a mean loss they are micro_size times it, which
`PipelineGradReducer(scale_sense=micro_size)` divides back (MindSpore's semantics for both)."""
import numpy as np
import pytest

import msx
from msx import nn
from msx.errors import ContextError

RNG = np.random.default_rng(2)
X = RNG.standard_normal((8, 6)).astype(np.float32)
Y = RNG.standard_normal((8, 3)).astype(np.float32)
MICRO = 4


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Dense(6, 5), nn.Dense(5, 3)

    def construct(self, x):
        return self.fc2(nn.ReLU()(self.fc1(x)))


def _net():
    msx.set_seed(0)
    return Net()


def _grads(cell):
    return msx.value_and_grad(cell, None, cell.trainable_params())(msx.Tensor(X), msx.Tensor(Y))


@pytest.fixture(scope="module")
def plain_sum():
    loss, grads = _grads(nn.WithLossCell(_net(), nn.MSELoss(reduction="sum")))
    return loss.asnumpy(), [g.asnumpy() for g in grads]


@pytest.mark.parametrize("wrapper", [nn.GradAccumulationCell, msx.parallel.nn.GradAccumulation, nn.PipelineCell,
                                     msx.parallel.nn.Pipeline, nn.MicroBatchInterleaved])
def test_summed_micro_batches_equal_the_whole_batch(plain_sum, wrapper):
    cell = wrapper(nn.WithLossCell(_net(), nn.MSELoss(reduction="sum")), MICRO)
    loss, grads = _grads(cell)
    np.testing.assert_allclose(loss.asnumpy(), plain_sum[0], rtol=1e-5)
    for g, w in zip(grads, plain_sum[1]):
        np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-5, atol=1e-6)


def _train(make_cell, reducer_scale, mode, steps=3):
    net = _net()
    cell = make_cell(net)
    opt = nn.Momentum(net.trainable_params(), 0.05, 0.9)
    grad_fn = msx.value_and_grad(cell, None, opt.parameters)
    reducer = nn.PipelineGradReducer(opt.parameters, scale_sense=reducer_scale) if reducer_scale else None

    def step(x, y):
        loss, grads = grad_fn(x, y)
        if reducer is not None:
            grads = reducer(grads)
        opt(grads)
        return loss

    run = step if mode == "eager" else msx.jit(step, capture_mode=mode)
    losses = [float(run(msx.Tensor(X), msx.Tensor(Y)).asnumpy()) for _ in range(steps)]
    return losses, [p.asnumpy() for p in net.trainable_params()]


@pytest.fixture(scope="module")
def plain_training():
    return _train(lambda net: nn.WithLossCell(net, nn.MSELoss()), None, "eager")


@pytest.mark.parametrize("mode", ["eager", "ast", "bytecode", "trace"])
def test_pipeline_step_with_reducer_equals_the_plain_step(plain_training, mode):
    losses, params = _train(lambda net: nn.PipelineCell(nn.WithLossCell(net, nn.MSELoss()), MICRO), MICRO, mode)
    np.testing.assert_allclose(np.array(losses) / MICRO, plain_training[0], rtol=1e-5)  # the loss is the sum
    for p, w in zip(params, plain_training[1]):
        np.testing.assert_allclose(p, w, rtol=1e-5, atol=1e-6)


def test_without_scale_the_mean_loss_gradient_is_micro_size_times():
    plain = _grads(nn.WithLossCell(_net(), nn.MSELoss()))[1]
    acc = _grads(nn.GradAccumulationCell(nn.WithLossCell(_net(), nn.MSELoss()), MICRO))[1]
    for g, w in zip(acc, plain):
        np.testing.assert_allclose(g.asnumpy(), MICRO * w.asnumpy(), rtol=1e-5, atol=1e-6)


def test_bad_configurations_are_refused():
    with pytest.raises(ValueError, match="cannot be cut into 3"):
        nn.GradAccumulationCell(nn.WithLossCell(_net(), nn.MSELoss()), 3)(msx.Tensor(X), msx.Tensor(Y))
    with pytest.raises(ValueError, match="larger than 0"):
        nn.MicroBatchInterleaved(_net(), 0)
    with pytest.raises(TypeError, match="must be a Cell"):
        nn.PipelineCell(lambda x: x, 2)
    with pytest.raises(ContextError, match="interleaved pipeline segments"):
        nn.PipelineCell(_net(), 2, segment_config={"fc1": 1})
    with pytest.raises(KeyError, match="fc9"):
        nn.PipelineCell(_net(), 2, stage_config={"fc9": 0})
    net = _net()
    nn.PipelineCell(net, 2, stage_config={"fc1": 0, "fc2": 0})
    assert net.fc2.pipeline_stage == 0
    with pytest.raises(ContextError, match="pipeline_stages must be an int >= 1"):
        msx.set_auto_parallel_context(pipeline_stages=0)
    with pytest.raises(ValueError, match="2 gradients for 4"):
        nn.PipelineGradReducer(net.trainable_params())(tuple(net.trainable_params())[:2])
