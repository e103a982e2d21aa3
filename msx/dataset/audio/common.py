"""What the audio transforms share: the waveform/spectrogram checks, the window and padding enums, and the
float32 result MindSpore's kernels return (msx computes in float64 and rounds once)."""
from __future__ import annotations

import enum
from typing import Any

import numpy as np
import scipy.signal

from ...errors import DatasetError
from ...tensor import Tensor
from ..transforms.ops import TensorOperation


class AudioTensorOperation(TensorOperation):
    """An audio transform."""


class WindowType(str, enum.Enum):
    """Analysis windows (periodic, as torch's/MindSpore's)."""

    BARTLETT = "bartlett"
    BLACKMAN = "blackman"
    HAMMING = "hamming"
    HANN = "hann"
    KAISER = "kaiser"


class BorderType(str, enum.Enum):
    """Padding modes: constant zeros, the edge value, a reflection without / with the edge repeated."""

    CONSTANT = "constant"
    EDGE = "edge"
    REFLECT = "reflect"
    SYMMETRIC = "symmetric"


def window(kind: WindowType, length: int) -> np.ndarray:
    """The periodic window of `length` (Kaiser with beta 12, torch's default)."""
    kind = WindowType(kind)
    spec = ("kaiser", 12.0) if kind == WindowType.KAISER else kind.value
    return scipy.signal.get_window(spec, length, fftbins=True)


def signal(op: str, x: Any, min_ndim: int = 1) -> np.ndarray:
    """`x` as a float64 array of at least `min_ndim` dimensions (time last)."""
    array = x.asnumpy() if isinstance(x, Tensor) else np.asarray(x)
    if array.dtype.kind not in "iuf":
        raise DatasetError(f"{op}: expected a real-valued waveform or spectrogram, got dtype {array.dtype}")
    if array.ndim < min_ndim:
        raise DatasetError(f"{op}: expected at least {min_ndim} dimension(s), got shape {list(array.shape)}")
    return array.astype(np.float64)


def complex_signal(op: str, x: Any) -> np.ndarray:
    """A (..., 2) real/imaginary array as complex128."""
    array = signal(op, x, 1)
    if array.shape[-1] != 2:
        raise DatasetError(f"{op}: expected a complex input of shape <..., 2> (real, imaginary), got shape "
                           f"{list(array.shape)}")
    return array[..., 0] + 1j * array[..., 1]


def as_pair(z: np.ndarray) -> np.ndarray:
    """complex -> (..., 2) real/imaginary float32."""
    return np.stack([z.real, z.imag], -1).astype(np.float32)


def f32(x: np.ndarray) -> np.ndarray:
    return np.asarray(x, np.float32)


def number(op: str, name: str, value: Any, low: float = -np.inf, high: float = np.inf,
           low_open: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high or \
            low_open and value == low:
        bound = f"({low}, {high}]" if low_open else f"[{low}, {high}]"
        raise DatasetError(f"{op}: {name} must be a number in {bound}, got {value!r}")
    return float(value)


def integer(op: str, name: str, value: Any, low: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise DatasetError(f"{op}: {name} must be an int >= {low}, got {value!r}")
    return value
