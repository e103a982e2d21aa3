"""IIR filters: the biquad family (the RBJ Audio-EQ-Cookbook designs, with SoX's band/deemph/riaa variants, as
torchaudio and MindSpore define them), LFilter and Filtfilt. Filtering is scipy.signal.lfilter (direct form,
coefficients normalised by a0) along the last axis; the result is clamped to [-1, 1] unless `clamp=False`."""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np
import scipy.signal

from ...errors import DatasetError
from .common import AudioTensorOperation, f32, number, signal


def lfilter(x: np.ndarray, a: Sequence[float], b: Sequence[float], clamp: bool) -> np.ndarray:
    y = scipy.signal.lfilter(np.asarray(b, np.float64), np.asarray(a, np.float64), x, axis=-1)
    return np.clip(y, -1, 1) if clamp else y


def _coeffs(op: str, name: str, values: Any) -> list[float]:
    if not isinstance(values, (list, tuple, np.ndarray)) or len(values) == 0 or not all(
            isinstance(v, (int, float, np.floating, np.integer)) and not isinstance(v, bool) for v in values):
        raise DatasetError(f"{op}: {name} must be a non-empty list of numbers, got {values!r}")
    return [float(v) for v in values]


class LFilter(AudioTensorOperation):
    """IIR filter `a_coeffs` (denominator, a0 first) / `b_coeffs` (numerator) along time, of the same length."""

    def __init__(self, a_coeffs: Sequence[float], b_coeffs: Sequence[float], clamp: bool = True) -> None:
        op = type(self).__name__
        self.a_coeffs, self.b_coeffs = _coeffs(op, "a_coeffs", a_coeffs), _coeffs(op, "b_coeffs", b_coeffs)
        if len(self.a_coeffs) != len(self.b_coeffs):
            raise DatasetError(f"{op}: a_coeffs and b_coeffs must have the same length, got {len(self.a_coeffs)} "
                               f"and {len(self.b_coeffs)}")
        if self.a_coeffs[0] == 0:
            raise DatasetError(f"{op}: a_coeffs[0] must not be 0")
        self.clamp = bool(clamp)

    def __call__(self, waveform: Any) -> np.ndarray:
        return f32(lfilter(signal(type(self).__name__, waveform), self.a_coeffs, self.b_coeffs, self.clamp))


class Filtfilt(LFilter):
    """LFilter forwards (unclamped) then backwards, for zero phase."""

    def __call__(self, waveform: Any) -> np.ndarray:
        forward = lfilter(signal("Filtfilt", waveform), self.a_coeffs, self.b_coeffs, False)
        return f32(lfilter(forward[..., ::-1], self.a_coeffs, self.b_coeffs, self.clamp)[..., ::-1])


class _Biquad(AudioTensorOperation):
    def coefficients(self) -> tuple[list[float], list[float]]:
        raise NotImplementedError

    def __call__(self, waveform: Any) -> np.ndarray:
        b, a = self.coefficients()
        return f32(lfilter(signal(type(self).__name__, waveform), a, b, True))


class Biquad(_Biquad):
    """A second-order IIR filter of the given coefficients."""

    def __init__(self, b0: float, b1: float, b2: float, a0: float, a1: float, a2: float) -> None:
        values = [number("Biquad", n, v) for n, v in zip(("b0", "b1", "b2", "a0", "a1", "a2"), (b0, b1, b2, a0, a1, a2))]
        if values[3] == 0:
            raise DatasetError("Biquad: a0 must not be 0")
        self.b, self.a = values[:3], values[3:]

    def coefficients(self) -> tuple[list[float], list[float]]:
        return self.b, self.a


def _rate(op: str, sample_rate: Any) -> int:
    if isinstance(sample_rate, bool) or not isinstance(sample_rate, int) or sample_rate == 0:
        raise DatasetError(f"{op}: sample_rate must be a non-zero int, got {sample_rate!r}")
    return sample_rate


class _Tuned(_Biquad):
    def _tune(self, sample_rate: Any, freq: Any, q: Any, freq_name: str = "central_freq") -> None:
        op = type(self).__name__
        self.sample_rate = _rate(op, sample_rate)
        self.freq = number(op, freq_name, freq)
        self.Q = number(op, "Q", q, 0, 1, low_open=True)

    @property
    def w0(self) -> float:
        return 2 * math.pi * self.freq / self.sample_rate

    @property
    def alpha(self) -> float:
        return math.sin(self.w0) / 2 / self.Q


