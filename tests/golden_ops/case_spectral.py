"""Spectral and transposed-convolution ops against MindSpore 2.10 CPU (msx/ops/spectral_ops.py,
conv_transpose_ops.py, mint_prim_ops.py): `ops.FFTWithSize` in its fft/ifft/rfft/irfft modes and norms,
`ops.STFT`, `ops.stft` (centring, pad modes, windows, the real view), `ops.conv3d_transpose` and
`mint.nn.upsample_nearest2d_op` (MindSpore has no CPU kernel for conv_transpose2d and upsample_bilinear2d_op:
tests/test_spectral_taylor_ops.py checks them against torch)."""
import numpy as np

_RNG = np.random.default_rng(5)
_R = _RNG.standard_normal((2, 4, 6)).astype(np.float32)
_C = (_RNG.standard_normal((2, 4, 6)) + 1j * _RNG.standard_normal((2, 4, 6))).astype(np.complex64)
_C64 = (_RNG.standard_normal((3, 5)) + 1j * _RNG.standard_normal((3, 5))).astype(np.complex128)
_SIG = _RNG.standard_normal((2, 20)).astype(np.float32)
_SIG1 = _RNG.standard_normal((17,)).astype(np.float32)
_SIG64 = _RNG.standard_normal((1, 12))
_HANN = np.hanning(8).astype(np.float32)
_WIN6 = _RNG.uniform(0.5, 1.5, 6).astype(np.float32)
_CSIG = (_RNG.standard_normal((1, 16)) + 1j * _RNG.standard_normal((1, 16))).astype(np.complex64)
_X5 = _RNG.standard_normal((1, 2, 3, 3, 2)).astype(np.float32)
_W5 = _RNG.standard_normal((2, 3, 2, 2, 2)).astype(np.float32)
_IMG = _RNG.standard_normal((1, 2, 3, 4)).astype(np.float32)


def _fft(cid, x, *init, **kw):
    return dict(id=cid, primitive="FFTWithSize", call="ops.FFTWithSize",
                init=dict(zip(("signal_ndim", "inverse", "real"), init), **kw), inputs=[x])


def _stft_cls(cid, x, window, n_fft, hop, win, normalized, onesided, return_complex, **extra):
    return dict(id=cid, primitive="STFT", call="ops.STFT",
                init=dict(n_fft=n_fft, hop_length=hop, win_length=win, normalized=normalized, onesided=onesided,
                          return_complex=return_complex), inputs=[x, window], **extra)


CASES = [
    _fft("fft_with_size_fft1", _C, 1, False, False),
    _fft("fft_with_size_fft2_ortho", _C, 2, False, False, norm="ortho"),
    _fft("fft_with_size_ifft3_forward", _C, 3, True, False, norm="forward"),
    _fft("fft_with_size_ifft1_c128", _C64, 1, True, False),
    _fft("fft_with_size_rfft1", _R, 1, False, True),
    _fft("fft_with_size_rfft2_full", _R, 2, False, True, onesided=False),
    _fft("fft_with_size_rfft2_ortho_f64", _R.astype(np.float64), 2, False, True, norm="ortho"),
    _fft("fft_with_size_irfft1", _C, 1, True, True),
    _fft("fft_with_size_irfft1_odd", _C, 1, True, True, signal_sizes=(11,)),
    _fft("fft_with_size_irfft2_sizes", _C, 2, True, True, signal_sizes=(4, 11)),
    _fft("fft_with_size_irfft1_full", _C, 1, True, True, onesided=False),
    _fft("fft_with_size_irfft1_c128_forward", _C64, 1, True, True, norm="forward"),
    # STFT (x, window): unpadded frames
    _stft_cls("stft_cls_hann", _SIG, _HANN, 8, 2, 8, False, True, True),
    _stft_cls("stft_cls_real_view_normalized", _SIG, _HANN, 8, 3, 8, True, True, False),
    _stft_cls("stft_cls_short_window", _SIG1, _WIN6, 8, 2, 6, False, True, True),
    _stft_cls("stft_cls_two_sided", _SIG, _HANN, 8, 4, 8, False, False, True),
    _stft_cls("stft_cls_complex_signal", _CSIG, _HANN, 8, 2, 8, False, False, True),
    dict(_stft_cls("stft_cls_f64_grad", _SIG64, None, 6, 2, 6, False, True, False), inputs=[_SIG64],
         args=[np.hanning(6)], grad=True),
    # ops.stft: torch's defaults
    dict(id="stft_default_real_view", primitive="STFT", call="ops.stft", inputs=[_SIG], args=[8]),
    dict(id="stft_complex_hann", primitive="STFT", call="ops.stft", inputs=[_SIG], args=[8, 2],
         kwargs=dict(return_complex=True)),
    dict(id="stft_window_short", primitive="STFT", call="ops.stft", inputs=[_SIG1], args=[8, 3, 6, _WIN6],
         kwargs=dict(return_complex=True)),
    dict(id="stft_no_center", primitive="STFT", call="ops.stft", inputs=[_SIG], args=[8],
         kwargs=dict(center=False, normalized=True, return_complex=True)),
    dict(id="stft_constant_pad_two_sided", primitive="STFT", call="ops.stft", inputs=[_SIG], args=[8],
         kwargs=dict(pad_mode="CONSTANT", onesided=False, return_complex=True)),
    dict(id="stft_f64_grad", primitive="STFT", call="ops.stft", inputs=[_SIG64], args=[6, 2], grad=True),
    # ops.conv3d_transpose
    dict(id="conv3d_transpose_valid", primitive="Conv3DTranspose", call="ops.conv3d_transpose",
         inputs=[_X5, _W5]),
    dict(id="conv3d_transpose_pad_stride", primitive="Conv3DTranspose", call="ops.conv3d_transpose",
         inputs=[_X5, _W5], kwargs=dict(pad_mode="pad", padding=(1, 0, 0, 1, 1, 1), stride=2)),
    dict(id="conv3d_transpose_same_dilated", primitive="Conv3DTranspose", call="ops.conv3d_transpose",
         inputs=[_X5, _W5], kwargs=dict(pad_mode="same", stride=(1, 2, 2), dilation=(1, 2, 1))),
    dict(id="conv3d_transpose_output_padding", primitive="Conv3DTranspose", call="ops.conv3d_transpose",
         inputs=[_X5, _W5], kwargs=dict(pad_mode="pad", padding=1, stride=2, output_padding=1)),
    # mint.nn.upsample_nearest2d_op (a Prim instance)
    dict(id="upsample_nearest2d_op_size", primitive="UpsampleNearest2D", call="mint.nn.upsample_nearest2d_op",
         inputs=[_IMG], args=[(5, 7)]),
    dict(id="upsample_nearest2d_op_scales", primitive="UpsampleNearest2D", call="mint.nn.upsample_nearest2d_op",
         inputs=[_IMG], args=[None, (1.5, 2.3)]),
    dict(id="upsample_nearest2d_op_down", primitive="UpsampleNearest2D", call="mint.nn.upsample_nearest2d_op",
         inputs=[_IMG], args=[(2, 3)]),
]
