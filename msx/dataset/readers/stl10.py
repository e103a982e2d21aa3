"""`STL10Dataset`: STL-10's binary files (`stl10_binary/`: `<part>_X.bin`, N x 3 x 96 x 96 uint8 in column-major
order, and `<part>_y.bin`, one label 1..10 per image; `unlabeled_X.bin` without labels). Columns `image` uint8
(96, 96, 3) and `label` int32 (0..9; -1 for unlabeled images), as MindSpore's; usage train, test, unlabeled,
train+unlabeled, all (test, train, unlabeled — MindSpore's order)."""
from __future__ import annotations

import os
from typing import Any

import numpy as np

from ...errors import DatasetError
from .common import ImageLabelArrays

_USAGES = {"train": ("train",), "test": ("test",), "unlabeled": ("unlabeled",),
           "train+unlabeled": ("train", "unlabeled"), "all": ("test", "train", "unlabeled")}
_IMAGE = 3 * 96 * 96


def _part(dataset_dir: str, part: str) -> tuple[np.ndarray, np.ndarray]:
    where = "STL10Dataset"
    path = os.path.join(dataset_dir, f"{part}_X.bin")
    if not os.path.isfile(path):
        raise DatasetError(f"{where}: {path!r} does not exist")
    size = os.path.getsize(path)
    if size % _IMAGE:
        raise DatasetError(f"{where}: {path!r} holds {size} bytes, not a whole number of 3x96x96 images")
    images = np.fromfile(path, np.uint8).reshape(-1, 3, 96, 96).transpose(0, 3, 2, 1)
    if part == "unlabeled":
        return np.ascontiguousarray(images), np.full(len(images), -1, np.int32)
    label_path = os.path.join(dataset_dir, f"{part}_y.bin")
    if not os.path.isfile(label_path):
        raise DatasetError(f"{where}: {label_path!r} does not exist")
    labels = np.fromfile(label_path, np.uint8).astype(np.int32) - 1
    if len(labels) != len(images) or (labels < 0).any() or (labels > 9).any():
        raise DatasetError(f"{where}: {label_path!r} holds {len(labels)} labels for {len(images)} images, or labels "
                           f"outside 1..10")
    return np.ascontiguousarray(images), labels


class STL10Dataset(ImageLabelArrays):
    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        where = "STL10Dataset"
        usage = "all" if usage is None else usage
        if usage not in _USAGES:
            raise DatasetError(f"{where}: usage must be one of {list(_USAGES)}, got {usage!r}")
        if not os.path.isdir(dataset_dir):
            raise DatasetError(f"{where}: dataset_dir {dataset_dir!r} is not a directory")
        parts = [_part(dataset_dir, p) for p in _USAGES[usage]]
        self._images = np.concatenate([p[0] for p in parts])
        self._labels_ = np.concatenate([p[1] for p in parts])
        super().__init__(where, ["image", "label"], num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers)
