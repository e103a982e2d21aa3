"""Ops added for model-zoo programs (issue 29): every jit capture mode gives eager's answer, and bad input
is an msx error naming the op. Values against MindSpore 2.10 are in tests/golden_ops (test_ops_golden.py)."""
from __future__ import annotations

import numpy as np
import pytest

import msx
from msx import ops

_R = np.random.default_rng(3)
_A = np.array([[0, 0, 4, 4], [1, 2, 5, 8]], np.float32)
_B = np.array([[1, 1, 3, 5], [0, 3, 4, 7]], np.float32)
_X = _R.standard_normal((1, 2, 4, 5)).astype(np.float32)

CALLS = {
    "bbox_encode": (lambda a, b: ops.BoundingBoxEncode(stds=(1.0, 1.0, 0.5, 0.5))(a, b), (_A, _B)),
    "bbox_decode": (lambda a, d: ops.bounding_box_decode(a, d, (6, 7)), (_A, _B / 10)),
    "unfold": (lambda x: ops.unfold(x, 2, padding=1, stride=2), (_X,)),
    "fold": (lambda x: ops.fold(x, msx.Tensor(np.array([4, 5], np.int32)), 2, padding=1, stride=2),
             (_R.standard_normal((1, 8, 9)).astype(np.float32),)),
    "grid_sample": (lambda x, g: ops.grid_sample(x, g, padding_mode="reflection"),
                    (_X, _R.uniform(-1.2, 1.2, (1, 3, 2, 2)).astype(np.float32))),
}


@pytest.mark.parametrize("mode", ["ast", "bytecode", "trace"])
@pytest.mark.parametrize("name", sorted(CALLS))
def test_jit_modes_equal_eager(name, mode):
    fn, inputs = CALLS[name]
    xs = [msx.Tensor(a) for a in inputs]
    want = fn(*xs).asnumpy()
    jitted = msx.jit(fn, capture_mode=mode)
    for _ in range(2):
        np.testing.assert_allclose(jitted(*xs).asnumpy(), want, rtol=1e-6, atol=1e-6)


def test_bad_input_names_the_op():
    with pytest.raises(msx.errors.OpError, match="BoundingBoxEncode"):
        ops.BoundingBoxEncode()(msx.Tensor(_A[:, :3]), msx.Tensor(_B))
    with pytest.raises(msx.errors.OpError, match="BoundingBoxDecode"):
        ops.BoundingBoxDecode((6, 7))(msx.Tensor(_A), msx.Tensor(_B[:1]))
    with pytest.raises(msx.errors.OpError, match="Im2Col"):
        ops.unfold(msx.Tensor(_X[0]), 2)
    with pytest.raises(ValueError, match="fold"):
        ops.fold(msx.Tensor(_X), (3, 4), 2)
    with pytest.raises(msx.errors.OpError, match="GridSampler2D"):
        ops.grid_sample(msx.Tensor(_X), msx.Tensor(np.zeros((1, 3, 2, 3), np.float32)))


# gradients checked here by finite differences (tests/test_ops.py counts them); MindSpore 2.10 defines no bprop
# for the box ops ("BoundingBoxEncode's bprop not defined"): msx's are jax's derivatives of the same formulas
FD_CHECKED_GRADS = {"GridSampler2D", "BoundingBoxEncode", "BoundingBoxDecode"}


def _finite_difference(loss, arrays: list, pos: int, eps: float = 1e-6) -> np.ndarray:
    want = np.zeros_like(arrays[pos])
    for i in np.ndindex(want.shape):
        up, down = [a.copy() for a in arrays], [a.copy() for a in arrays]
        up[pos][i] += eps
        down[pos][i] -= eps
        want[i] = (loss(*map(msx.Tensor, up)).asnumpy() - loss(*map(msx.Tensor, down)).asnumpy()) / (2 * eps)
    return want


@pytest.mark.parametrize("name", ["bbox_encode", "bbox_decode"])
def test_box_gradients_match_finite_differences(name):
    """Away from the clipping bounds, where the formulas are smooth (float64, so differences are exact enough)."""
    fn, inputs = CALLS[name]
    arrays = [a.astype(np.float64) for a in inputs]
    w = _R.standard_normal((2, 4))

    def loss(a, b):
        return (fn(a, b) * msx.Tensor(w)).sum()

    got = msx.grad(loss, grad_position=(0, 1))(*map(msx.Tensor, arrays))
    for pos, g in enumerate(got):
        np.testing.assert_allclose(g.asnumpy(), _finite_difference(loss, arrays, pos), rtol=1e-5, atol=1e-6)


def test_grid_sample_gradients_match_finite_differences():
    """Both the input's and the grid's gradients (bilinear, inside cells so the function is smooth)."""
    x = _R.standard_normal((1, 1, 3, 4))
    g = np.array([[[[-0.3, 0.2], [0.45, -0.6]]]])
    w = _R.standard_normal((1, 1, 1, 2))

    def loss(x, g):
        return (ops.grid_sample(x, g, align_corners=True) * msx.Tensor(w)).sum()

    got = msx.grad(loss, grad_position=(0, 1))(msx.Tensor(x), msx.Tensor(g))
    for pos, g_got in enumerate(got):
        np.testing.assert_allclose(g_got.asnumpy(), _finite_difference(loss, [x, g], pos), rtol=1e-5, atol=1e-6)
