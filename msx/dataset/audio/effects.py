"""Amplitude effects on waveforms: gain and volume, DC shift with a limiter, SoX's contrast and overdrive,
fades, mu-law companding and dither (torchaudio's definitions, which MindSpore's kernels follow)."""
from __future__ import annotations

import enum
import math
from typing import Any

import numpy as np

from ...errors import DatasetError
from .. import _random
from .common import AudioTensorOperation, f32, integer, number, signal


class Gain(AudioTensorOperation):
    """Scale by `gain_db` decibels."""

    def __init__(self, gain_db: float = 1.0) -> None:
        self.gain_db = number("Gain", "gain_db", gain_db)

    def __call__(self, waveform: Any) -> np.ndarray:
        return f32(signal("Gain", waveform) * 10 ** (self.gain_db / 20))


class GainType(str, enum.Enum):
    """How Vol reads its gain: an amplitude ratio, a power ratio, or decibels."""

    AMPLITUDE = "amplitude"
    POWER = "power"
    DB = "db"


class Vol(AudioTensorOperation):
    """Scale by `gain` (an amplitude ratio, a power ratio or dB, as `gain_type`), clamped to [-1, 1]."""

    def __init__(self, gain: float, gain_type: GainType = GainType.AMPLITUDE) -> None:
        self.gain_type = GainType(gain_type)
        low = -math.inf if self.gain_type == GainType.DB else 0.0
        self.gain = number("Vol", "gain", gain, low, low_open=self.gain_type == GainType.POWER)

    def __call__(self, waveform: Any) -> np.ndarray:
        x = signal("Vol", waveform)
        if self.gain_type == GainType.AMPLITUDE:
            y = x * self.gain
        else:
            db = self.gain if self.gain_type == GainType.DB else 10 * math.log10(self.gain)
            y = x * 10 ** (db / 20)
        return f32(np.clip(y, -1, 1))


class DCShift(AudioTensorOperation):
    """Add `shift` (in [-2, 2]); with `limiter_gain`, peaks beyond the limiter threshold are compressed
    instead of clipped (SoX's dcshift; for a negative shift MindSpore 2.10 flips those peaks positive, msx keeps
    SoX's rule)."""

    def __init__(self, shift: float, limiter_gain: float | None = None) -> None:
        self.shift = number("DCShift", "shift", shift, -2, 2)
        self.limiter_gain = None if limiter_gain is None else number("DCShift", "limiter_gain", limiter_gain)

    def __call__(self, waveform: Any) -> np.ndarray:
        x, shift, gain = signal("DCShift", waveform), self.shift, self.limiter_gain
        if gain is None or shift == 0:
            return f32(np.clip(x + shift, -1, 1))
        threshold = 1.0 - (abs(shift) - gain)
        if shift > 0:
            mask = x > threshold
            limited = np.minimum((x - threshold) * gain / (1 - threshold) + threshold + shift, threshold)
        else:
            mask = x < -threshold
            limited = np.maximum((x + threshold) * gain / (1 - threshold) - threshold + shift, -threshold)
        return f32(np.where(mask, limited, np.clip(x + shift, -1, 1)))


class Contrast(AudioTensorOperation):
    """SoX's contrast: `sin(x pi/2 + a sin(2 pi x))`, a = enhancement_amount / 750 (0 to 100)."""

    def __init__(self, enhancement_amount: float = 75.0) -> None:
        self.enhancement_amount = number("Contrast", "enhancement_amount", enhancement_amount, 0, 100)

    def __call__(self, waveform: Any) -> np.ndarray:
        t = signal("Contrast", waveform) * math.pi / 2
        return f32(np.sin(t + self.enhancement_amount / 750 * np.sin(t * 4)))


class Overdrive(AudioTensorOperation):
    """SoX's overdrive: soft clipping after `gain` dB with `color` (even harmonics), then a DC-blocking filter."""

    def __init__(self, gain: float = 20.0, color: float = 20.0) -> None:
        self.gain = number("Overdrive", "gain", gain, 0, 100)
        self.color = number("Overdrive", "color", color, 0, 100)

    def __call__(self, waveform: Any) -> np.ndarray:
        x = signal("Overdrive", waveform)
        temp = x * 10 ** (self.gain / 20) + self.color / 200
        temp = np.where(temp < -1, -2 / 3, np.where(temp > 1, 2 / 3, temp - temp ** 3 / 3))
        out = np.empty_like(x)
        last_in = np.zeros(x.shape[:-1])
        last_out = np.zeros(x.shape[:-1])
        for i in range(x.shape[-1]):
            last_out = temp[..., i] - last_in + 0.995 * last_out
            last_in = temp[..., i]
            out[..., i] = x[..., i] * 0.5 + last_out * 0.75
        return f32(np.clip(out, -1, 1))


