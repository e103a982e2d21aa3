"""Crops and sizes beyond the basic ones: five/ten crops, slicing into patches, padding up to a size, a resize
of random interpolation, and the decode-and-random-crop shortcut.

FiveCrop/TenCrop take PIL images and return a tuple of them (MindSpore's Python ops, torchvision's rule: the
centre crop's offset rounded half to even); SlicePatches returns one array per patch, row by row.
"""
from __future__ import annotations

import enum
import math
from typing import Any, Sequence

import numpy as np
from PIL import Image

from ...errors import DatasetError
from .. import _random
from .core import Border, ImageTensorOperation, Inter, check_inter, decode_image, hwc, is_pil
from .geometry import RandomResizedCrop, fill_arg, crop, crop_size, pad, resize, size_arg


def _pil(op: str, img: Any) -> Image.Image:
    if not is_pil(img):
        raise DatasetError(f"{op}: expected a PIL image (as MindSpore's), got {type(img).__name__}; put "
                           f"vision.ToPIL() before it")
    return img


def five_crops(img: Image.Image, size: tuple[int, int], op: str) -> tuple[Image.Image, ...]:
    w, h = img.size
    ch, cw = size
    if ch > h or cw > w:
        raise DatasetError(f"{op}: the crop {ch}x{cw} is larger than the {h}x{w} image")
    top, left = int(round((h - ch) / 2)), int(round((w - cw) / 2))
    return (img.crop((0, 0, cw, ch)), img.crop((w - cw, 0, w, ch)), img.crop((0, h - ch, cw, h)),
            img.crop((w - cw, h - ch, w, h)), img.crop((left, top, left + cw, top + ch)))


class FiveCrop(ImageTensorOperation):
    """The four corner crops and the centre crop of `size` of a PIL image (top-left, top-right, bottom-left,
    bottom-right, centre)."""

    def __init__(self, size: Any) -> None:
        self.size = crop_size("FiveCrop", size)

    def __call__(self, img: Any) -> tuple[Image.Image, ...]:
        return five_crops(_pil("FiveCrop", img), self.size, "FiveCrop")


class TenCrop(ImageTensorOperation):
    """FiveCrop of the image, then FiveCrop of its mirror (left-right; top-bottom with `use_vertical_flip`)."""

    def __init__(self, size: Any, use_vertical_flip: bool = False) -> None:
        self.size = crop_size("TenCrop", size)
        self.use_vertical_flip = bool(use_vertical_flip)

    def __call__(self, img: Any) -> tuple[Image.Image, ...]:
        img = _pil("TenCrop", img)
        flip = Image.Transpose.FLIP_TOP_BOTTOM if self.use_vertical_flip else Image.Transpose.FLIP_LEFT_RIGHT
        return five_crops(img, self.size, "TenCrop") + five_crops(img.transpose(flip), self.size, "TenCrop")


class SliceMode(enum.IntEnum):
    """How SlicePatches treats a size that does not divide: pad the image up (PAD) or drop the remainder."""

    PAD = 0
    DROP = 1


