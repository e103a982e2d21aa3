"""BatchNorm's training-mode derivative (`msx.ops.batch_norm_train`): MindSpore's BatchNormGrad closed form,
checked against that formula written out in float64 numpy, eager and under jit, and in forward mode and at
second order against jax's autodiff of the plain formula in float64. (Its reason, a jitted RepVGG-A0 step 1e-2
away from float64 with autodiff's formulation, is pinned by tests/test_model_zoo.py's repvgg tolerance.)"""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import msx
from msx import nn
from msx.ops import batch_norm_train

EPS = 1e-5


def bn_grad_reference(x, gamma, dy):
    """MindSpore's BatchNormGrad in float64: (dx, dgamma, dbeta) over axes (0, 2, 3)."""
    x, gamma, dy = (np.asarray(a, np.float64) for a in (x, gamma, dy))
    axes, shape = (0, 2, 3), (1, -1, 1, 1)
    xhat = (x - x.mean(axes, keepdims=True)) / np.sqrt(x.var(axes, keepdims=True) + EPS)
    rstd = 1 / np.sqrt(x.var(axes, keepdims=True) + EPS)
    dx = gamma.reshape(shape) * rstd * (dy - dy.mean(axes, keepdims=True)
                                        - xhat * (dy * xhat).mean(axes, keepdims=True))
    return dx, (dy * xhat).sum(axes), dy.sum(axes)


@pytest.fixture(scope="module", params=[(4, 6, 2, 2), (4, 6, 1, 1)], ids=["2x2", "1x1"])
def case(request):
    rng = np.random.default_rng(3)
    shape = request.param
    x = (rng.standard_normal(shape) * rng.uniform(0.2, 2, (1, shape[1], 1, 1)) + 0.5).astype(np.float32)
    gamma = rng.uniform(0.8, 1.2, shape[1]).astype(np.float32)
    beta = (0.05 * rng.standard_normal(shape[1])).astype(np.float32)
    dy = rng.standard_normal(shape).astype(np.float32)
    return x, gamma, beta, dy, bn_grad_reference(x, gamma, dy)


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
def test_batchnorm2d_gradients_are_batchnormgrad(case, jit):
    x, gamma, beta, dy, want = case
    bn = nn.BatchNorm2d(x.shape[1], gamma_init=msx.Tensor(gamma), beta_init=msx.Tensor(beta)).set_train()
    grad_fn = msx.value_and_grad(lambda a: (bn(a) * msx.Tensor(dy)).sum(), 0, bn.trainable_params())
    _, (dx, (dgamma, dbeta)) = (msx.jit(grad_fn) if jit else grad_fn)(msx.Tensor(x))
    for got, ref, what in zip((dx, dgamma, dbeta), want, ("dx", "dgamma", "dbeta")):
        np.testing.assert_allclose(got.asnumpy(), ref, rtol=2e-5, atol=2e-5 * np.abs(ref).max(), err_msg=what)


def _plain(x, gamma):
    """The formula autodiff used to differentiate (float64 here, so both derivatives must agree)."""
    m, v = x.mean((0, 2, 3), keepdims=True), x.var((0, 2, 3), keepdims=True)
    return (x - m) / jnp.sqrt(v + EPS) * gamma.reshape(1, -1, 1, 1), m.ravel(), v.ravel()


def test_forward_mode_and_second_order_equal_autodiff_in_float64(case):
    x, gamma, _, dy, _ = (np.asarray(a, np.float64) if isinstance(a, np.ndarray) else a for a in case)
    tx, tg = np.cos(x), np.sin(gamma)

    def ours(x, gamma):
        return batch_norm_train.normalize(x, gamma, EPS, 1)

    with jax.enable_x64(True):
        got_out, got_tan = jax.jvp(ours, (x, gamma), (tx, tg))
        want_out, want_tan = jax.jvp(_plain, (x, gamma), (tx, tg))
        for g, w in zip(got_out + got_tan, want_out + want_tan):
            np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)

        def hvp(f):  # d/dx of <dy, d f(x)/dx . tx>: a second-order derivative through the rule
            return jax.grad(lambda x: jnp.sum(dy * jax.jvp(lambda u: f(u, gamma)[0], (x,), (tx,))[1]))(x)

        np.testing.assert_allclose(hvp(ours), hvp(_plain), rtol=1e-9, atol=1e-11)
