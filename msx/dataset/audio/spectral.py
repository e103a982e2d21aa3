"""Spectral transforms: the STFT spectrogram and its inverse, Griffin-Lim, mel/linear features (MelScale,
MelSpectrogram, MFCC, LFCC), decibel conversions, complex helpers, the phase vocoder, deltas and the spectral
centroid — torchaudio's definitions (which MindSpore's kernels follow), on numpy's FFT. Spectrograms are
(..., freq, time); complex inputs are (..., 2) real/imaginary, as MindSpore has no complex tensors here."""
from __future__ import annotations

import enum
import math
from typing import Any

import numpy as np

from ...errors import DatasetError
from .. import _random
from .common import (AudioTensorOperation, BorderType, WindowType, as_pair, complex_signal, f32, integer, number,
                     signal, window)
from .filterbanks import MelType, NormMode, NormType, dct_matrix, mel_fbanks, triangular


class _Stft:
    """The STFT settings of Spectrogram (and of what builds on it)."""

    def __init__(self, op: str, n_fft: int, win_length: int | None, hop_length: int | None, pad: int,
                 window_type: WindowType, normalized: bool, center: bool, pad_mode: BorderType,
                 onesided: bool) -> None:
        self.op = op
        self.n_fft = integer(op, "n_fft", n_fft, 1)
        self.win_length = n_fft if win_length is None else integer(op, "win_length", win_length, 1)
        if self.win_length > self.n_fft:
            raise DatasetError(f"{op}: win_length ({self.win_length}) must not exceed n_fft ({self.n_fft})")
        self.hop_length = self.win_length // 2 if hop_length is None else integer(op, "hop_length", hop_length, 1)
        self.pad = integer(op, "pad", pad)
        self.window_type = WindowType(window_type)
        self.normalized, self.center, self.onesided = bool(normalized), bool(center), bool(onesided)
        self.pad_mode = BorderType(pad_mode)

    def padded_window(self) -> np.ndarray:
        w = np.zeros(self.n_fft)
        left = (self.n_fft - self.win_length) // 2
        w[left:left + self.win_length] = window(self.window_type, self.win_length)
        return w

    def stft(self, x: np.ndarray) -> np.ndarray:
        """(..., time) -> complex (..., freq, frames)."""
        if self.pad:
            x = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(self.pad, self.pad)])
        if self.center:
            half = self.n_fft // 2
            if self.pad_mode in (BorderType.REFLECT,) and x.shape[-1] <= half:
                raise DatasetError(f"{self.op}: a waveform of {x.shape[-1]} samples is too short to reflect-pad by "
                                   f"{half} (n_fft // 2)")
            x = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(half, half)], mode=self.pad_mode.value)
        if x.shape[-1] < self.n_fft:
            raise DatasetError(f"{self.op}: the waveform ({x.shape[-1]} samples after padding) is shorter than n_fft "
                               f"({self.n_fft})")
        frames = np.lib.stride_tricks.sliding_window_view(x, self.n_fft, axis=-1)[..., ::self.hop_length, :]
        w = self.padded_window()
        spec = np.fft.rfft(frames * w, axis=-1) if self.onesided else np.fft.fft(frames * w, axis=-1)
        if self.normalized:
            spec = spec / math.sqrt((w ** 2).sum())
        return np.swapaxes(spec, -1, -2)

    def istft(self, spec: np.ndarray, length: int | None) -> np.ndarray:
        """complex (..., freq, frames) -> (..., time), overlap-add with the window-square envelope."""
        w = self.padded_window()
        if self.normalized:
            spec = spec * math.sqrt((w ** 2).sum())
        frames = np.fft.irfft(np.swapaxes(spec, -1, -2), n=self.n_fft, axis=-1) if self.onesided else \
            np.fft.ifft(np.swapaxes(spec, -1, -2), axis=-1).real
        n_frames = frames.shape[-2]
        total = self.n_fft + self.hop_length * (n_frames - 1)
        out = np.zeros(frames.shape[:-2] + (total,))
        envelope = np.zeros(total)
        for i in range(n_frames):
            s = i * self.hop_length
            out[..., s:s + self.n_fft] += frames[..., i, :] * w
            envelope[s:s + self.n_fft] += w ** 2
        start = self.n_fft // 2 if self.center else 0
        end = total - self.n_fft // 2 if self.center else total
        if length is not None:
            end = start + length
        out, envelope = out[..., start:end], envelope[start:end]
        if (np.abs(envelope) < 1e-11).any():
            raise DatasetError(f"{self.op}: the window overlap-add has zeros: choose hop_length/win_length so that "
                               f"the windows overlap")
        out = out / envelope
        if length is not None and out.shape[-1] < length:
            out = np.pad(out, [(0, 0)] * (out.ndim - 1) + [(0, length - out.shape[-1])])
        return out


