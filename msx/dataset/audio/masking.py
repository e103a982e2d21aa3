"""SpecAugment masks on spectrograms (..., freq, time): a fixed band (MaskAlongAxis), a random band per channel
(MaskAlongAxisIID, torchaudio's draw), and Time/FrequencyMasking on top of them. Random widths and starts come
from `_random.rng()`."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import DatasetError
from .. import _random
from .common import AudioTensorOperation, f32, integer, number, signal


def _axis(op: str, axis: Any) -> int:
    if axis not in (1, 2):
        raise DatasetError(f"{op}: axis must be 1 (frequency) or 2 (time), got {axis!r}")
    return -2 if axis == 1 else -1


def _spec(op: str, x: Any) -> np.ndarray:
    return signal(op, x, 2)


def mask_band(spec: np.ndarray, start: int, width: int, value: float, axis: int) -> np.ndarray:
    out = spec.copy()
    index = [slice(None)] * out.ndim
    index[axis] = slice(start, start + width)
    out[tuple(index)] = value
    return out


def mask_iid(spec: np.ndarray, mask_param: int, value: float, axis: int, rng: np.random.Generator) -> np.ndarray:
    """One band per leading index (channel), width `rand * mask_param`, placed at random (torchaudio's rule)."""
    size = spec.shape[axis]
    lead = spec.shape[:-2]
    widths = rng.random(lead) * mask_param
    starts = rng.random(lead) * (size - widths)
    lo, hi = np.floor(starts), np.floor(starts + widths)
    positions = np.arange(size)
    inside = (positions >= lo[..., None]) & (positions < hi[..., None])
    inside = inside[..., :, None] if axis == -2 else inside[..., None, :]
    return np.where(inside, value, spec)


class MaskAlongAxis(AudioTensorOperation):
    """Set `mask_width` rows (axis 1, frequency) or columns (axis 2, time) from `mask_start` to `mask_value`."""

    def __init__(self, mask_start: int, mask_width: int, mask_value: float, axis: int) -> None:
        self.mask_start = integer("MaskAlongAxis", "mask_start", mask_start)
        self.mask_width = integer("MaskAlongAxis", "mask_width", mask_width, 1)
        self.mask_value = number("MaskAlongAxis", "mask_value", mask_value)
        self.axis = _axis("MaskAlongAxis", axis)

    def __call__(self, x: Any) -> np.ndarray:
        spec = _spec("MaskAlongAxis", x)
        if self.mask_start + self.mask_width > spec.shape[self.axis]:
            raise DatasetError(f"MaskAlongAxis: mask_start + mask_width ({self.mask_start + self.mask_width}) exceeds "
                               f"the axis length {spec.shape[self.axis]}")
        return f32(mask_band(spec, self.mask_start, self.mask_width, self.mask_value, self.axis))


class MaskAlongAxisIID(AudioTensorOperation):
    """For each channel, mask a random band of up to `mask_param` rows/columns at a random place."""

    uses_rng = True

    def __init__(self, mask_param: int, mask_value: float, axis: int) -> None:
        self.mask_param = integer("MaskAlongAxisIID", "mask_param", mask_param)
        self.mask_value = number("MaskAlongAxisIID", "mask_value", mask_value)
        self.axis = _axis("MaskAlongAxisIID", axis)

    def __call__(self, x: Any) -> np.ndarray:
        spec = _spec("MaskAlongAxisIID", x)
        if self.mask_param > spec.shape[self.axis]:
            raise DatasetError(f"MaskAlongAxisIID: mask_param ({self.mask_param}) exceeds the axis length "
                               f"{spec.shape[self.axis]}")
        return f32(mask_iid(spec, self.mask_param, self.mask_value, self.axis, _random.rng()))


class _Masking(AudioTensorOperation):
    uses_rng = True
    axis = -1

    def __init__(self, iid_masks: bool, mask_param: int, mask_start: int, mask_value: float) -> None:
        op = type(self).__name__
        self.iid_masks = bool(iid_masks)
        self.mask_param = integer(op, "mask_param", mask_param)
        self.mask_start = integer(op, "mask_start", mask_start)
        self.mask_value = number(op, "mask_value", mask_value)

    def __call__(self, x: Any) -> np.ndarray:
        op, spec = type(self).__name__, _spec(type(self).__name__, x)
        size = spec.shape[self.axis]
        if self.mask_param > size:
            raise DatasetError(f"{op}: the mask parameter ({self.mask_param}) exceeds the axis length {size}")
        rng = _random.rng()
        if self.iid_masks:
            return f32(mask_iid(spec, self.mask_param, self.mask_value, self.axis, rng))
        width = int(rng.integers(0, self.mask_param + 1))
        if self.mask_start + width > size:
            raise DatasetError(f"{op}: mask_start ({self.mask_start}) + the drawn width ({width}) exceeds the axis "
                               f"length {size}")
        return f32(mask_band(spec, self.mask_start, width, self.mask_value, self.axis)) if width else f32(spec)


class TimeMasking(_Masking):
    """Mask up to `time_mask_param` consecutive time steps: from `mask_start`, or (`iid_masks`) at a random place
    per channel."""

    axis = -1

    def __init__(self, iid_masks: bool = False, time_mask_param: int = 0, mask_start: int = 0,
                 mask_value: float = 0.0) -> None:
        super().__init__(iid_masks, time_mask_param, mask_start, mask_value)


class FrequencyMasking(_Masking):
    """Mask up to `freq_mask_param` consecutive frequency bins: from `mask_start`, or (`iid_masks`) at a random
    place per channel."""

    axis = -2

    def __init__(self, iid_masks: bool = False, freq_mask_param: int = 0, mask_start: int = 0,
                 mask_value: float = 0.0) -> None:
        super().__init__(iid_masks, freq_mask_param, mask_start, mask_value)
