"""Filter banks and the DCT matrix behind the mel and linear spectral features (torchaudio's functional
definitions: triangular filters on HTK or Slaney mel scales, Slaney area normalisation, DCT-II)."""
from __future__ import annotations

import enum
import math

import numpy as np

from ...errors import DatasetError
from .common import f32, integer, number


class MelType(str, enum.Enum):
    """The mel scale: HTK's `2595 log10(1 + f / 700)` or Slaney's (linear below 1 kHz, logarithmic above)."""

    HTK = "htk"
    SLANEY = "slaney"


class NormType(str, enum.Enum):
    """Mel filter normalisation: none, or Slaney's (each filter's area 1)."""

    NONE = "none"
    SLANEY = "slaney"


class NormMode(str, enum.Enum):
    """DCT normalisation: none or orthonormal."""

    NONE = "none"
    ORTHO = "ortho"


def hz_to_mel(freq: np.ndarray, mel_type: MelType) -> np.ndarray:
    freq = np.asarray(freq, np.float64)
    if mel_type == MelType.HTK:
        return 2595.0 * np.log10(1.0 + freq / 700.0)
    f_sp, min_log_hz = 200.0 / 3, 1000.0
    logstep = math.log(6.4) / 27.0
    return np.where(freq >= min_log_hz, min_log_hz / f_sp + np.log(np.maximum(freq, 1e-10) / min_log_hz) / logstep,
                    freq / f_sp)


def mel_to_hz(mels: np.ndarray, mel_type: MelType) -> np.ndarray:
    mels = np.asarray(mels, np.float64)
    if mel_type == MelType.HTK:
        return 700.0 * (10.0 ** (mels / 2595.0) - 1.0)
    f_sp, min_log_hz = 200.0 / 3, 1000.0
    min_log_mel, logstep = min_log_hz / f_sp, math.log(6.4) / 27.0
    return np.where(mels >= min_log_mel, min_log_hz * np.exp(logstep * (mels - min_log_mel)), f_sp * mels)


def triangular(all_freqs: np.ndarray, f_pts: np.ndarray) -> np.ndarray:
    """(n_freqs, n_filter) triangles with corners at consecutive `f_pts`."""
    f_diff = f_pts[1:] - f_pts[:-1]
    slopes = f_pts[None, :] - all_freqs[:, None]
    down = -slopes[:, :-2] / f_diff[:-1]
    up = slopes[:, 2:] / f_diff[1:]
    return np.maximum(0.0, np.minimum(down, up))


def _check(op: str, n_freqs: int, f_min: float, f_max: float, n_filter: int, sample_rate: int) -> None:
    integer(op, "n_freqs", n_freqs, 1)
    integer(op, "n_filter", n_filter, 1)
    integer(op, "sample_rate", sample_rate, 1)
    number(op, "f_min", f_min, 0)
    if not f_min < f_max:
        raise DatasetError(f"{op}: f_min ({f_min}) must be below f_max ({f_max})")


def mel_fbanks(n_freqs: int, f_min: float, f_max: float, n_mels: int, sample_rate: int, norm: NormType,
               mel_type: MelType) -> np.ndarray:
    all_freqs = np.linspace(0, sample_rate // 2, n_freqs)
    m_pts = np.linspace(hz_to_mel(f_min, mel_type), hz_to_mel(f_max, mel_type), n_mels + 2)
    f_pts = mel_to_hz(m_pts, mel_type)
    fb = triangular(all_freqs, f_pts)
    if norm == NormType.SLANEY:
        fb = fb * (2.0 / (f_pts[2:n_mels + 2] - f_pts[:n_mels]))[None, :]
    return fb


def melscale_fbanks(n_freqs: int, f_min: float, f_max: float, n_mels: int, sample_rate: int,
                    norm: NormType = NormType.NONE, mel_type: MelType = MelType.HTK) -> np.ndarray:
    """The (n_freqs, n_mels) mel filter bank for a spectrogram of `n_freqs` bins."""
    _check("melscale_fbanks", n_freqs, f_min, f_max, n_mels, sample_rate)
    return f32(mel_fbanks(n_freqs, f_min, f_max, n_mels, sample_rate, NormType(norm), MelType(mel_type)))


def linear_fbanks(n_freqs: int, f_min: float, f_max: float, n_filter: int, sample_rate: int) -> np.ndarray:
    """The (n_freqs, n_filter) bank of triangles evenly spaced in Hz."""
    _check("linear_fbanks", n_freqs, f_min, f_max, n_filter, sample_rate)
    return f32(triangular(np.linspace(0, sample_rate // 2, n_freqs), np.linspace(f_min, f_max, n_filter + 2)))


def dct_matrix(n_mfcc: int, n_mels: int, norm: NormMode) -> np.ndarray:
    n = np.arange(n_mels, dtype=np.float64)
    k = np.arange(n_mfcc, dtype=np.float64)[:, None]
    dct = np.cos(math.pi / n_mels * (n + 0.5) * k)
    if norm == NormMode.NONE:
        dct *= 2.0
    else:
        dct[0] *= 1.0 / math.sqrt(2.0)
        dct *= math.sqrt(2.0 / n_mels)
    return dct.T


def create_dct(n_mfcc: int, n_mels: int, norm: NormMode = NormMode.NONE) -> np.ndarray:
    """The (n_mels, n_mfcc) DCT-II matrix (`norm=ORTHO`: orthonormal)."""
    integer("create_dct", "n_mfcc", n_mfcc, 1)
    integer("create_dct", "n_mels", n_mels, 1)
    return f32(dct_matrix(n_mfcc, n_mels, NormMode(norm)))
