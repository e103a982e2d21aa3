"""Geometric vision transforms: resize, crops, flips, rotation, padding, and HWC2CHW.

On numpy images the resampling follows MindSpore's own kernels (OpenCV's
conventions: pixel centres at +0.5, borders replicated, no antialiasing;
`Inter.AREA` averages when shrinking); on PIL images it is Pillow's, as in
MindSpore. Random transforms draw from `_random.rng()` (per row in a
pipeline, seeded when eager).
"""
from __future__ import annotations

import functools
import math
from typing import Any, Sequence

import numpy as np
from PIL import Image

from ...errors import DatasetError
from .. import _random
from .core import (PIL_RESAMPLE, Border, ImageTensorOperation, Inter, check_inter, check_prob, hwc, is_pil,
                   like_input, to_pil)


def size_arg(op: str, size: Any, allow_int: bool = True) -> tuple[int, int] | int:
    if isinstance(size, int) and not isinstance(size, bool) and size > 0 and allow_int:
        return size
    if isinstance(size, (list, tuple)) and len(size) == 1 and isinstance(size[0], int) and size[0] > 0:
        return size[0] if allow_int else (size[0], size[0])
    if isinstance(size, (list, tuple)) and len(size) == 2 and all(isinstance(s, int) and s > 0 for s in size):
        return int(size[0]), int(size[1])
    raise DatasetError(f"{op}: size must be a positive int or a (height, width) pair, got {size!r}")


def crop_size(op: str, size: Any) -> tuple[int, int]:
    s = size_arg(op, size)
    return (s, s) if isinstance(s, int) else s


def _weights(n_in: int, n_out: int, inter: Inter) -> np.ndarray:
    """The (n_out, n_in) matrix that resamples one axis (OpenCV's pixel conventions)."""
    scale = n_in / n_out
    w = np.zeros((n_out, n_in), np.float64)
    dst = np.arange(n_out)
    if inter == Inter.NEAREST:
        w[dst, np.minimum(np.floor(dst * scale).astype(int), n_in - 1)] = 1
        return w
    if inter == Inter.AREA and n_in > n_out:
        for i in range(n_out):
            lo, hi = i * scale, (i + 1) * scale
            for j in range(int(math.floor(lo)), min(int(math.ceil(hi)), n_in)):
                w[i, j] = min(hi, j + 1) - max(lo, j)
        return w / scale
    src = (dst + 0.5) * scale - 0.5
    base = np.floor(src).astype(int)
    frac = src - base
    if inter == Inter.BICUBIC:
        a = -0.75
        for k in range(-1, 3):
            t = np.abs(frac - k)
            wk = np.where(t <= 1, ((a + 2) * t - (a + 3)) * t * t + 1,
                          np.where(t < 2, ((a * t - 5 * a) * t + 8 * a) * t - 4 * a, 0.0))
            np.add.at(w, (dst, np.clip(base + k, 0, n_in - 1)), wk)
        return w
    frac = np.where(base < 0, 0.0, np.where(base >= n_in - 1, 0.0, frac))
    base = np.clip(base, 0, n_in - 1)
    np.add.at(w, (dst, base), 1 - frac)
    np.add.at(w, (dst, np.minimum(base + 1, n_in - 1)), frac)
    return w


@functools.lru_cache(maxsize=512)
def _taps(n_in: int, n_out: int, inter: Inter) -> tuple[np.ndarray, np.ndarray]:
    """(input line of each tap (n_out, taps), its weight) of `_weights`' matrix: each output line is the weighted
    sum of the 1-4 input lines its row names, in increasing input order (the dense product's order, zeros
    skipped). Cached: a pipeline resizes between few distinct sizes."""
    weights = _weights(n_in, n_out, inter)
    nonzero = weights != 0
    taps = max(int(nonzero.sum(1).max(initial=0)), 1)
    order = np.argsort(~nonzero, axis=1, kind="stable")[:, :taps]  # each row's nonzero columns first, in order
    return order, np.take_along_axis(weights, order, 1)


