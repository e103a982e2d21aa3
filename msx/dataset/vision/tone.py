"""Per-pixel tone curves and colour-space changes: gamma, solarize, histogram equalisation, OpenCV-style colour
conversions and the float RGB <-> HSV pair.

The uint8 curves reproduce MindSpore's kernels exactly (its gamma table is `floor(256 * gain * (x / 255) **
gamma)`, its equalisation is OpenCV's `equalizeHist` per channel); RGB <-> HSV is `colorsys`'s definition,
vectorised, in float64 as MindSpore's Python implementation computes it.
"""
from __future__ import annotations

import enum
from typing import Any

import numpy as np
from PIL import Image

from ...errors import DatasetError
from .core import ImageTensorOperation, hwc, is_pil


def _uint8(img: Any, op: str) -> np.ndarray:
    array = hwc(img, op)
    if array.dtype != np.uint8:
        raise DatasetError(f"{op}: expected a uint8 image, got dtype {array.dtype}")
    return array


def _as_input(out: np.ndarray, original: Any) -> Any:
    return Image.fromarray(out) if is_pil(original) else out


class AdjustGamma(ImageTensorOperation):
    """`gain * 255 * (pixel / 255) ** gamma` on uint8 pixels (MindSpore's table), or on float pixels in [0, 1]
    `gain * pixel ** gamma`."""

    def __init__(self, gamma: float, gain: float = 1) -> None:
        if isinstance(gamma, bool) or not isinstance(gamma, (int, float)) or gamma < 0:
            raise DatasetError(f"AdjustGamma: gamma must be a non-negative number, got {gamma!r}")
        if isinstance(gain, bool) or not isinstance(gain, (int, float)):
            raise DatasetError(f"AdjustGamma: gain must be a number, got {gain!r}")
        self.gamma, self.gain = float(gamma), float(gain)

    def __call__(self, img: Any) -> Any:
        array = hwc(img, "AdjustGamma")
        if array.dtype == np.uint8:
            table = np.floor(256 * self.gain * (np.arange(256) / 255.0) ** self.gamma)
            return _as_input(np.clip(table, 0, 255).astype(np.uint8)[array], img)
        if array.dtype.kind != "f":
            raise DatasetError(f"AdjustGamma: expected a uint8 or float image, got dtype {array.dtype}")
        return (self.gain * np.power(array, self.gamma)).astype(array.dtype)


def solarize(array: np.ndarray, low: float, high: float) -> np.ndarray:
    """Invert the pixels within [low, high]."""
    return np.where((array >= low) & (array <= high), 255 - array, array).astype(array.dtype)


def threshold_range(op: str, threshold: Any) -> tuple[float, float]:
    if isinstance(threshold, (int, float)) and not isinstance(threshold, bool):
        low, high = float(threshold), 255.0
    elif isinstance(threshold, (list, tuple)) and len(threshold) in (1, 2):
        low, high = float(threshold[0]), float(threshold[-1]) if len(threshold) == 2 else 255.0
    else:
        raise DatasetError(f"{op}: threshold must be a number or a (min, max) pair, got {threshold!r}")
    if not 0 <= low <= high <= 255:
        raise DatasetError(f"{op}: threshold must satisfy 0 <= min <= max <= 255, got {threshold!r}")
    return low, high


class Solarize(ImageTensorOperation):
    """Invert the uint8 pixels within `threshold`: a number t means [t, 255], a pair (min, max) that range."""

    def __init__(self, threshold: Any) -> None:
        self.threshold = threshold_range("Solarize", threshold)

    def __call__(self, img: Any) -> Any:
        return _as_input(solarize(_uint8(img, "Solarize"), *self.threshold), img)


def _equalize_channel(channel: np.ndarray) -> np.ndarray:
    """OpenCV's equalizeHist: the cumulative histogram after the first occupied level, scaled to [0, 255]."""
    hist = np.bincount(channel.ravel(), minlength=256)
    first = int(np.flatnonzero(hist)[0])
    if hist[first] == channel.size:
        return channel.copy()
    scale = np.float32(255.0 / (channel.size - hist[first]))
    lut = np.zeros(256, np.float32)
    lut[first + 1:] = np.cumsum(hist[first + 1:]).astype(np.float32) * scale
    return np.clip(np.rint(lut), 0, 255).astype(np.uint8)[channel]


def equalize(img: Any, op: str) -> Any:
    array = _uint8(img, op)
    out = _equalize_channel(array) if array.ndim == 2 else \
        np.stack([_equalize_channel(array[..., c]) for c in range(array.shape[2])], -1)
    return _as_input(out, img)


class ConvertMode(enum.IntEnum):
    """OpenCV's colour conversions that MindSpore's ConvertColor offers (MindSpore's values)."""

    COLOR_BGR2BGRA = 0
    COLOR_RGB2RGBA = 0
    COLOR_BGRA2BGR = 1
    COLOR_RGBA2RGB = 1
    COLOR_BGR2RGBA = 2
    COLOR_RGB2BGRA = 2
    COLOR_RGBA2BGR = 3
    COLOR_BGRA2RGB = 3
    COLOR_BGR2RGB = 4
    COLOR_RGB2BGR = 4
    COLOR_BGRA2RGBA = 5
    COLOR_RGBA2BGRA = 5
    COLOR_BGR2GRAY = 6
    COLOR_RGB2GRAY = 7
    COLOR_GRAY2BGR = 8
    COLOR_GRAY2RGB = 8
    COLOR_GRAY2BGRA = 9
    COLOR_GRAY2RGBA = 9
    COLOR_BGRA2GRAY = 10
    COLOR_RGBA2GRAY = 11


