"""The deterministic ops of the `samplers` round beyond the goldens (tests/golden_ops/case_samplers_sparse.py):
RaggedRange against MindSpore 2.10 (recorded by tests/golden_samplers/record.py), the eager-only ops refused
under jit by name in every capture mode, ConfusionMatrix (no MindSpore CPU kernel) against numpy, MatrixLogarithm
against scipy, CheckNumerics at run time under jit, float_power_ext, stop_gradient_ and bad input."""
from __future__ import annotations

import os

import numpy as np
import pytest
import scipy.linalg

import msx
from msx import Tensor, ops
from msx.errors import OpError, OpTypeError

MODES = ("ast", "bytecode", "trace")
GOLDEN = np.load(os.path.join(os.path.dirname(__file__), "golden_samplers", "samplers.npz"), allow_pickle=False)


@pytest.mark.parametrize("key", ["int32_splits64", "float32_mixed_steps", "int64_scalar_down", "wrong_direction_f64"])
def test_ragged_range_matches_mindspore(key):
    from golden_samplers.record import RAGGED

    s, lim, d, tsplits = RAGGED[key]
    splits, values = ops.RaggedRange(getattr(msx, tsplits))(Tensor(s), Tensor(lim), Tensor(d))
    for got, want in ((splits, GOLDEN[f"ragged_{key}_splits"]), (values, GOLDEN[f"ragged_{key}_values"])):
        got = got.asnumpy()
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_ragged_range_errors():
    one = Tensor(np.array([1], np.int64))
    with pytest.raises(OpError, match="RaggedRange: deltas must not be 0"):
        ops.RaggedRange(msx.int64)(one, one, Tensor(np.array([0], np.int64)))
    with pytest.raises(OpError, match="RaggedRange: starts, limits and deltas must have the same shape"):
        ops.RaggedRange(msx.int64)(one, Tensor(np.array([4, 6], np.int64)), one)
    with pytest.raises(OpError, match="one dtype"):
        ops.RaggedRange(msx.int64)(one, Tensor(np.array([4], np.int32)), one)
    with pytest.raises(OpTypeError, match="Tsplits must be mindspore.int32 or mindspore.int64"):
        ops.RaggedRange(msx.float32)(one, one, one)


def _edit(*a):
    n = Tensor(np.array([2, 3], np.int64))
    return ops.EditDistance()(a[0], a[1], n, a[2], a[3], n)


