"""Occlusion: erase a given box, random square patches (CutOut), or a random box of random area and aspect
(RandomErasing, Zhong et al. / torchvision's algorithm, on CHW float images as MindSpore's). Random boxes draw
from `_random.rng()`."""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np
from PIL import Image

from ...errors import DatasetError
from .. import _random
from .core import ImageTensorOperation, check_prob, hwc, is_pil


def _value(op: str, value: Any) -> Any:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, (list, tuple)) and len(value) in (1, 3) and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
        return tuple(float(v) for v in value)
    raise DatasetError(f"{op}: value must be a number or one per channel (3), got {value!r}")


def _positive(op: str, **values: Any) -> None:
    for name, v in values.items():
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise DatasetError(f"{op}: {name} must be a non-negative int, got {v!r}")


class Erase(ImageTensorOperation):
    """Fill the box at (`top`, `left`) of `height` x `width` of an HWC image with `value` (a number or one per
    channel); `inplace=True` writes into the given array."""

    def __init__(self, top: int, left: int, height: int, width: int, value: Any = 0.0, inplace: bool = False) -> None:
        _positive("Erase", top=top, left=left, height=height, width=width)
        self.box, self.value, self.inplace = (top, left, height, width), _value("Erase", value), bool(inplace)

    def __call__(self, img: Any) -> Any:
        array = hwc(img, "Erase")
        top, left, height, width = self.box
        h, w = array.shape[:2]
        if top >= h or left >= w:
            raise DatasetError(f"Erase: the box starts at (top {top}, left {left}), outside the {h}x{w} image")
        if isinstance(self.value, tuple) and len(self.value) > 1 and (array.ndim != 3 or array.shape[2] != 3):
            raise DatasetError(f"Erase: a value per channel needs a 3-channel image, got shape {list(array.shape)}")
        out = array if self.inplace and isinstance(img, np.ndarray) and array.flags.writeable else array.copy()
        out[top:top + height, left:left + width] = np.asarray(self.value).astype(array.dtype)
        return Image.fromarray(out) if is_pil(img) else out


class CutOut(ImageTensorOperation):
    """Zero `num_patches` random `length` x `length` squares (inside the image) of an HWC image (CHW with
    `is_hwc=False`)."""

    uses_rng = True

    def __init__(self, length: int, num_patches: int = 1, is_hwc: bool = True) -> None:
        for name, v in (("length", length), ("num_patches", num_patches)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise DatasetError(f"CutOut: {name} must be a positive int, got {v!r}")
        self.length, self.num_patches, self.is_hwc = length, num_patches, bool(is_hwc)

    def __call__(self, img: Any) -> Any:
        array = np.asarray(img)
        if array.ndim != 3:
            raise DatasetError(f"CutOut: expected an image of shape <H, W, C> (or <C, H, W> with is_hwc=False), "
                               f"got shape {list(array.shape)}")
        out = array.copy()
        view = out if self.is_hwc else out.transpose(1, 2, 0)
        h, w = view.shape[:2]
        rng = _random.rng()
        for _ in range(self.num_patches):
            top = int(rng.integers(0, max(h - self.length, 0) + 1))
            left = int(rng.integers(0, max(w - self.length, 0) + 1))
            view[top:top + self.length, left:left + self.length] = 0
        return Image.fromarray(out) if is_pil(img) else out


class RandomErasing(ImageTensorOperation):
    """With probability `prob`, fill a random box of a CHW image: its area a fraction of the image drawn from
    `scale`, its aspect ratio drawn log-uniformly from `ratio` (up to `max_attempts` tries; none fitting leaves
    the image), filled with `value` (a number, one per channel, or 'random' for standard normal noise)."""

    uses_rng = True

    def __init__(self, prob: float = 0.5, scale: Sequence[float] = (0.02, 0.33), ratio: Sequence[float] = (0.3, 3.3),
                 value: Any = 0, inplace: bool = False, max_attempts: int = 10) -> None:
        self.prob = check_prob("RandomErasing", prob)
        if len(scale) != 2 or not 0 <= scale[0] <= scale[1] <= 1 or len(ratio) != 2 or not 0 < ratio[0] <= ratio[1]:
            raise DatasetError(f"RandomErasing: scale must be an increasing pair in [0, 1] and ratio an increasing "
                               f"positive pair, got {scale!r}, {ratio!r}")
        self.scale, self.ratio = (float(scale[0]), float(scale[1])), (float(ratio[0]), float(ratio[1]))
        self.value = value if value == "random" else _value("RandomErasing", value)
        if isinstance(max_attempts, bool) or not isinstance(max_attempts, int) or max_attempts < 1:
            raise DatasetError(f"RandomErasing: max_attempts must be a positive int, got {max_attempts!r}")
        self.inplace, self.max_attempts = bool(inplace), max_attempts

    def __call__(self, img: Any) -> np.ndarray:
        array = np.asarray(img)
        if array.ndim != 3:
            raise DatasetError(f"RandomErasing: expected a CHW image, got shape {list(array.shape)}")
        rng = _random.rng()
        if rng.random() >= self.prob:
            return array
        c, h, w = array.shape
        area, log_ratio = h * w, (math.log(self.ratio[0]), math.log(self.ratio[1]))
        for _ in range(self.max_attempts):
            target = area * rng.uniform(*self.scale)
            aspect = math.exp(rng.uniform(*log_ratio))
            eh, ew = int(round(math.sqrt(target * aspect))), int(round(math.sqrt(target / aspect)))
            if 0 < eh < h and 0 < ew < w:
                top, left = int(rng.integers(0, h - eh + 1)), int(rng.integers(0, w - ew + 1))
                if self.value == "random":
                    fill = rng.standard_normal((c, eh, ew))
                else:
                    fill = np.asarray(self.value, np.float64).reshape(-1, 1, 1)
                out = array if self.inplace and array.flags.writeable else array.copy()
                out[:, top:top + eh, left:left + ew] = fill
                return out
        return array
