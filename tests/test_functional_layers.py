"""nn functional ops of msx/ops/functional_layers.py where MindSpore 2.10's CPU kernels are missing (its mint
`*Ext` kernels, Embedding, RmsNorm: recorded as errors in tests/oracle/goldens.json) or the op is random:
checked against numpy / jax, eagerly and under jit. The rest are oracle cases (tests/oracle/cases_tensor_methods.py)."""
import jax
import numpy as np
import pytest

import msx
from msx import mint, ops

MF = mint.nn.functional
RNG = np.random.default_rng(1)
X = RNG.uniform(-2, 2, (2, 3)).astype(np.float32)
T = msx.Tensor


def _both(fn, *args):
    """fn's result eagerly, checked equal under jit."""
    eager = fn(*[T(a) for a in args]).asnumpy()
    jitted = msx.jit(fn)(*[T(a) for a in args]).asnumpy()
    np.testing.assert_allclose(jitted, eager, rtol=1e-6, atol=1e-6)
    return eager


SELU_S, SELU_A = 1.0507009873554805, 1.6732632423543772
MINTF = {
    "elu": (lambda x: MF.elu(x, 0.5), lambda x: np.where(x > 0, x, 0.5 * np.expm1(x))),
    "hardtanh": (lambda x: MF.hardtanh(x, -0.5, 0.5), lambda x: np.clip(x, -0.5, 0.5)),
    "relu6": (lambda x: MF.relu6(x * 4), lambda x: np.clip(x * 4, 0, 6)),
    "threshold": (lambda x: MF.threshold(x, 0.2, -1.0), lambda x: np.where(x > 0.2, x, -1.0)),
    "logsigmoid": (MF.logsigmoid, lambda x: -np.log1p(np.exp(-x))),
    "mish": (MF.mish, lambda x: x * np.tanh(np.log1p(np.exp(x)))),
    "selu": (MF.selu, lambda x: SELU_S * np.where(x > 0, x, SELU_A * np.expm1(x))),
    "normalize": (MF.normalize, lambda x: x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)),
    "normalize_p1": (lambda x: MF.normalize(x, 1.0, 0), lambda x: x / np.abs(x).sum(0, keepdims=True)),
}


@pytest.mark.parametrize("name", sorted(MINTF))
def test_mint_functional_matches_numpy(name):
    fn, ref = MINTF[name]
    np.testing.assert_allclose(_both(fn, X), ref(X), rtol=1e-5, atol=1e-6)


def test_mint_activation_gradients_match_jax():
    for fn, ref in ((lambda x: MF.elu(x, 0.5), lambda x: jax.nn.elu(x, 0.5)), (MF.mish, lambda x: x * jax.numpy.tanh(
            jax.nn.softplus(x))), (MF.selu, jax.nn.selu), (MF.logsigmoid, jax.nn.log_sigmoid)):
        g = msx.grad(lambda t: fn(t).sum())(T(X)).asnumpy()
        np.testing.assert_allclose(g, jax.grad(lambda v: ref(v).sum())(X), rtol=1e-5, atol=1e-6)


def test_kl_div():
    p = RNG.uniform(0.05, 0.95, X.shape).astype(np.float32)
    want = p * (np.log(p) - X)
    np.testing.assert_allclose(_both(lambda a, b: MF.kl_div(a, b, "sum"), X, p), want.sum(), rtol=1e-5)
    np.testing.assert_allclose(MF.kl_div(T(X), T(p), "batchmean").asnumpy(), want.sum() / 2, rtol=1e-5)
    np.testing.assert_allclose(MF.kl_div(T(X), T(np.log(p)), "none", True).asnumpy(), want, rtol=1e-5, atol=1e-6)


def test_pools_on_non_divisible_sizes_and_mint_forms():
    x = RNG.standard_normal((2, 3, 7)).astype(np.float32)
    bins = [(0, 3), (2, 5), (4, 7)]  # torch's adaptive windows of 7 -> 3
    np.testing.assert_allclose(_both(lambda t: ops.adaptive_avg_pool1d(t, 3), x),
                               np.stack([x[..., a:b].mean(-1) for a, b in bins], -1), rtol=1e-6)
    np.testing.assert_allclose(_both(lambda t: MF.adaptive_max_pool1d(t, 3), x),
                               np.stack([x[..., a:b].max(-1) for a, b in bins], -1), rtol=1e-6)
    x4 = RNG.standard_normal((1, 2, 4, 4)).astype(np.float32)
    np.testing.assert_allclose(_both(lambda t: MF.adaptive_avg_pool2d(t, 2), x4),
                               x4.reshape(1, 2, 2, 2, 2, 2).mean((3, 5)), rtol=1e-6)
    np.testing.assert_allclose(_both(lambda t: MF.avg_pool1d(t, 2), x[..., :6]),
                               x[..., :6].reshape(2, 3, 3, 2).mean(-1), rtol=1e-6)
    values, argmax = ops.adaptive_max_pool2d(T(x4), 2, True)  # the indices: MindSpore goldens in case_fractional_pool
    np.testing.assert_array_equal(values.asnumpy(), np.take_along_axis(
        x4.reshape(1, 2, 16), argmax.asnumpy().reshape(1, 2, 4), 2).reshape(1, 2, 2, 2))
    with pytest.raises(msx.errors.OpError):
        ops.avg_pool1d(T(x4), 2)


def test_embedding_padding_row_gets_no_gradient():
    w = RNG.standard_normal((5, 3)).astype(np.float32)
    idx = np.array([[0, 1, 1], [4, 1, 2]], np.int32)
    np.testing.assert_array_equal(_both(lambda i, t: ops.embedding(i, t), idx, w), w[idx])
    g = msx.grad(lambda t: (MF.embedding(T(idx), t, padding_idx=1) * 2).sum())(T(w)).asnumpy()
    want = np.zeros_like(w)
    np.add.at(want, idx[idx != 1], 2.0)
    np.testing.assert_array_equal(g, want)
    with pytest.raises(ValueError, match="max_norm"):
        ops.embedding(T(idx), T(w), max_norm=1.0)


def test_rms_norm():
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    gamma = RNG.standard_normal((4,)).astype(np.float32)
    y, rstd = ops.rms_norm(T(x), T(gamma))
    want_rstd = 1 / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6)
    np.testing.assert_allclose(rstd.asnumpy(), want_rstd, rtol=1e-5)
    np.testing.assert_allclose(y.asnumpy(), x * want_rstd * gamma, rtol=1e-5, atol=1e-6)


def test_channel_dropouts():
    x = np.ones((4, 8, 3, 3), np.float32)
    msx.set_seed(3)
    y = ops.dropout2d(T(x), 0.5).asnumpy()
    per_channel = y.reshape(4, 8, 9)
    assert set(np.unique(per_channel)) <= {0.0, 2.0}
    assert (per_channel.min(-1) == per_channel.max(-1)).all()  # whole channels kept or dropped
    assert 0 < (per_channel[..., 0] == 0).mean() < 1
    np.testing.assert_array_equal(ops.dropout1d(T(x[..., 0]), 0.3, False).asnumpy(), x[..., 0])
    np.testing.assert_array_equal(ops.dropout3d(T(x[None]), 1.0).asnumpy(), 0 * x[None])
    assert mint.nn.functional.dropout2d(T(x), 0.0).shape == x.shape
