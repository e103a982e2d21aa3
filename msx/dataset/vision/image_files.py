"""Image files and encodings: read/write whole files, encode/decode JPEG and PNG (Pillow), and the size and
channel queries. Files are written atomically (msx.atomic); a file that is not an image is a DatasetError naming
it."""
from __future__ import annotations

import enum
import io
import os
from typing import Any

import numpy as np
from PIL import Image

from ...atomic import write_atomic
from ...errors import DatasetError
from ...tensor import Tensor
from .core import hwc, is_pil


class ImageReadMode(enum.IntEnum):
    """How read_image decodes: as stored, as one gray channel, or as RGB."""

    UNCHANGED = 0
    GRAYSCALE = 1
    COLOR = 2


def get_image_size(image: Any) -> list[int]:
    """[height, width] of an HWC/HW array or a PIL image."""
    if is_pil(image):
        return [image.size[1], image.size[0]]
    return [int(s) for s in hwc(image, "get_image_size").shape[:2]]


def get_image_num_channels(image: Any) -> int:
    """The number of channels of an HWC/HW array (1 for HW) or a PIL image."""
    if is_pil(image):
        return len(image.getbands())
    array = hwc(image, "get_image_num_channels")
    return 1 if array.ndim == 2 else int(array.shape[2])


def _uint8_image(op: str, image: Any) -> np.ndarray:
    array = image.asnumpy() if isinstance(image, Tensor) else np.asarray(image)
    if array.dtype != np.uint8 or array.ndim not in (2, 3) or array.ndim == 3 and array.shape[2] not in (1, 3):
        raise DatasetError(f"{op}: expected a uint8 image <H, W> or <H, W, 1 or 3>, got dtype {array.dtype} shape "
                           f"{list(array.shape)}")
    return array[:, :, 0] if array.ndim == 3 and array.shape[2] == 1 else array


def _encode(image: np.ndarray, fmt: str, **options: Any) -> np.ndarray:
    buf = io.BytesIO()
    Image.fromarray(image).save(buf, fmt, **options)
    return np.frombuffer(buf.getvalue(), np.uint8).copy()


def encode_jpeg(image: Any, quality: int = 75) -> np.ndarray:
    """A uint8 image as JPEG bytes (a 1-D uint8 array); `quality` in [1, 100]."""
    if isinstance(quality, bool) or not isinstance(quality, int) or not 1 <= quality <= 100:
        raise DatasetError(f"encode_jpeg: quality must be an int in [1, 100], got {quality!r}")
    return _encode(_uint8_image("encode_jpeg", image), "JPEG", quality=quality)


def encode_png(image: Any, compression_level: int = 6) -> np.ndarray:
    """A uint8 image as PNG bytes (a 1-D uint8 array); `compression_level` in [0, 9]."""
    if isinstance(compression_level, bool) or not isinstance(compression_level, int) or \
            not 0 <= compression_level <= 9:
        raise DatasetError(f"encode_png: compression_level must be an int in [0, 9], got {compression_level!r}")
    return _encode(_uint8_image("encode_png", image), "PNG", compress_level=compression_level)


def _path(op: str, filename: Any) -> str:
    if not isinstance(filename, (str, os.PathLike)):
        raise DatasetError(f"{op}: filename must be a path, got {type(filename).__name__}")
    return os.fspath(filename)


def read_file(filename: str) -> np.ndarray:
    """The bytes of a file as a 1-D uint8 array."""
    path = _path("read_file", filename)
    if not os.path.isfile(path):
        raise DatasetError(f"read_file: {path!r} is not a file")
    with open(path, "rb") as f:
        return np.frombuffer(f.read(), np.uint8).copy()


def write_file(filename: str, data: Any) -> None:
    """Write a 1-D uint8 array (e.g. encode_png's) as the file's bytes."""
    array = data.asnumpy() if isinstance(data, Tensor) else np.asarray(data)
    if array.dtype != np.uint8 or array.ndim != 1:
        raise DatasetError(f"write_file: data must be a 1-D uint8 array, got dtype {array.dtype} shape "
                           f"{list(array.shape)}")
    write_atomic(_path("write_file", filename), [array.tobytes()])


def read_image(filename: str, mode: ImageReadMode = ImageReadMode.UNCHANGED) -> np.ndarray:
    """Decode an image file (JPEG, PNG, BMP, TIFF) to uint8 HWC: as stored, GRAYSCALE (1 channel) or COLOR (RGB)."""
    path = _path("read_image", filename)
    try:
        mode = ImageReadMode(mode)
    except ValueError:
        raise DatasetError(f"read_image: mode must be a vision.ImageReadMode, got {mode!r}") from None
    data = read_file(path)
    try:
        with Image.open(io.BytesIO(data.tobytes())) as img:
            if mode == ImageReadMode.GRAYSCALE:
                img = img.convert("L")
            elif mode == ImageReadMode.COLOR or img.mode not in ("L", "RGB", "RGBA"):
                img = img.convert("RGB")
            out = np.asarray(img)
    except Exception as exc:
        raise DatasetError(f"read_image: cannot decode {path!r} ({data.size} bytes): {exc}") from None
    return out[:, :, None] if out.ndim == 2 else out


def write_jpeg(filename: str, image: Any, quality: int = 75) -> None:
    """encode_jpeg, written to `filename`."""
    write_atomic(_path("write_jpeg", filename), [encode_jpeg(image, quality).tobytes()])


def write_png(filename: str, image: Any, compression_level: int = 6) -> None:
    """encode_png, written to `filename`."""
    write_atomic(_path("write_png", filename), [encode_png(image, compression_level).tobytes()])

