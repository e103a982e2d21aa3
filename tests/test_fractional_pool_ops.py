"""Fractional pooling (msx/ops/fractional_pool_ops.py) beyond the golden cases (tests/golden_ops/
case_fractional_pool.py): the pooling for MindSpore's own random sequences (recorded by
tests/golden_ops/record_fractional_sequences.py), the properties of the random and pseudo-random sequences, the
seed rules, the layers, jit and the errors."""
from __future__ import annotations

import os

import numpy as np
import pytest

import msx
from msx import nn, ops
from msx.ops.fractional_pool_ops import sequence_pool

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden_ops")
_SEQS = np.load(os.path.join(HERE, "fractional_sequences.npz"), allow_pickle=False)
_NAMES = sorted({k.split("/")[0] for k in _SEQS.files})
_X = msx.Tensor(np.random.default_rng(3).standard_normal((2, 7, 9, 3)).astype(np.float32))


@pytest.mark.parametrize("name", _NAMES)
def test_pooling_for_mindspores_sequences(name):
    """MindSpore's y for the sequences it drew: max (with its NaN rule) / avg (integers truncate), overlapping."""
    x, want = _SEQS[f"{name}/x"], _SEQS[f"{name}/y"]
    got = np.asarray(sequence_pool(x, _SEQS[f"{name}/rows"], _SEQS[f"{name}/cols"], "overlap" in name,
                                   name.split("_")[0]))
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def _check_sequence(seq: np.ndarray, n: int, out: int) -> None:
    assert seq.dtype == np.int64 and seq.shape == (out + 1,)
    assert seq[0] == 0 and seq[-1] == n
    assert set(np.diff(seq).tolist()) <= {n // out, n // out + 1}


@pytest.mark.parametrize("pseudo", [False, True])
def test_random_sequences_are_valid_and_vary(pseudo):
    op = ops.FractionalMaxPool([1.0, 1.6, 1.4, 1.0], pseudo_random=pseudo, overlapping=pseudo)
    seen = set()
    for _ in range(6):
        y, rows, cols = op(_X)
        r, c = rows.asnumpy(), cols.asnumpy()
        _check_sequence(r, 7, 4)
        _check_sequence(c, 9, 6)
        np.testing.assert_array_equal(y.asnumpy(), np.asarray(sequence_pool(_X.asnumpy(), r, c, pseudo, "max")))
        seen.add((tuple(r), tuple(c)))
    assert len(seen) > 1  # deterministic=False draws new regions on each call


def test_set_seed_repeats_the_draws():
    op = ops.FractionalAvgPool([1.0, 1.6, 1.4, 1.0])
    msx.set_seed(5)
    first = [t.asnumpy() for t in op(_X)]
    msx.set_seed(5)
    for a, b in zip(first, op(_X)):
        np.testing.assert_array_equal(a, b.asnumpy())


def test_deterministic_seeds_fix_the_region():
    runs = {}
    for seed, seed2 in ((1, 0), (1, 0), (0, 9), (2, 3)):
        op = ops.FractionalMaxPool([1.0, 1.6, 1.4, 1.0], deterministic=True, seed=seed, seed2=seed2)
        got = [tuple(t.asnumpy().tolist()) for t in op(_X)[1:]] + [tuple(t.asnumpy().tolist()) for t in op(_X)[1:]]
        assert got[:2] == got[2:]  # every call of the op
        runs.setdefault((seed, seed2), []).append(got[:2])
    assert runs[(1, 0)][0] == runs[(1, 0)][1]  # every op with those seeds
    assert len({tuple(v[0]) for v in runs.values()}) > 1


def test_random_path_under_jit():
    f = msx.jit(lambda x: ops.FractionalMaxPool([1.0, 1.6, 1.4, 1.0])(x))
    y, rows, cols = f(_X)
    _check_sequence(rows.asnumpy(), 7, 4)
    np.testing.assert_array_equal(y.asnumpy(), np.asarray(sequence_pool(_X.asnumpy(), rows.asnumpy(),
                                                                         cols.asnumpy(), False, "max")))


def test_seed_rules_and_bad_ratios():
    with pytest.raises(ValueError, match="FractionalMaxPool: both seed and seed2 must be 0"):
        ops.FractionalMaxPool([1.0, 1.5, 1.5, 1.0], seed=1)(_X)
    with pytest.raises(ValueError, match="deterministic=True needs a nonzero seed"):
        ops.FractionalAvgPool([1.0, 1.5, 1.5, 1.0], deterministic=True)(_X)
    with pytest.raises(ValueError, match="first and last elements"):
        ops.FractionalMaxPool([2.0, 1.5, 1.5, 1.0])(_X)
    with pytest.raises(ValueError, match=">= 1.0"):
        ops.FractionalMaxPool([1.0, 0.5, 1.5, 1.0])(_X)
    with pytest.raises(TypeError, match="list of 4 floats"):
        ops.FractionalMaxPool((1.0, 1.5, 1.5, 1.0))(_X)
    with pytest.raises(ValueError, match="output height floor"):
        ops.FractionalMaxPool([1.0, 8.0, 1.5, 1.0])(_X)
    with pytest.raises(TypeError, match="FractionalMaxPool: x dtype must be"):
        ops.FractionalMaxPool([1.0, 1.5, 1.5, 1.0])(_X.astype(msx.float16))


_X4 = msx.Tensor(np.random.default_rng(4).standard_normal((2, 3, 7, 8)).astype(np.float32))
_S = msx.Tensor(np.random.default_rng(5).uniform(0, 1, (2, 3, 2)).astype(np.float32))


def test_drawn_samples_give_valid_windows_eager_and_jit():
    for fn in (lambda x: ops.fractional_max_pool2d(x, (2, 3), output_size=(4, 3), return_indices=True),
               msx.jit(lambda x: ops.fractional_max_pool2d(x, (2, 3), output_size=(4, 3), return_indices=True))):
        y, argmax = fn(_X4)
        assert y.shape == (2, 3, 4, 3) and argmax.dtype == msx.int64
        flat = _X4.asnumpy().reshape(2, 3, -1)
        np.testing.assert_array_equal(y.asnumpy(), np.take_along_axis(flat, argmax.asnumpy().reshape(2, 3, -1),
                                                                      2).reshape(y.shape))
        rows, cols = argmax.asnumpy() // 8, argmax.asnumpy() % 8
        assert (np.diff(rows, axis=2) >= -1).all() and (np.diff(cols, axis=3) >= -2).all()


def test_layers_are_the_functions():
    y, a = nn.FractionalMaxPool2d(2, output_ratio=(0.5, 0.5), return_indices=True, _random_samples=_S)(_X4)
    y2, a2 = ops.fractional_max_pool2d(_X4, 2, None, (0.5, 0.5), True, _S)
    np.testing.assert_array_equal(y.asnumpy(), y2.asnumpy())
    np.testing.assert_array_equal(a.asnumpy(), a2.asnumpy())
    x5 = _X4.reshape(2, 3, 7, 2, 4)
    s3 = msx.Tensor(np.full((2, 3, 3), 0.4, np.float32))
    got = nn.FractionalMaxPool3d((2, 1, 2), output_size=(3, 2, 2), _random_samples=s3)(x5)
    np.testing.assert_array_equal(got.asnumpy(), ops.fractional_max_pool3d(x5, (2, 1, 2), (3, 2, 2), None, False,
                                                                          s3).asnumpy())


def test_gradient_goes_to_the_argmax():
    _, argmax = ops.FractionalMaxPoolWithFixedKsize((2, 2), (3, 3))(_X4, _S)
    g = msx.grad(lambda x: ops.FractionalMaxPoolWithFixedKsize((2, 2), (3, 3))(x, _S)[0].sum())(_X4).asnumpy()
    want = np.zeros((2, 3, 56))
    for idx in np.ndindex(2, 3):
        np.add.at(want[idx], argmax.asnumpy()[idx].ravel(), 1.0)
    np.testing.assert_array_equal(g.reshape(2, 3, -1), want)


def test_fixed_ksize_errors():
    op = ops.FractionalMaxPoolWithFixedKsize((4, 4), (5, 5))
    with pytest.raises(ValueError, match=r"FractionalMaxPoolWithFixedKsize: ksize H \(4\) \+ output_shape H"):
        op(_X4, _S)
    with pytest.raises(ValueError, match=r"random_samples must have shape \(N, C, 2\)"):
        ops.FractionalMaxPoolWithFixedKsize(2, 3)(_X4, _S[:1])
    with pytest.raises(TypeError, match="input_x dtype must be"):
        ops.FractionalMaxPoolWithFixedKsize(2, 3)(_X4.astype(msx.int8), _S)
    with pytest.raises(ValueError, match="data_format must be one of"):
        ops.FractionalMaxPoolWithFixedKsize(2, 3, "NHWC")(_X4, _S)
    with pytest.raises(ValueError, match="NDHWC"):
        ops.FractionalMaxPool3DWithFixedKsize(2, 3, "NDHWC")(_X4.reshape(2, 3, 7, 2, 4), _S)
    with pytest.raises(ValueError, match="output_size and output_ratio can not both be None"):
        ops.fractional_max_pool2d(_X4, 2)
    with pytest.raises(TypeError, match="same dtype"):
        ops.fractional_max_pool3d(_X4.reshape(2, 3, 7, 2, 4), 1, (2, 2, 2), None, False,
                                  msx.Tensor(np.zeros((2, 3, 3), np.float64)))


def test_deterministic_under_jit_is_the_eager_region():
    op = ops.FractionalMaxPool([1.0, 1.6, 1.4, 1.0], deterministic=True, seed=7)
    eager = [t.asnumpy() for t in op(_X)]
    for a, b in zip(eager, msx.jit(lambda x: op(x))(_X)):
        np.testing.assert_array_equal(a, b.asnumpy())