class AllpassBiquad(_Tuned):
    """Two-pole all-pass filter at `central_freq` Hz."""

    def __init__(self, sample_rate: int, central_freq: float, Q: float = 0.707) -> None:
        self._tune(sample_rate, central_freq, Q)

    def coefficients(self) -> tuple[list[float], list[float]]:
        c, al = math.cos(self.w0), self.alpha
        return [1 - al, -2 * c, 1 + al], [1 + al, -2 * c, 1 - al]


class BandBiquad(_Tuned):
    """SoX's two-pole band filter at `central_freq` (`noise=True`: the mode for unpitched audio)."""

    def __init__(self, sample_rate: int, central_freq: float, Q: float = 0.707, noise: bool = False) -> None:
        self._tune(sample_rate, central_freq, Q)
        self.noise = bool(noise)

    def coefficients(self) -> tuple[list[float], list[float]]:
        bw_hz = self.freq / self.Q
        a2 = math.exp(-2 * math.pi * bw_hz / self.sample_rate)
        a1 = -4 * a2 / (1 + a2) * math.cos(self.w0)
        b0 = math.sqrt(1 - a1 * a1 / (4 * a2)) * (1 - a2)
        if self.noise:
            b0 *= math.sqrt(((1 + a2) ** 2 - a1 * a1) * (1 - a2) / (1 + a2)) / b0
        return [b0, 0.0, 0.0], [1.0, a1, a2]


class BandpassBiquad(_Tuned):
    """Two-pole band-pass filter (`const_skirt_gain`: constant skirt gain, else constant 0 dB peak)."""

    def __init__(self, sample_rate: int, central_freq: float, Q: float = 0.707, const_skirt_gain: bool = False) -> None:
        self._tune(sample_rate, central_freq, Q)
        self.const_skirt_gain = bool(const_skirt_gain)

    def coefficients(self) -> tuple[list[float], list[float]]:
        c, al = math.cos(self.w0), self.alpha
        temp = math.sin(self.w0) / 2 if self.const_skirt_gain else al
        return [temp, 0.0, -temp], [1 + al, -2 * c, 1 - al]


class BandrejectBiquad(_Tuned):
    """Two-pole band-reject (notch) filter."""

    def __init__(self, sample_rate: int, central_freq: float, Q: float = 0.707) -> None:
        self._tune(sample_rate, central_freq, Q)

    def coefficients(self) -> tuple[list[float], list[float]]:
        c, al = math.cos(self.w0), self.alpha
        return [1.0, -2 * c, 1.0], [1 + al, -2 * c, 1 - al]


class HighpassBiquad(_Tuned):
    """Two-pole high-pass filter at `cutoff_freq`."""

    def __init__(self, sample_rate: int, cutoff_freq: float, Q: float = 0.707) -> None:
        self._tune(sample_rate, cutoff_freq, Q, "cutoff_freq")

    def coefficients(self) -> tuple[list[float], list[float]]:
        c, al = math.cos(self.w0), self.alpha
        return [(1 + c) / 2, -1 - c, (1 + c) / 2], [1 + al, -2 * c, 1 - al]


class LowpassBiquad(_Tuned):
    """Two-pole low-pass filter at `cutoff_freq`."""

    def __init__(self, sample_rate: int, cutoff_freq: float, Q: float = 0.707) -> None:
        self._tune(sample_rate, cutoff_freq, Q, "cutoff_freq")

    def coefficients(self) -> tuple[list[float], list[float]]:
        c, al = math.cos(self.w0), self.alpha
        return [(1 - c) / 2, 1 - c, (1 - c) / 2], [1 + al, -2 * c, 1 - al]


class EqualizerBiquad(_Tuned):
    """Peaking equaliser: `gain` dB at `center_freq`."""

    def __init__(self, sample_rate: int, center_freq: float, gain: float, Q: float = 0.707) -> None:
        self._tune(sample_rate, center_freq, Q, "center_freq")
        self.gain = number("EqualizerBiquad", "gain", gain)

    def coefficients(self) -> tuple[list[float], list[float]]:
        c, al, g = math.cos(self.w0), self.alpha, math.exp(self.gain / 40 * math.log(10))
        return [1 + al * g, -2 * c, 1 - al * g], [1 + al / g, -2 * c, 1 - al / g]


