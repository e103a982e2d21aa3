"""mint.nn layers whose MindSpore 2.10 CPU kernels are missing (Ascend-only: "The kernel EluExt unregistered",
listed in tests/golden_nn/data/index.json) checked against numpy formulas, eagerly and under jit. The ones
MindSpore's CPU runs are compared with its goldens in tests/test_golden_nn.py (cases_mint_nn.py)."""
import numpy as np
import pytest
import jax

import msx
from msx import mint

RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 3, 4, 4)).astype(np.float32)
V = RNG.standard_normal((3, 5)).astype(np.float32)
SCALE, ALPHA = 1.0507009873554805, 1.6732632423543772


def _pool(x, k, s, p, reduce, pad_value, count_include_pad=True):
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=pad_value)
    ones = np.pad(np.ones((h, w)), p)
    oh, ow = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
    out = np.zeros((n, c, oh, ow), np.float32)
    for i in range(oh):
        for j in range(ow):
            win = xp[:, :, i * s:i * s + k, j * s:j * s + k]
            if reduce == "max":
                out[:, :, i, j] = win.max((2, 3))
            else:
                div = k * k if count_include_pad else ones[i * s:i * s + k, j * s:j * s + k].sum()
                out[:, :, i, j] = win.sum((2, 3)) / div
    return out


def _log_softmax(v, axis):
    m = v - v.max(axis, keepdims=True)
    return m - np.log(np.exp(m).sum(axis, keepdims=True))


