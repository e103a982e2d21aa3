"""Datasets published as MATLAB v5 files, read with scipy's MATLAB reader (no pickle), as MindSpore reads them:

Each file passes `mat_v5.check` (every data element well nested) before scipy reads it from memory.

* `SVHNDataset`: the Street View House Numbers' cropped digits, `<usage>_32x32.mat` (`X` uint8 (32, 32, 3, N),
  `y` (N, 1) with the digit 0 stored as 10). Columns `image` uint8 (32, 32, 3) and `label` uint32 (10 read as
  0); usage train, test, extra or all (in that order).
* `Flowers102Dataset`: `jpg/image_<5 digits>.jpg`, `imagelabels.mat` (`labels`, 1..102), `setid.mat` (`trnid`,
  `valid`, `tstid`); task "Classification" (columns `image`, `label` uint32 0..101) or "Segmentation" (`image`,
  `segmentation` from `segmim/segmim_<5 digits>.jpg`, `label`); usage train, valid, test or all (train, test,
  valid — MindSpore's order).
* `SBDataset` (Semantic Boundaries, Hariharan et al.): `img/<id>.jpg`, `cls/<id>.mat` (the struct `GTcls`:
  `Boundaries`, a 20 x 1 cell of sparse H x W matrices, one per class; `Segmentation`, uint8 H x W class ids) and
  `<usage>.txt` (one id a line; usage train, val, train_noval, or all: train then val). Columns `image` (bytes, or
  decoded RGB) and `task`: Boundaries (20, H, W) in the sparse matrices' dtype (as scipy reads them), or
  Segmentation uint8 (H, W). The .mat file is read when its row is.
"""
from __future__ import annotations

import io
import os
from typing import Any

import numpy as np
import scipy.sparse

from ...errors import DatasetError
from ..pipeline import Row
from ..sources import MappableSource
from . import mat_v5
from .common import ImageLabelArrays, check_dir, image_file, read_lines

_PARTS = ("train", "test", "extra")


def _loadmat(where: str, path: str, names: tuple[str, ...]) -> list[np.ndarray]:
    """The variables `names` of the MATLAB file `path`; a missing or damaged file is a DatasetError naming it."""
    import scipy.io  # only these readers need it (a MATLAB v5 parser), 0.1 s to load

    if not os.path.isfile(path):
        raise DatasetError(f"{where}: {path!r} does not exist")
    try:
        with open(path, "rb") as f:
            data = f.read()
        mat_v5.check(data)  # what scipy is handed is well nested: a damaged byte count crashes its reader
        mat = scipy.io.loadmat(io.BytesIO(data))
        return [np.asarray(mat[n]) for n in names]
    except KeyError as exc:
        raise DatasetError(f"{where}: {path!r} lacks the variable {exc}; it should hold {list(names)}") from None
    except Exception as exc:  # noqa: BLE001 — scipy raises several types for a damaged file
        raise DatasetError(f"{where}: {path!r} is not a MATLAB file scipy can read ({type(exc).__name__}: "
                           f"{exc})") from None


def _load(path: str) -> tuple[np.ndarray, np.ndarray]:
    images, labels = _loadmat("SVHNDataset", path, ("X", "y"))
    if images.dtype != np.uint8 or images.ndim != 4 or images.shape[:3] != (32, 32, 3) or \
            labels.size != images.shape[3]:
        raise DatasetError(f"SVHNDataset: {path!r} holds X {images.dtype} {list(images.shape)} and y of "
                           f"{labels.size} values; SVHN's are uint8 [32, 32, 3, N] and N labels")
    labels = labels.astype(np.uint32).reshape(-1)
    labels[labels == 10] = 0
    return np.ascontiguousarray(np.transpose(images, (3, 0, 1, 2))), labels


class SVHNDataset(ImageLabelArrays):
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


_FLOWERS_PARTS = {"train": ("trnid",), "valid": ("valid",), "test": ("tstid",), "all": ("trnid", "tstid", "valid")}


