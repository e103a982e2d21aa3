"""`MnistDataset` and `FashionMnistDataset`: the idx files of MNIST and Fashion-MNIST.

The idx format (yann.lecun.com/exdb/mnist): a big-endian header — two zero
bytes, a type byte (0x08: unsigned byte), the number of dimensions — then
one big-endian uint32 per dimension, then the data. Images are
`[count, rows, cols]`, labels `[count]`. Rows come out as MindSpore's:
`image` uint8 `(rows, cols, 1)`, `label` uint32.
"""
from __future__ import annotations

import os
from typing import Any

import numpy as np

from ...errors import DatasetError
from ..pipeline import Row
from ..sources import MappableSource
from .common import check_usage_and_dir

_FILES = {"train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
          "test": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")}


def read_idx(path: str, ndim: int) -> np.ndarray:
    """The uint8 array of an idx file of `ndim` dimensions; a bad file is a DatasetError naming it."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise DatasetError(f"cannot read idx file {path!r}: {exc.strerror}") from None
    if len(data) < 4 + 4 * ndim:
        raise DatasetError(f"idx file {path!r} is truncated: {len(data)} bytes, shorter than its header")
    if data[0] != 0 or data[1] != 0 or data[2] != 0x08 or data[3] != ndim:
        raise DatasetError(f"{path!r} is not an idx file of unsigned bytes with {ndim} dimensions: its magic "
                           f"number is 0x{data[:4].hex()}, expected 0x000008{ndim:02x}")
    dims = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    body = np.frombuffer(data, np.uint8, offset=4 + 4 * ndim)
    expected = int(np.prod(dims))
    if body.size != expected:
        raise DatasetError(f"idx file {path!r} is corrupt: its header says {dims} ({expected} bytes of data) but "
                           f"it holds {body.size}")
    return body.reshape(dims)


class MnistDataset(MappableSource):
    """MNIST from `dataset_dir` (MindSpore's `MnistDataset`): columns `image` (uint8 HxWx1) and `label` (uint32).

    `usage`: "train", "test" or "all" (None: all — the test files first, as MindSpore reads them).
    `shuffle`/`num_samples`/`sampler`/`num_shards`/`shard_id` as on every source.
    """

    _name = "MnistDataset"

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        where = self._name
        usage = check_usage_and_dir(where, usage, dataset_dir)
        images, labels = [], []
        for part in (("test", "train") if usage == "all" else (usage,)):
            image_file, label_file = (os.path.join(dataset_dir, n) for n in _FILES[part])
            if usage == "all" and not os.path.exists(image_file) and not os.path.exists(label_file):
                continue
            im, lb = read_idx(image_file, 3), read_idx(label_file, 1)
            if len(im) != len(lb):
                raise DatasetError(f"{where}: {image_file!r} has {len(im)} images but {label_file!r} has "
                                   f"{len(lb)} labels")
            images.append(im)
            labels.append(lb)
        if not images:
            raise DatasetError(f"{where}: no MNIST files in {dataset_dir!r}; expected {_FILES['train']} and/or "
                               f"{_FILES['test']}")
        self._images = np.concatenate(images)[..., None]
        self._labels_ = np.concatenate(labels).astype(np.uint32)
        super().__init__(where, ["image", "label"], num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers)

    def _length(self) -> int:
        return len(self._images)

    def _row(self, index: int) -> Row:
        return self._images[index].copy(), np.array(self._labels_[index])

    def _rows_at(self, indices: np.ndarray) -> tuple:
        return self._images[indices], self._labels_[indices]

    def _labels(self, column: str) -> np.ndarray:
        return self._labels_ if column == "label" else super()._labels(column)


class FashionMnistDataset(MnistDataset):
    """Fashion-MNIST from `dataset_dir`: the same idx files and columns as `MnistDataset`."""

    _name = "FashionMnistDataset"
