"""Voice activity detection: SoX's `vad` effect (as torchaudio's `functional.vad`) — trim the silence and quiet
background before the first speech-like burst. Every `1 / measure_freq` seconds a cepstral measure of the last
`measure_duration` seconds (Hann-windowed spectrum, smoothed, minus an adaptive noise estimate, liftered) is taken;
its running mean crossing `trigger_level` triggers, and up to `search_time` seconds of quieter bursts before the
trigger (gaps up to `allowed_gap`) plus `pre_trigger_time` are kept. Only the front is trimmed; to trim the end,
reverse the waveform, apply, reverse back (SoX's `reverse vad reverse`).

MindSpore 2.10's kernel computes every measure as 0 (it fills its magnitude buffer by `push_back` after sizing
it), so it never triggers and always keeps the last `samples_len` samples; msx follows SoX where MindSpore's kernel
never gets, and MindSpore/torchaudio where they agree (a waveform that never triggers)."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...errors import DatasetError
from .common import AudioTensorOperation, integer, number, signal


class Vad(AudioTensorOperation):
    """Trim the front of (..., time) up to the detected voice activity (all channels trimmed alike, at the
    first channel to trigger). float64 input stays float64; any other numeric input comes back float32."""

    def __init__(self, sample_rate: int, trigger_level: float = 7.0, trigger_time: float = 0.25,
                 search_time: float = 1.0, allowed_gap: float = 0.25, pre_trigger_time: float = 0.0,
                 boot_time: float = 0.35, noise_up_time: float = 0.1, noise_down_time: float = 0.01,
                 noise_reduction_amount: float = 1.35, measure_freq: float = 20.0,
                 measure_duration: float | None = None, measure_smooth_time: float = 0.4,
                 hp_filter_freq: float = 50.0, lp_filter_freq: float = 6000.0, hp_lifter_freq: float = 150.0,
                 lp_lifter_freq: float = 2000.0) -> None:
        op = "Vad"
        self.sample_rate = integer(op, "sample_rate", sample_rate, 1)
        self.trigger_level = number(op, "trigger_level", trigger_level)
        for name in ("trigger_time", "search_time", "allowed_gap", "pre_trigger_time", "boot_time",
                     "noise_up_time", "noise_down_time", "noise_reduction_amount", "measure_smooth_time"):
            setattr(self, name, number(op, name, locals()[name], 0))
        if self.noise_up_time < self.noise_down_time:
            raise DatasetError(f"Vad: noise_up_time ({noise_up_time}) must be >= noise_down_time "
                               f"({noise_down_time})")
        for name in ("measure_freq", "hp_filter_freq", "lp_filter_freq", "hp_lifter_freq", "lp_lifter_freq"):
            setattr(self, name, number(op, name, locals()[name], 0, low_open=True))
        self.measure_duration = (2.0 / self.measure_freq if not measure_duration
                                 else number(op, "measure_duration", measure_duration, 0))
        # MindSpore's kernel derives its sizes in float32 for a float32 waveform, in float64 (from the float32
        # arguments) for a float64 one: 0.2 s * 20 Hz is 4 measures for the first and 5 for the second
        self._sizes = {np.float32: _Sizes(self, np.float32), np.float64: _Sizes(self, np.float64)}

    def __call__(self, waveform: Any) -> np.ndarray:
        x = signal("Vad", waveform)
        out_dtype = np.float64 if np.asarray(waveform).dtype == np.float64 else np.float32
        flat = x.reshape(-1, x.shape[-1])
        start = self._start(flat, self._sizes[out_dtype])
        return np.ascontiguousarray(flat[:, start:]).reshape(x.shape[:-1] + (-1,)).astype(out_dtype)

    def _start(self, flat: np.ndarray, sizes: _Sizes) -> int:
        """The first sample kept: SoX's ring buffer read back once the running mean measure triggers."""
        channels, length = flat.shape
        s0, s1 = sizes.spec
        up, down, smooth, trigger_mult = sizes.mults
        spectrum = np.zeros((channels, s1 - s0))
        noise = np.zeros((channels, s1 - s0))
        measures = np.zeros((channels, sizes.measures_len))
        mean = np.zeros(channels)
        # the measure at sample p reads the measure_len samples before p (zeros before the start)
        padded = np.concatenate([np.zeros((channels, sizes.measure_len)), flat], 1)
        boot, index, to_flush = 0, 0, 0
        for pos in range(sizes.measure_len - 1, length, sizes.period):
            frame = np.zeros((channels, sizes.dft_len))
            frame[:, :sizes.measure_len] = padded[:, pos:pos + sizes.measure_len] * sizes.spectrum_window
            magnitude = np.abs(np.fft.rfft(frame))[:, s0:s1]
            mult = boot / (1.0 + boot) if boot >= 0 else smooth
            spectrum = spectrum * mult + magnitude * (1 - mult)
            power = spectrum ** 2
            noise_mult = 0.0 if boot >= 0 else np.where(power > noise, up, down)
            noise = noise * noise_mult + power * (1 - noise_mult)
            cepstrum = np.zeros((channels, sizes.dft_len // 2))
            cepstrum[:, s0:s1] = np.sqrt(np.maximum(0.0, power - self.noise_reduction_amount * noise)) \
                * sizes.cepstrum_window
            energy = (np.abs(np.fft.rfft(cepstrum)[:, sizes.ceps[0]:sizes.ceps[1]]) ** 2).sum(-1)
            with np.errstate(divide="ignore"):
                meas = np.maximum(0.0, 21 + np.log(energy / (sizes.ceps[1] - sizes.ceps[0])))
            measures[:, index] = meas
            mean = mean * trigger_mult + meas * (1 - trigger_mult)
            triggered = np.flatnonzero(mean >= self.trigger_level)
            if triggered.size:
                for channel in range(triggered[0], channels):
                    to_flush = sizes.flush(measures[channel], index, to_flush)
                flushed = (sizes.measures_len - to_flush) * sizes.period
                return max(pos + 1 - sizes.samples_len + flushed, 0)
            index = (index + 1) % sizes.measures_len
            if boot >= 0:
                boot = -1 if boot == sizes.boot_max else boot + 1
        end = length - sizes.samples_len  # never triggered: MindSpore's and torchaudio's slice [-samples_len:]
        return max(end + length, 0) if end < 0 else end


class _Sizes:
    """The sizes SoX derives from Vad's arguments (in samples or measures), computed in `real` (np.float32 or
    np.float64) from the arguments rounded to float32, as MindSpore's kernel holds them."""

    def __init__(self, vad: Vad, real: type) -> None:
        def mul(a: float, b: float) -> float:
            return float(real(np.float32(a)) * real(np.float32(b)))

        def div(a: float, b: float) -> float:
            return float(real(np.float32(a)) / real(np.float32(b)))

        sr, freq = vad.sample_rate, vad.measure_freq
        self.trigger_level = float(np.float32(vad.trigger_level))
        self.measure_len = int(mul(sr, vad.measure_duration) + 0.5)
        if self.measure_len < 1:
            raise DatasetError(f"Vad: measure_duration {vad.measure_duration} s is under one sample at "
                               f"sample_rate {sr}")
        self.dft_len = 16
        while self.dft_len < self.measure_len:
            self.dft_len *= 2
        self.period = int(div(sr, freq) + 0.5)
        self.measures_len = max(int(math.ceil(mul(vad.search_time, freq))), 1)
        self.gap_len = int(mul(vad.allowed_gap, freq) + 0.5)
        pre_trigger_len = int(mul(vad.pre_trigger_time, sr) + 0.5)
        self.samples_len = pre_trigger_len + self.measures_len * self.period + self.measure_len
        self.spec = (max(int(mul(div(vad.hp_filter_freq, sr), self.dft_len) + 0.5), 1),
                     min(int(mul(div(vad.lp_filter_freq, sr), self.dft_len) + 0.5), self.dft_len // 2))
        if self.spec[1] <= self.spec[0]:
            raise DatasetError(f"Vad: the spectrum band is empty (bins {self.spec[0]}..{self.spec[1]} of "
                               f"{self.dft_len}): hp_filter_freq {vad.hp_filter_freq} is too large or "
                               f"lp_filter_freq {vad.lp_filter_freq} too small for sample_rate {sr}")
        self.ceps = (int(math.ceil(sr * 0.5 / _f32(vad.lp_lifter_freq))),
                     min(int(math.floor(sr * 0.5 / _f32(vad.hp_lifter_freq))), self.dft_len // 4))
        if self.ceps[1] <= self.ceps[0]:
            raise DatasetError(f"Vad: the cepstrum band is empty (quefrencies {self.ceps[0]}..{self.ceps[1]}): "
                               f"hp_lifter_freq {vad.hp_lifter_freq} is too large or lp_lifter_freq "
                               f"{vad.lp_lifter_freq} too small for sample_rate {sr}")
        width = self.spec[1] - self.spec[0]
        self.spectrum_window = 2 / math.sqrt(self.measure_len) * np.hanning(self.measure_len)
        self.cepstrum_window = 2 / math.sqrt(width) * np.hanning(width)
        times = (vad.noise_up_time, vad.noise_down_time, vad.measure_smooth_time, vad.trigger_time)
        self.mults = [math.exp(-1 / mul(t, freq)) if t > 0 else 0.0 for t in times]
        self.boot_max = int(mul(vad.boot_time, freq) - 0.5)

    def flush(self, measures: np.ndarray, index: int, to_flush: int) -> int:
        """How many measures back (newest first) the quieter bursts before the trigger reach."""
        n = self.measures_len
        j_trigger = j_zero = n
        k = index
        for j in range(n):
            if measures[k] >= self.trigger_level and j <= j_trigger + self.gap_len:
                j_trigger = j_zero = j
            elif measures[k] == 0 and j_trigger >= j_zero:
                j_zero = j
            k = (k + n - 1) % n
        return min(max(to_flush, j_zero), n)




def _f32(value: float) -> float:
    return float(np.float32(value))