def _resample(image: np.ndarray, n_out: int, inter: Inter, axis: int, work: Any) -> np.ndarray:
    """`image` resampled to `n_out` lines along `axis` (in the float type `work`), tap by tap into one buffer, at a
    cost of taps x output (a dense einsum over a 224x320 image took ~230 ms, ~15x Pillow). The image is viewed as
    (before, lines, after) and each tap's weights repeated over `after`, so numpy's inner loops run along whole
    rows; an integer image is read as it is (each tap converts while it multiplies)."""
    order, gain = _taps(image.shape[axis], n_out, inter)
    shape = image.shape
    before, after = math.prod(shape[:axis]), math.prod(shape[axis + 1:])
    lines = np.ascontiguousarray(image).reshape(before, shape[axis], after)
    out = np.empty((before, n_out * after), work)
    picked = np.empty((before, n_out, after), lines.dtype)
    flat = picked.reshape(before, -1)
    tap = out if order.shape[1] == 1 else np.empty_like(out)
    for k in range(order.shape[1]):
        np.take(lines, order[:, k], axis=1, out=picked, mode="clip")  # mode "raise" would buffer `out`
        np.multiply(flat, np.repeat(gain[:, k].astype(work), after), out=out if k == 0 else tap)
        if k:
            out += tap
    return out.reshape(shape[:axis] + (n_out,) + shape[axis + 1:])


def resize_array(image: np.ndarray, height: int, width: int, inter: Inter) -> np.ndarray:
    """Resample a numpy HW/HWC image to (height, width); uint8 stays uint8 (rounded, saturated)."""
    if inter in (Inter.ANTIALIAS, Inter.PILCUBIC):
        if image.dtype != np.uint8:
            raise DatasetError(f"Resize: Inter.{inter.name} uses Pillow and needs a uint8 image, got {image.dtype}")
        return like_input(to_pil(image, "Resize").resize((width, height), PIL_RESAMPLE[inter]), image)
    # uint8 (8 bits) sums exactly enough in float32 (24); wider types in float64
    work = np.float32 if image.dtype in (np.uint8, np.int8, np.bool_) else np.float64
    h, w = image.shape[:2]
    if height * w <= h * width:  # the pass that leaves the smaller intermediate image first
        out = _resample(_resample(image, height, inter, 0, work), width, inter, 1, work)
    else:
        out = _resample(_resample(image, width, inter, 1, work), height, inter, 0, work)
    if image.dtype.kind in "iub":
        np.rint(out, out=out)
        if image.dtype.kind != "b":
            info = np.iinfo(image.dtype)
            np.clip(out, info.min, info.max, out=out)
    return out.astype(image.dtype)


def resize(img: Any, size: tuple[int, int] | int, inter: Inter, op: str = "Resize") -> Any:
    array = hwc(img, op)
    h, w = array.shape[:2]
    if isinstance(size, int):  # the shorter side becomes `size`, the other keeps the aspect ratio
        height, width = (size, int(w * size / h)) if h <= w else (int(h * size / w), size)
    else:
        height, width = size
    if is_pil(img):
        return img.resize((width, height), PIL_RESAMPLE[inter])
    return resize_array(array, height, width, inter)


def crop(img: Any, top: int, left: int, height: int, width: int, op: str) -> Any:
    array = hwc(img, op)
    h, w = array.shape[:2]
    if top < 0 or left < 0 or top + height > h or left + width > w:
        raise DatasetError(f"{op}: the crop (top {top}, left {left}, {height}x{width}) is outside the {h}x{w} image")
    if is_pil(img):
        return img.crop((left, top, left + width, top + height))
    return array[top:top + height, left:left + width].copy()


def pad_amounts(op: str, padding: Any) -> tuple[int, int, int, int]:
    """(left, top, right, bottom) from an int, a (left/right, top/bottom) pair or four values."""
    p = [padding] if isinstance(padding, int) else list(padding) if isinstance(padding, (list, tuple)) else None
    if p is None or len(p) not in (1, 2, 4) or not all(isinstance(v, int) and v >= 0 for v in p):
        raise DatasetError(f"{op}: padding must be a non-negative int or a list of 2 or 4 of them, got {padding!r}")
    if len(p) == 1:
        return p[0], p[0], p[0], p[0]
    if len(p) == 2:
        return p[0], p[1], p[0], p[1]
    return p[0], p[1], p[2], p[3]


def fill_arg(op: str, fill_value: Any) -> Any:
    if isinstance(fill_value, int) and 0 <= fill_value <= 255:
        return fill_value
    if isinstance(fill_value, (tuple, list)) and len(fill_value) == 3 and all(
            isinstance(v, int) and 0 <= v <= 255 for v in fill_value):
        return tuple(fill_value)
    raise DatasetError(f"{op}: fill_value must be an int in [0, 255] or an RGB triple, got {fill_value!r}")