class FadeShape(str, enum.Enum):
    """The curve of a fade."""

    QUARTER_SINE = "quarter_sine"
    HALF_SINE = "half_sine"
    LINEAR = "linear"
    LOGARITHMIC = "logarithmic"
    EXPONENTIAL = "exponential"


def _fade_curve(n: int, shape: FadeShape, rising: bool) -> np.ndarray:
    """torchaudio's curves, but MindSpore's exponential one (`t 2^(t - 1)`, reaching 0 and 1 at the ends)."""
    t = np.linspace(0, 1, n)
    if rising:
        curves = {FadeShape.LINEAR: t, FadeShape.EXPONENTIAL: t * 2 ** (t - 1),
                  FadeShape.LOGARITHMIC: np.log10(0.1 + t) + 1, FadeShape.QUARTER_SINE: np.sin(t * math.pi / 2),
                  FadeShape.HALF_SINE: np.sin(t * math.pi - math.pi / 2) / 2 + 0.5}
    else:
        curves = {FadeShape.LINEAR: 1 - t, FadeShape.EXPONENTIAL: (1 - t) * 2 ** -t,
                  FadeShape.LOGARITHMIC: np.log10(1.1 - t) + 1,
                  FadeShape.QUARTER_SINE: np.sin(t * math.pi / 2 + math.pi / 2),
                  FadeShape.HALF_SINE: np.sin(t * math.pi + math.pi / 2) / 2 + 0.5}
    return curves[shape]


class Fade(AudioTensorOperation):
    """Fade in over the first `fade_in_len` samples and out over the last `fade_out_len`, along `fade_shape`."""

    def __init__(self, fade_in_len: int = 0, fade_out_len: int = 0, fade_shape: FadeShape = FadeShape.LINEAR) -> None:
        self.fade_in_len = integer("Fade", "fade_in_len", fade_in_len)
        self.fade_out_len = integer("Fade", "fade_out_len", fade_out_len)
        self.fade_shape = FadeShape(fade_shape)

    def __call__(self, waveform: Any) -> np.ndarray:
        x = signal("Fade", waveform)
        n = x.shape[-1]
        if self.fade_in_len > n or self.fade_out_len > n:
            raise DatasetError(f"Fade: fade_in_len {self.fade_in_len} and fade_out_len {self.fade_out_len} must not "
                               f"exceed the waveform's {n} samples")
        gain = np.ones(n)
        gain[:self.fade_in_len] *= _fade_curve(self.fade_in_len, self.fade_shape, True)
        gain[n - self.fade_out_len:] *= _fade_curve(self.fade_out_len, self.fade_shape, False)
        return f32(x * gain)


class MuLawEncoding(AudioTensorOperation):
    """Mu-law companding of a waveform in [-1, 1] to ints in [0, quantization_channels)."""

    def __init__(self, quantization_channels: int = 256) -> None:
        self.quantization_channels = integer("MuLawEncoding", "quantization_channels", quantization_channels, 1)

    def __call__(self, waveform: Any) -> np.ndarray:
        x, mu = signal("MuLawEncoding", waveform), self.quantization_channels - 1.0
        y = np.sign(x) * np.log1p(mu * np.abs(x)) / math.log1p(mu)
        return np.floor((y + 1) / 2 * mu + 0.5).astype(np.int32)


class MuLawDecoding(AudioTensorOperation):
    """The inverse of MuLawEncoding: ints in [0, quantization_channels) -> a waveform in [-1, 1]."""

    def __init__(self, quantization_channels: int = 256) -> None:
        self.quantization_channels = integer("MuLawDecoding", "quantization_channels", quantization_channels, 1)

    def __call__(self, x_mu: Any) -> np.ndarray:
        mu = self.quantization_channels - 1.0
        y = signal("MuLawDecoding", x_mu) / mu * 2 - 1
        return f32(np.sign(y) * (np.exp(np.abs(y) * math.log1p(mu)) - 1) / mu)