class Flowers102Dataset(MappableSource):
    def __init__(self, dataset_dir: str, task: str = "Classification", usage: str = "all",
                 num_samples: int | None = None, num_parallel_workers: int | None = 1, shuffle: bool | None = None,
                 decode: bool = False, sampler: Any = None, num_shards: int | None = None,
                 shard_id: int | None = None) -> None:
        where = "Flowers102Dataset"
        if task not in ("Classification", "Segmentation"):
            raise DatasetError(f"{where}: task must be 'Classification' or 'Segmentation', got {task!r}")
        if usage not in _FLOWERS_PARTS:
            raise DatasetError(f"{where}: usage must be one of {list(_FLOWERS_PARTS)}, got {usage!r}")
        (labels,) = _loadmat(where, os.path.join(dataset_dir, "imagelabels.mat"), ("labels",))
        sets = _loadmat(where, os.path.join(dataset_dir, "setid.mat"), _FLOWERS_PARTS[usage])
        labels = labels.reshape(-1).astype(np.int64) - 1
        ids = [int(i) for part in sets for i in part.reshape(-1)]
        bad = [i for i in ids if not 1 <= i <= len(labels)]
        if bad or (labels < 0).any():
            raise DatasetError(f"{where}: setid.mat names images {bad[:5]} outside the {len(labels)} labels, or "
                               f"imagelabels.mat holds labels below 1")
        self._task, self._decode, self._dir = task, bool(decode), dataset_dir
        self._ids, self._label_of = ids, labels.astype(np.uint32)
        names = ["image", "label"] if task == "Classification" else ["image", "segmentation", "label"]
        super().__init__(where, names, num_samples, shuffle, sampler, num_shards, shard_id, num_parallel_workers)

    def _length(self) -> int:
        return len(self._ids)

    def _row(self, index: int) -> Row:
        i = self._ids[index]
        image = image_file("Flowers102Dataset", os.path.join(self._dir, "jpg", f"image_{i:05d}.jpg"), self._decode)
        label = np.array(self._label_of[i - 1])
        if self._task == "Classification":
            return image, label
        mask = image_file("Flowers102Dataset", os.path.join(self._dir, "segmim", f"segmim_{i:05d}.jpg"),
                          self._decode)
        return image, mask, label


_SBD_USAGES = ("train", "val", "train_noval", "all")


def _dense(matrix: Any) -> np.ndarray:
    """A sparse matrix as scipy read it, densified after a full check of its index arrays: scipy's reader takes
    them from the file as they are, and densifying out-of-range indices writes past the array (a crash)."""
    if not scipy.sparse.issparse(matrix):
        raise TypeError(f"a {type(matrix).__name__}, not a sparse matrix")
    matrix.check_format(full_check=True)
    return matrix.toarray()


class SBDataset(MappableSource):
    def __init__(self, dataset_dir: str, task: str = "Boundaries", usage: str = "all", num_samples: int | None = None,
                 num_parallel_workers: int | None = 1, shuffle: bool | None = None, decode: bool | None = None,
                 sampler: Any = None, num_shards: int | None = None, shard_id: int | None = None) -> None:
        where = "SBDataset"
        if task not in ("Boundaries", "Segmentation"):
            raise DatasetError(f"{where}: task must be one of ['Boundaries', 'Segmentation'], got {task!r}")
        if usage not in _SBD_USAGES:
            raise DatasetError(f"{where}: usage must be one of {list(_SBD_USAGES)}, got {usage!r}")
        if not isinstance(decode, (bool, type(None))):
            raise DatasetError(f"{where}: decode must be True, False or None, got {decode!r}")
        root = check_dir(where, dataset_dir)
        ids = [line.strip() for part in (("train", "val") if usage == "all" else (usage,))
               for line in read_lines(where, os.path.join(root, f"{part}.txt"))]
        self._items = [(os.path.join(root, "img", f"{i}.jpg"), os.path.join(root, "cls", f"{i}.mat")) for i in ids]
        self._task, self._decode = task, bool(decode)
        super().__init__(where, ["image", "task"], num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers)

    def _length(self) -> int:
        return len(self._items)

    def _target(self, path: str) -> np.ndarray:
        (gt,) = _loadmat(self._where, path, ("GTcls",))
        try:
            field = gt[0][self._task][0]
            if self._task == "Segmentation":
                return np.asarray(field, np.uint8)
            return np.stack([_dense(field[k][0]) for k in range(20)])
        except (IndexError, KeyError, ValueError, TypeError, AttributeError) as exc:
            raise DatasetError(f"{self._where}: {path!r}'s GTcls has no {self._task} of SBD's layout (20 sparse "
                               f"class boundaries, a uint8 segmentation): {type(exc).__name__}: {exc}") from None

    def _row(self, index: int) -> Row:
        image, mat = self._items[index]
        return image_file(self._where, image, self._decode), self._target(mat)
