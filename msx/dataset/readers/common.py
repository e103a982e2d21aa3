"""Argument checks every reader of a train/test dataset directory makes the same way."""
from __future__ import annotations

import os

import numpy as np

from ...errors import DatasetError


def check_usage_and_dir(where: str, usage: str | None, dataset_dir: str) -> str:
    """`usage` (None means "all") as MindSpore's readers take it, after checking it and `dataset_dir`."""
    usage = "all" if usage is None else usage
    if usage not in ("train", "test", "all"):
        raise DatasetError(f"{where}: usage must be 'train', 'test' or 'all', got {usage!r}")
    if not os.path.isdir(dataset_dir):
        raise DatasetError(f"{where}: dataset_dir {dataset_dir!r} is not a directory")
    return usage


def image_file(where: str, path: str, decode: bool) -> np.ndarray:
    """An image file as MindSpore's image readers yield it: its bytes (uint8, 1-D), or with `decode` the RGB image
    (uint8 HxWx3, by Pillow)."""
    try:
        with open(path, "rb") as f:
            data = np.frombuffer(f.read(), np.uint8).copy()
    except OSError as exc:
        raise DatasetError(f"{where}: cannot read {path!r}: {exc.strerror}") from None
    if decode:
        from ..vision.core import decode_image  # vision sits beside the readers; only decoding readers need it

        data = decode_image(data, f"{where} file {path!r}")
    return data
