"""`ops.HistogramFixedWidth` (no MindSpore CPU kernel: against numpy, eagerly and under jit) and the errors of
`ops.TridiagonalMatMul`, `CompareAndBitpack`, `DataFormatDimMap`, `DataFormatVecPermute`, `HistogramFixedWidth`
(their values: tests/golden_ops/case_format_bits_ops.py, against MindSpore 2.10)."""
from __future__ import annotations

import numpy as np
import pytest

import msx
from msx import Tensor, ops
from msx.errors import OpError, OpTypeError


def _ref_histogram(x, lo, hi, nbins):
    idx = np.clip(np.floor((x.astype(np.float64) - lo) / (hi - lo) * nbins), 0, nbins - 1).astype(np.int64)
    return np.bincount(idx, minlength=nbins).astype(np.int32)


CASES = [
    (np.array([-1.0, 0.0, 1.5, 2.0, 5.0, 12.0, 15.0, 4.99, 3.0], np.float32), (0.0, 15.0), 5),
    (np.array([-3, 0, 1, 7, 9, 10, 20, 4], np.int32), (0, 10), 3),
    (np.random.default_rng(0).uniform(-2, 2, 50).astype(np.float16), (-1.0, 1.0), 4),
]


@pytest.mark.parametrize("mode", ("eager", "ast", "bytecode", "trace"))
@pytest.mark.parametrize("k", range(len(CASES)))
def test_histogram_fixed_width_matches_numpy(k, mode):
    x, (lo, hi), nbins = CASES[k]
    op = ops.HistogramFixedWidth(nbins)
    rng = Tensor(np.array([lo, hi], x.dtype))

    def fn(a, r):
        return op(a, r)

    f = fn if mode == "eager" else msx.jit(fn, capture_mode=mode)
    for _ in range(2):
        out = f(Tensor(x), rng)
        assert out.asnumpy().dtype == np.int32
        np.testing.assert_array_equal(out.asnumpy(), _ref_histogram(x, lo, hi, nbins))


def test_bad_inputs_name_the_op():
    f32 = np.ones((1, 4), np.float32)
    with pytest.raises(OpError, match=r"TridiagonalMatMul: the diagonals must have shape \(1, 3\)"):
        ops.TridiagonalMatMul()(Tensor(f32), Tensor(f32), Tensor(f32), Tensor(np.ones((3, 2), np.float32)))
    with pytest.raises(OpTypeError, match="TridiagonalMatMul: superdiag dtype must be one of"):
        ops.TridiagonalMatMul()(*[Tensor(np.ones((1, 4), np.int32))] * 3, Tensor(np.ones((4, 2), np.int32)))
    with pytest.raises(OpError, match=r"CompareAndBitpack: x's innermost dimension must be divisible by 8, got "
                                      r"shape \(2, 6\)"):
        ops.CompareAndBitpack()(Tensor(np.ones((2, 6), np.float32)), Tensor(np.float32(0)))
    with pytest.raises(OpTypeError, match="CompareAndBitpack: threshold dtype must be x's"):
        ops.CompareAndBitpack()(Tensor(np.ones((2, 8), np.float32)), Tensor(np.int32(0)))
    with pytest.raises(OpError, match="DataFormatDimMap: src_format must be 'NHWC' or 'NCHW', got 'NDHWC'"):
        ops.DataFormatDimMap(src_format="NDHWC")(Tensor(np.array([0], np.int32)))
    with pytest.raises(OpTypeError, match="DataFormatDimMap: input_x dtype must be int32, got int64"):
        ops.DataFormatDimMap()(Tensor(np.array([0], np.int64)))
    with pytest.raises(OpError, match=r"DataFormatVecPermute: input_x must have shape \(4,\) or \(4, 2\)"):
        ops.DataFormatVecPermute()(Tensor(np.arange(3, dtype=np.int32)))
    with pytest.raises(OpError, match="HistogramFixedWidth: nbins must be a positive int, got 0"):
        ops.HistogramFixedWidth(0)(Tensor(np.ones(3, np.float32)), Tensor(np.array([0.0, 1.0], np.float32)))
    with pytest.raises(OpTypeError, match="HistogramFixedWidth: range must have x.s dtype"):
        ops.HistogramFixedWidth(2)(Tensor(np.ones(3, np.float32)), Tensor(np.array([0, 1], np.int32)))
    with pytest.raises(OpError, match="HistogramFixedWidth: dtype must be 'int32'"):
        ops.HistogramFixedWidth(2, dtype="int64")(Tensor(np.ones(3, np.float32)),
                                                  Tensor(np.array([0.0, 1.0], np.float32)))


def test_tridiagonal_matmul_gradients_match_finite_differences():
    rng = np.random.default_rng(5)
    arrays = [rng.standard_normal((2, 1, 4)) for _ in range(3)] + [rng.standard_normal((2, 4, 3))]
    w = rng.standard_normal((2, 4, 3))
    op = ops.TridiagonalMatMul()

    def loss(*xs):
        return (op(*xs) * Tensor(w)).sum()

    got = msx.grad(loss, grad_position=(0, 1, 2, 3))(*[Tensor(a) for a in arrays])
    for pos, g in enumerate(got):
        num = np.zeros_like(arrays[pos])
        for k in np.ndindex(num.shape):
            up = [a.copy() for a in arrays]
            down = [a.copy() for a in arrays]
            up[pos][k] += 1e-6
            down[pos][k] -= 1e-6
            num[k] = (float(loss(*map(Tensor, up)).asnumpy()) - float(loss(*map(Tensor, down)).asnumpy())) / 2e-6
        np.testing.assert_allclose(g.asnumpy(), num, rtol=1e-6, atol=1e-8)
