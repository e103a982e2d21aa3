"""Argument checks every reader of a train/test dataset directory makes the same way."""
from __future__ import annotations

import os
from typing import Any, Sequence

import numpy as np

from ...errors import DatasetError
from ..pipeline import Row
from ..sources import MappableSource


def check_usage_and_dir(where: str, usage: str | None, dataset_dir: str) -> str:
    """`usage` (None means "all") as MindSpore's readers take it, after checking it and `dataset_dir`."""
    usage = "all" if usage is None else usage
    if usage not in ("train", "test", "all"):
        raise DatasetError(f"{where}: usage must be 'train', 'test' or 'all', got {usage!r}")
    if not os.path.isdir(dataset_dir):
        raise DatasetError(f"{where}: dataset_dir {dataset_dir!r} is not a directory")
    return usage


def check_dir(where: str, dataset_dir: Any) -> str:
    """`dataset_dir` as a path, after checking that it names a directory (every reader's first check)."""
    if not isinstance(dataset_dir, (str, os.PathLike)) or not os.path.isdir(dataset_dir):
        raise DatasetError(f"{where}: dataset_dir {dataset_dir!r} is not a directory")
    return os.fspath(dataset_dir)


def check_usage(where: str, usage: Any, allowed: Sequence[str], default: str = "all") -> str:
    """`usage` (None: `default`) after checking it is one of `allowed`; every reader's usage check, one message."""
    usage = default if usage is None else usage
    if not isinstance(usage, str) or usage not in allowed:
        raise DatasetError(f"{where}: usage must be one of {list(allowed)}, got {usage!r}")
    return usage


def reader_prelude(where: str, dataset_dir: Any, usage: Any, allowed: Sequence[str],
                   default: str = "all") -> tuple[str, str]:
    """(dataset_dir, usage) after the checks every reader of a split dataset directory makes."""
    return check_dir(where, dataset_dir), check_usage(where, usage, allowed, default)


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


class ImageLabelArrays(MappableSource):
    """A reader whose rows are `self._images[i]` and `self._labels_[i]`, both read into arrays when it is made
    (MNIST's family, SVHN, STL-10): read by index or many at once (for the batch fast path), grouped by label."""

    _images: np.ndarray
    _labels_: np.ndarray

    def _length(self) -> int:
        return len(self._images)

    def _row(self, index: int) -> Row:
        return self._images[index].copy(), np.array(self._labels_[index])

    def _rows_at(self, indices: np.ndarray) -> tuple:
        return self._images[indices], self._labels_[indices]

    def _labels(self, column: str) -> np.ndarray:
        return self._labels_ if column == "label" else super()._labels(column)
