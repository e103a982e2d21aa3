"""What every vision transform shares: MindSpore's enums, the image layouts it accepts, Pillow conversion.

An image is a numpy array `HxW` or `HxWxC` (HWC, as MindSpore's vision ops
take it) or a PIL image. A transform given something else — a CHW image to
an HWC op, a float image where uint8 is required — raises a DatasetError
naming the transform and the shape it got.
"""
from __future__ import annotations

import enum
import io
from typing import Any

import numpy as np
from PIL import Image

from ...errors import DatasetError
from ...tensor import Tensor
from ..transforms.ops import TensorOperation


class Inter(enum.IntEnum):
    """Interpolation modes (MindSpore's values)."""

    NEAREST = 0
    ANTIALIAS = 1
    BILINEAR = 2
    LINEAR = 2
    BICUBIC = 3
    CUBIC = 3
    AREA = 4
    PILCUBIC = 5


class Border(str, enum.Enum):
    """Padding modes: a constant, the edge value, a reflection without / with the edge repeated."""

    CONSTANT = "constant"
    EDGE = "edge"
    REFLECT = "reflect"
    SYMMETRIC = "symmetric"


PIL_RESAMPLE = {Inter.NEAREST: Image.Resampling.NEAREST, Inter.BILINEAR: Image.Resampling.BILINEAR,
                Inter.BICUBIC: Image.Resampling.BICUBIC, Inter.ANTIALIAS: Image.Resampling.LANCZOS,
                Inter.AREA: Image.Resampling.BOX, Inter.PILCUBIC: Image.Resampling.BICUBIC}


def check_inter(op: str, interpolation: Any) -> Inter:
    try:
        return Inter(interpolation)
    except ValueError:
        raise DatasetError(f"{op}: interpolation must be a vision.Inter mode, got {interpolation!r}") from None


def check_prob(op: str, prob: Any) -> float:
    if isinstance(prob, bool) or not isinstance(prob, (int, float)) or not 0 <= prob <= 1:
        raise DatasetError(f"{op}: prob must be in [0, 1], got {prob!r}")
    return float(prob)


def is_pil(image: Any) -> bool:
    return isinstance(image, Image.Image)


def hwc(image: Any, op: str, channels: tuple[int, ...] | None = None) -> np.ndarray:
    """`image` as a numpy HxW or HxWxC array; other layouts are an error naming `op`."""
    if is_pil(image):
        return np.asarray(image)
    if isinstance(image, Tensor):
        image = image.asnumpy()
    array = np.asarray(image)
    if array.dtype.kind not in "biuf":
        raise DatasetError(f"{op}: expected an image of numbers, got dtype {array.dtype}")
    if array.ndim not in (2, 3):
        raise DatasetError(f"{op}: expected an image of shape <H, W> or <H, W, C>, got shape {list(array.shape)}")
    if channels is not None and (array.ndim == 2 and 1 not in channels or
                                 array.ndim == 3 and array.shape[2] not in channels):
        got = 1 if array.ndim == 2 else array.shape[2]
        hint = " (is it CHW? vision ops take HWC; HWC2CHW goes last)" if array.ndim == 3 and \
            array.shape[0] in channels else ""
        raise DatasetError(f"{op}: expected an HWC image with {' or '.join(map(str, channels))} channels, got shape "
                           f"{list(array.shape)} ({got} channels){hint}")
    return array


def to_pil(array: np.ndarray, op: str) -> Image.Image:
    """A numpy uint8 HWC/HW image as a PIL image (for the transforms whose reference is Pillow)."""
    if array.dtype != np.uint8:
        raise DatasetError(f"{op}: expected a uint8 image, got dtype {array.dtype}")
    if array.ndim == 3 and array.shape[2] == 1:
        array = array[:, :, 0]
    if array.ndim == 3 and array.shape[2] not in (3, 4):
        raise DatasetError(f"{op}: expected 1, 3 or 4 channels, got shape {list(array.shape)}")
    return Image.fromarray(array)


def like_input(result: Image.Image, original: Any) -> Any:
    """Pillow's result in the input's form: a PIL image for a PIL input, else numpy (HWC as given)."""
    if is_pil(original):
        return result
    out = np.asarray(result)
    if np.ndim(original) == 3 and out.ndim == 2:
        out = out[:, :, None]
    return out


def decode_image(data: Any, where: str) -> np.ndarray:
    """Encoded image bytes (uint8 1-D array or bytes) -> RGB uint8 HxWx3, by Pillow."""
    raw = data.tobytes() if isinstance(data, np.ndarray) else bytes(data)
    try:
        with Image.open(io.BytesIO(raw)) as img:
            img.load()
            # convert() copies even an RGB image; np.asarray copies it once more
            return np.asarray(img if img.mode == "RGB" else img.convert("RGB"))
    except Exception as exc:
        raise DatasetError(f"{where}: cannot decode the image ({len(raw)} bytes): {exc}") from None


class ImageTensorOperation(TensorOperation):
    """A vision transform."""


class Decode(ImageTensorOperation):
    """Encoded bytes (JPEG, PNG, BMP, ...; a uint8 1-D array as ImageFolderDataset reads it) -> an RGB uint8
    HWC image, or with `to_pil=True` a PIL image."""

    def __init__(self, to_pil: bool = False) -> None:
        self.to_pil = bool(to_pil)

    def __call__(self, img: Any) -> Any:
        if isinstance(img, np.ndarray) and (img.dtype != np.uint8 or img.ndim != 1):
            raise DatasetError(f"Decode: expected encoded image bytes (uint8, 1-D), got dtype {img.dtype} shape "
                               f"{list(img.shape)}; is the image decoded already?")
        image = decode_image(img, "Decode")
        return Image.fromarray(image) if self.to_pil else image


class ToPIL(ImageTensorOperation):
    """A numpy uint8 HWC image -> a PIL image."""

    def __call__(self, img: Any) -> Image.Image:
        return img if is_pil(img) else to_pil(hwc(img, "ToPIL"), "ToPIL")


class ToNumpy(ImageTensorOperation):
    """A PIL image -> a numpy HWC array."""

    def __call__(self, img: Any) -> np.ndarray:
        return np.asarray(img)
