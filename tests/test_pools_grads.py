"""Finite-difference gradient checks of the pooling, sampling, patch and colour ops of this round
(msx/ops/fractional_pool_ops.py, pool_argmax_ops.py's AdaptiveMaxPool2D, color_adjust_ops.py,
morphology_patch_ops.py, sampling_ops.py's GridSampler3D, deformable_ops.py): d sum(op(x) * w) / dx by msx.grad
against central differences (float64 where the op takes it; DeformableOffsets takes float32 only, so looser)."""
from __future__ import annotations

import numpy as np
import pytest

import msx
from msx import ops

FD_CHECKED_GRADS = {"FractionalMaxPoolWithFixedKsize", "FractionalMaxPool3DWithFixedKsize", "FractionalMaxPool",
                    "FractionalAvgPool", "AdaptiveMaxPool2D", "AdjustHue", "AdjustSaturation",
                    "ExtractVolumePatches", "Dilation2D", "GridSampler3D", "DeformableOffsets"}
_RNG = np.random.default_rng(21)


def _fd_check(fn, x: np.ndarray, eps: float = 1e-6, tol: float = 1e-6) -> None:
    w = _RNG.standard_normal(np.shape(fn(msx.Tensor(x)))).astype(x.dtype)

    def loss(t):
        return (fn(t) * msx.Tensor(w)).sum()

    got = msx.grad(loss)(msx.Tensor(x)).asnumpy()
    want = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        want[i] = (loss(msx.Tensor(up)).asnumpy() - loss(msx.Tensor(down)).asnumpy()) / (2 * eps)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


_S2 = msx.Tensor(_RNG.uniform(0, 1, (1, 2, 2)))
_S3 = msx.Tensor(_RNG.uniform(0, 1, (1, 1, 3)))
_GRID = msx.Tensor(_RNG.uniform(-1.1, 1.1, (1, 2, 2, 2, 3)))
_FILTER = msx.Tensor(_RNG.standard_normal((2, 2, 2)))

CASES = {
    "FractionalMaxPoolWithFixedKsize": (lambda x: ops.FractionalMaxPoolWithFixedKsize(2, (3, 2))(x, _S2)[0],
                                        (1, 2, 4, 4)),
    "FractionalMaxPool3DWithFixedKsize": (lambda x: ops.FractionalMaxPool3DWithFixedKsize(2, 2)(x, _S3)[0],
                                          (1, 1, 3, 3, 4)),
    "FractionalMaxPool": (lambda x: ops.FractionalMaxPool([1.0, 1.5, 1.4, 1.0], deterministic=True, seed=2)(x)[0],
                          (1, 4, 5, 2)),
    "FractionalAvgPool": (lambda x: ops.FractionalAvgPool([1.0, 1.5, 1.4, 1.0], overlapping=True, deterministic=True,
                                                          seed=3)(x)[0], (1, 4, 5, 2)),
    "AdaptiveMaxPool2D": (lambda x: ops.AdaptiveMaxPool2D((2, 3))(x)[0], (1, 2, 3, 5)),
    "AdjustHue": (lambda x: ops.AdjustHue()(x, msx.Tensor(np.float32(0.3))), (2, 2, 3)),
    "AdjustSaturation": (lambda x: ops.AdjustSaturation()(x, msx.Tensor(np.float32(0.6))), (2, 2, 3)),
    "ExtractVolumePatches": (lambda x: ops.ExtractVolumePatches(2, 1, "SAME")(x), (1, 1, 2, 3, 3)),
    "Dilation2D": (lambda x: ops.Dilation2D(1, 1, "same")(x, _FILTER), (1, 2, 3, 3)),
    "GridSampler3D": (lambda x: ops.GridSampler3D(align_corners=True)(x, _GRID), (1, 2, 2, 3, 3)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_matches_finite_differences(name):
    fn, shape = CASES[name]
    x = _RNG.uniform(0.05, 0.95, shape) if name.startswith("Adjust") else _RNG.standard_normal(shape)
    if name == "AdjustSaturation":
        x[..., 0] += 0.02  # keep channels apart: the hue's formula switches where two are equal
    _fd_check(fn, x)


def test_deformable_offsets_gradient_wrt_x_and_offsets():
    x = _RNG.standard_normal((1, 2, 3, 4)).astype(np.float32)
    off = np.concatenate([_RNG.uniform(-0.8, 0.8, (1, 8, 2, 3)), _RNG.uniform(0.2, 1, (1, 4, 2, 3))], 1)
    off = (np.round(off * 16) / 16 + 1 / 32).astype(np.float32)  # away from the integer kinks of bilinear
    op = ops.DeformableOffsets((1, 1, 1, 1), (0, 0, 0, 0), (2, 2))
    _fd_check(lambda t: op(t, msx.Tensor(off)), x, eps=1e-2, tol=2e-3)
    _fd_check(lambda t: op(msx.Tensor(x), t), off, eps=1e-3, tol=5e-3)
