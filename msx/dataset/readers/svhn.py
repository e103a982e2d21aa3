"""`SVHNDataset`: the Street View House Numbers in their published cropped-digits form, `<usage>_32x32.mat`
(MATLAB v5 files: `X` uint8 (32, 32, 3, N), `y` (N, 1) with the digit 0 stored as 10), read with scipy's MATLAB
reader (no pickle). Columns `image` uint8 (32, 32, 3) and `label` uint32 (10 read as 0), as MindSpore's; usage
train, test, extra or all (in that order)."""
from __future__ import annotations

import os
from typing import Any

import numpy as np

from ...errors import DatasetError
from ..pipeline import Row
from ..sources import MappableSource

_PARTS = ("train", "test", "extra")


def _load(path: str) -> tuple[np.ndarray, np.ndarray]:
    import scipy.io  # only this reader needs it (a MATLAB v5 parser)

    if not os.path.isfile(path):
        raise DatasetError(f"SVHNDataset: {path!r} does not exist")
    try:
        mat = scipy.io.loadmat(path)
        images, labels = np.asarray(mat["X"]), np.asarray(mat["y"])
    except KeyError as exc:
        raise DatasetError(f"SVHNDataset: {path!r} lacks the variable {exc}; SVHN's files hold X and y") from None
    except Exception as exc:  # noqa: BLE001 — scipy raises several types for a damaged file
        raise DatasetError(f"SVHNDataset: {path!r} is not a MATLAB file scipy can read ({type(exc).__name__}: "
                           f"{exc})") from None
    if images.dtype != np.uint8 or images.ndim != 4 or images.shape[:3] != (32, 32, 3) or \
            labels.size != images.shape[3]:
        raise DatasetError(f"SVHNDataset: {path!r} holds X {images.dtype} {list(images.shape)} and y of "
                           f"{labels.size} values; SVHN's are uint8 [32, 32, 3, N] and N labels")
    labels = labels.astype(np.uint32).reshape(-1)
    labels[labels == 10] = 0
    return np.ascontiguousarray(np.transpose(images, (3, 0, 1, 2))), labels


class SVHNDataset(MappableSource):
    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = 1, shuffle: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None) -> None:
        where = "SVHNDataset"
        usage = "all" if usage is None else usage
        if usage not in (*_PARTS, "all"):
            raise DatasetError(f"{where}: usage must be one of {[*_PARTS, 'all']}, got {usage!r}")
        if not os.path.isdir(dataset_dir):
            raise DatasetError(f"{where}: dataset_dir {dataset_dir!r} is not a directory")
        parts = [_load(os.path.join(dataset_dir, f"{p}_32x32.mat")) for p in (_PARTS if usage == "all" else (usage,))]
        self._images = np.concatenate([p[0] for p in parts])
        self._labels_ = np.concatenate([p[1] for p in parts])
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