def _power(op: str, power: Any) -> float:
    return number(op, "power", power, 0, low_open=True)


class Spectrogram(AudioTensorOperation):
    """|STFT|**power of a waveform (..., time) -> (..., n_fft // 2 + 1, frames)."""

    def __init__(self, n_fft: int = 400, win_length: int | None = None, hop_length: int | None = None, pad: int = 0,
                 window: WindowType = WindowType.HANN, power: float = 2.0, normalized: bool = False,
                 center: bool = True, pad_mode: BorderType = BorderType.REFLECT, onesided: bool = True) -> None:
        self.stft = _Stft("Spectrogram", n_fft, win_length, hop_length, pad, window, normalized, center, pad_mode,
                          onesided)
        self.power = _power("Spectrogram", power)

    def spectrum(self, waveform: Any, op: str) -> np.ndarray:
        return np.abs(self.stft.stft(signal(op, waveform))) ** self.power

    def __call__(self, waveform: Any) -> np.ndarray:
        return f32(self.spectrum(waveform, "Spectrogram"))


class InverseSpectrogram(AudioTensorOperation):
    """The waveform of a complex spectrogram (..., freq, time, 2) (inverse STFT, trimmed or padded to `length`)."""

    def __init__(self, length: int | None = None, n_fft: int = 400, win_length: int | None = None,
                 hop_length: int | None = None, pad: int = 0, window: WindowType = WindowType.HANN,
                 normalized: bool = False, center: bool = True, pad_mode: BorderType = BorderType.REFLECT,
                 onesided: bool = True) -> None:
        self.stft = _Stft("InverseSpectrogram", n_fft, win_length, hop_length, pad, window, normalized, center,
                          pad_mode, onesided)
        self.length = None if length is None else integer("InverseSpectrogram", "length", length, 1)

    def __call__(self, spec: Any) -> np.ndarray:
        z = complex_signal("InverseSpectrogram", spec)
        out = self.stft.istft(z, None if self.length is None else self.length + 2 * self.stft.pad)
        if self.stft.pad:
            out = out[..., self.stft.pad:out.shape[-1] - self.stft.pad]
        return f32(out)


