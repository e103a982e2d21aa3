"""Frame-level features: sliding-window cepstral mean (and variance) normalisation (Kaldi's apply-cmvn-sliding)
and pitch detection by normalised cross-correlation with median smoothing — torchaudio's algorithms, as
MindSpore's kernels."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...errors import DatasetError
from .common import AudioTensorOperation, f32, integer, number, signal


class SlidingWindowCmn(AudioTensorOperation):
    """Subtract from each frame the mean over a sliding window of `cmn_window` frames (at least
    `min_cmn_window` at the start; `center`: centred on the frame), and divide by the deviation with
    `norm_vars`. Input (..., time, freq) as Kaldi's features."""

    def __init__(self, cmn_window: int = 600, min_cmn_window: int = 100, center: bool = False,
                 norm_vars: bool = False) -> None:
        self.cmn_window = integer("SlidingWindowCmn", "cmn_window", cmn_window)
        self.min_cmn_window = integer("SlidingWindowCmn", "min_cmn_window", min_cmn_window)
        self.center, self.norm_vars = bool(center), bool(norm_vars)

    def __call__(self, x: Any) -> np.ndarray:
        spec = signal("SlidingWindowCmn", x, 2)
        frames, feats = spec.shape[-2:]
        flat = spec.reshape(-1, frames, feats)
        out = np.zeros_like(flat)
        cur_sum = np.zeros((flat.shape[0], feats))
        cur_sumsq = np.zeros((flat.shape[0], feats))
        last_start = last_end = -1
        for t in range(frames):
            if self.center:
                start = t - self.cmn_window // 2
                end = start + self.cmn_window
            else:
                start, end = t - self.cmn_window, t + 1
            if start < 0:
                end -= start
                start = 0
            if not self.center and end > t:
                end = max(t + 1, self.min_cmn_window)
            if end > frames:
                start -= end - frames
                end = frames
                start = max(start, 0)
            if last_start == -1:
                part = flat[:, start:end - start, :]  # torchaudio's slice (end - start), kept for equal results
                cur_sum += part.sum(1)
                if self.norm_vars:
                    cur_sumsq += (part ** 2).sum(1)
            else:
                if start > last_start:
                    cur_sum -= flat[:, last_start, :]
                    if self.norm_vars:
                        cur_sumsq -= flat[:, last_start, :] ** 2
                if end > last_end:
                    cur_sum += flat[:, last_end, :]
                    if self.norm_vars:
                        cur_sumsq += flat[:, last_end, :] ** 2
            n = end - start
            last_start, last_end = start, end
            out[:, t, :] = flat[:, t, :] - cur_sum / n
            if self.norm_vars:
                if n == 1:
                    out[:, t, :] = 0
                else:
                    variance = cur_sumsq / n - cur_sum ** 2 / n ** 2
                    with np.errstate(divide="ignore", invalid="ignore"):
                        out[:, t, :] *= variance ** -0.5
        return f32(out.reshape(spec.shape))


class DetectPitchFrequency(AudioTensorOperation):
    """The pitch of each `frame_time`-second frame (..., time) -> (..., frames): the lag of the highest
    normalised cross-correlation between `freq_low` and `freq_high`, median-smoothed over `win_length` frames."""

    def __init__(self, sample_rate: int, frame_time: float = 0.01, win_length: int = 30, freq_low: int = 85,
                 freq_high: int = 3400) -> None:
        op = "DetectPitchFrequency"
        self.sample_rate = integer(op, "sample_rate", sample_rate, 1)
        self.frame_time = number(op, "frame_time", frame_time, 0, low_open=True)
        self.win_length = integer(op, "win_length", win_length, 1)
        self.freq_low = number(op, "freq_low", freq_low, 0, low_open=True)
        self.freq_high = number(op, "freq_high", freq_high, 0, low_open=True)

    def _nccf(self, x: np.ndarray) -> np.ndarray:
        eps = 1e-9
        lags = int(math.ceil(self.sample_rate / self.freq_low))
        size = int(math.ceil(self.sample_rate * self.frame_time))
        n_frames = int(math.ceil(x.shape[-1] / size))
        x = np.pad(x, [(0, 0), (0, lags + n_frames * size - x.shape[-1])])
        out = []
        for lag in range(1, lags + 1):
            s1 = x[:, :-lag][:, :n_frames * size].reshape(x.shape[0], n_frames, size)
            s2 = x[:, lag:][:, :n_frames * size].reshape(x.shape[0], n_frames, size)
            out.append((s1 * s2).sum(-1) / (eps + np.linalg.norm(s1, axis=-1)) ** 2
                       / (eps + np.linalg.norm(s2, axis=-1)) ** 2)
        return np.stack(out, -1)

    def __call__(self, waveform: Any) -> np.ndarray:
        x = signal("DetectPitchFrequency", waveform)
        flat = x.reshape(-1, x.shape[-1])
        nccf = self._nccf(flat)
        lag_min = int(math.ceil(self.sample_rate / self.freq_high))
        half = nccf.shape[-1] // 2
        if lag_min >= half:
            raise DatasetError(f"DetectPitchFrequency: freq_high ({self.freq_high}) must be well above freq_low "
                               f"({self.freq_low}) for the lags to search")
        best_v, best_i = nccf[..., lag_min:].max(-1), nccf[..., lag_min:].argmax(-1)
        half_v, half_i = nccf[..., lag_min:half].max(-1), nccf[..., lag_min:half].argmax(-1)
        indices = np.where(half_v > 0.99 * best_v, half_i, best_i) + lag_min + 1
        pad = (self.win_length - 1) // 2
        indices = np.concatenate([np.repeat(indices[:, :1], pad, axis=1), indices], axis=1).astype(np.float64)
        windows = np.lib.stride_tricks.sliding_window_view(indices, self.win_length, axis=-1)
        smoothed = np.sort(windows, axis=-1)[..., (self.win_length - 1) // 2]  # torch.median: the lower middle
        freq = self.sample_rate / (1e-9 + smoothed)
        return f32(freq.reshape(x.shape[:-1] + (-1,)))