_EAGER_ONLY = {
    "RaggedRange": (lambda a, b, c: ops.RaggedRange(msx.int32)(a, b, c),
                    [np.array([0, 1], np.int32), np.array([3, 4], np.int32), np.array([1, 2], np.int32)]),
    "EditDistance": (_edit, [np.array([[0, 0], [1, 1]], np.int64), np.array([1, 2], np.int64),
                             np.array([[0, 1]], np.int64), np.array([1], np.int64)]),
    "Coalesce": (ops.coalesce, [np.array([[0, 0], [1, 1]], np.int64), np.array([1.0, 2.0], np.float32),
                                np.array([2, 2], np.int64)]),
    "SparseSegmentMean": (ops.sparse_segment_mean, [np.ones((3, 2), np.float32), np.array([0, 2], np.int32),
                                                    np.array([0, 1], np.int32)]),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("op", sorted(_EAGER_ONLY))
def test_value_dependent_shapes_are_refused_under_jit_by_name(op, mode):
    fn, arrays = _EAGER_ONLY[op]
    inputs = [Tensor(a) for a in arrays]
    fn(*inputs)  # eagerly fine
    with pytest.raises(OpError, match=f"{op}: the result's shape depends on the input values"):
        msx.jit(fn, capture_mode=mode)(*inputs)


def test_sparse_segment_mean_checks_its_inputs():
    x = Tensor(np.ones((3, 2), np.float32))
    with pytest.raises(OpError, match="segment_ids must be sorted"):
        ops.sparse_segment_mean(x, Tensor(np.array([0, 1], np.int32)), Tensor(np.array([1, 0], np.int32)))
    with pytest.raises(OpError, match=r"indices value 5 is out of range \[0, 3\)"):
        ops.sparse_segment_mean(x, Tensor(np.array([5, 1], np.int32)), Tensor(np.array([0, 0], np.int32)))
    with pytest.raises(OpTypeError, match="of one dtype"):
        ops.sparse_segment_mean(x, Tensor(np.array([0, 1], np.int32)), Tensor(np.array([0, 0], np.int64)))
    with pytest.raises(OpTypeError, match="x must be float16, float32 or float64"):
        ops.sparse_segment_mean(Tensor(np.ones((3,), np.int32)), Tensor(np.array([0], np.int32)),
                                Tensor(np.array([0], np.int32)))


def test_coalesce_and_edit_distance_check_their_inputs():
    with pytest.raises(OpError, match=r"Coalesce: x_indices\[1\]\[2\] = 3 exceeds the limit x_shape\[1\] = 3"):
        ops.coalesce(Tensor(np.array([[2, 0, 1], [1, 1, 3]], np.int64)), Tensor(np.array([1, 5, 4], np.float32)),
                     Tensor(np.array([3, 3], np.int64)))
    with pytest.raises(OpError, match="x_values must be float16 or float32"):
        ops.Coalesce()(Tensor(np.array([[0]], np.int64)), Tensor(np.array([1.0])), Tensor(np.array([3], np.int64)))
    ix = Tensor(np.array([[0, 0]], np.int64))
    with pytest.raises(OpError, match="hypothesis_values and truth_values must have one dtype"):
        ops.EditDistance()(ix, Tensor(np.array([1], np.int32)), Tensor(np.array([1, 1], np.int64)), ix,
                           Tensor(np.array([1], np.int64)), Tensor(np.array([1, 1], np.int64)))


def _confusion_numpy(labels, predictions, n, weights=None, dtype=np.int32):
    out = np.zeros((n, n), dtype)
    np.add.at(out, (labels, predictions), 1 if weights is None else weights.astype(dtype))
    return out


def test_confusion_matrix_documented_example_numpy_rule_and_jit():
    got = ops.ConfusionMatrix(4)(Tensor(np.array([0, 1, 1, 3], np.int32)), Tensor(np.array([1, 2, 1, 3], np.int32)))
    np.testing.assert_array_equal(got.asnumpy(), [[0, 1, 0, 0], [0, 1, 1, 0], [0, 0, 0, 0], [0, 0, 0, 1]])
    assert got.dtype == msx.int32
    rng = np.random.default_rng(0)
    lab, pred, w = rng.integers(0, 5, 30), rng.integers(0, 5, 30), rng.uniform(0, 2, 30).astype(np.float32)
    op = ops.ConfusionMatrix(5, "float32")
    got = op(Tensor(lab), Tensor(pred), Tensor(w))
    assert got.dtype == msx.float32
    np.testing.assert_allclose(got.asnumpy(), _confusion_numpy(lab, pred, 5, w, np.float32), rtol=1e-6)
    jitted = msx.jit(lambda a, b, c: op(a, b, c))(Tensor(lab), Tensor(pred), Tensor(w))
    np.testing.assert_allclose(jitted.asnumpy(), got.asnumpy(), rtol=1e-6)
    np.testing.assert_array_equal(ops.ConfusionMatrix(5, "int64")(Tensor(lab), Tensor(pred)).asnumpy(),
                                  _confusion_numpy(lab, pred, 5, dtype=np.int64))
    with pytest.raises(OpError, match=r"ConfusionMatrix: labels must lie in \[0, 5\)"):
        op(Tensor(np.array([0, 7])), Tensor(np.array([0, 1])))
    with pytest.raises(OpTypeError, match="ConfusionMatrix: dtype must be a str"):
        ops.ConfusionMatrix(5, msx.int32)(Tensor(lab), Tensor(pred))


def test_no_repeat_ngram_checks_ids_and_size():
    seq = Tensor(np.array([[[1, 2, 1, 2]]], np.int32))
    lp = Tensor(np.zeros((1, 1, 5), np.float32))
    with pytest.raises(OpError, match=r"NoRepeatNGram: the id 2 of state_seq it bans must lie in \[0, 2\)"):
        ops.NoRepeatNGram(2)(Tensor(np.array([[[2, 1, 2, 1]]], np.int32)), Tensor(np.zeros((1, 1, 2), np.float32)))
    ops.NoRepeatNGram(3)(Tensor(np.array([[[1, 2, 0, 2]]], np.int32)), Tensor(np.zeros((1, 1, 2), np.float32)))
    with pytest.raises(OpError, match="ngram_size \\(4\\) must be less than the length of state_seq \\(4\\)"):
        ops.NoRepeatNGram(4)(seq, lp)
    with pytest.raises(OpError, match="state_seq must be int32"):
        ops.NoRepeatNGram(2)(Tensor(np.array([[[1, 2, 1, 2]]], np.int64)), lp)
    np.testing.assert_array_equal(ops.NoRepeatNGram(3)(seq, lp).asnumpy()[0, 0] < -1e38,
                                  [False, True, False, False, False])


def test_matrix_logarithm_matches_scipy_and_jit():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((2, 4, 4)) + 1j * rng.standard_normal((2, 4, 4)) + 4 * np.eye(4)
    want = np.stack([scipy.linalg.logm(m) for m in a])
    got = ops.MatrixLogarithm()(Tensor(a))
    assert got.dtype == msx.complex128
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-10, atol=1e-12)
    jordan = np.array([[2, 1], [0, 2]], np.complex64)  # not diagonalisable
    np.testing.assert_allclose(ops.MatrixLogarithm()(Tensor(jordan)).asnumpy(), scipy.linalg.logm(jordan),
                               rtol=1e-6, atol=1e-6)
    jitted = msx.jit(lambda t: ops.MatrixLogarithm()(t))(Tensor(a.astype(np.complex64)))
    assert jitted.dtype == msx.complex64
    np.testing.assert_allclose(jitted.asnumpy(), want, rtol=1e-5, atol=1e-5)
    with pytest.raises(OpError, match="MatrixLogarithm: x must be complex64 or complex128"):
        ops.MatrixLogarithm()(Tensor(np.eye(2, dtype=np.float32)))
    with pytest.raises(OpError, match="square matrices"):
        ops.MatrixLogarithm()(Tensor(np.ones((2, 3), np.complex64)))


