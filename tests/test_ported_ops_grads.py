"""Gradients of the ops ported in the third API round (tests/golden_ops/case_ported_names.py holds their values
against MindSpore 2.10): each against central finite differences in float64, on smooth points."""
import numpy as np
import pytest

import msx
from msx import ops

# primitives whose gradients this file checks (tests/test_ops.py's coverage test counts them)
FD_CHECKED_GRADS = {"AffineGrid", "ExtractImagePatches", "HSVToRGB", "Padding", "ViewAsReal"}
_R = np.random.default_rng(11)


def _finite_difference(loss, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    want = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        want[i] = (loss(msx.Tensor(up)).asnumpy() - loss(msx.Tensor(down)).asnumpy()) / (2 * eps)
    return want


CALLS = {
    "affine_grid": (lambda t: ops.affine_grid(t, (1, 1, 3, 4)), _R.standard_normal((1, 2, 3))),
    "extract_image_patches": (lambda t: ops.ExtractImagePatches([1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1],
                                                                "VALID")(t), _R.standard_normal((1, 2, 3, 3))),
    # hue away from the sector edges (h*6 not an integer), saturation and value inside (0, 1)
    "hsv_to_rgb": (lambda t: ops.HSVToRGB()(t), np.stack([_R.uniform(0.05, 0.95, (1, 2, 2)) * 0 +
                                                          np.array([[[0.1, 0.3], [0.55, 0.9]]]),
                                                          _R.uniform(0.2, 0.8, (1, 2, 2)),
                                                          _R.uniform(0.2, 0.8, (1, 2, 2))], -1)),
    "padding": (lambda t: ops.padding(t, 4), _R.standard_normal((3, 1))),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_gradients_match_finite_differences(name):
    fn, x = CALLS[name]
    x = x.astype(np.float64)
    w = msx.Tensor(_R.standard_normal(fn(msx.Tensor(x)).shape))

    def loss(t):
        return (fn(t) * w).sum()

    got = msx.grad(loss)(msx.Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, _finite_difference(loss, x), rtol=1e-5, atol=1e-6)


def test_view_as_real_gradient_is_the_cotangent_as_a_complex_number():
    """view_as_real's VJP: the (..., 2) real cotangent read back as a complex number, conjugated as jax.grad gives
    a real function's gradient at a complex point (real - 1j * imag; torch gives its conjugate)."""
    z = msx.Tensor((_R.standard_normal(3) + 1j * _R.standard_normal(3)).astype(np.complex64))
    w = _R.standard_normal((3, 2)).astype(np.float32)
    got = msx.grad(lambda t: (ops.view_as_real(t) * msx.Tensor(w)).sum())(z).asnumpy()
    np.testing.assert_allclose(got, w[:, 0] - 1j * w[:, 1], rtol=1e-6)
