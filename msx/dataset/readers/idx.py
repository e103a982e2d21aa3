"""The MNIST family, on idx files: `MnistDataset`, `FashionMnistDataset`, `KMnistDataset` (the same file names),
`EMnistDataset` (`emnist-<name>-<train|test>-...`) and `QMnistDataset` (`qmnist-train-...`, `qmnist-test-...`,
`xnist-...`, labels as 8 int32 columns in an idx2-int file).

The idx format (yann.lecun.com/exdb/mnist): a big-endian header — two zero
bytes, a type byte (0x08: unsigned byte), the number of dimensions — then
one big-endian uint32 per dimension, then the data. Images are
`[count, rows, cols]`, labels `[count]`. Rows come out as MindSpore's:
`image` uint8 `(rows, cols, 1)`, `label` uint32.
"""
from __future__ import annotations

import os
from typing import Any, Sequence

import numpy as np

from ...errors import DatasetError
from ..sources import MappableSource
from .common import ImageLabelArrays, check_usage_and_dir

_FILES = {"train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
          "test": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")}


_IDX_TYPES = {0x08: np.dtype(np.uint8), 0x0C: np.dtype(">i4")}


def read_idx(path: str, ndim: int, kind: int = 0x08) -> np.ndarray:
    """The array of an idx file of `ndim` dimensions and element type `kind` (0x08: unsigned bytes, 0x0C: big-endian
    int32); a bad file is a DatasetError naming it."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise DatasetError(f"cannot read idx file {path!r}: {exc.strerror}") from None
    if len(data) < 4 + 4 * ndim:
        raise DatasetError(f"idx file {path!r} is truncated: {len(data)} bytes, shorter than its header")
    dtype = _IDX_TYPES[kind]
    if data[0] != 0 or data[1] != 0 or data[2] != kind or data[3] != ndim:
        raise DatasetError(f"{path!r} is not an idx file of {dtype} with {ndim} dimensions: its magic "
                           f"number is 0x{data[:4].hex()}, expected 0x0000{kind:02x}{ndim:02x}")
    dims = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    body = np.frombuffer(data, dtype, offset=4 + 4 * ndim, count=(len(data) - 4 - 4 * ndim) // dtype.itemsize)
    expected = int(np.prod(dims))
    if body.size != expected or (len(data) - 4 - 4 * ndim) % dtype.itemsize:
        raise DatasetError(f"idx file {path!r} is corrupt: its header says {dims} ({expected * dtype.itemsize} bytes "
                           f"of data) but it holds {len(data) - 4 - 4 * ndim}")
    return body.reshape(dims)


class MnistDataset(ImageLabelArrays):
    """MNIST from `dataset_dir` (MindSpore's `MnistDataset`): columns `image` (uint8 HxWx1) and `label` (uint32).

    `usage`: "train", "test" or "all" (None: all — the test files first, as MindSpore reads them).
    `shuffle`/`num_samples`/`sampler`/`num_shards`/`shard_id` as on every source.
    """

    _name = "MnistDataset"

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        usage = check_usage_and_dir(self._name, usage, dataset_dir)
        self._read(dataset_dir, ("test", "train") if usage == "all" else (usage,), usage == "all")
        super().__init__(self._name, ["image", "label"], num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers)

    def _files(self, part: str) -> tuple[str, str]:
        """The image and label file names of `part` ("train", "test", ...)."""
        return _FILES[part]

    def _read_labels(self, path: str) -> np.ndarray:
        return read_idx(path, 1)

    def _read(self, dataset_dir: str, parts: Sequence[str], optional: bool) -> None:
        """Read the images and labels of `parts`, in that order (`optional`: a part without files is skipped)."""
        where = self._name
        images, labels = [], []
        for part in parts:
            image_file, label_file = (os.path.join(dataset_dir, n) for n in self._files(part))
            if optional and not os.path.exists(image_file) and not os.path.exists(label_file):
                continue
            im, lb = read_idx(image_file, 3), self._read_labels(label_file)
            if len(im) != len(lb):
                raise DatasetError(f"{where}: {image_file!r} has {len(im)} images but {label_file!r} has "
                                   f"{len(lb)} labels")
            images.append(im)
            labels.append(lb)
        if not images:
            raise DatasetError(f"{where}: no {where.replace('Dataset', '').upper()} files in {dataset_dir!r}; expected "
                               f"{' and/or '.join(str(self._files(p)) for p in parts)}")
        self._images = np.concatenate(images)[..., None]
        self._labels_ = np.concatenate(labels).astype(np.uint32)


class FashionMnistDataset(MnistDataset):
    """Fashion-MNIST from `dataset_dir`: the same idx files and columns as `MnistDataset`."""

    _name = "FashionMnistDataset"


class KMnistDataset(MnistDataset):
    """Kuzushiji-MNIST from `dataset_dir`: the same idx file names and columns as `MnistDataset`."""

    _name = "KMnistDataset"


_EMNIST_NAMES = ("byclass", "bymerge", "balanced", "letters", "digits", "mnist")


class EMnistDataset(MnistDataset):
    """EMNIST from `dataset_dir` (MindSpore's `EMnistDataset(dataset_dir, name, usage)`): the idx files
    `emnist-<name>-<train|test>-images-idx3-ubyte` / `-labels-idx1-ubyte` of split `name` (byclass, bymerge,
    balanced, letters, digits, mnist), images as stored (not transposed, as MindSpore reads them)."""

    _name = "EMnistDataset"

    def __init__(self, dataset_dir: str, name: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        if name not in _EMNIST_NAMES:
            raise DatasetError(f"EMnistDataset: name must be one of {list(_EMNIST_NAMES)}, got {name!r}")
        self._split = name
        super().__init__(dataset_dir, usage, num_samples, num_parallel_workers, shuffle, sampler, num_shards,
                         shard_id, cache)

    def _files(self, part: str) -> tuple[str, str]:
        stem = f"emnist-{self._split}-{part}"
        return f"{stem}-images-idx3-ubyte", f"{stem}-labels-idx1-ubyte"


_QMNIST_PARTS = {"train": ("qmnist-train",), "test": ("qmnist-test",), "test10k": ("qmnist-test",),
                 "test50k": ("qmnist-test",), "nist": ("xnist",), "all": ("qmnist-train", "qmnist-test", "xnist")}


class QMnistDataset(MnistDataset):
    """QMNIST from `dataset_dir` (MindSpore's `QMnistDataset(dataset_dir, usage, compat)`): images of
    `qmnist-<train|test>-images-idx3-ubyte` (`xnist-...` for usage "nist"), labels from the idx2-int files' 8
    columns — with `compat` (default) the class alone (uint32), else all 8 (uint32 `(8,)`). usage: train, test,
    test10k (the test file's first 10000 rows), test50k (the rest), nist, all."""

    _name = "QMnistDataset"

    def __init__(self, dataset_dir: str, usage: str | None = None, compat: bool = True,
                 num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: bool | None = None, sampler: Any = None, num_shards: int | None = None,
                 shard_id: int | None = None, cache: Any = None) -> None:
        where = self._name
        usage = "all" if usage is None else usage
        if usage not in _QMNIST_PARTS:
            raise DatasetError(f"{where}: usage must be one of {list(_QMNIST_PARTS)}, got {usage!r}")
        if not isinstance(compat, bool):
            raise DatasetError(f"{where}: compat must be True or False, got {compat!r}")
        if not os.path.isdir(dataset_dir):
            raise DatasetError(f"{where}: dataset_dir {dataset_dir!r} is not a directory")
        self._compat = compat
        self._read(dataset_dir, _QMNIST_PARTS[usage], usage == "all")
        if usage in ("test10k", "test50k"):
            cut = slice(0, 10000) if usage == "test10k" else slice(10000, None)
            self._images, self._labels_ = self._images[cut], self._labels_[cut]
        MappableSource.__init__(self, where, ["image", "label"], num_samples, shuffle, sampler, num_shards,
                                shard_id, num_parallel_workers)

    def _files(self, part: str) -> tuple[str, str]:
        return f"{part}-images-idx3-ubyte", f"{part}-labels-idx2-int"

    def _read_labels(self, path: str) -> np.ndarray:
        labels = read_idx(path, 2, 0x0C)
        if labels.shape[1:] != (8,):
            raise DatasetError(f"{self._name}: {path!r} has labels of shape {list(labels.shape)}; QMNIST's have 8 "
                               f"columns")
        return labels[:, 0] if self._compat else labels