class GriffinLim(AudioTensorOperation):
    """A waveform from a magnitude/power spectrogram (..., freq, time) by `n_iter` Griffin-Lim iterations with
    `momentum`; `rand_init` starts from random phases (drawn from `_random.rng()`), else from zero phase."""

    uses_rng = True

    def __init__(self, n_fft: int = 400, n_iter: int = 32, win_length: int | None = None,
                 hop_length: int | None = None, window_type: WindowType = WindowType.HANN, power: float = 2.0,
                 momentum: float = 0.99, length: int | None = None, rand_init: bool = True) -> None:
        self.stft = _Stft("GriffinLim", n_fft, win_length, hop_length, 0, window_type, False, True,
                          BorderType.REFLECT, True)
        self.n_iter = integer("GriffinLim", "n_iter", n_iter, 1)
        self.power = _power("GriffinLim", power)
        self.momentum = number("GriffinLim", "momentum", momentum, 0)
        self.length = None if length is None else integer("GriffinLim", "length", length, 1)
        self.rand_init = bool(rand_init)

    def __call__(self, spec: Any) -> np.ndarray:
        mag = signal("GriffinLim", spec, 2) ** (1 / self.power)
        if mag.shape[-2] != self.stft.n_fft // 2 + 1:
            raise DatasetError(f"GriffinLim: the spectrogram has {mag.shape[-2]} frequency bins, n_fft "
                               f"{self.stft.n_fft} needs {self.stft.n_fft // 2 + 1}")
        if self.rand_init:
            rng = _random.rng()
            angles = np.exp(2j * math.pi * rng.random(mag.shape))
        else:
            angles = np.ones(mag.shape, np.complex128)
        tprev = np.zeros(mag.shape, np.complex128)
        for _ in range(self.n_iter):
            inverse = self.stft.istft(mag * angles, self.length)
            rebuilt = self.stft.stft(inverse)
            angles = rebuilt - self.momentum / (1 + self.momentum) * tprev
            angles = angles / (np.abs(angles) + 1e-16)
            tprev = rebuilt
        return f32(self.stft.istft(mag * angles, self.length))


