"""`ops.Dilation2D` (msx/ops/morphology_patch_ops.py): MindSpore 2.10's CPU kernel fails on every call ("Cast
failed, original value: SAME"), so the reference is its documented formula (TensorFlow's dilation2d) written out
as loops: y[n, c, h, w] = max over in-range (i, j) of x[n, c, h*sh + i*dh - top, w*sw + j*dw - left] + f[c, i, j].
ExtractVolumePatches is checked against MindSpore in tests/golden_ops/case_morphology_patch.py."""
from __future__ import annotations

import numpy as np
import pytest

import msx
from msx import ops

_RNG = np.random.default_rng(9)
_X = _RNG.standard_normal((2, 3, 6, 7)).astype(np.float32)
_F = _RNG.standard_normal((3, 2, 3)).astype(np.float32)


def _reference(x, f, stride, dilation, same):
    n, c, h, w = x.shape
    kh, kw = f.shape[1:]
    outs, pads = [], []
    for size, k, s, d in zip((h, w), (kh, kw), stride, dilation):
        span = (k - 1) * d + 1
        out = -(-size // s) if same else (size - span) // s + 1
        outs.append(out)
        pads.append(max((out - 1) * s + span - size, 0) // 2 if same else 0)
    y = np.full((n, c) + tuple(outs), -np.inf)
    for b, ch, oh, ow, i, j in np.ndindex(n, c, outs[0], outs[1], kh, kw):
        r, q = oh * stride[0] + i * dilation[0] - pads[0], ow * stride[1] + j * dilation[1] - pads[1]
        if 0 <= r < h and 0 <= q < w:
            y[b, ch, oh, ow] = max(y[b, ch, oh, ow], x[b, ch, r, q] + f[ch, i, j])
    return y.astype(x.dtype)


@pytest.mark.parametrize("stride, dilation, pad_mode", [((1, 1, 1, 1), (1, 1, 1, 1), "SAME"), (2, 1, "valid"),
                                                        ((1, 2), (2, 1), "same"), ((1, 1, 2, 3), 2, "VALID")])
def test_dilation2d_matches_the_formula_eager_and_jit(stride, dilation, pad_mode):
    op = ops.Dilation2D(stride, dilation, pad_mode)
    s = stride if isinstance(stride, int) else stride[-2:]
    d = dilation if isinstance(dilation, int) else dilation[-2:]
    want = _reference(_X, _F, (s, s) if isinstance(s, int) else s, (d, d) if isinstance(d, int) else d,
                      pad_mode.upper() == "SAME")
    got = op(msx.Tensor(_X), msx.Tensor(_F))
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6)
    np.testing.assert_allclose(msx.jit(op)(msx.Tensor(_X), msx.Tensor(_F)).asnumpy(), want, rtol=1e-6)


def test_dilation2d_integers_and_gradient():
    xi, fi = _RNG.integers(-50, 50, (1, 2, 5, 5)).astype(np.int32), _RNG.integers(-5, 5, (2, 3, 2)).astype(np.int32)
    got = ops.Dilation2D(1, 1)(msx.Tensor(xi), msx.Tensor(fi)).asnumpy()
    np.testing.assert_array_equal(got, _reference(xi, fi, (1, 1), (1, 1), True))
    # d sum(y) / d filter[c, i, j] counts the outputs whose maximum came from offset (i, j)
    g = msx.grad(lambda f: ops.Dilation2D(2, 1, "valid")(msx.Tensor(_X), f).sum())(msx.Tensor(_F)).asnumpy()
    assert g.shape == _F.shape and g.sum() == pytest.approx(2 * 3 * 3 * 3)


def test_dilation2d_errors():
    x, f = msx.Tensor(_X), msx.Tensor(_F)
    with pytest.raises(ValueError, match="NHWC format is not supported"):
        ops.Dilation2D(1, 1, data_format="NHWC")(x, f)
    with pytest.raises(ValueError, match="Dilation2D: pad_mode must be one of"):
        ops.Dilation2D(1, 1, "full")(x, f)
    with pytest.raises(ValueError, match=r"Dilation2D: stride must be \(1, 1, stride_height"):
        ops.Dilation2D((1, 2, 1, 1), 1)(x, f)
    with pytest.raises(ValueError, match="filter must be 3-d"):
        ops.Dilation2D(1, 1)(msx.Tensor(_X), msx.Tensor(_F[:2]))
    with pytest.raises(TypeError, match="same dtype"):
        ops.Dilation2D(1, 1)(msx.Tensor(_X), msx.Tensor(_F.astype(np.float64)))
    with pytest.raises(ValueError, match="larger than the input.s W"):
        ops.Dilation2D(1, 4, "valid")(msx.Tensor(_X), msx.Tensor(_F))


def test_extract_volume_patches_errors():
    x = msx.Tensor(np.zeros((1, 1, 3, 3, 3), np.float32))
    with pytest.raises(ValueError, match=r"kernel_size must be \(1, 1, d, h, w\)"):
        ops.ExtractVolumePatches((2, 1, 1, 1, 1), 1, "VALID")(x)
    with pytest.raises(ValueError, match="padding must be 'VALID' or 'SAME'"):
        ops.ExtractVolumePatches(1, 1, "FULL")(x)
    with pytest.raises(ValueError, match="ExtractVolumePatches: kernel_size D"):
        ops.ExtractVolumePatches((4, 1, 1), 1, "VALID")(x)
    with pytest.raises(ValueError, match="must be 5-d"):
        ops.ExtractVolumePatches(1, 1, "VALID")(x.reshape(1, 3, 3, 3))