def _shelf(a: float, w0: float, alpha: float, treble: bool) -> tuple[list[float], list[float]]:
    t1, t2, t3 = 2 * math.sqrt(a) * alpha, (a - 1) * math.cos(w0), (a + 1) * math.cos(w0)
    if treble:
        return ([a * ((a + 1) + t2 + t1), -2 * a * ((a - 1) + t3), a * ((a + 1) + t2 - t1)],
                [(a + 1) - t2 + t1, 2 * ((a - 1) - t3), (a + 1) - t2 - t1])
    return ([a * ((a + 1) - t2 + t1), 2 * a * ((a - 1) - t3), a * ((a + 1) - t2 - t1)],
            [(a + 1) + t2 + t1, -2 * ((a - 1) + t3), (a + 1) + t2 - t1])


class BassBiquad(_Tuned):
    """Low shelf: `gain` dB below `central_freq`."""

    def __init__(self, sample_rate: int, gain: float, central_freq: float = 100.0, Q: float = 0.707) -> None:
        self._tune(sample_rate, central_freq, Q)
        self.gain = number("BassBiquad", "gain", gain)

    def coefficients(self) -> tuple[list[float], list[float]]:
        return _shelf(math.exp(self.gain / 40 * math.log(10)), self.w0, self.alpha, treble=False)


class TrebleBiquad(_Tuned):
    """High shelf: `gain` dB above `central_freq`."""

    def __init__(self, sample_rate: int, gain: float, central_freq: float = 3000, Q: float = 0.707) -> None:
        self._tune(sample_rate, central_freq, Q)
        self.gain = number("TrebleBiquad", "gain", gain)

    def coefficients(self) -> tuple[list[float], list[float]]:
        return _shelf(math.exp(self.gain / 40 * math.log(10)), self.w0, self.alpha, treble=True)


_DEEMPH = {44100: (5283.0, 0.4845, -9.477), 48000: (5356.0, 0.479, -9.62)}


class DeemphBiquad(_Biquad):
    """CD de-emphasis (ISO 908) as a treble shelf; `sample_rate` 44100 or 48000."""

    def __init__(self, sample_rate: int) -> None:
        if sample_rate not in _DEEMPH:
            raise DatasetError(f"DeemphBiquad: sample_rate must be 44100 or 48000, got {sample_rate!r}")
        self.sample_rate = sample_rate

    def coefficients(self) -> tuple[list[float], list[float]]:
        freq, slope, gain = _DEEMPH[self.sample_rate]
        w0 = 2 * math.pi * freq / self.sample_rate
        a = math.exp(gain / 40 * math.log(10))
        alpha = math.sin(w0) / 2 * math.sqrt((a + 1 / a) * (1 / slope - 1) + 2)
        return _shelf(a, w0, alpha, treble=True)


_RIAA = {44100: ((-0.2014898, 0.9233820), (0.7083149, 0.9924091)),
         48000: ((-0.1766069, 0.9321590), (0.7396325, 0.9931330)),
         88200: ((-0.1168735, 0.9648312), (0.8590646, 0.9964002)),
         96000: ((-0.1141486, 0.9676817), (0.8699137, 0.9966946))}


class RiaaBiquad(_Biquad):
    """RIAA vinyl playback equalisation, 0 dB at 1 kHz; `sample_rate` 44100, 48000, 88200 or 96000."""

    def __init__(self, sample_rate: int) -> None:
        if sample_rate not in _RIAA:
            raise DatasetError(f"RiaaBiquad: sample_rate must be 44100, 48000, 88200 or 96000, got {sample_rate!r}")
        self.sample_rate = sample_rate

    def coefficients(self) -> tuple[list[float], list[float]]:
        zeros, poles = _RIAA[self.sample_rate]
        b = [1.0, -(zeros[0] + zeros[1]), zeros[0] * zeros[1]]
        a = [1.0, -(poles[0] + poles[1]), poles[0] * poles[1]]
        y = 2 * math.pi * 1000 / self.sample_rate
        b_re, a_re = (c[0] + c[1] * math.cos(-y) + c[2] * math.cos(-2 * y) for c in (b, a))
        b_im, a_im = (c[1] * math.sin(-y) + c[2] * math.sin(-2 * y) for c in (b, a))
        g = 1 / math.sqrt((b_re ** 2 + b_im ** 2) / (a_re ** 2 + a_im ** 2))
        return [v * g for v in b], a