class SlicePatches(ImageTensorOperation):
    """Cut an HWC image into `num_height` x `num_width` equal patches (returned row by row); `SliceMode.PAD` pads
    the bottom and right with `fill_value` so that the patches cover it, `DROP` cuts the remainder off."""

    def __init__(self, num_height: int = 1, num_width: int = 1, slice_mode: SliceMode = SliceMode.PAD,
                 fill_value: int = 0) -> None:
        for name, v in (("num_height", num_height), ("num_width", num_width)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise DatasetError(f"SlicePatches: {name} must be a positive int, got {v!r}")
        self.num_height, self.num_width = num_height, num_width
        self.slice_mode = SliceMode(slice_mode)
        if isinstance(fill_value, bool) or not isinstance(fill_value, int) or not 0 <= fill_value <= 255:
            raise DatasetError(f"SlicePatches: fill_value must be an int in [0, 255], got {fill_value!r}")
        self.fill_value = fill_value

    def __call__(self, img: Any) -> tuple[np.ndarray, ...]:
        array = hwc(img, "SlicePatches")
        h, w = array.shape[:2]
        if self.slice_mode == SliceMode.PAD:
            ph, pw = math.ceil(h / self.num_height), math.ceil(w / self.num_width)
            widths = [(0, ph * self.num_height - h), (0, pw * self.num_width - w)] + [(0, 0)] * (array.ndim - 2)
            array = np.pad(array, widths, constant_values=self.fill_value)
        else:
            ph, pw = h // self.num_height, w // self.num_width
            if ph == 0 or pw == 0:
                raise DatasetError(f"SlicePatches: a {h}x{w} image cannot give {self.num_height}x{self.num_width} "
                                   f"patches in SliceMode.DROP")
        return tuple(array[i * ph:(i + 1) * ph, j * pw:(j + 1) * pw].copy()
                     for i in range(self.num_height) for j in range(self.num_width))


class PadToSize(ImageTensorOperation):
    """Pad an HWC image up to `size` (height, width): `offset` (top, left; an int for both) places the image,
    None centres it (the odd pixel after it); `padding_mode`/`fill_value` as Pad's."""

    def __init__(self, size: Any, offset: Any = None, fill_value: Any = 0,
                 padding_mode: Border = Border.CONSTANT) -> None:
        self.size = crop_size("PadToSize", size)
        if offset is not None:
            off = [offset] if isinstance(offset, int) else list(offset) if isinstance(offset, (list, tuple)) else []
            if len(off) not in (1, 2) or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
                                                 for v in off):
                raise DatasetError(f"PadToSize: offset must be a non-negative int or (top, left), got {offset!r}")
            offset = (off[0], off[-1])
        self.offset = offset
        self.fill_value = fill_arg("PadToSize", fill_value)
        self.padding_mode = Border(padding_mode)

    def __call__(self, img: Any) -> Any:
        h, w = hwc(img, "PadToSize").shape[:2]
        th, tw = self.size
        top, left = self.offset if self.offset is not None else ((th - h) // 2, (tw - w) // 2)
        if h + top > th or w + left > tw:
            raise DatasetError(f"PadToSize: the {h}x{w} image at offset (top {top}, left {left}) does not fit in "
                               f"{th}x{tw}")
        return pad(img, (left, top, tw - w - left, th - h - top), self.fill_value, self.padding_mode, "PadToSize")


_RANDOM_INTER = (Inter.BILINEAR, Inter.NEAREST, Inter.BICUBIC, Inter.AREA)


class RandomResize(ImageTensorOperation):
    """Resize to `size` (as Resize) with an interpolation drawn from bilinear, nearest, bicubic and area."""

    uses_rng = True

    def __init__(self, size: Any) -> None:
        self.size = size_arg("RandomResize", size)

    @staticmethod
    def draw_interpolation() -> Inter:
        return _RANDOM_INTER[int(_random.rng().integers(0, len(_RANDOM_INTER)))]

    def __call__(self, img: Any) -> Any:
        return resize(img, self.size, self.draw_interpolation(), "RandomResize")


class RandomCropDecodeResize(RandomResizedCrop):
    """Decode encoded image bytes, then RandomResizedCrop (MindSpore fuses the two to decode less)."""

    def __init__(self, size: Any, scale: Sequence[float] = (0.08, 1.0), ratio: Sequence[float] = (3.0 / 4.0, 4.0 / 3.0),
                 interpolation: Inter = Inter.BILINEAR, max_attempts: int = 10) -> None:
        super().__init__(size, scale, ratio, check_inter("RandomCropDecodeResize", interpolation), max_attempts)

    def __call__(self, img: Any) -> Any:
        if isinstance(img, np.ndarray) and (img.dtype != np.uint8 or img.ndim != 1):
            raise DatasetError(f"RandomCropDecodeResize: expected encoded image bytes (uint8, 1-D), got dtype "
                               f"{img.dtype} shape {list(img.shape)}")
        image = decode_image(img, "RandomCropDecodeResize")
        h, w = image.shape[:2]
        cropped = crop(image, *self._box(h, w), "RandomCropDecodeResize")
        return resize(cropped, self.size, self.interpolation, "RandomCropDecodeResize")