CASES = {
    "ReLU6": (lambda: mint.nn.ReLU6(), V, lambda v: np.clip(v, 0, 6)),
    "ELU": (lambda: mint.nn.ELU(0.5), V, lambda v: np.where(v > 0, v, 0.5 * np.expm1(v))),
    "Hardtanh": (lambda: mint.nn.Hardtanh(-0.5, 0.7), V, lambda v: np.clip(v, -0.5, 0.7)),
    "Threshold": (lambda: mint.nn.Threshold(0.1, 20.0), V, lambda v: np.where(v > 0.1, v, 20.0)),
    "LogSigmoid": (lambda: mint.nn.LogSigmoid(), V, lambda v: -np.log1p(np.exp(-v))),
    "Mish": (lambda: mint.nn.Mish(), V, lambda v: v * np.tanh(np.log1p(np.exp(v)))),
    "SELU": (lambda: mint.nn.SELU(), V, lambda v: SCALE * np.where(v > 0, v, ALPHA * np.expm1(v))),
    "LogSoftmax": (lambda: mint.nn.LogSoftmax(1), V, lambda v: _log_softmax(v, 1)),
    "LogSoftmax_none": (lambda: mint.nn.LogSoftmax(), V, lambda v: _log_softmax(v, -1)),
    "ZeroPad2d": (lambda: mint.nn.ZeroPad2d((1, 0, 2, 1)), X,
                  lambda x: np.pad(x, ((0, 0), (0, 0), (2, 1), (1, 0)))),
    "ZeroPad1d": (lambda: mint.nn.ZeroPad1d(2), X[0], lambda x: np.pad(x, ((0, 0), (0, 0), (2, 2)))),
    "ZeroPad3d": (lambda: mint.nn.ZeroPad3d(1), X, lambda x: np.pad(x, ((0, 0), (1, 1), (1, 1), (1, 1)))),
    "ConstantPad2d": (lambda: mint.nn.ConstantPad2d(1, 0.5), X,
                      lambda x: np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=0.5)),
    "ReflectionPad2d": (lambda: mint.nn.ReflectionPad2d((1, 1, 2, 0)), X,
                        lambda x: np.pad(x, ((0, 0), (0, 0), (2, 0), (1, 1)), mode="reflect")),
    "ReplicationPad1d": (lambda: mint.nn.ReplicationPad1d((2, 1)), X[0],
                         lambda x: np.pad(x, ((0, 0), (0, 0), (2, 1)), mode="edge")),
    "AvgPool2d": (lambda: mint.nn.AvgPool2d(2), X, lambda x: _pool(x, 2, 2, 0, "avg", 0)),
    "AvgPool2d_pad": (lambda: mint.nn.AvgPool2d(3, 1, 1, count_include_pad=False), X,
                      lambda x: _pool(x, 3, 1, 1, "avg", 0, False)),
    "AvgPool2d_pad_incl": (lambda: mint.nn.AvgPool2d(3, 2, 1), X, lambda x: _pool(x, 3, 2, 1, "avg", 0)),
    "AvgPool1d": (lambda: mint.nn.AvgPool1d(2), X[:, :, 0], lambda x: x.reshape(2, 3, 2, 2).mean(-1)),
    "MaxPool2d": (lambda: mint.nn.MaxPool2d(2), X, lambda x: _pool(x, 2, 2, 0, "max", -np.inf)),
    "MaxPool2d_pad": (lambda: mint.nn.MaxPool2d(3, 2, 1), X, lambda x: _pool(x, 3, 2, 1, "max", -np.inf)),
    "AdaptiveAvgPool2d": (lambda: mint.nn.AdaptiveAvgPool2d((2, 2)), X, lambda x: _pool(x, 2, 2, 0, "avg", 0)),
    "AdaptiveMaxPool1d": (lambda: mint.nn.AdaptiveMaxPool1d(2), X[:, :, 0], lambda x: x.reshape(2, 3, 2, 2).max(-1)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_layer_matches_numpy(name):
    make, x, ref = CASES[name]
    layer = make()
    got = layer(msx.Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, ref(x), rtol=1e-5, atol=1e-6)
    jitted = msx.jit(lambda t: layer(t))(msx.Tensor(x)).asnumpy()
    np.testing.assert_allclose(jitted, got, rtol=1e-6, atol=1e-6)


def test_activation_gradients_match_jax():
    for make, fn in ((lambda: mint.nn.ELU(0.5), lambda v: jax.nn.elu(v, 0.5)),
                     (lambda: mint.nn.Mish(), lambda v: v * jax.numpy.tanh(jax.nn.softplus(v))),
                     (lambda: mint.nn.LogSigmoid(), jax.nn.log_sigmoid)):
        layer = make()
        g = msx.grad(lambda t: layer(t).sum())(msx.Tensor(V)).asnumpy()
        np.testing.assert_allclose(g, jax.grad(lambda v: fn(v).sum())(V), rtol=1e-5, atol=1e-6)


def test_losses_match_numpy():
    inp = RNG.standard_normal((3, 4)).astype(np.float32)
    prob = RNG.uniform(0.05, 0.95, (3, 4)).astype(np.float32)
    logt = RNG.standard_normal((3, 4)).astype(np.float32)
    sign = np.where(RNG.uniform(size=(3, 4)) > 0.5, 1.0, -1.0).astype(np.float32)
    t = msx.Tensor
    np.testing.assert_allclose(mint.nn.KLDivLoss(reduction="sum")(t(inp), t(prob)).asnumpy(),
                               (prob * (np.log(prob) - inp)).sum(), rtol=1e-5)
    np.testing.assert_allclose(mint.nn.KLDivLoss()(t(inp), t(prob)).asnumpy(),
                               (prob * (np.log(prob) - inp)).mean(), rtol=1e-5)
    np.testing.assert_allclose(mint.nn.KLDivLoss(reduction="batchmean", log_target=True)(t(inp), t(logt)).asnumpy(),
                               (np.exp(logt) * (logt - inp)).sum() / 3, rtol=1e-5)
    np.testing.assert_allclose(mint.nn.KLDivLoss(reduction="none")(t(inp), t(prob * 0)).asnumpy(), 0 * inp)
    np.testing.assert_allclose(mint.nn.SoftMarginLoss()(t(inp), t(sign)).asnumpy(),
                               np.log1p(np.exp(-sign * inp)).mean(), rtol=1e-5)
    with pytest.raises(ValueError):
        mint.nn.KLDivLoss(reduction="avg")


def test_upsample_bilinear_matches_jax_resize():
    x = RNG.standard_normal((1, 2, 3, 3)).astype(np.float32)
    got = mint.nn.Upsample(scale_factor=2.0, mode="bilinear")(msx.Tensor(x)).asnumpy()
    want = jax.image.resize(x, (1, 2, 6, 6), "linear")
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_same_classes_as_nn():
    assert mint.nn.BCELoss is msx.nn.BCELoss and mint.nn.Cell is msx.nn.Cell
    assert issubclass(mint.nn.ReLU6, msx.nn.ReLU6) and mint.nn.Hardswish is msx.nn.HSwish