class DensityFunction(str, enum.Enum):
    """Dither noise: triangular, rectangular or Gaussian."""

    TPDF = "TPDF"
    RPDF = "RPDF"
    GPDF = "GPDF"


class Dither(AudioTensorOperation):
    """Add dither noise of `density_function` before quantising to 16 bits (torchaudio's dither; noise shaping
    feeds the quantisation error back). The noise draws from `_random.rng()`."""

    uses_rng = True

    def __init__(self, density_function: DensityFunction = DensityFunction.TPDF, noise_shaping: bool = False) -> None:
        self.density_function, self.noise_shaping = DensityFunction(density_function), bool(noise_shaping)

    def __call__(self, waveform: Any) -> np.ndarray:
        x, rng = signal("Dither", waveform), _random.rng()
        if self.density_function == DensityFunction.RPDF:
            noise = rng.uniform(-1, 1, x.shape)
        elif self.density_function == DensityFunction.GPDF:
            noise = sum(rng.uniform(-1, 1, x.shape) for _ in range(6))  # torchaudio's Gaussian: 6 uniforms
        else:
            noise = rng.uniform(0, 1, x.shape) - rng.uniform(0, 1, x.shape)
        scale = 2 ** 15  # 16-bit
        if not self.noise_shaping:
            return f32(np.round(x * scale + noise) / scale)
        flat, out = (x * scale).reshape(-1, x.shape[-1]), np.empty((int(np.prod(x.shape[:-1])), x.shape[-1]))
        noise = noise.reshape(flat.shape)
        for r in range(flat.shape[0]):
            error = 0.0
            for i in range(flat.shape[1]):
                wanted = flat[r, i] - error
                out[r, i] = np.round(wanted + noise[r, i])
                error = out[r, i] - wanted
        return f32(out.reshape(x.shape) / scale)


class Modulation(str, enum.Enum):
    """The low-frequency oscillator of Flanger: a sine or a triangle."""

    SINUSOIDAL = "sinusoidal"
    TRIANGULAR = "triangular"


class Interpolation(str, enum.Enum):
    """How Flanger reads between delay-line samples."""

    LINEAR = "linear"
    QUADRATIC = "quadratic"


def wave_table(sine: bool, size: int, low: float, high: float, phase: float, as_int: bool) -> np.ndarray:
    """SoX's oscillator table of `size` points between `low` and `high`, starting at `phase` radians."""
    point = (np.arange(size) + int(phase / math.pi / 2 * size + 0.5)) % size
    if sine:
        d = (np.sin(point / size * 2 * math.pi) + 1) / 2
    else:
        d = point * 2 / size
        quarter = (4 * point) // size
        d = np.select([quarter == 0, quarter == 1, quarter == 2, quarter == 3], [d + 0.5, 1.5 - d, 1.5 - d, d - 1.5])
    d = d * (high - low) + low
    if as_int:
        return np.where(d < 0, d - 0.5, d + 0.5).astype(np.int64)
    return d.astype(np.float32).astype(np.float64)


