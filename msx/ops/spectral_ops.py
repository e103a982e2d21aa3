"""MindSpore 2.10's older spectral ops: the class ops `ops.FFTWithSize` and `ops.STFT`, and `ops.stft`.

`FFTWithSize(signal_ndim, inverse, real, norm='backward', onesided=True, signal_sizes=())` is torch's legacy
fft/ifft/rfft/irfft over the last `signal_ndim` (1-3) dims: complex in and out for `real=False`; `real=True`
forward takes a real (or integer/bool) input and keeps the last dim's non-negative half (`onesided`); `real=True`
inverse gives a real result, its last dim `signal_sizes[-1]` (2 * (n - 1) or 2 * (n - 1) + 1; default the
first), or with `onesided=False` the real part of the full inverse.

`STFT(n_fft, hop_length, win_length, normalized, onesided, return_complex)(x, window)` frames an unpadded
(L,) or (B, L) signal every `hop_length` samples, multiplies each n_fft-long frame by `window` (win_length long,
zero-padded on both sides to n_fft) and takes its FFT: (B, freq, frames) complex, or with
`return_complex=False` a real (B, freq, frames, 2). `ops.stft` is torch's: `center` pads n_fft // 2 on both
sides (`pad_mode` 'REFLECT', 'CONSTANT' or 'SYMMETRIC', nn.Pad's), the window defaults to ones, hop to
n_fft // 4, `onesided` to "both real" and `return_complex` to "either complex" (so a real input gives the real view by default, as in
MindSpore). Goldens: MindSpore's CPU kernels (`tests/golden_ops/case_spectral.py`).
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from .. import dtype as mstype
from ..errors import OpError
from ..tensor import Tensor
from . import functional as F
from .api import Api, Attr, expose
from .nn_layer_ops import pad_v3
from .primitive import apply, primitive

_NORMS = ("backward", "forward", "ortho")


def _complex_of(dtype):
    return jnp.complex128 if dtype in (jnp.float64, jnp.complex128) else jnp.complex64


def _real_of(dtype):
    return jnp.float64 if dtype == jnp.complex128 else jnp.float32


# ---------------------------------------------------------------- FFTWithSize
def _fft_check(x, *, signal_ndim, inverse, real, norm="backward", onesided=True, signal_sizes=()) -> str | None:
    if len(x.shape) < signal_ndim:
        return f"the input must have at least signal_ndim={signal_ndim} dims, got shape {tuple(x.shape)}"
    is_complex = jnp.issubdtype(x.dtype, jnp.complexfloating)
    if (not real or inverse) and not is_complex:
        mode = "irfft" if real else ("ifft" if inverse else "fft")
        return f"in {mode} mode the input must be complex64 or complex128, got {np.dtype(x.dtype).name}"
    if real and not inverse and is_complex:
        return f"in rfft mode the input must be real (float, int or bool), got {np.dtype(x.dtype).name}"
    if real and inverse and onesided and signal_sizes:
        n = x.shape[-1]
        if signal_sizes[-1] not in (2 * (n - 1), 2 * (n - 1) + 1):
            return f"signal_sizes {tuple(signal_sizes)}: its last entry must be {2 * (n - 1)} or {2 * (n - 1) + 1} " \
                   f"for a last dim of {n}"
    return None


def _signal_ndim(v) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not 1 <= v <= 3:
        raise ValueError(f"FFTWithSize: signal_ndim must be 1, 2 or 3, got {v!r}")
    return int(v)


def _flag(op: str, what: str):
    def convert(v):
        if not isinstance(v, (bool, np.bool_)):
            raise TypeError(f"{op}: {what} must be a bool, got {type(v).__name__} ({v!r})")
        return bool(v)
    return convert


def _norm(v) -> str:
    if v not in _NORMS:
        raise ValueError(f"FFTWithSize: norm must be one of {_NORMS}, got {v!r}")
    return v


def _sizes(v) -> tuple[int, ...]:
    vals = tuple(int(s) for s in v)
    if any(s < 1 for s in vals):
        raise ValueError(f"FFTWithSize: signal_sizes must be positive, got {v!r}")
    return vals


@primitive("FFTWithSize", attrs=("signal_ndim", "inverse", "real", "norm", "onesided", "signal_sizes"),
           category="other", check=_fft_check,
           api=Api(cls="FFTWithSize", args=("x",),
                   attrs=(Attr("signal_ndim", convert=_signal_ndim), Attr("inverse", convert=_flag("FFTWithSize",
                                                                                                   "inverse")),
                          Attr("real", convert=_flag("FFTWithSize", "real")), Attr("norm", "backward", _norm),
                          Attr("onesided", True, _flag("FFTWithSize", "onesided")),
                          Attr("signal_sizes", (), _sizes)),
                   init=("signal_ndim", "inverse", "real", "norm", "onesided", "signal_sizes")))
def fft_with_size(x, *, signal_ndim, inverse, real, norm="backward", onesided=True, signal_sizes=()):
    """torch's legacy fft / ifft / rfft / irfft over the last `signal_ndim` dims."""
    reason = _fft_check(x, signal_ndim=signal_ndim, inverse=inverse, real=real, onesided=onesided,
                        signal_sizes=signal_sizes)
    if reason is not None:
        raise TypeError(reason) if "must be" in reason and "signal_sizes" not in reason else ValueError(reason)
    axes = tuple(range(-signal_ndim, 0))
    if not real:
        return (jnp.fft.ifftn if inverse else jnp.fft.fftn)(x, axes=axes, norm=norm)
    if not inverse:
        xr = x.astype(jnp.float64 if x.dtype == jnp.float64 else jnp.float32)
        return (jnp.fft.rfftn if onesided else jnp.fft.fftn)(xr, axes=axes, norm=norm).astype(_complex_of(xr.dtype))
    if not onesided:
        return jnp.real(jnp.fft.ifftn(x, axes=axes, norm=norm)).astype(_real_of(x.dtype))
    n = x.shape[-1]
    last = signal_sizes[-1] if signal_sizes else 2 * (n - 1)
    s = tuple(x.shape[a] for a in axes[:-1]) + (last,)
    return jnp.fft.irfftn(x, s=s, axes=axes, norm=norm).astype(_real_of(x.dtype))


