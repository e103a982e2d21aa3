"""WithEvalCell, WithGradCell, ForwardValueAndGrad, loss-scale cells, ParameterUpdate, train callbacks for lr."""
from __future__ import annotations

import numpy as np
import pytest

import msx
from msx import Parameter, Tensor, nn


def _net():
    net = nn.Dense(3, 1)
    net.weight.set_data(Tensor(np.array([[1.0, -2.0, 0.5]], np.float32)))
    net.bias.set_data(Tensor(np.array([0.1], np.float32)))
    return net


X = Tensor(np.array([[1.0, 2.0, 3.0], [0.0, -1.0, 1.0]], np.float32))
Y = Tensor(np.array([[1.0], [0.0]], np.float32))


def _numpy_grads():
    w, b, x, y = np.array([[1.0, -2.0, 0.5]]), np.array([0.1]), X.asnumpy(), Y.asnumpy()
    d = 2 * (x @ w.T + b - y) / y.size
    return (d.T @ x).astype(np.float32), d.sum(0).astype(np.float32)


def test_with_eval_and_grad_cells():
    net = _net()
    loss, out, label = nn.WithEvalCell(net, nn.MSELoss())(X, Y)
    np.testing.assert_allclose(out.asnumpy(), X.asnumpy() @ net.weight.asnumpy().T + 0.1, rtol=1e-6)
    gw, gb = nn.WithGradCell(net, nn.MSELoss())(X, Y)
    want_w, want_b = _numpy_grads()
    np.testing.assert_allclose(gw.asnumpy(), want_w, rtol=1e-5)
    np.testing.assert_allclose(gb.asnumpy(), want_b, rtol=1e-5)
    value, (gw2, gb2) = nn.ForwardValueAndGrad(nn.WithLossCell(net, nn.MSELoss()), net.trainable_params(),
                                               get_by_list=True)(X, Y)
    np.testing.assert_allclose(float(value), float(loss), rtol=1e-6)
    np.testing.assert_allclose(gw2.asnumpy(), want_w, rtol=1e-5)


def test_train_one_step_with_loss_scale_skips_overflow():
    net = _net()
    opt = nn.SGD(net.trainable_params(), 0.1)
    update = nn.DynamicLossScaleUpdateCell(loss_scale_value=2.0 ** 10, scale_factor=2, scale_window=2)
    step = nn.TrainOneStepWithLossScaleCell(nn.WithLossCell(net, nn.MSELoss()), opt, update)
    before = net.weight.asnumpy().copy()
    loss, overflow, scale = step(X, Y)
    assert not bool(overflow) and float(scale) == 1024.0
    want_w, _ = _numpy_grads()
    np.testing.assert_allclose(net.weight.asnumpy(), before - 0.1 * want_w, rtol=1e-5)  # unscaled grads
    step(X, Y)
    assert float(step.scale_sense.asnumpy()) == 2048.0  # scale_window=2 clean steps: grow
    bad = Tensor(np.array([[np.inf, 0, 0], [0, 0, 0]], np.float32))
    w = net.weight.asnumpy().copy()
    _, overflow, _ = step(bad, Y)
    assert bool(overflow) and float(step.scale_sense.asnumpy()) == 1024.0
    np.testing.assert_array_equal(net.weight.asnumpy(), w)  # the overflowing step changed nothing
    net2 = _net()
    fixed = nn.TrainOneStepWithLossScaleCell(nn.WithLossCell(net2, nn.MSELoss()), nn.SGD(net2.trainable_params(), 0.1),
                                             Tensor(np.float32(8.0)))
    _, overflow, scale = fixed(X, Y)
    assert not bool(overflow) and float(scale) == 8.0
    np.testing.assert_allclose(net2.weight.asnumpy(), before - 0.1 * want_w, rtol=1e-5)
    with pytest.raises(TypeError, match="scale_sense"):
        nn.TrainOneStepWithLossScaleCell(nn.WithLossCell(net2, nn.MSELoss()), nn.SGD(net2.trainable_params()), 8.0)


def test_parameter_update():
    p = Parameter(Tensor(np.zeros(2, np.float32)), name="p")
    nn.ParameterUpdate(p)(Tensor(np.array([1.0, 2.0], np.float32)))
    np.testing.assert_array_equal(p.asnumpy(), [1, 2])


def test_learning_rate_callbacks_change_the_optimizer_lr():
    from msx.dataset import NumpySlicesDataset
    from msx.train import LambdaCallback, LearningRateScheduler, Model, ReduceLROnPlateau

    net = _net()
    opt = nn.SGD(net.trainable_params(), 0.1)
    ds = NumpySlicesDataset((np.ones((4, 3), np.float32), np.ones((4, 1), np.float32)), shuffle=False).batch(2)
    seen = []
    lrs = LearningRateScheduler(lambda lr, step: lr * 0.5)
    spy = LambdaCallback(on_train_step_end=lambda rc: seen.append(round(float(opt.learning_rate.asnumpy()), 6)))
    Model(net, nn.MSELoss(), opt).train(2, ds, callbacks=[lrs, spy])
    assert seen == [0.05, 0.025, 0.0125, 0.00625]
    plateau = ReduceLROnPlateau(monitor="loss", factor=0.5, patience=0, min_delta=1e9)
    Model(net, nn.MSELoss(), opt).train(2, ds, callbacks=[plateau])
    assert float(opt.learning_rate.asnumpy()) == pytest.approx(0.00625 * 0.5)  # epoch 1 sets the best