def test_cond_is_the_condition_number_and_checks_p():
    a = np.random.default_rng(1).uniform(0.5, 1.5, (2, 3, 3))
    for p, ord_ in ((None, 2), ("fro", "fro"), (1, 1), (-2, -2)):
        got = ops.cond(Tensor(a), p)
        assert got.dtype == msx.float32  # a batch: float32, as MindSpore's
        np.testing.assert_allclose(got.asnumpy(), [np.linalg.cond(m, ord_) for m in a], rtol=1e-5)
    np.testing.assert_allclose(msx.jit(lambda t: ops.cond(t, "nuc"))(Tensor(a[0])).asnumpy(),
                               np.linalg.cond(a[0], "nuc"), rtol=1e-6)
    with pytest.raises(OpError, match="cond: p must be None"):
        ops.cond(Tensor(a), 3)
    with pytest.raises(OpError, match="square matrices"):
        ops.cond(Tensor(np.ones((2, 3), np.float32)))


def test_check_numerics_raises_eagerly_and_when_a_jitted_graph_runs():
    ok = Tensor(np.array([1.0, 2.0], np.float32))
    np.testing.assert_array_equal(ops.CheckNumerics()(ok).asnumpy(), [1.0, 2.0])
    for bad, what in ((np.nan, "NaN"), (np.inf, "Inf"), (-np.inf, "Inf")):
        with pytest.raises(RuntimeError, match=f"CheckNumerics: Tensor had {what} values"):
            ops.CheckNumerics()(Tensor(np.array([1.0, bad], np.float32)))
    f = msx.jit(lambda t: ops.CheckNumerics()(t) * 2)
    np.testing.assert_array_equal(f(ok).asnumpy(), [2.0, 4.0])
    with pytest.raises(RuntimeError, match="CheckNumerics: Tensor had NaN values"):
        f(Tensor(np.array([np.nan, 1.0], np.float32))).asnumpy()
    with pytest.raises(OpTypeError, match="CheckNumerics: x must be float16, float32 or float64"):
        ops.CheckNumerics()(Tensor(np.array([1, 2], np.int32)))


def test_float_power_ext_is_float64_for_every_operand_kind():
    got = ops.float_power_ext(2, Tensor(np.array([2.0, -3.0, 0.5], np.float16)))
    assert got.dtype == msx.float64
    np.testing.assert_allclose(got.asnumpy(), 2.0 ** np.array([2.0, -3.0, 0.5]), rtol=1e-12)
    got = ops.float_power_ext(Tensor(np.array([True, False])), True)
    assert got.dtype == msx.float64 and got.asnumpy().tolist() == [1.0, 0.0]
    with pytest.raises(OpTypeError, match="float_power_ext: input or exponent must be a Tensor"):
        ops.float_power_ext(2, 3)
    with pytest.raises(OpTypeError, match="must not be complex"):
        ops.float_power_ext(Tensor(np.array([1j], np.complex64)), 2)


def test_stop_gradient_in_place_as_mindspores_example():
    x = Tensor(np.array([[0.5, 0.6, 0.4], [1.2, 1.3, 1.1]], np.float32))
    y = Tensor(np.array([[0.01, 0.3, 1.1], [0.1, 0.2, 1.3], [2.1, 1.2, 3.3]], np.float32))

    def net(x, y):
        out1 = ops.MatMul()(x, y)
        out2 = ops.MatMul()(x, y)
        assert ops.stop_gradient_(out2) is None
        return out1, out2

    want = np.tile(y.asnumpy().sum(1), (2, 1))  # d sum(x @ y) / dx of out1 alone
    np.testing.assert_allclose(ops.grad(net)(x, y).asnumpy(), want, rtol=1e-6)
    np.testing.assert_allclose(msx.jit(ops.grad(net))(x, y).asnumpy(), want, rtol=1e-6)
    with pytest.raises(OpTypeError, match="stop_gradient_: input must be a Tensor"):
        ops.stop_gradient_(np.ones(2))
