"""`nn.LARS` around `nn.Momentum`: MindSpore 2.10 has no CPU kernel for LARSUpdate (its CPU `nn.LARS` fails at
kernel selection), so each step is checked against that kernel's formula (LarsV2Update: coeff =
coefficient |w| / (|g| + wd |w| + eps), clipped to [0, 1] after dividing by lr with use_clip) followed by
MindSpore's momentum rule, written in numpy; eagerly and as a jitted step."""
import numpy as np
import pytest

import msx as ms

W0 = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
B0 = np.array([0.5, -1.0], np.float32)
GRADS = [(np.array([[0.1, -0.2], [0.3, 0.05]], np.float32) * (k + 1), np.array([0.2, 0.1], np.float32))
         for k in range(3)]


def _reference(lr, momentum, wd, eps, coef, use_clip, loss_scale=1.0):
    w, b = W0.astype(np.float64), B0.astype(np.float64)
    vw, vb = np.zeros_like(w), np.zeros_like(b)
    out = []
    for gw, gb in GRADS:
        d = wd / loss_scale  # (the step gets gradients scaled by loss_scale; LARS unscales them first)
        wn, gn = np.sqrt((w * w).sum()), np.sqrt((gw * gw).sum())
        coeff = coef * wn / (gn + d * wn + eps)
        if use_clip:
            coeff = min(max(coeff / lr, 0.0), 1.0)
        gw = (gw + d * w) * coeff
        vw, vb = momentum * vw + gw, momentum * vb + gb  # MindSpore's ApplyMomentum: v = m v + g; p -= lr v
        w, b = w - lr * vw, b - lr * vb
        out.append((w.copy(), b.copy()))
    return out


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("use_clip,loss_scale", [(False, 1.0), (True, 1.0), (False, 4.0)])
def test_lars_momentum_follows_the_kernel_formula(use_clip, loss_scale, jit):
    w = ms.Parameter(ms.Tensor(W0.copy()), name="w")
    b = ms.Parameter(ms.Tensor(B0.copy()), name="bias")
    inner = ms.nn.Momentum([w, b], 0.1, 0.9, weight_decay=0.01, loss_scale=loss_scale)
    lars = ms.nn.LARS(inner, epsilon=1e-5, coefficient=0.02, use_clip=use_clip)
    assert lars.lars_flag == (True, False)  # the default filter leaves biases alone
    step = ms.jit(lambda gw, gb: lars((gw, gb)), fullgraph=True) if jit else (lambda gw, gb: lars((gw, gb)))
    want = _reference(0.1, 0.9, 0.01, 1e-5, 0.02, use_clip, loss_scale)
    for (gw, gb), (ww, wb) in zip(GRADS, want):
        step(ms.Tensor(gw * loss_scale), ms.Tensor(gb * loss_scale))
        np.testing.assert_allclose(w.asnumpy(), ww, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(b.asnumpy(), wb, rtol=1e-5, atol=1e-6)
    assert int(inner.global_step.asnumpy()[0]) == 3 and isinstance(lars, ms.nn.Optimizer)


def test_lars_checks_its_arguments():
    w = ms.Parameter(ms.Tensor(W0.copy()), name="w")
    inner = ms.nn.Momentum([w], 0.1, 0.9)
    with pytest.raises(TypeError, match="nn.Optimizer"):
        ms.nn.LARS(object())
    with pytest.raises(TypeError, match="epsilon must be a float"):
        ms.nn.LARS(inner, epsilon=1)
    with pytest.raises(TypeError, match="use_clip must be a bool"):
        ms.nn.LARS(inner, use_clip=1)
