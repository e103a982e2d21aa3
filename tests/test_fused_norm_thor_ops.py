"""`ops.add_layer_norm`, `ops.add_rms_norm` (`msx/ops/fused_norm_ops.py`) and THOR's `CholeskyTrsm` and
`DetTriangle` (`msx/ops/thor_ops.py`). MindSpore 2.10's CPU build has no kernel for any of them (AddLayerNormV2
and AddRmsNorm are Ascend kernels, the THOR ops GPU kernels), so they are checked against numpy written from
MindSpore's documented formulas (and its docstring examples) and from the GPU kernels' cuSOLVER calls, eagerly
and under msx.jit, with finite-difference gradients for the two norms."""
from __future__ import annotations

import inspect

import numpy as np
import pytest

import msx
from msx import Tensor, ops
from msx.errors import OpError, OpTypeError

MODES = ("ast", "bytecode", "trace")
RNG = np.random.default_rng(0)
X1 = RNG.standard_normal((2, 3, 4)).astype(np.float32)
X2 = RNG.standard_normal((2, 3, 4)).astype(np.float32)
G4 = RNG.uniform(0.5, 1.5, (4,)).astype(np.float32)
B4 = RNG.standard_normal((4,)).astype(np.float32)
G34 = RNG.uniform(0.5, 1.5, (3, 4)).astype(np.float32)


def _ln_ref(x1, x2, g, b, eps):
    x = x1.astype(np.float64) + x2
    mean = x.mean(-1, keepdims=True)
    rstd = 1 / np.sqrt(((x - mean) ** 2).mean(-1, keepdims=True) + eps)
    return (x - mean) * rstd * g + b, mean, rstd, x


def _rms_ref(x1, x2, g, eps):
    x = x1.astype(np.float64) + x2
    axes = tuple(range(x.ndim - g.ndim, x.ndim))
    rstd = 1 / np.sqrt((x * x).mean(axes, keepdims=True) + eps)
    return x * rstd * g, rstd, x


def _run(fn, mode, *args):
    return (fn if mode == "eager" else msx.jit(fn, capture_mode=mode))(*args)


@pytest.mark.parametrize("mode", ("eager",) + MODES)
def test_add_layer_norm_formula(mode):
    out = _run(lambda a, b: ops.add_layer_norm(a, b, Tensor(G4), Tensor(B4), 1e-5, True), mode, Tensor(X1),
               Tensor(X2))
    assert isinstance(out, tuple) and len(out) == 4
    for got, want in zip(out, _ln_ref(X1, X2, G4, B4, 1e-5)):
        assert got.shape == want.shape and got.asnumpy().dtype == np.float32
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", ("eager",) + MODES)
@pytest.mark.parametrize("gamma", ["last", "two"])
def test_add_rms_norm_formula(mode, gamma):
    g = G4 if gamma == "last" else G34
    out = _run(lambda a, b: ops.add_rms_norm(a, b, Tensor(g)), mode, Tensor(X1), Tensor(X2))
    assert isinstance(out, tuple) and len(out) == 3
    for got, want in zip(out, _rms_ref(X1, X2, g, 1e-6)):
        assert got.shape == want.shape
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-6)
    assert out[1].shape == ((2, 3, 1) if gamma == "last" else (2, 1, 1))