_GRAY = np.array([0.299, 0.587, 0.114])  # OpenCV's R, G, B weights
# mode -> (input channels, output: channel order taken from the input, or "gray" with the R/G/B positions)
_CONVERSIONS = {0: (3, [0, 1, 2, None]), 1: (4, [0, 1, 2]), 2: (3, [2, 1, 0, None]), 3: (4, [2, 1, 0]),
                4: (3, [2, 1, 0]), 5: (4, [2, 1, 0, 3]), 6: (3, ("gray", 2, 1, 0)), 7: (3, ("gray", 0, 1, 2)),
                8: (1, [0, 0, 0]), 9: (1, [0, 0, 0, None]), 10: (4, ("gray", 2, 1, 0)), 11: (4, ("gray", 0, 1, 2))}


class ConvertColor(ImageTensorOperation):
    """Change the colour space (`ConvertMode`): channel reorderings, an alpha channel added (255 for uint8) or
    dropped, and gray <-> colour with OpenCV's weights (0.299 R + 0.587 G + 0.114 B, rounded)."""

    def __init__(self, convert_mode: ConvertMode) -> None:
        try:
            self.convert_mode = ConvertMode(convert_mode)
        except ValueError:
            raise DatasetError(f"ConvertColor: convert_mode must be a vision.ConvertMode, got {convert_mode!r}") \
                from None

    def __call__(self, img: Any) -> np.ndarray:
        channels, plan = _CONVERSIONS[int(self.convert_mode)]
        array = hwc(img, "ConvertColor", channels=(channels,))
        if array.ndim == 2:
            array = array[:, :, None]
        if plan[0] == "gray":
            gray = array[..., list(plan[1:])].astype(np.float64) @ _GRAY
            return np.rint(gray).astype(array.dtype) if array.dtype.kind in "iu" else gray.astype(array.dtype)
        opaque = np.iinfo(array.dtype).max if array.dtype.kind in "iu" else 1.0
        out = [array[..., c] if c is not None else np.full(array.shape[:2], opaque, array.dtype) for c in plan]
        return np.stack(out, -1)


def _float_image(img: Any, op: str, is_hwc: bool) -> np.ndarray:
    array = np.asarray(img)
    channel_axis = -1 if is_hwc else 0
    if array.ndim not in (3, 4) or array.shape[channel_axis if array.ndim == 3 or is_hwc else 1] != 3:
        raise DatasetError(f"{op}: expected a 3-channel {'HWC' if is_hwc else 'CHW'} image (or a batch of them), "
                           f"got shape {list(array.shape)}")
    if array.dtype.kind not in "biuf":
        raise DatasetError(f"{op}: expected numbers, got dtype {array.dtype}")
    return np.moveaxis(array, 0 if array.ndim == 3 else 1, -1) if not is_hwc else array


def rgb_to_hsv(rgb: np.ndarray) -> np.ndarray:
    """colorsys.rgb_to_hsv on the last axis (h, s, v in [0, 1] for rgb in [0, 1])."""
    maxc, minc = rgb.max(-1), rgb.min(-1)
    delta = maxc - minc
    safe = np.where(delta == 0, 1, delta)
    r, g, b = (rgb[..., i] for i in range(3))
    h = np.where(maxc == r, (g - b) / safe, np.where(maxc == g, 2 + (b - r) / safe, 4 + (r - g) / safe))
    h = np.where(delta == 0, 0, (h / 6) % 1)
    return np.stack([h, np.where(maxc == 0, 0, delta / np.where(maxc == 0, 1, maxc)), maxc], -1)


def hsv_to_rgb(hsv: np.ndarray) -> np.ndarray:
    """colorsys.hsv_to_rgb on the last axis."""
    h, s, v = (hsv[..., i] for i in range(3))
    i = np.floor(h * 6).astype(int) % 6
    f = h * 6 - np.floor(h * 6)
    p, q, t = v * (1 - s), v * (1 - s * f), v * (1 - s * (1 - f))
    table = [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)]
    return np.stack([np.choose(i, [row[c] for row in table]) for c in range(3)], -1)


class _HsvConversion(ImageTensorOperation):
    _fn: Any = None

    def __init__(self, is_hwc: bool = False) -> None:
        self.is_hwc = bool(is_hwc)

    def __call__(self, img: Any) -> np.ndarray:
        array = np.asarray(img)
        out = type(self)._fn(_float_image(array, type(self).__name__, self.is_hwc).astype(np.float64))
        return out if self.is_hwc else np.moveaxis(out, -1, 0 if array.ndim == 3 else 1)


class RgbToHsv(_HsvConversion):
    """Float RGB in [0, 1] -> HSV in [0, 1] (CHW by default, `is_hwc=True` for HWC; batches too), as float64."""

    _fn = staticmethod(rgb_to_hsv)


class HsvToRgb(_HsvConversion):
    """Float HSV in [0, 1] -> RGB (CHW by default, `is_hwc=True` for HWC; batches too), as float64."""

    _fn = staticmethod(hsv_to_rgb)