def pad(img: Any, amounts: tuple[int, int, int, int], fill: Any, mode: Border, op: str) -> Any:
    array = hwc(img, op)
    left, top, right, bottom = amounts
    widths = [(top, bottom), (left, right)] + [(0, 0)] * (array.ndim - 2)
    if mode == Border.CONSTANT:
        if isinstance(fill, tuple):
            if array.ndim != 3 or array.shape[2] != 3:
                raise DatasetError(f"{op}: an RGB fill_value needs a 3-channel image, got shape {list(array.shape)}")
            out = np.stack([np.pad(array[..., c], widths[:2], constant_values=fill[c]) for c in range(3)], -1)
        else:
            out = np.pad(array, widths, constant_values=fill)
    else:
        out = np.pad(array, widths, mode=mode.value)
    return Image.fromarray(out) if is_pil(img) else out


class Resize(ImageTensorOperation):
    """Resize to `size` — (height, width), or an int: the shorter side, keeping the aspect ratio."""

    def __init__(self, size: Any, interpolation: Inter = Inter.BILINEAR) -> None:
        self.size = size_arg("Resize", size)
        self.interpolation = check_inter("Resize", interpolation)

    def __call__(self, img: Any) -> Any:
        return resize(img, self.size, self.interpolation)


class Crop(ImageTensorOperation):
    """The `size` crop whose top-left corner is `coordinates` (top, left)."""

    def __init__(self, coordinates: Sequence[int], size: Any) -> None:
        if not (isinstance(coordinates, (list, tuple)) and len(coordinates) == 2
                and all(isinstance(c, int) and c >= 0 for c in coordinates)):
            raise DatasetError(f"Crop: coordinates must be (top, left) non-negative ints, got {coordinates!r}")
        self.coordinates, self.size = tuple(coordinates), crop_size("Crop", size)

    def __call__(self, img: Any) -> Any:
        return crop(img, *self.coordinates, *self.size, "Crop")


