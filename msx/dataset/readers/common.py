"""Argument checks every reader of a train/test dataset directory makes the same way."""
from __future__ import annotations

import os
from typing import Any, Sequence

import numpy as np

from ...errors import DatasetError
from ..pipeline import Row
from ..sources import MappableSource
from ..vision.core import decode_image


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


class ImageRows(MappableSource):
    """A reader whose rows are an image file (its bytes, or decoded) and further columns: `items[i]` is
    (image path, value, ...) and `dtypes` the further columns' dtypes (None: a string column). What most
    image-folder readers are once they have listed their files."""

    def __init__(self, where: str, names: Sequence[str], items: list[tuple], dtypes: Sequence[Any], decode: Any,
                 num_samples: Any, shuffle: Any, sampler: Any, num_shards: Any, shard_id: Any,
                 num_parallel_workers: Any) -> None:
        if not isinstance(decode, (bool, type(None))):
            raise DatasetError(f"{where}: decode must be True or False, got {decode!r}")
        self._items, self._dtypes, self._decode = items, list(dtypes), bool(decode)
        super().__init__(where, names, num_samples, shuffle, sampler, num_shards, shard_id, num_parallel_workers)

    def _length(self) -> int:
        return len(self._items)

    def _row(self, index: int) -> Row:
        path, *rest = self._items[index]
        return (image_file(self._where, path, self._decode),) + tuple(
            np.array(v) if d is None else np.array(v, d) for v, d in zip(rest, self._dtypes))


def listdir_sorted(where: str, folder: str, dirs: bool | None = None) -> list[str]:
    """The names in `folder`, sorted (`dirs` True: sub-directories only; False: files only); a missing folder is a
    DatasetError naming it."""
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError as exc:
        raise DatasetError(f"{where}: cannot list {folder!r}: {exc.strerror}") from None
    return [e.name for e in entries if dirs is None or e.is_dir() == dirs]


def read_lines(where: str, path: str) -> list[str]:
    """The lines of a UTF-8 text file (line ends removed); a missing or non-text file is a DatasetError."""
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().splitlines()
    except OSError as exc:
        raise DatasetError(f"{where}: cannot read {path!r}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise DatasetError(f"{where}: {path!r} is not UTF-8 text: {exc}") from None
