"""Layers MindSpore 2.10 cannot run on CPU (no kernel), checked against numpy instead: InstanceNorm, Roll,
MatrixDiag/DiagPart, SoftMarginLoss, TripletMarginLoss, HingeEmbeddingLoss, PSNR; plus RReLU's range."""
from __future__ import annotations

import numpy as np

import msx
from msx import Tensor, nn

RNG = np.random.default_rng(5)


def test_instance_norm_2d_train_and_eval():
    x = RNG.standard_normal((2, 3, 4, 4)).astype(np.float32)
    m = nn.InstanceNorm2d(3)
    m.gamma.set_data(Tensor(np.array([1.0, 2.0, 0.5], np.float32)))
    mean, var = x.mean((2, 3), keepdims=True), x.var((2, 3), keepdims=True)
    want = (x - mean) / np.sqrt(var + 1e-5) * np.array([1, 2, 0.5]).reshape(1, 3, 1, 1)
    m.set_train(True)
    np.testing.assert_allclose(m(Tensor(x)).asnumpy(), want, rtol=1e-4, atol=1e-5)
    n = 16
    np.testing.assert_allclose(m.moving_mean.asnumpy(), 0.1 * x.mean((2, 3)).mean(0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(m.moving_variance.asnumpy(), 0.9 + 0.1 * x.var((2, 3)).mean(0) * n / (n - 1),
                               rtol=1e-5)
    m.set_train(False)
    np.testing.assert_allclose(m(Tensor(x)).asnumpy(), want, rtol=1e-4, atol=1e-5)
    x1 = RNG.standard_normal((2, 3, 5)).astype(np.float32)
    want1 = (x1 - x1.mean(2, keepdims=True)) / np.sqrt(x1.var(2, keepdims=True) + 1e-5)
    np.testing.assert_allclose(nn.InstanceNorm1d(3)(Tensor(x1)).asnumpy(), want1, rtol=1e-4, atol=1e-5)


def test_roll_and_matrix_diagonals():
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    np.testing.assert_array_equal(nn.Roll((1, -2), (0, 1))(Tensor(x)).asnumpy(), np.roll(x, (1, -2), (0, 1)))
    d = RNG.standard_normal((2, 3)).astype(np.float32)
    np.testing.assert_array_equal(nn.MatrixDiag()(Tensor(d)).asnumpy(), np.stack([np.diag(r) for r in d]))
    m = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    np.testing.assert_array_equal(nn.MatrixDiagPart()(Tensor(m)).asnumpy(), np.diagonal(m, axis1=1, axis2=2))
    new = RNG.standard_normal((2, 3)).astype(np.float32)
    want = m.copy()
    for b in range(2):
        want[b, range(3), range(3)] = new[b]
    np.testing.assert_array_equal(nn.MatrixSetDiag()(Tensor(m), Tensor(new)).asnumpy(), want)


def test_losses_without_mindspore_cpu_kernels():
    x, y = RNG.standard_normal((3, 4)).astype(np.float32), np.sign(RNG.standard_normal((3, 4))).astype(np.float32)
    np.testing.assert_allclose(float(nn.SoftMarginLoss()(Tensor(x), Tensor(y))), np.log1p(np.exp(-y * x)).mean(),
                               rtol=1e-5)
    hinge = np.where(y == 1, x, np.maximum(0, 0.5 - x)).mean()
    np.testing.assert_allclose(float(nn.HingeEmbeddingLoss(0.5)(Tensor(x), Tensor(y))), hinge, rtol=1e-5)
    a, p, n = (RNG.standard_normal((3, 4)).astype(np.float32) for _ in range(3))
    dist = lambda u, v: np.linalg.norm(u - v + 1e-6, axis=-1)  # noqa: E731
    want = np.maximum(dist(a, p) - dist(a, n) + 1.0, 0).mean()
    np.testing.assert_allclose(float(nn.TripletMarginLoss()(Tensor(a), Tensor(p), Tensor(n))), want, rtol=1e-5)
    i1, i2 = RNG.uniform(size=(2, 1, 4, 4)).astype(np.float32), RNG.uniform(size=(2, 1, 4, 4)).astype(np.float32)
    psnr = 10 * np.log10(1.0 / ((i1 - i2) ** 2).mean((1, 2, 3)))
    np.testing.assert_allclose(nn.PSNR()(Tensor(i1), Tensor(i2)).asnumpy(), psnr, rtol=1e-5)


def test_rrelu_slopes_in_range():
    msx.set_seed(1)
    x = -np.ones((200,), np.float32)
    y = nn.RReLU(0.1, 0.3)(Tensor(x)).asnumpy()
    assert ((-y >= 0.1 - 1e-6) & (-y <= 0.3 + 1e-6)).all() and np.unique(y).size > 10
    np.testing.assert_array_equal(nn.RReLU()(Tensor(np.ones(3, np.float32))).asnumpy(), 1.0)
