"""Value transforms: rescaling, normalising, type changes, grayscale and colour adjustments.

Rescale/Normalize/ToTensor compute in float32 as MindSpore does. The colour
adjustments are Pillow's `ImageEnhance` (brightness, contrast, saturation)
and an HSV hue shift, on uint8 RGB images — the definitions MindSpore's own
kernels follow.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from PIL import Image, ImageEnhance, ImageOps

from ...errors import DatasetError
from .. import _random
from ..transforms.ops import np_dtype
from .core import ImageTensorOperation, hwc, is_pil, like_input, to_pil
from .tone import equalize, hsv_to_rgb, rgb_to_hsv


class Rescale(ImageTensorOperation):
    """`image * rescale + shift`, as float32 (e.g. `Rescale(1 / 255, 0)` maps uint8 pixels to [0, 1])."""

    def __init__(self, rescale: float, shift: float) -> None:
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (rescale, shift)):
            raise DatasetError(f"Rescale: rescale and shift must be numbers, got {rescale!r}, {shift!r}")
        self.rescale, self.shift = float(rescale), float(shift)

    def __call__(self, img: Any) -> np.ndarray:
        array = img if isinstance(img, np.ndarray) else np.asarray(img)
        if array.dtype.kind not in "biuf":
            raise DatasetError(f"Rescale: expected numbers, got dtype {array.dtype}")
        out = np.multiply(array, np.float32(self.rescale), dtype=np.float32)  # one pass, no float32 copy first
        if self.shift == 0 and array.dtype.kind != "f":
            return out  # adding 0 changes nothing here (only a float input has a -0.0 that + 0 would flip)
        return np.add(out, np.float32(self.shift), out=out)

    def batched(self, rows: np.ndarray) -> np.ndarray:
        return self(rows)  # elementwise


def _per_channel(op: str, name: str, values: Any) -> np.ndarray:
    v = np.atleast_1d(np.asarray(values, np.float32))
    if v.ndim != 1 or not v.size:
        raise DatasetError(f"{op}: {name} must be a number or one number per channel, got {values!r}")
    return v


class Normalize(ImageTensorOperation):
    """`(image - mean) / std` per channel, as float32; `is_hwc=False` for CHW images."""

    def __init__(self, mean: Sequence[float], std: Sequence[float], is_hwc: bool = True) -> None:
        self.mean, self.std = _per_channel("Normalize", "mean", mean), _per_channel("Normalize", "std", std)
        if len(self.mean) != len(self.std):
            raise DatasetError(f"Normalize: mean has {len(self.mean)} values, std {len(self.std)}")
        if (self.std <= 0).any():
            raise DatasetError(f"Normalize: std must be positive, got {list(self.std)}")
        self.is_hwc = bool(is_hwc)
        shape = (1, 1, -1) if self.is_hwc else (-1, 1, 1)
        self._mean, self._std = self.mean.reshape(shape), self.std.reshape(shape)  # broadcast once, not per image

    def _check(self, array: np.ndarray) -> np.ndarray:
        if array.ndim == 2:
            array = array[:, :, None] if self.is_hwc else array[None]
        if array.ndim != 3:
            raise DatasetError(f"Normalize: expected an image of shape <H, W, C> (or <C, H, W> with is_hwc=False), "
                               f"got shape {list(array.shape)}")
        channels = array.shape[2] if self.is_hwc else array.shape[0]
        if len(self.mean) not in (1, channels):
            layout = "HWC" if self.is_hwc else "CHW"
            raise DatasetError(f"Normalize: mean and std have {len(self.mean)} values but the {layout} image of "
                               f"shape {list(array.shape)} has {channels} channels; pass is_hwc="
                               f"{not self.is_hwc} if the image is {'CHW' if self.is_hwc else 'HWC'}")
        return array

    def __call__(self, img: Any) -> np.ndarray:
        original = np.asarray(img)
        array = self._check(original)
        if self.is_hwc and array.flags.c_contiguous:  # as (H, W*C) rows: numpy's inner loop runs along a row
            h, w, c = array.shape
            mean, std = self._rows(w, c)
            out = np.subtract(array.reshape(h, w * c), mean, dtype=np.float32)
            return np.divide(out, std, out=out).reshape(original.shape)
        out = np.subtract(array, self._mean, dtype=np.float32)
        out = np.divide(out, self._std, out=out)
        return out.reshape(original.shape) if original.ndim == 2 else out

    def _rows(self, width: int, channels: int) -> tuple[np.ndarray, np.ndarray]:
        """mean and std repeated along an image row of `width` pixels (same dtypes, so the same arithmetic)."""
        key, cached = getattr(self, "_row_cache", (None, None))  # one attribute: map workers share the op
        if key != (width, channels):
            reps = channels // len(self.mean)
            cached = (np.tile(np.repeat(self.mean, reps), width), np.tile(np.repeat(self.std, reps), width))
            self._row_cache = ((width, channels), cached)
        return cached

    def batched(self, rows: np.ndarray) -> np.ndarray | None:
        if rows.ndim != 4 or type(self) is not Normalize:
            return None  # HxW rows (and NormalizePad) run per row
        self._check(rows[0])  # the layout check of one row, with its error
        out = np.subtract(rows, self._mean, dtype=np.float32)  # mean/std broadcast over the batch axis too
        return np.divide(out, self._std, out=out)


class NormalizePad(Normalize):
    """Normalize, then append a channel of zeros (HWC: 3 -> 4 channels), as `dtype` ("float32"/"float16")."""

    def __init__(self, mean: Sequence[float], std: Sequence[float], dtype: str = "float32",
                 is_hwc: bool = True) -> None:
        super().__init__(mean, std, is_hwc)
        if dtype not in ("float32", "float16"):
            raise DatasetError(f"NormalizePad: dtype must be 'float32' or 'float16', got {dtype!r}")
        self.dtype = np.dtype(dtype)

    def __call__(self, img: Any) -> np.ndarray:
        out = self._check(super().__call__(img))
        axis = 2 if self.is_hwc else 0
        zeros = np.zeros_like(np.take(out, [0], axis=axis))
        return np.concatenate([out, zeros], axis=axis).astype(self.dtype)


class ToTensor(ImageTensorOperation):
    """A PIL image or HWC array with values in [0, 255] -> a CHW array in [0, 1] of `output_type`."""

    def __init__(self, output_type: Any = np.float32) -> None:
        self.output_type = np_dtype("ToTensor", output_type)

    def __call__(self, img: Any) -> np.ndarray:
        array = hwc(img, "ToTensor")
        array = array[:, :, None] if array.ndim == 2 else array
        return (array.astype(np.float32) / np.float32(255)).transpose(2, 0, 1).astype(self.output_type)


class ToType(ImageTensorOperation):
    """Cast an image to `data_type` (numpy or msx dtype)."""

    def __init__(self, data_type: Any) -> None:
        self.data_type = np_dtype("ToType", data_type)

    def __call__(self, img: Any) -> np.ndarray:
        return np.asarray(img).astype(self.data_type)


def _rgb(img: Any, op: str) -> Image.Image:
    if is_pil(img):
        if img.mode != "RGB":
            raise DatasetError(f"{op}: expected an RGB image, got a PIL image of mode {img.mode}")
        return img
    return to_pil(hwc(img, op, channels=(3,)), op)


class Grayscale(ImageTensorOperation):
    """RGB -> gray (`L = (299 R + 587 G + 114 B) / 1000`, Pillow's); `num_output_channels` 1 or 3."""

    def __init__(self, num_output_channels: int = 1) -> None:
        if num_output_channels not in (1, 3):
            raise DatasetError(f"Grayscale: num_output_channels must be 1 or 3, got {num_output_channels!r}")
        self.num_output_channels = num_output_channels

    def __call__(self, img: Any) -> Any:
        gray = _rgb(img, "Grayscale").convert("L")
        if self.num_output_channels == 3:
            gray = Image.merge("RGB", (gray, gray, gray))
        if is_pil(img):
            return gray
        out = np.asarray(gray)
        return out[:, :, None] if out.ndim == 2 else out


class RandomGrayscale(ImageTensorOperation):
    """Grayscale (keeping 3 channels) with probability `prob`."""

    uses_rng = True

    def __init__(self, prob: float = 0.1) -> None:
        if not 0 <= prob <= 1:
            raise DatasetError(f"RandomGrayscale: prob must be in [0, 1], got {prob!r}")
        self.prob = float(prob)

    def __call__(self, img: Any) -> Any:
        return Grayscale(3)(img) if _random.rng().random() < self.prob else img


def _factor(op: str, name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise DatasetError(f"{op}: {name} must be a non-negative number, got {value!r}")
    return float(value)


def enhance(img: Any, kind: type, factor: float, op: str) -> Any:
    return like_input(kind(_rgb(img, op)).enhance(factor), img)


def _adjust_hue(img: Any, factor: float, op: str) -> Any:
    """Rotate the hue by `factor` turns in floating-point HSV (MindSpore quantises the hue first, so its
    results differ from these by a few grey levels on saturated pixels)."""
    array = np.asarray(_rgb(img, op)).astype(np.float64) / 255
    hsv = rgb_to_hsv(array)
    hsv[..., 0] = (hsv[..., 0] + factor) % 1
    out = np.clip(np.rint(hsv_to_rgb(hsv) * 255), 0, 255).astype(np.uint8)
    return Image.fromarray(out) if is_pil(img) else out


class AdjustBrightness(ImageTensorOperation):
    """Scale the brightness by `brightness_factor` (0: black, 1: unchanged)."""

    def __init__(self, brightness_factor: float) -> None:
        self.factor = _factor("AdjustBrightness", "brightness_factor", brightness_factor)

    def __call__(self, img: Any) -> Any:
        return enhance(img, ImageEnhance.Brightness, self.factor, "AdjustBrightness")


class AdjustContrast(ImageTensorOperation):
    """Blend with the mean gray level by `contrast_factor` (0: flat gray, 1: unchanged)."""

    def __init__(self, contrast_factor: float) -> None:
        self.factor = _factor("AdjustContrast", "contrast_factor", contrast_factor)

    def __call__(self, img: Any) -> Any:
        return enhance(img, ImageEnhance.Contrast, self.factor, "AdjustContrast")


class AdjustSaturation(ImageTensorOperation):
    """Blend with the grayscale image by `saturation_factor` (0: gray, 1: unchanged)."""

    def __init__(self, saturation_factor: float) -> None:
        self.factor = _factor("AdjustSaturation", "saturation_factor", saturation_factor)

    def __call__(self, img: Any) -> Any:
        return enhance(img, ImageEnhance.Color, self.factor, "AdjustSaturation")


class AdjustHue(ImageTensorOperation):
    """Shift the hue by `hue_factor` of a full turn, in [-0.5, 0.5]."""

    def __init__(self, hue_factor: float) -> None:
        if not isinstance(hue_factor, (int, float)) or not -0.5 <= hue_factor <= 0.5:
            raise DatasetError(f"AdjustHue: hue_factor must be in [-0.5, 0.5], got {hue_factor!r}")
        self.factor = float(hue_factor)

    def __call__(self, img: Any) -> Any:
        return _adjust_hue(img, self.factor, "AdjustHue")


def _range(op: str, name: str, value: Any, center: float, bound: tuple[float, float]) -> tuple[float, float]:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        low, high = center - value, center + value
        low = max(low, bound[0])
    elif isinstance(value, (list, tuple)) and len(value) == 2:
        low, high = float(value[0]), float(value[1])
    else:
        raise DatasetError(f"{op}: {name} must be a number or a (low, high) pair, got {value!r}")
    if not bound[0] <= low <= high <= bound[1]:
        raise DatasetError(f"{op}: {name} range ({low}, {high}) must be increasing within {bound}")
    return low, high


class RandomColorAdjust(ImageTensorOperation):
    """Brightness, contrast, saturation and hue each adjusted by a factor drawn from its range (a number v:
    [max(0, 1 - v), 1 + v]; hue v: [-v, v]); (1, 1) / (0, 0) leave that property alone."""

    uses_rng = True

    def __init__(self, brightness: Any = (1, 1), contrast: Any = (1, 1), saturation: Any = (1, 1),
                 hue: Any = (0, 0)) -> None:
        op, inf = "RandomColorAdjust", float("inf")
        self.brightness = _range(op, "brightness", brightness, 1.0, (0.0, inf))
        self.contrast = _range(op, "contrast", contrast, 1.0, (0.0, inf))
        self.saturation = _range(op, "saturation", saturation, 1.0, (0.0, inf))
        self.hue = _range(op, "hue", hue, 0.0, (-0.5, 0.5))

    def __call__(self, img: Any) -> Any:
        rng, op = _random.rng(), "RandomColorAdjust"
        for kind, (low, high) in ((ImageEnhance.Brightness, self.brightness), (ImageEnhance.Contrast, self.contrast),
                                  (ImageEnhance.Color, self.saturation)):
            if (low, high) != (1.0, 1.0):
                img = enhance(img, kind, float(rng.uniform(low, high)), op)
        if self.hue != (0.0, 0.0):
            img = _adjust_hue(img, float(rng.uniform(*self.hue)), op)
        return img


def _image_ops(img: Any, fn: Any, op: str) -> Any:
    array = hwc(img, op)
    return like_input(fn(img if is_pil(img) else to_pil(array, op)), img)


class Invert(ImageTensorOperation):
    """`255 - pixel` on a uint8 image."""

    def __call__(self, img: Any) -> Any:
        return _image_ops(img, ImageOps.invert, "Invert")


class Posterize(ImageTensorOperation):
    """Keep the `bits` high bits of each uint8 pixel."""

    def __init__(self, bits: int) -> None:
        if not isinstance(bits, int) or not 0 <= bits <= 8:
            raise DatasetError(f"Posterize: bits must be an int in [0, 8], got {bits!r}")
        self.bits = bits

    def __call__(self, img: Any) -> Any:
        array = hwc(img, "Posterize")
        if array.dtype != np.uint8:
            raise DatasetError(f"Posterize: expected a uint8 image, got dtype {array.dtype}")
        out = array & np.uint8((0xFF << (8 - self.bits)) & 0xFF)
        return Image.fromarray(out) if is_pil(img) else out


class Equalize(ImageTensorOperation):
    """Histogram equalisation per channel (OpenCV's `equalizeHist`, as MindSpore's kernel)."""

    def __call__(self, img: Any) -> Any:
        return equalize(img, "Equalize")


class AutoContrast(ImageTensorOperation):
    """Stretch the histogram to the full range, cutting `cutoff` percent at both ends (Pillow's)."""

    def __init__(self, cutoff: float = 0.0, ignore: Any = None) -> None:
        if not 0 <= cutoff < 50:
            raise DatasetError(f"AutoContrast: cutoff must be in [0, 50), got {cutoff!r}")
        self.cutoff, self.ignore = cutoff, ignore

    def __call__(self, img: Any) -> Any:
        return _image_ops(img, lambda p: ImageOps.autocontrast(p, self.cutoff, self.ignore), "AutoContrast")


class LinearTransformation(ImageTensorOperation):
    """`(image.flatten() - mean_vector) @ transformation_matrix`, reshaped back (ZCA whitening and the like), on a
    CHW float image; the matrix is D x D for D = C * H * W."""

    def __init__(self, transformation_matrix: Any, mean_vector: Any) -> None:
        self.matrix = np.asarray(transformation_matrix)
        self.mean = np.asarray(mean_vector)
        if self.matrix.ndim != 2 or self.matrix.shape[0] != self.matrix.shape[1] or \
                self.mean.shape != (self.matrix.shape[0],):
            raise DatasetError(f"LinearTransformation: transformation_matrix must be D x D and mean_vector of D "
                               f"values, got shapes {list(self.matrix.shape)} and {list(self.mean.shape)}")

    def __call__(self, img: Any) -> np.ndarray:
        array = np.asarray(img)
        if array.size != self.matrix.shape[0]:
            raise DatasetError(f"LinearTransformation: the image of shape {list(array.shape)} has {array.size} "
                               f"values, the matrix is {self.matrix.shape[0]} x {self.matrix.shape[0]}")
        out = (array.reshape(-1) - self.mean) @ self.matrix
        return out.reshape(array.shape).astype(np.result_type(array.dtype, self.matrix.dtype))