def test_docstring_examples():
    """The examples in MindSpore 2.10's add_layer_norm and add_rms_norm docstrings."""
    x = Tensor(np.array([[1, 2, 3], [1, 2, 3]], np.float32))
    y, mean, rstd, _ = ops.add_layer_norm(x, x, Tensor(np.ones(3, np.float32)), Tensor(np.zeros(3, np.float32)),
                                          1e-7)
    np.testing.assert_allclose(y.asnumpy(), [[-1.2247448, 0, 1.2247448]] * 2, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(mean.asnumpy(), [[4], [4]])
    np.testing.assert_allclose(rstd.asnumpy(), [[0.6123724], [0.6123724]], rtol=1e-6)
    h = Tensor(np.array([[0.5, 1.0, 1.5], [0.5, 1.0, 1.5]], np.float32))
    y, rstd, _ = ops.add_rms_norm(h, h, Tensor(np.ones(3, np.float32)))
    np.testing.assert_allclose(y.asnumpy(), [[0.46290997, 0.92581993, 1.3887299]] * 2, rtol=1e-6)
    np.testing.assert_allclose(rstd.asnumpy(), [[0.46290997], [0.46290997]], rtol=1e-6)


def test_half_precision_keeps_dtypes():
    a, b = Tensor(X1.astype(np.float16)), Tensor(X2.astype(np.float16))
    y, mean, rstd, x = ops.add_layer_norm(a, b, Tensor(G4.astype(np.float16)), Tensor(B4.astype(np.float16)))
    assert {t.asnumpy().dtype for t in (y, mean, rstd, x)} == {np.dtype(np.float16)}
    np.testing.assert_allclose(y.asnumpy(), _ln_ref(X1.astype(np.float16), X2.astype(np.float16), G4, B4, 1e-5)[0],
                               atol=1e-2)
    y, rstd, x = ops.add_rms_norm(a, b, Tensor(G4.astype(np.float16)))
    assert y.asnumpy().dtype == np.float16 and rstd.asnumpy().dtype == np.float32


@pytest.mark.parametrize("which", ["layer", "rms"])
def test_gradients_match_the_formulas_gradient(which):
    """msx.grad through the float32 primitive against jax.grad of the documented formula in float64 (MindSpore
    refuses float64 inputs, so no finite differences on the op itself)."""
    import jax
    import jax.numpy as jnp

    x1, x2, w = X1[0], X2[0], RNG.standard_normal((3, 4)).astype(np.float32)

    def ref(a, c, g):
        x = a + c
        if which == "layer":
            m = x.mean(-1, keepdims=True)
            y = (x - m) / jnp.sqrt(((x - m) ** 2).mean(-1, keepdims=True) + 1e-5) * g + B4
        else:
            y = x / jnp.sqrt((x * x).mean(-1, keepdims=True) + 1e-6) * g
        return (y * w).sum()

    def loss(a, c, g):
        out = ops.add_layer_norm(a, c, g, Tensor(B4))[0] if which == "layer" else ops.add_rms_norm(a, c, g)[0]
        return (out * Tensor(w)).sum()

    got = msx.grad(loss, grad_position=(0, 1, 2))(Tensor(x1), Tensor(x2), Tensor(G4))
    want = jax.grad(ref, argnums=(0, 1, 2))(*(jnp.asarray(v, jnp.float64) for v in (x1, x2, G4)))
    for a, n in zip(got, want):
        np.testing.assert_allclose(a.asnumpy(), np.asarray(n), rtol=1e-4, atol=1e-5)


def test_norm_bad_input():
    a, b = Tensor(X1), Tensor(X2)
    with pytest.raises(OpError, match=r"add_layer_norm: gamma must be a 1-D Tensor of x1's last dim \(4,\)"):
        ops.add_layer_norm(a, b, Tensor(G34), Tensor(B4))
    with pytest.raises(OpError, match=r"add_rms_norm: x2 must have x1's shape and dtype float32\(2, 3, 4\)"):
        ops.add_rms_norm(a, Tensor(X2[0]), Tensor(G4))
    with pytest.raises(OpTypeError, match="add_rms_norm: x1 must be a float16, bfloat16 or float32 Tensor"):
        ops.add_rms_norm(Tensor(X1.astype(np.int32)), Tensor(X2.astype(np.int32)), Tensor(G4))
    with pytest.raises(OpError, match="add_rms_norm: epsilon must be in"):
        ops.add_rms_norm(a, b, Tensor(G4), 2.0)
    with pytest.raises(OpTypeError, match="add_layer_norm: additional_output must be a bool"):
        ops.add_layer_norm(a, b, Tensor(G4), Tensor(B4), 1e-5, 1)


def test_norm_signatures_are_mindsporess():
    assert str(inspect.signature(ops.add_layer_norm)) == "(x1, x2, gamma, beta, epsilon=1e-05, additional_output=False)"
    assert str(inspect.signature(ops.add_rms_norm)) == "(x1, x2, gamma, epsilon=1e-06)"


# ---------------------------------------------------------------- THOR
def _spd(*shape):
    a = RNG.uniform(-1, 1, shape).astype(np.float32)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1], dtype=np.float32)


