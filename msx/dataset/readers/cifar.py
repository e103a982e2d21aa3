"""`Cifar10Dataset` and `Cifar100Dataset`: the binary versions of CIFAR-10/100.

The format (cs.toronto.edu/~kriz/cifar.html, "binary version"): records of
one label byte (CIFAR-100: a coarse then a fine label byte) and 3072 image
bytes — the red, green and blue 32x32 planes, row-major. CIFAR-10's files
are `data_batch_1.bin` .. `data_batch_5.bin` and `test_batch.bin`,
CIFAR-100's `train.bin` and `test.bin`. Rows come out as MindSpore's:
`image` uint8 (32, 32, 3) HWC, labels uint32.
"""
from __future__ import annotations

import glob
import os
from typing import Any

import numpy as np

from ...errors import DatasetError
from ..pipeline import Row
from ..sources import MappableSource
from .common import check_usage_and_dir

_IMAGE_BYTES = 32 * 32 * 3


def _records(path: str, label_bytes: int) -> tuple[np.ndarray, np.ndarray]:
    try:
        data = np.fromfile(path, np.uint8)
    except OSError as exc:
        raise DatasetError(f"cannot read CIFAR file {path!r}: {exc}") from None
    size = label_bytes + _IMAGE_BYTES
    if data.size == 0 or data.size % size:
        raise DatasetError(f"CIFAR file {path!r} is corrupt: {data.size} bytes is not a whole number of "
                           f"{size}-byte records ({label_bytes} label byte(s) + {_IMAGE_BYTES} image bytes)")
    records = data.reshape(-1, size)
    images = records[:, label_bytes:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)
    return np.ascontiguousarray(images), records[:, :label_bytes].astype(np.uint32)


class _Cifar(MappableSource):
    _name = ""
    _label_columns: tuple[str, ...] = ()
    _patterns: dict[str, list[str]] = {}

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        where = self._name
        usage = check_usage_and_dir(where, usage, dataset_dir)
        parts = ("train", "test") if usage == "all" else (usage,)
        files = [f for p in parts for pat in self._patterns[p] for f in sorted(glob.glob(os.path.join(dataset_dir,
                                                                                                       pat)))]
        if not files:
            wanted = [pat for p in parts for pat in self._patterns[p]]
            raise DatasetError(f"{where}: no CIFAR binary files {wanted} in {dataset_dir!r}")
        read = [_records(f, len(self._label_columns)) for f in files]
        self._images = np.concatenate([r[0] for r in read])
        self._label_array = np.concatenate([r[1] for r in read])
        super().__init__(where, ["image", *self._label_columns], num_samples, shuffle, sampler, num_shards,
                         shard_id, num_parallel_workers)

    def _length(self) -> int:
        return len(self._images)

    def _row(self, index: int) -> Row:
        return (self._images[index].copy(), *(np.array(v) for v in self._label_array[index]))

    def _rows_at(self, indices: np.ndarray) -> tuple:
        labels = self._label_array[indices]
        return (self._images[indices], *(labels[:, j] for j in range(labels.shape[1])))

    def _labels(self, column: str) -> np.ndarray:
        if column in self._label_columns:
            return self._label_array[:, self._label_columns.index(column)]
        return super()._labels(column)


class Cifar10Dataset(_Cifar):
    """CIFAR-10 from `dataset_dir` (MindSpore's `Cifar10Dataset`): `image` (uint8 32x32x3), `label` (uint32).
    `usage`: "train", "test" or "all" (None: all)."""

    _name = "Cifar10Dataset"
    _label_columns = ("label",)
    _patterns = {"train": ["data_batch_*.bin"], "test": ["test_batch.bin"]}


class Cifar100Dataset(_Cifar):
    """CIFAR-100 from `dataset_dir`: `image` (uint8 32x32x3), `coarse_label`, `fine_label` (uint32)."""

    _name = "Cifar100Dataset"
    _label_columns = ("coarse_label", "fine_label")
    _patterns = {"train": ["train.bin"], "test": ["test.bin"]}