class MelScale(AudioTensorOperation):
    """A spectrogram (..., n_stft, time) -> (..., n_mels, time) through the mel filter bank."""

    def __init__(self, n_mels: int = 128, sample_rate: int = 16000, f_min: float = 0.0, f_max: float | None = None,
                 n_stft: int = 201, norm: NormType = NormType.NONE, mel_type: MelType = MelType.HTK) -> None:
        self.n_mels = integer("MelScale", "n_mels", n_mels, 1)
        self.sample_rate = integer("MelScale", "sample_rate", sample_rate, 1)
        self.f_min = number("MelScale", "f_min", f_min, 0)
        self.f_max = float(sample_rate // 2) if f_max is None else number("MelScale", "f_max", f_max, 0)
        if not self.f_min < self.f_max:
            raise DatasetError(f"MelScale: f_min ({self.f_min}) must be below f_max ({self.f_max})")
        self.n_stft = integer("MelScale", "n_stft", n_stft, 1)
        self.fb = mel_fbanks(self.n_stft, self.f_min, self.f_max, self.n_mels, self.sample_rate, NormType(norm),
                             MelType(mel_type))

    def apply(self, spec: np.ndarray, op: str) -> np.ndarray:
        if spec.shape[-2] != self.n_stft:
            raise DatasetError(f"{op}: the spectrogram has {spec.shape[-2]} frequency bins, n_stft is {self.n_stft}")
        return np.swapaxes(np.swapaxes(spec, -1, -2) @ self.fb, -1, -2)

    def __call__(self, spec: Any) -> np.ndarray:
        return f32(self.apply(signal("MelScale", spec, 2), "MelScale"))


class InverseMelScale(AudioTensorOperation):
    """A linear spectrogram (..., n_stft, time) whose mel scale is the given (..., n_mels, time), fitted by SGD with
    momentum (`sgdargs`, default lr 0.1, momentum 0.9) from a random non-negative start (drawn from
    `_random.rng()`), up to `max_iter` steps or until the loss is below `tolerance_loss` or changes less than
    `tolerance_change` — torchaudio's algorithm, as MindSpore's; the draws, not the rule, differ."""

    uses_rng = True

    def __init__(self, n_stft: int, n_mels: int = 128, sample_rate: int = 16000, f_min: float = 0.0,
                 f_max: float | None = None, max_iter: int = 100000, tolerance_loss: float = 1e-5,
                 tolerance_change: float = 1e-8, sgdargs: dict | None = None, norm: NormType = NormType.NONE,
                 mel_type: MelType = MelType.HTK) -> None:
        self.mel_scale = MelScale(n_mels, sample_rate, f_min, f_max, n_stft, norm, mel_type)
        self.max_iter = integer("InverseMelScale", "max_iter", max_iter, 1)
        self.tolerance_loss = number("InverseMelScale", "tolerance_loss", tolerance_loss, 0)
        self.tolerance_change = number("InverseMelScale", "tolerance_change", tolerance_change, 0)
        args = {"sgd_lr": 0.1, "sgd_momentum": 0.9}
        for key, value in (sgdargs or {}).items():
            name = {"lr": "sgd_lr", "momentum": "sgd_momentum"}.get(key, key)
            if name not in args:
                raise DatasetError(f"InverseMelScale: sgdargs takes 'sgd_lr' and 'sgd_momentum', got {key!r}")
            args[name] = number("InverseMelScale", key, value, 0)
        self.lr, self.momentum = args["sgd_lr"], args["sgd_momentum"]

    def __call__(self, x: Any) -> np.ndarray:
        mel = signal("InverseMelScale", x, 2)
        fb = self.mel_scale.fb  # (n_stft, n_mels)
        if mel.shape[-2] != fb.shape[1]:
            raise DatasetError(f"InverseMelScale: the input has {mel.shape[-2]} mel bins, n_mels is {fb.shape[1]}")
        target = np.swapaxes(mel.reshape((-1,) + mel.shape[-2:]), -1, -2)  # (batch, time, n_mels)
        spec = _random.rng().random(target.shape[:2] + (fb.shape[0],))
        velocity = np.zeros_like(spec)
        count = target.shape[0] * target.shape[1]
        loss = math.inf
        for _ in range(self.max_iter):
            diff = target - spec @ fb
            new_loss = float((diff ** 2).sum(-1).mean())
            velocity = self.momentum * velocity + (-2.0 / count) * (diff @ fb.T)
            spec = np.maximum(spec - self.lr * velocity, 0)
            if new_loss < self.tolerance_loss or abs(loss - new_loss) < self.tolerance_change:
                break
            loss = new_loss
        out = np.swapaxes(spec, -1, -2).reshape(mel.shape[:-2] + (fb.shape[0], mel.shape[-1]))
        return f32(out)


class MelSpectrogram(AudioTensorOperation):
    """Spectrogram then MelScale: a waveform (..., time) -> (..., n_mels, frames)."""

    def __init__(self, sample_rate: int = 16000, n_fft: int = 400, win_length: int | None = None,
                 hop_length: int | None = None, f_min: float = 0.0, f_max: float | None = None, pad: int = 0,
                 n_mels: int = 128, window: WindowType = WindowType.HANN, power: float = 2.0,
                 normalized: bool = False, center: bool = True, pad_mode: BorderType = BorderType.REFLECT,
                 onesided: bool = True, norm: NormType = NormType.NONE, mel_scale: MelType = MelType.HTK) -> None:
        self.spectrogram = Spectrogram(n_fft, win_length, hop_length, pad, window, power, normalized, center,
                                       pad_mode, onesided)
        self.mel_scale = MelScale(n_mels, sample_rate, f_min, f_max, n_fft // 2 + 1, norm, mel_scale)

    def mel(self, waveform: Any, op: str) -> np.ndarray:
        return self.mel_scale.apply(self.spectrogram.spectrum(waveform, op), op)

    def __call__(self, waveform: Any) -> np.ndarray:
        return f32(self.mel(waveform, "MelSpectrogram"))


class ScaleType(str, enum.Enum):
    """What AmplitudeToDB converts: power (10 log10) or magnitude (20 log10)."""

    POWER = "power"
    MAGNITUDE = "magnitude"


def to_db(x: np.ndarray, multiplier: float, amin: float, ref_value: float, top_db: float | None) -> np.ndarray:
    db = multiplier * np.log10(np.maximum(x, amin)) - multiplier * math.log10(max(amin, ref_value))
    if top_db is not None:
        # the floor is per spectrogram: the last two axes (freq, time) of each channel... as torchaudio packs them
        flat = db.reshape((-1,) + db.shape[-3:]) if db.ndim > 2 else db[None, None]
        peak = flat.max(axis=(-3, -2, -1), keepdims=True)
        db = np.maximum(flat, peak - top_db).reshape(db.shape)
    return db


class AmplitudeToDB(AudioTensorOperation):
    """Power or magnitude -> decibels relative to `ref_value`, floored at `amin` and at `top_db` below the peak."""

    def __init__(self, stype: ScaleType = ScaleType.POWER, ref_value: float = 1.0, amin: float = 1e-10,
                 top_db: float | None = 80.0) -> None:
        self.stype = ScaleType(stype)
        self.ref_value = number("AmplitudeToDB", "ref_value", ref_value, 0, low_open=True)
        self.amin = number("AmplitudeToDB", "amin", amin, 0, low_open=True)
        self.top_db = None if top_db is None else number("AmplitudeToDB", "top_db", top_db, 0, low_open=True)

    def __call__(self, x: Any) -> np.ndarray:
        multiplier = 10.0 if self.stype == ScaleType.POWER else 20.0
        return f32(to_db(signal("AmplitudeToDB", x), multiplier, self.amin, self.ref_value, self.top_db))


class DBToAmplitude(AudioTensorOperation):
    """Decibels -> `ref * (10 ** (x / 10)) ** power` (power 1: power, 0.5: magnitude)."""

    def __init__(self, ref: float, power: float) -> None:
        self.ref, self.power = number("DBToAmplitude", "ref", ref), number("DBToAmplitude", "power", power)

    def __call__(self, x: Any) -> np.ndarray:
        return f32(self.ref * np.power(np.power(10.0, 0.1 * signal("DBToAmplitude", x)), self.power))


class MFCC(AudioTensorOperation):
    """Mel-frequency cepstral coefficients: MelSpectrogram (`melkwargs`), decibels (or `log_mels`: log(x + 1e-6)),
    then the first `n_mfcc` DCT coefficients -> (..., n_mfcc, frames)."""

    def __init__(self, sample_rate: int = 16000, n_mfcc: int = 40, dct_type: int = 2, norm: NormMode = NormMode.ORTHO,
                 log_mels: bool = False, melkwargs: dict | None = None) -> None:
        if dct_type != 2:
            raise DatasetError(f"MFCC: only dct_type 2 is supported (as MindSpore), got {dct_type!r}")
        self.n_mfcc = integer("MFCC", "n_mfcc", n_mfcc, 1)
        kwargs = dict(melkwargs or {})
        kwargs.pop("sample_rate", None)
        try:
            self.mel = MelSpectrogram(sample_rate, **kwargs)
        except TypeError as exc:
            raise DatasetError(f"MFCC: melkwargs: {exc}") from None
        n_mels = self.mel.mel_scale.n_mels
        if self.n_mfcc > n_mels:
            raise DatasetError(f"MFCC: n_mfcc ({self.n_mfcc}) must not exceed n_mels ({n_mels})")
        self.dct = dct_matrix(self.n_mfcc, n_mels, NormMode(norm))
        self.log_mels = bool(log_mels)

    def __call__(self, waveform: Any) -> np.ndarray:
        mel = self.mel.mel(waveform, "MFCC")
        mel = np.log(mel + 1e-6) if self.log_mels else to_db(mel, 10.0, 1e-10, 1.0, 80.0)
        return f32(np.swapaxes(np.swapaxes(mel, -1, -2) @ self.dct, -1, -2))


class LFCC(AudioTensorOperation):
    """Linear-frequency cepstral coefficients: Spectrogram (`speckwargs`), a linear triangular bank of
    `n_filter`, decibels (or `log_lf`), then `n_lfcc` DCT coefficients."""

    def __init__(self, sample_rate: int = 16000, n_filter: int = 128, n_lfcc: int = 40, f_min: float = 0.0,
                 f_max: float | None = None, dct_type: int = 2, norm: NormMode = NormMode.ORTHO, log_lf: bool = False,
                 speckwargs: dict | None = None) -> None:
        if dct_type != 2:
            raise DatasetError(f"LFCC: only dct_type 2 is supported (as MindSpore), got {dct_type!r}")
        self.n_filter, self.n_lfcc = integer("LFCC", "n_filter", n_filter, 1), integer("LFCC", "n_lfcc", n_lfcc, 1)
        if self.n_lfcc > self.n_filter:
            raise DatasetError(f"LFCC: n_lfcc ({n_lfcc}) must not exceed n_filter ({n_filter})")
        try:
            self.spectrogram = Spectrogram(**(speckwargs or {}))
        except TypeError as exc:
            raise DatasetError(f"LFCC: speckwargs: {exc}") from None
        f_max = float(sample_rate // 2) if f_max is None else float(f_max)
        n_freqs = self.spectrogram.stft.n_fft // 2 + 1
        self.fb = triangular(np.linspace(0, sample_rate // 2, n_freqs), np.linspace(f_min, f_max, n_filter + 2))
        self.dct = dct_matrix(self.n_lfcc, self.n_filter, NormMode(norm))
        self.log_lf = bool(log_lf)

    def __call__(self, waveform: Any) -> np.ndarray:
        spec = self.spectrogram.spectrum(waveform, "LFCC")
        lin = np.swapaxes(np.swapaxes(spec, -1, -2) @ self.fb, -1, -2)
        lin = np.log(lin + 1e-6) if self.log_lf else to_db(lin, 10.0, 1e-10, 1.0, 80.0)
        return f32(np.swapaxes(np.swapaxes(lin, -1, -2) @ self.dct, -1, -2))


class ComplexNorm(AudioTensorOperation):
    """|z| ** power of a complex (..., 2) input."""

    def __init__(self, power: float = 1.0) -> None:
        self.power = number("ComplexNorm", "power", power, 0)

    def __call__(self, x: Any) -> np.ndarray:
        return f32(np.abs(complex_signal("ComplexNorm", x)) ** self.power)


class Angle(AudioTensorOperation):
    """The phase angle of a complex (..., 2) input."""

    def __call__(self, x: Any) -> np.ndarray:
        return f32(np.angle(complex_signal("Angle", x)))


class Magphase(AudioTensorOperation):
    """(|z| ** power, angle(z)) of a complex (..., 2) input."""

    def __init__(self, power: float = 1.0) -> None:
        self.power = number("Magphase", "power", power, 0)

    def __call__(self, x: Any) -> tuple[np.ndarray, np.ndarray]:
        z = complex_signal("Magphase", x)
        return f32(np.abs(z) ** self.power), f32(np.angle(z))


def phase_vocoder(z: np.ndarray, rate: float, phase_advance: np.ndarray) -> np.ndarray:
    """Speed a complex spectrogram (..., freq, time) up by `rate` without changing its pitch (torchaudio's)."""
    steps = np.arange(0, z.shape[-1], rate)
    alphas = steps % 1.0
    phase_0 = np.angle(z[..., :1])
    padded = np.pad(z, [(0, 0)] * (z.ndim - 1) + [(0, 2)])
    z0, z1 = padded[..., steps.astype(int)], padded[..., steps.astype(int) + 1]
    phase = np.angle(z1) - np.angle(z0) - phase_advance
    phase = phase - 2 * math.pi * np.round(phase / (2 * math.pi)) + phase_advance
    phase = np.concatenate([phase_0, phase[..., :-1]], axis=-1)
    mag = alphas * np.abs(z1) + (1 - alphas) * np.abs(z0)
    return mag * np.exp(1j * np.cumsum(phase, axis=-1))


class PhaseVocoder(AudioTensorOperation):
    """Time-stretch a complex spectrogram (..., freq, time, 2) by `rate` (> 1 faster), `phase_advance` the expected
    phase advance per bin (freq, 1)."""

    def __init__(self, rate: float, phase_advance: Any) -> None:
        self.rate = number("PhaseVocoder", "rate", rate, 0, low_open=True)
        self.phase_advance = signal("PhaseVocoder", phase_advance, 2)

    def __call__(self, x: Any) -> np.ndarray:
        z = complex_signal("PhaseVocoder", x)
        if self.phase_advance.shape != (z.shape[-2], 1):
            raise DatasetError(f"PhaseVocoder: phase_advance must have shape ({z.shape[-2]}, 1), got "
                               f"{list(self.phase_advance.shape)}")
        return as_pair(phase_vocoder(z, self.rate, self.phase_advance))


class TimeStretch(AudioTensorOperation):
    """PhaseVocoder with the phase advance of an STFT of `hop_length` (default n_fft // 2) over `n_freq` bins,
    at `fixed_rate` (default 1)."""

    def __init__(self, hop_length: int | None = None, n_freq: int = 201, fixed_rate: float | None = None) -> None:
        self.n_freq = integer("TimeStretch", "n_freq", n_freq, 1)
        n_fft = (self.n_freq - 1) * 2
        self.hop_length = n_fft // 2 if hop_length is None else integer("TimeStretch", "hop_length", hop_length, 1)
        self.fixed_rate = 1.0 if fixed_rate is None else number("TimeStretch", "fixed_rate", fixed_rate, 0,
                                                                  low_open=True)
        self.phase_advance = np.linspace(0, math.pi * self.hop_length, self.n_freq)[:, None]

    def __call__(self, x: Any) -> np.ndarray:
        z = complex_signal("TimeStretch", x)
        if z.shape[-2] != self.n_freq:
            raise DatasetError(f"TimeStretch: the spectrogram has {z.shape[-2]} frequency bins, n_freq is {self.n_freq}")
        return as_pair(phase_vocoder(z, self.fixed_rate, self.phase_advance))


class ComputeDeltas(AudioTensorOperation):
    """Delta coefficients along time: `sum_n n (x[t + n] - x[t - n]) / (2 sum n^2)` over a `win_length` window, the
    edges padded by `pad_mode`."""

    def __init__(self, win_length: int = 5, pad_mode: BorderType = BorderType.EDGE) -> None:
        self.win_length = integer("ComputeDeltas", "win_length", win_length, 3)
        self.pad_mode = BorderType(pad_mode)

    def __call__(self, x: Any) -> np.ndarray:
        spec = signal("ComputeDeltas", x, 2)
        n = (self.win_length - 1) // 2
        denom = n * (n + 1) * (2 * n + 1) / 3
        padded = np.pad(spec, [(0, 0)] * (spec.ndim - 1) + [(n, n)], mode=self.pad_mode.value)
        t = spec.shape[-1]
        out = sum(k * padded[..., n + k:n + k + t] for k in range(-n, n + 1))
        return f32(out / denom)


class SpectralCentroid(AudioTensorOperation):
    """The magnitude-weighted mean frequency of each frame: (..., time) -> (..., 1, frames)."""

    def __init__(self, sample_rate: int, n_fft: int = 400, win_length: int | None = None,
                 hop_length: int | None = None, pad: int = 0, window: WindowType = WindowType.HANN) -> None:
        self.sample_rate = integer("SpectralCentroid", "sample_rate", sample_rate, 1)
        self.spectrogram = Spectrogram(n_fft, win_length, hop_length, pad, window, 1.0)

    def __call__(self, waveform: Any) -> np.ndarray:
        spec = self.spectrogram.spectrum(waveform, "SpectralCentroid")
        freqs = np.linspace(0, self.sample_rate // 2, spec.shape[-2])[:, None]
        return f32((freqs * spec).sum(-2, keepdims=True) / spec.sum(-2, keepdims=True))