class Flanger(AudioTensorOperation):
    """SoX's flanger on (..., channel, time): a delay of `delay` + up to `depth` ms swept by an LFO of `speed`
    Hz, mixed by `width` percent with `regen` percent feedback, channels `phase` percent apart."""

    def __init__(self, sample_rate: int, delay: float = 0.0, depth: float = 2.0, regen: float = 0.0,
                 width: float = 71.0, speed: float = 0.5, phase: float = 25.0,
                 modulation: Modulation = Modulation.SINUSOIDAL,
                 interpolation: Interpolation = Interpolation.LINEAR) -> None:
        op = "Flanger"
        self.sample_rate = integer(op, "sample_rate", sample_rate, 1)
        self.delay, self.depth = number(op, "delay", delay, 0, 30), number(op, "depth", depth, 0, 10)
        self.regen, self.width = number(op, "regen", regen, -95, 95), number(op, "width", width, 0, 100)
        self.speed, self.phase = number(op, "speed", speed, 0.1, 10), number(op, "phase", phase, 0, 100)
        self.modulation, self.interpolation = Modulation(modulation), Interpolation(interpolation)

    def __call__(self, waveform: Any) -> np.ndarray:
        x = signal("Flanger", waveform, 2)
        flat = x.reshape(-1, x.shape[-2], x.shape[-1])
        feedback = self.regen / 100
        delay_gain = self.width / 100
        in_gain = 1.0 / (1 + delay_gain)
        delay_gain = delay_gain / (1 + delay_gain) * (1 - abs(feedback))
        delay_min, delay_depth = self.delay / 1000, self.depth / 1000
        buf_len = int((delay_min + delay_depth) * self.sample_rate + 0.5) + 2
        bufs = np.zeros(flat.shape[:2] + (buf_len,))
        last = np.zeros(flat.shape[:2])
        lfo_len = int(self.sample_rate / self.speed)
        lfo = wave_table(self.modulation == Modulation.SINUSOIDAL, lfo_len, math.floor(delay_min * self.sample_rate
                                                                                         + 0.5), buf_len - 2.0,
                         3 * math.pi / 2, as_int=False)
        channels = np.arange(flat.shape[1])
        offsets = (channels * lfo_len * (self.phase / 100) + 0.5).astype(np.int64)
        out = np.zeros_like(flat)
        pos = lfo_pos = 0
        for i in range(flat.shape[-1]):
            pos = (pos + buf_len - 1) % buf_len
            delay = lfo[(lfo_pos + offsets) % lfo_len]
            frac, whole = delay - np.floor(delay), np.floor(delay).astype(np.int64)
            bufs[:, :, pos] = flat[:, :, i] + last * feedback
            d0 = bufs[:, channels, (pos + whole) % buf_len]
            d1 = bufs[:, channels, (pos + whole + 1) % buf_len]
            if self.interpolation == Interpolation.LINEAR:
                delayed = d0 + (d1 - d0) * frac
            else:
                d2 = bufs[:, channels, (pos + whole + 2) % buf_len] - d0
                d1 = d1 - d0
                delayed = d0 + ((d2 * 0.5 - d1) * frac + (d1 * 2 - d2 * 0.5)) * frac
            last = delayed
            out[:, :, i] = flat[:, :, i] * in_gain + delayed * delay_gain
            lfo_pos = (lfo_pos + 1) % lfo_len
        return f32(np.clip(out, -1, 1).reshape(x.shape))


class Phaser(AudioTensorOperation):
    """SoX's phaser: the signal plus a delayed copy (`delay_ms`, modulated at `mod_speed` Hz by a sine or
    triangle) fed back with `decay`, scaled by `gain_in` and `gain_out`."""

    def __init__(self, sample_rate: int, gain_in: float = 0.4, gain_out: float = 0.74, delay_ms: float = 3.0,
                 decay: float = 0.4, mod_speed: float = 0.5, sinusoidal: bool = True) -> None:
        op = "Phaser"
        self.sample_rate = integer(op, "sample_rate", sample_rate, 1)
        self.gain_in, self.gain_out = number(op, "gain_in", gain_in, 0, 1), number(op, "gain_out", gain_out, 0, 1e9)
        self.delay_ms, self.decay = number(op, "delay_ms", delay_ms, 0, 5), number(op, "decay", decay, 0, 0.99)
        self.mod_speed, self.sinusoidal = number(op, "mod_speed", mod_speed, 0.1, 2), bool(sinusoidal)

    def __call__(self, waveform: Any) -> np.ndarray:
        x = signal("Phaser", waveform)
        flat = x.reshape(-1, x.shape[-1]) * self.gain_in
        buf_len = int(self.delay_ms * 0.001 * self.sample_rate + 0.5)
        if buf_len < 1:
            raise DatasetError(f"Phaser: delay_ms {self.delay_ms} is under one sample at {self.sample_rate} Hz")
        buf = np.zeros((flat.shape[0], buf_len))
        mod_len = int(self.sample_rate / self.mod_speed + 0.5)
        mod = wave_table(self.sinusoidal, mod_len, 1.0, float(buf_len), math.pi / 2, as_int=True)
        out = np.zeros_like(flat)
        pos = mod_pos = 0
        for i in range(flat.shape[-1]):
            idx = int((pos + mod[mod_pos]) % buf_len)
            mod_pos = (mod_pos + 1) % mod_len
            pos = (pos + 1) % buf_len
            temp = flat[:, i] + buf[:, idx]
            buf[:, pos] = temp * self.decay
            out[:, i] = temp
        return f32(np.clip(out * self.gain_out, -1, 1).reshape(x.shape))
