"""Band-limited resampling (torchaudio's `resample`: a windowed-sinc polyphase kernel, Hann or Kaiser window,
applied by strided correlation), as MindSpore's Resample computes it, and PitchShift built on it."""
from __future__ import annotations

import enum
import math
from typing import Any

import numpy as np
import scipy.special

from ...errors import DatasetError
from .common import AudioTensorOperation, BorderType, WindowType, f32, integer, number, signal
from .spectral import _Stft, phase_vocoder


_MAX_KERNEL = 1 << 26  # kernel values (512 MiB of float64): larger rate pairs are refused, not allocated


class ResampleMethod(str, enum.Enum):
    """The resampling kernel's window: Hann (sinc interpolation) or Kaiser."""

    SINC_INTERPOLATION = "sinc_interpolation"
    KAISER_WINDOW = "kaiser_window"


def sinc_kernel(orig: int, new: int, width_zeros: int, rolloff: float, method: ResampleMethod,
                beta: float | None) -> tuple[np.ndarray, int]:
    """(new, kernel length) filters and the padding width, for rates already divided by their gcd."""
    base = min(orig, new) * rolloff
    width = math.ceil(width_zeros * orig / base)
    if new * (2 * width + orig) > _MAX_KERNEL:
        raise DatasetError(f"Resample: rates {orig}:{new} (after dividing by their gcd) need a {new} x "
                           f"{2 * width + orig} kernel; choose rates with a larger common divisor")
    idx = np.arange(-width, width + orig, dtype=np.float64)[None, :] / orig
    t = (np.arange(0, -new, -1, dtype=np.float64)[:, None] / new + idx) * base
    t = np.clip(t, -width_zeros, width_zeros)
    if method == ResampleMethod.SINC_INTERPOLATION:
        win = np.cos(t * math.pi / width_zeros / 2) ** 2
    else:
        b = 14.769656459379492 if beta is None else beta
        win = scipy.special.i0(b * np.sqrt(1 - (t / width_zeros) ** 2)) / scipy.special.i0(b)
    t = t * math.pi
    kernel = np.where(t == 0, 1.0, np.sin(t) / np.where(t == 0, 1.0, t))
    return kernel * win * (base / orig), width


class Resample(AudioTensorOperation):
    """Resample the last axis from `orig_freq` to `new_freq` Hz (`lowpass_filter_width` zero crossings,
    `rolloff` of the Nyquist band kept; `beta` for the Kaiser window)."""

    def __init__(self, orig_freq: float = 16000, new_freq: float = 16000,
                 resample_method: ResampleMethod = ResampleMethod.SINC_INTERPOLATION, lowpass_filter_width: int = 6,
                 rolloff: float = 0.99, beta: float | None = None) -> None:
        self.orig_freq = number("Resample", "orig_freq", orig_freq, 0, low_open=True)
        self.new_freq = number("Resample", "new_freq", new_freq, 0, low_open=True)
        if self.orig_freq != int(self.orig_freq) or self.new_freq != int(self.new_freq):
            raise DatasetError(f"Resample: orig_freq and new_freq must be whole numbers of Hz, got {orig_freq!r}, "
                               f"{new_freq!r}")
        self.resample_method = ResampleMethod(resample_method)
        self.lowpass_filter_width = integer("Resample", "lowpass_filter_width", lowpass_filter_width, 1)
        self.rolloff = number("Resample", "rolloff", rolloff, 0, 1, low_open=True)
        self.beta = None if beta is None else number("Resample", "beta", beta)
        g = math.gcd(int(self.orig_freq), int(self.new_freq))
        self._orig, self._new = int(self.orig_freq) // g, int(self.new_freq) // g
        self._kernel, self._width = sinc_kernel(self._orig, self._new, self.lowpass_filter_width, self.rolloff,
                                                self.resample_method, self.beta)

    def __call__(self, waveform: Any) -> np.ndarray:
        x = signal("Resample", waveform)
        if self._orig == self._new:
            return f32(x)
        shape, length = x.shape, x.shape[-1]
        flat = x.reshape(-1, length)
        padded = np.pad(flat, [(0, 0), (self._width, self._width + self._orig)])
        k = self._kernel.shape[1]
        frames = np.lib.stride_tricks.sliding_window_view(padded, k, axis=-1)[:, ::self._orig, :]
        out = np.einsum("nfk,ck->nfc", frames, self._kernel).reshape(flat.shape[0], -1)
        target = math.ceil(self._new * length / self._orig)
        return f32(out[:, :target].reshape(shape[:-1] + (-1,)))


class PitchShift(AudioTensorOperation):
    """Shift the pitch by `n_steps` of `bins_per_octave` keeping the duration: time-stretch by the phase vocoder
    (STFT `n_fft`/`win_length`/`hop_length`/`window`), then resample back (torchaudio's pitch_shift)."""

    def __init__(self, sample_rate: int, n_steps: int, bins_per_octave: int = 12, n_fft: int = 512,
                 win_length: int | None = None, hop_length: int | None = None,
                 window: WindowType = WindowType.HANN) -> None:
        op = "PitchShift"
        self.sample_rate = integer(op, "sample_rate", sample_rate, 1)
        if isinstance(n_steps, bool) or not isinstance(n_steps, int):
            raise DatasetError(f"{op}: n_steps must be an int, got {n_steps!r}")
        self.n_steps = n_steps
        self.bins_per_octave = integer(op, "bins_per_octave", bins_per_octave, 1)
        hop = n_fft // 4 if hop_length is None else hop_length
        self.stft = _Stft(op, n_fft, win_length, hop, 0, window, False, True, BorderType.REFLECT, True)
        self.rate = 2.0 ** (-float(n_steps) / self.bins_per_octave)
        self.resample = Resample(int(self.sample_rate / self.rate), self.sample_rate)

    def __call__(self, waveform: Any) -> np.ndarray:
        x = signal("PitchShift", waveform)
        length = x.shape[-1]
        spec = self.stft.stft(x)
        advance = np.linspace(0, math.pi * self.stft.hop_length, spec.shape[-2])[:, None]
        stretched = self.stft.istft(phase_vocoder(spec, self.rate, advance), int(round(length / self.rate)))
        shifted = self.resample(stretched).astype(np.float64)
        if shifted.shape[-1] > length:
            shifted = shifted[..., :length]
        else:
            shifted = np.pad(shifted, [(0, 0)] * (shifted.ndim - 1) + [(0, length - shifted.shape[-1])])
        return f32(shifted)
