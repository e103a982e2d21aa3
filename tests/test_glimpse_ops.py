"""ExtractGlimpse's random fill (msx/ops/glimpse_ops.py; its deterministic answers are MindSpore goldens in
tests/golden_ops/case_glimpse.py): uniform noise lies in the sample's [min, max], gaussian noise has the channel's
statistics, the part inside the image is the image, `size` must be a constant under jit, and the errors."""
from __future__ import annotations

import numpy as np
import pytest

import msx
from msx import ops

_X = np.random.default_rng(1).standard_normal((2, 5, 6, 3)).astype(np.float32)
_OFF = msx.Tensor(np.array([[-1.0, -1.0], [0.9, 0.95]], np.float32))  # windows leave the image
_SIZE = msx.Tensor(np.array([6, 6], np.int32))


def _zero_fill():
    return ops.ExtractGlimpse(uniform_noise=False, noise="zero")(msx.Tensor(_X), _SIZE, _OFF).asnumpy()


def test_uniform_noise_range_and_inside_part():
    got = ops.ExtractGlimpse()(msx.Tensor(_X), _SIZE, _OFF).asnumpy()
    zero = _zero_fill()
    outside = (zero == 0)
    np.testing.assert_array_equal(got[~outside], zero[~outside])
    for b in range(2):
        noise = got[b][outside[b]]
        assert noise.size and noise.min() >= _X[b].min() and noise.max() <= _X[b].max()
        assert len(np.unique(noise)) > noise.size // 2  # random, not a constant


def test_gaussian_noise_and_jit():
    x = np.random.default_rng(2).normal(3.0, 0.5, (1, 4, 4, 1)).astype(np.float32)
    op = ops.ExtractGlimpse(uniform_noise=False, noise="gaussian")
    f = msx.jit(lambda x, off: op(x, msx.Tensor(np.array([40, 40], np.int32)), off))
    got = f(msx.Tensor(x), msx.Tensor(np.zeros((1, 2), np.float32))).asnumpy()
    assert got.shape == (1, 40, 40, 1)
    noise = got[0, 20:, 20:]  # far outside the 4 x 4 image
    assert abs(noise.mean() - x.mean()) < 0.15 and abs(noise.std() - x.std()) < 0.15


def test_size_must_be_known_under_jit_and_errors():
    g = msx.jit(lambda x, s: ops.ExtractGlimpse()(x, s, _OFF))
    with pytest.raises(msx.errors.OpError, match="ExtractGlimpse: the result's shape depends on .*size"):
        g(msx.Tensor(_X), _SIZE)
    with pytest.raises(ValueError, match="noise must be 'uniform' when uniform_noise is True"):
        ops.ExtractGlimpse(noise="zero")(msx.Tensor(_X), _SIZE, _OFF)
    with pytest.raises(ValueError, match="noise must be one of"):
        ops.ExtractGlimpse(uniform_noise=False, noise="salt")(msx.Tensor(_X), _SIZE, _OFF)
    with pytest.raises(ValueError, match="size must hold 2 positive ints"):
        ops.ExtractGlimpse()(msx.Tensor(_X), msx.Tensor(np.array([0, 2], np.int32)), _OFF)
    with pytest.raises(ValueError, match=r"offsets must have shape \(batch, 2\)"):
        ops.ExtractGlimpse()(msx.Tensor(_X), _SIZE, msx.Tensor(np.zeros((3, 2), np.float32)))
    with pytest.raises(TypeError, match="ExtractGlimpse: centered must be a bool"):
        ops.ExtractGlimpse(centered=1)(msx.Tensor(_X), _SIZE, _OFF)