# ---------------------------------------------------------------- STFT
def _stft_check(x, window, *, n_fft, hop_length, win_length, normalized=False, onesided=True,
                return_complex=True) -> str | None:
    if len(x.shape) not in (1, 2):
        return f"x must be 1-D (L,) or 2-D (B, L), got shape {tuple(x.shape)}"
    if tuple(window.shape) != (win_length,):
        return f"window must be 1-D of win_length={win_length}, got shape {tuple(window.shape)}"
    if not 0 < win_length <= n_fft:
        return f"win_length must be in (0, n_fft={n_fft}], got {win_length}"
    if hop_length <= 0:
        return f"hop_length must be positive, got {hop_length}"
    if x.shape[-1] < n_fft:
        return f"the signal length {x.shape[-1]} is shorter than n_fft={n_fft}"
    if onesided and (jnp.issubdtype(x.dtype, jnp.complexfloating) or jnp.issubdtype(window.dtype,
                                                                                    jnp.complexfloating)):
        return "onesided=True needs a real input and a real window"
    for what, t in (("x", x), ("window", window)):
        if not (jnp.issubdtype(t.dtype, jnp.floating) or jnp.issubdtype(t.dtype, jnp.complexfloating)):
            return f"{what} must be a float or complex tensor, got {np.dtype(t.dtype).name}"
    return None


def _positive_int(op: str, what: str):
    def convert(v):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"{op}: {what} must be an int, got {type(v).__name__} ({v!r})")
        if v <= 0:
            raise ValueError(f"{op}: {what} must be positive, got {v}")
        return int(v)
    return convert