@pytest.mark.parametrize("mode", ("eager",) + MODES)
def test_cholesky_trsm_is_the_inverse_cholesky_factor(mode):
    """cuSOLVER's upper potrf + trsm on the identity, read row-major: inv(L) with x = L L^T (lower)."""
    for x in (_spd(4, 4), _spd(2, 3, 3)):
        got = _run(lambda t: ops.CholeskyTrsm()(t), mode, Tensor(x)).asnumpy()
        want = np.linalg.inv(np.linalg.cholesky(x.astype(np.float64)))
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
        assert np.allclose(np.triu(got, 1), 0)


def test_cholesky_trsm_split_dim_blocks():
    """split_dim=k: the diagonal k x k blocks, the last one padded with the identity (MindSpore's BatchEye +
    MatrixSplit); no larger than k: one block."""
    x = _spd(5, 5)
    got = ops.CholeskyTrsm(split_dim=2)(Tensor(x)).asnumpy()
    assert got.shape == (3, 2, 2)
    for i in range(2):
        blk = x[2 * i:2 * i + 2, 2 * i:2 * i + 2].astype(np.float64)
        np.testing.assert_allclose(got[i], np.linalg.inv(np.linalg.cholesky(blk)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[2], [[1 / np.sqrt(x[4, 4]), 0], [0, 1]], rtol=1e-5)
    assert ops.CholeskyTrsm(split_dim=8)(Tensor(x)).shape == (1, 5, 5)


@pytest.mark.parametrize("mode", ("eager",) + MODES)
def test_det_triangle_product_of_the_diagonal(mode):
    low = np.tril(_spd(2, 3, 3))
    got = _run(lambda t: ops.DetTriangle()(t), mode, Tensor(low))
    np.testing.assert_allclose(got.asnumpy(), np.prod(np.diagonal(low, axis1=-2, axis2=-1), -1), rtol=1e-6)
    up = np.swapaxes(low, -1, -2).copy()
    np.testing.assert_allclose(ops.DetTriangle(fill_mode=1)(Tensor(up)).asnumpy(), got.asnumpy(), rtol=1e-6)


def test_det_triangle_gradient_is_the_diagonal_products():
    """d prod(diag(x)) / dx[i, i] = prod of the other diagonal entries (jax.grad of the formula in float64)."""
    import jax
    import jax.numpy as jnp

    low = np.tril(_spd(3, 3)) / 3
    got = msx.grad(lambda t: ops.DetTriangle()(t))(Tensor(low)).asnumpy()
    want = jax.grad(lambda a: jnp.prod(jnp.diagonal(a)))(jnp.asarray(low, jnp.float64))
    np.testing.assert_allclose(got, np.asarray(want), rtol=1e-5, atol=1e-7)


def test_thor_bad_input():
    low = np.tril(_spd(3, 3))
    with pytest.raises(OpError, match="DetTriangle: the elements in the upper half of the matrices must all be 0"):
        ops.DetTriangle()(Tensor(low.T.copy()))
    with pytest.raises(OpError, match="DetTriangle: fill_mode must be 0"):
        ops.DetTriangle(fill_mode=2)(Tensor(low))
    with pytest.raises(OpError, match=r"CholeskyTrsm: x must be a \(m, m\) or \(b, m, m\) matrix"):
        ops.CholeskyTrsm()(Tensor(np.ones((2, 3), np.float32)))
    with pytest.raises(OpTypeError, match="CholeskyTrsm: x must be a float32 or float64 Tensor"):
        ops.CholeskyTrsm()(Tensor(np.ones((2, 2), np.int32)))


def test_thor_constructors_are_mindsporess():
    for name, want in (("CholeskyTrsm", "(lower=False, clean=True, split_dim=0)"), ("DetTriangle", "(fill_mode=0)")):
        cls = getattr(ops, name)
        assert cls is getattr(msx.ops.operations, name)
        params = list(inspect.signature(cls.__init__).parameters.values())[1:]
        assert "(" + ", ".join(str(p) for p in params) + ")" == want