class CenterCrop(ImageTensorOperation):
    """The central `size` crop; an image smaller than `size` is first padded with zeros around it."""

    def __init__(self, size: Any) -> None:
        self.size = crop_size("CenterCrop", size)

    def __call__(self, img: Any) -> Any:
        ch, cw = self.size
        h, w = hwc(img, "CenterCrop").shape[:2]
        if ch > h or cw > w:  # MindSpore puts the odd pixel of padding before the image
            ph, pw = max(ch - h, 0), max(cw - w, 0)
            img = pad(img, (pw - pw // 2, ph - ph // 2, pw // 2, ph // 2), 0, Border.CONSTANT, "CenterCrop")
            h, w = max(h, ch), max(w, cw)
        if is_pil(img):  # MindSpore's PIL path rounds the offset (half to even), its numpy path floors it
            top, left = int(round((h - ch) / 2)), int(round((w - cw) / 2))
        else:
            top, left = (h - ch) // 2, (w - cw) // 2
        return crop(img, top, left, ch, cw, "CenterCrop")


class RandomCrop(ImageTensorOperation):
    """A `size` crop at a random place, after optional `padding` (and padding up to `size` with
    `pad_if_needed`) by `padding_mode`/`fill_value`."""

    uses_rng = True

    def __init__(self, size: Any, padding: Any = None, pad_if_needed: bool = False, fill_value: Any = 0,
                 padding_mode: Border = Border.CONSTANT) -> None:
        self.size = crop_size("RandomCrop", size)
        self.padding = None if padding is None else pad_amounts("RandomCrop", padding)
        self.pad_if_needed = bool(pad_if_needed)
        self.fill_value = fill_arg("RandomCrop", fill_value)
        self.padding_mode = Border(padding_mode)

    def __call__(self, img: Any) -> Any:
        if self.padding is not None:
            img = pad(img, self.padding, self.fill_value, self.padding_mode, "RandomCrop")
        h, w = hwc(img, "RandomCrop").shape[:2]
        ch, cw = self.size
        if self.pad_if_needed and (h < ch or w < cw):
            ph, pw = max(ch - h, 0), max(cw - w, 0)
            img = pad(img, (pw, ph, pw, ph), self.fill_value, self.padding_mode, "RandomCrop")
            h, w = h + 2 * ph, w + 2 * pw
        if h < ch or w < cw:
            raise DatasetError(f"RandomCrop: the crop {ch}x{cw} is larger than the {h}x{w} image; pass padding "
                               f"or pad_if_needed=True")
        rng = _random.rng()
        return crop(img, int(rng.integers(0, h - ch + 1)), int(rng.integers(0, w - cw + 1)), ch, cw, "RandomCrop")


class ResizedCrop(ImageTensorOperation):
    """Crop (top, left, height, width), then resize to `size`."""

    def __init__(self, top: int, left: int, height: int, width: int, size: Any,
                 interpolation: Inter = Inter.BILINEAR) -> None:
        self.box = (top, left, height, width)
        self.size = crop_size("ResizedCrop", size)
        self.interpolation = check_inter("ResizedCrop", interpolation)

    def __call__(self, img: Any) -> Any:
        return resize(crop(img, *self.box, "ResizedCrop"), self.size, self.interpolation, "ResizedCrop")


class RandomResizedCrop(ImageTensorOperation):
    """A random crop of `scale` of the area and `ratio` aspect (up to `max_attempts` tries, else a central
    crop), resized to `size` (the Inception-style crop MindSpore and torchvision use)."""

    uses_rng = True

    def __init__(self, size: Any, scale: Sequence[float] = (0.08, 1.0),
                 ratio: Sequence[float] = (3.0 / 4.0, 4.0 / 3.0), interpolation: Inter = Inter.BILINEAR,
                 max_attempts: int = 10) -> None:
        self.size = crop_size("RandomResizedCrop", size)
        if len(scale) != 2 or not 0 <= scale[0] <= scale[1] or len(ratio) != 2 or not 0 < ratio[0] <= ratio[1]:
            raise DatasetError(f"RandomResizedCrop: scale and ratio must be increasing (low, high) pairs, got "
                               f"{scale!r}, {ratio!r}")
        self.scale, self.ratio = tuple(scale), tuple(ratio)
        self.interpolation = check_inter("RandomResizedCrop", interpolation)
        self.max_attempts = max_attempts

    def _box(self, h: int, w: int) -> tuple[int, int, int, int]:
        rng, area = _random.rng(), h * w
        log_ratio = (math.log(self.ratio[0]), math.log(self.ratio[1]))
        for _ in range(self.max_attempts):
            target = area * rng.uniform(*self.scale)
            aspect = math.exp(rng.uniform(*log_ratio))
            cw, ch = int(round(math.sqrt(target * aspect))), int(round(math.sqrt(target / aspect)))
            if 0 < cw <= w and 0 < ch <= h:
                return int(rng.integers(0, h - ch + 1)), int(rng.integers(0, w - cw + 1)), ch, cw
        aspect = w / h
        if aspect < self.ratio[0]:
            cw, ch = w, int(round(w / self.ratio[0]))
        elif aspect > self.ratio[1]:
            ch, cw = h, int(round(h * self.ratio[1]))
        else:
            cw, ch = w, h
        return (h - ch) // 2, (w - cw) // 2, ch, cw

    def __call__(self, img: Any) -> Any:
        h, w = (img.height, img.width) if is_pil(img) else hwc(img, "RandomResizedCrop").shape[:2]  # no PIL copy
        cropped = crop(img, *self._box(h, w), "RandomResizedCrop")
        return resize(cropped, self.size, self.interpolation, "RandomResizedCrop")


def flip(img: Any, axis: int, op: str) -> Any:
    if is_pil(img):
        return img.transpose(Image.Transpose.FLIP_LEFT_RIGHT if axis == 1 else Image.Transpose.FLIP_TOP_BOTTOM)
    return np.flip(hwc(img, op), axis).copy()


class HorizontalFlip(ImageTensorOperation):
    """Mirror left-right."""

    def __call__(self, img: Any) -> Any:
        return flip(img, 1, "HorizontalFlip")


class VerticalFlip(ImageTensorOperation):
    """Mirror top-bottom."""

    def __call__(self, img: Any) -> Any:
        return flip(img, 0, "VerticalFlip")


class RandomHorizontalFlip(ImageTensorOperation):
    """Mirror left-right with probability `prob`."""

    uses_rng = True

    def __init__(self, prob: float = 0.5) -> None:
        self.prob = check_prob("RandomHorizontalFlip", prob)

    def __call__(self, img: Any) -> Any:
        return flip(img, 1, "RandomHorizontalFlip") if _random.rng().random() < self.prob else img


class RandomVerticalFlip(ImageTensorOperation):
    """Mirror top-bottom with probability `prob`."""

    uses_rng = True

    def __init__(self, prob: float = 0.5) -> None:
        self.prob = check_prob("RandomVerticalFlip", prob)

    def __call__(self, img: Any) -> Any:
        return flip(img, 0, "RandomVerticalFlip") if _random.rng().random() < self.prob else img


_ROTATE_RESAMPLE = {Inter.NEAREST: Image.Resampling.NEAREST, Inter.BILINEAR: Image.Resampling.BILINEAR,
                    Inter.BICUBIC: Image.Resampling.BICUBIC}


def rotate(img: Any, degrees: float, resample: Inter, expand: bool, center: Any, fill: Any, op: str) -> Any:
    """Counter-clockwise rotation by `degrees` (Pillow's; uint8 images)."""
    if resample not in _ROTATE_RESAMPLE:
        raise DatasetError(f"{op}: resample must be Inter.NEAREST, BILINEAR or BICUBIC, got {resample!r}")
    array = hwc(img, op)
    pil = img if is_pil(img) else to_pil(array, op)
    channels = len(pil.getbands())
    fillcolor = fill if isinstance(fill, tuple) or channels == 1 else (fill,) * channels
    out = pil.rotate(degrees, _ROTATE_RESAMPLE[resample], expand=expand, center=center, fillcolor=fillcolor)
    return like_input(out, img)


class Rotate(ImageTensorOperation):
    """Rotate counter-clockwise by `degrees` about `center` (default: the image centre); `expand` grows the
    canvas to hold the whole result; new pixels get `fill_value`."""

    def __init__(self, degrees: float, resample: Inter = Inter.NEAREST, expand: bool = False, center: Any = None,
                 fill_value: Any = 0) -> None:
        self.degrees, self.resample, self.expand, self.center = float(degrees), check_inter("Rotate", resample), \
            bool(expand), center
        self.fill_value = fill_arg("Rotate", fill_value)

    def __call__(self, img: Any) -> Any:
        return rotate(img, self.degrees, self.resample, self.expand, self.center, self.fill_value, "Rotate")


class RandomRotation(ImageTensorOperation):
    """Rotate by a random angle from `degrees` (d: [-d, d]; (low, high))."""

    uses_rng = True

    def __init__(self, degrees: Any, resample: Inter = Inter.NEAREST, expand: bool = False, center: Any = None,
                 fill_value: Any = 0) -> None:
        if isinstance(degrees, (int, float)):
            if degrees < 0:
                raise DatasetError(f"RandomRotation: a single degrees value must be >= 0, got {degrees!r}")
            degrees = (-degrees, degrees)
        if len(degrees) != 2 or degrees[0] > degrees[1]:
            raise DatasetError(f"RandomRotation: degrees must be a number or a (low, high) pair, got {degrees!r}")
        self.degrees = (float(degrees[0]), float(degrees[1]))
        self.resample, self.expand, self.center = check_inter("RandomRotation", resample), bool(expand), center
        self.fill_value = fill_arg("RandomRotation", fill_value)

    def __call__(self, img: Any) -> Any:
        angle = float(_random.rng().uniform(*self.degrees))
        return rotate(img, angle, self.resample, self.expand, self.center, self.fill_value, "RandomRotation")


class Pad(ImageTensorOperation):
    """Pad the borders: `padding` an int (all sides), (left/right, top/bottom) or (left, top, right, bottom)."""

    def __init__(self, padding: Any, fill_value: Any = 0, padding_mode: Border = Border.CONSTANT) -> None:
        self.padding = pad_amounts("Pad", padding)
        self.fill_value = fill_arg("Pad", fill_value)
        self.padding_mode = Border(padding_mode)

    def __call__(self, img: Any) -> Any:
        return pad(img, self.padding, self.fill_value, self.padding_mode, "Pad")


class HWC2CHW(ImageTensorOperation):
    """HxWxC -> CxHxW (an HxW image -> 1xHxW), the layout msx's Conv2d takes."""

    def __call__(self, img: Any) -> np.ndarray:
        array = hwc(img, "HWC2CHW")
        return array[None] if array.ndim == 2 else array.transpose(2, 0, 1)  # a view: batch/device copy it once

    def batched(self, rows: np.ndarray) -> np.ndarray | None:
        if rows.ndim not in (3, 4):
            return None
        hwc(rows[0], "HWC2CHW")  # the checks of one row, with their errors
        return rows[:, None] if rows.ndim == 3 else rows.transpose(0, 3, 1, 2)
