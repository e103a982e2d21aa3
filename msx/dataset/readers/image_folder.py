"""`ImageFolderDataset`: images in one sub-directory per class (`dataset_dir/<class>/<file>`).

Classes are the sub-directories in sorted order (label 0, 1, ...) unless
`class_indexing` names them; files are read in sorted order within a class.
`image` is the file's raw bytes (uint8, 1-D) as in MindSpore, or with
`decode=True` the RGB image (uint8 HxWx3, decoded by Pillow); `label` int32.
"""
from __future__ import annotations

import os
from typing import Any, Sequence

import numpy as np

from ...errors import DatasetError
from ..pipeline import Row
from ..sources import MappableSource
from .common import image_file


class ImageFolderDataset(MappableSource):
    """MindSpore's `ImageFolderDataset(dataset_dir, num_samples, num_parallel_workers, shuffle, sampler,
    extensions, class_indexing, decode, num_shards, shard_id)`. `extensions` (e.g. [".jpg", ".png"], case
    sensitive) filters the files; None reads every file."""

    def __init__(self, dataset_dir: str, num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: bool | None = None, sampler: Any = None, extensions: Sequence[str] | None = None,
                 class_indexing: dict | None = None, decode: bool = False, num_shards: int | None = None,
                 shard_id: int | None = None, cache: Any = None, decrypt: Any = None) -> None:
        where = "ImageFolderDataset"
        if decrypt is not None:
            raise DatasetError(f"{where}: decrypt is not supported by msx")
        if not os.path.isdir(dataset_dir):
            raise DatasetError(f"{where}: dataset_dir {dataset_dir!r} is not a directory")
        classes = sorted(e.name for e in os.scandir(dataset_dir) if e.is_dir())
        if class_indexing is not None:
            if not isinstance(class_indexing, dict) or not all(isinstance(v, int) for v in class_indexing.values()):
                raise DatasetError(f"{where}: class_indexing must be a dict {{class name: int label}}, "
                                   f"got {class_indexing!r}")
            missing = [c for c in class_indexing if c not in classes]
            if missing:
                raise DatasetError(f"{where}: class_indexing names {missing}, which are not sub-directories of "
                                   f"{dataset_dir!r} ({classes})")
            classes = sorted(class_indexing, key=lambda c: (class_indexing[c], c))
            self._indexing = dict(class_indexing)
        else:
            self._indexing = {c: i for i, c in enumerate(classes)}
        exts = None if extensions is None else tuple(extensions)
        self._files: list[str] = []
        labels = []
        for c in classes:
            folder = os.path.join(dataset_dir, c)
            for name in sorted(os.listdir(folder)):
                path = os.path.join(folder, name)
                if os.path.isfile(path) and (exts is None or name.endswith(exts)):
                    self._files.append(path)
                    labels.append(self._indexing[c])
        if not self._files:
            raise DatasetError(f"{where}: no image files in the class folders of {dataset_dir!r}"
                               + (f" with extensions {list(exts)}" if exts else ""))
        self._label_array = np.asarray(labels, np.int32)
        self._decode = bool(decode)
        super().__init__(where, ["image", "label"], num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers)

    def get_class_indexing(self) -> dict:
        return dict(self._indexing)

    def _length(self) -> int:
        return len(self._files)

    def _row(self, index: int) -> Row:
        return image_file("ImageFolderDataset", self._files[index], self._decode), np.array(self._label_array[index])

    def _labels(self, column: str) -> np.ndarray:
        return self._label_array if column == "label" else super()._labels(column)