@primitive("STFT", attrs=("n_fft", "hop_length", "win_length", "normalized", "onesided", "return_complex"),
           category="other", check=_stft_check,
           api=Api(cls="STFT", args=("x", "window"),
                   attrs=(Attr("n_fft", convert=_positive_int("STFT", "n_fft")),
                          Attr("hop_length", convert=_positive_int("STFT", "hop_length")),
                          Attr("win_length", convert=_positive_int("STFT", "win_length")),
                          Attr("normalized", convert=_flag("STFT", "normalized")),
                          Attr("onesided", convert=_flag("STFT", "onesided")),
                          Attr("return_complex", convert=_flag("STFT", "return_complex"))),
                   init=("n_fft", "hop_length", "win_length", "normalized", "onesided", "return_complex")))
def stft_(x, window, *, n_fft, hop_length, win_length, normalized=False, onesided=True, return_complex=True):
    """(B?, freq, frames) spectrum of n_fft-long windowed frames taken every hop_length samples (no padding)."""
    reason = _stft_check(x, window, n_fft=n_fft, hop_length=hop_length, win_length=win_length, onesided=onesided)
    if reason is not None:
        raise ValueError(reason)
    wide = jnp.float64 in (x.dtype, window.dtype) or jnp.complex128 in (x.dtype, window.dtype)
    ctype = jnp.complex128 if wide else jnp.complex64
    left = (n_fft - win_length) // 2
    win = jnp.pad(window, (left, n_fft - win_length - left))
    frames = 1 + (x.shape[-1] - n_fft) // hop_length
    idx = np.arange(frames)[:, None] * hop_length + np.arange(n_fft)[None, :]
    seg = x[..., idx] * win  # (..., frames, n_fft)
    spec = jnp.fft.rfft(seg, axis=-1) if onesided else jnp.fft.fft(seg, axis=-1)
    if normalized:
        spec = spec * (1.0 / np.sqrt(n_fft))
    spec = jnp.swapaxes(spec.astype(ctype), -1, -2)  # (..., freq, frames)
    return spec if return_complex else jnp.stack([jnp.real(spec), jnp.imag(spec)], axis=-1)


@expose(ops="stft", prim="STFT")
def stft(x, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="REFLECT",
         normalized=False, onesided=None, return_complex=None):
    """torch's stft over `ops.STFT`: optional centring pad (n_fft // 2 each side), defaults as MindSpore's."""
    if not isinstance(x, Tensor):
        raise TypeError(f"stft: x must be a Tensor, got {type(x).__name__}")
    hop_length = int(n_fft // 4) if hop_length is None else hop_length
    win_length = int(n_fft // 1) if win_length is None else win_length
    window = F.ones((win_length,), mstype.float32) if window is None else window

    def is_complex(t):
        return t.dtype in (mstype.complex64, mstype.complex128)

    if onesided is None:
        onesided = not is_complex(x) and not is_complex(window)
    if return_complex is None:
        return_complex = is_complex(x) or is_complex(window)
    if not isinstance(center, bool):
        raise TypeError(f"stft: center must be a bool, got {type(center).__name__}")
    if center:
        if x.ndim not in (1, 2):
            raise OpError(f"stft: expected a 1-D or 2-D tensor, got shape {tuple(x.shape)}")
        mode = pad_mode.upper() if isinstance(pad_mode, str) else pad_mode
        if mode not in ("REFLECT", "CONSTANT", "SYMMETRIC"):
            raise ValueError(f"stft: pad_mode must be 'REFLECT', 'CONSTANT' or 'SYMMETRIC' (nn.Pad's), got "
                             f"{pad_mode!r}")
        pad = n_fft // 2
        if mode == "REFLECT" and x.shape[-1] <= pad:
            raise OpError(f"stft: reflect padding by {pad} needs a signal longer than {pad}, got shape "
                          f"{tuple(x.shape)}")
        pairs = ((0, 0),) * (x.ndim - 1) + ((pad, pad),)
        x = apply(pad_v3, (x,), {"paddings": pairs, "mode": mode.lower(), "value": 0.0})
    conv = {k: _positive_int("stft", k)(v) for k, v in (("n_fft", n_fft), ("hop_length", hop_length),
                                                        ("win_length", win_length))}
    flags = {k: _flag("stft", k)(v) for k, v in (("normalized", normalized), ("onesided", onesided),
                                                 ("return_complex", return_complex))}
    return apply(stft_, (x, window), {**conv, **flags})
