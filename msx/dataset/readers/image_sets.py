"""Image classification sets in their published layouts, each a folder of image files and (for some) a list:
`Caltech101Dataset`, `Caltech256Dataset`, `Food101Dataset`, `SUN397Dataset`, `RenderedSST2Dataset`,
`Places365Dataset`, `OmniglotDataset`, `SBUDataset`, and the two text-coded digit sets `SemeionDataset`,
`USPSDataset`.

* Caltech101: `101_ObjectCategories/<class>/image_NNNN.jpg` (classes sorted, BACKGROUND_Google left out) and
  `Annotations/<class>/annotation_NNNN.mat` (Faces -> Faces_2, Faces_easy -> Faces_3, Motorbikes ->
  Motorbikes_16, airplanes -> Airplanes_Side_2), the MATLAB variable `obj_contour`; columns by `target_type`:
  category `image, category` (int64), annotation `image, annotation` (float64 (2, n)), all: the three.
* Caltech256: `<NNN.name>/<files>`; `label` int32, the folder's sorted position.
* Food101: `meta/<train|test>.txt` lines `<class>/<id>` naming `images/<class>/<id>.jpg`; `label` the class name
  (a string); usage all: train then test.
* SUN397: `ClassName.txt` lines `/a/abbey` naming the folders below `dataset_dir`; `label` uint32, the line's
  position; files sorted in each folder.
* RenderedSST2: `<train|valid|test>/<negative|positive>/<files>` (usage val reads valid); `label` uint32 (negative
  0, positive 1); usage all: test, train, valid.
* Places365: `places365_<train_standard|train_challenge|val>.txt` lines `<path> <label>`; the images in
  `data_<256|large>_<standard|challenge>/` (train) or `val_<256|large>/` (`small` picks 256); `label` uint32.
* Omniglot: `images_background/` (or `images_evaluation/` with `background=False`) `/<alphabet>/<character>/
  <files>`; `label` int32, the character folder's sorted position.
* SBU: `SBU_captioned_photo_dataset_urls.txt` and `..._captions.txt` (line by line); the image of url
  `http://static.flickr.com/<a>/<b>.jpg` is `sbu_images/m_<a>_<b>.jpg`; urls without an image are skipped (as in
  MindSpore); columns `image`, `caption` (a string, trailing blanks removed).
* Semeion: `semeion.data`, lines of 256 pixel values (0/1) and a one-hot 10-digit label; `image` uint8 (16, 16)
  of 0/1, `label` uint32.
* USPS: `usps` (train), `usps.t` (test), lines `<label 1-10> 1:<v> ... 256:<v>` with v in [-1, 1]; `image` uint8
  (16, 16, 1) = (v + 1) / 2 * 255, `label` uint32 (label - 1); usage all interleaves the two files as MindSpore's
  two reading workers do.

`image` is the file's bytes (uint8, 1-D), or with `decode=True` the RGB image (uint8 HxWx3), as in every image
reader.
"""
from __future__ import annotations

import os
from typing import Any

import numpy as np

from ...errors import DatasetError
from ..pipeline import Row
from ..sources import MappableSource
from .common import ImageRows, check_dir, image_file, listdir_sorted, read_lines, reader_prelude
from .matlab_sets import _loadmat
from .text_corpora import _workers
from .text_files import Shuffle, _shuffle_flag, by_workers

_CALTECH_ANNOTATION = {"Faces": "Faces_2", "Faces_easy": "Faces_3", "Motorbikes": "Motorbikes_16",
                       "airplanes": "Airplanes_Side_2"}


class Caltech101Dataset(MappableSource):
    def __init__(self, dataset_dir: str, target_type: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = 1, shuffle: bool | None = None, decode: bool = False,
                 sampler: Any = None, num_shards: int | None = None, shard_id: int | None = None) -> None:
        where = "Caltech101Dataset"
        root = check_dir(where, dataset_dir)
        target_type = "category" if target_type is None else target_type
        if target_type not in ("category", "annotation", "all"):
            raise DatasetError(f"{where}: target_type must be 'category', 'annotation' or 'all', got {target_type!r}")
        image_dir = os.path.join(root, "101_ObjectCategories")
        classes = [c for c in listdir_sorted(where, image_dir, dirs=True) if c != "BACKGROUND_Google"]
        self._items = [(c, label, number) for label, c in enumerate(classes)
                       for number in range(1, len(os.listdir(os.path.join(image_dir, c))) + 1)]
        self._root, self._target, self._decode = root, target_type, bool(decode)
        names = {"category": ["image", "category"], "annotation": ["image", "annotation"],
                 "all": ["image", "category", "annotation"]}[target_type]
        super().__init__(where, names, num_samples, shuffle, sampler, num_shards, shard_id, num_parallel_workers)

    def _length(self) -> int:
        return len(self._items)

    def _row(self, index: int) -> Row:
        cls, label, number = self._items[index]
        path = os.path.join(self._root, "101_ObjectCategories", cls, f"image_{number:04d}.jpg")
        if not os.path.isfile(path):
            raise DatasetError(f"{self._where}: {path!r} does not exist (Caltech101 numbers each class's images "
                               f"image_0001.jpg, image_0002.jpg, ...)")
        image = image_file(self._where, path, self._decode)
        if self._target == "category":
            return image, np.array(label, np.int64)
        ann = os.path.join(self._root, "Annotations", _CALTECH_ANNOTATION.get(cls, cls), f"annotation_{number:04d}.mat")
        (contour,) = _loadmat(self._where, ann, ("obj_contour",))
        contour = np.asarray(contour, np.float64)
        return (image, contour) if self._target == "annotation" else (image, np.array(label, np.int64), contour)


def _files(where: str, folder: str) -> list[str]:
    return [os.path.join(folder, n) for n in listdir_sorted(where, folder, dirs=False)]


class Caltech256Dataset(ImageRows):
    def __init__(self, dataset_dir: str, num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: bool | None = None, decode: bool = False, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        where = "Caltech256Dataset"
        root = check_dir(where, dataset_dir)
        items = [(path, label) for label, c in enumerate(listdir_sorted(where, root, dirs=True))
                 for path in _files(where, os.path.join(root, c))]
        super().__init__(where, ["image", "label"], items, [np.int32], decode, num_samples, shuffle, sampler,
                         num_shards, shard_id, num_parallel_workers)


class Food101Dataset(ImageRows):
    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, decode: bool = False,
                 sampler: Any = None, num_shards: int | None = None, shard_id: int | None = None,
                 cache: Any = None) -> None:
        where = "Food101Dataset"
        root, usage = reader_prelude(where, dataset_dir, usage, ("train", "test", "all"))
        items = []
        for part in (("train", "test") if usage == "all" else (usage,)):
            for number, line in enumerate(read_lines(where, os.path.join(root, "meta", f"{part}.txt")), 1):
                if not line.strip():
                    continue
                cls, sep, _ = line.strip().partition("/")
                if not sep:
                    raise DatasetError(f"{where}: meta/{part}.txt line {number} is not '<class>/<image id>'")
                items.append((os.path.join(root, "images", line.strip() + ".jpg"), cls))
        super().__init__(where, ["image", "label"], items, [None], decode, num_samples, shuffle, sampler,
                         num_shards, shard_id, num_parallel_workers)


class SUN397Dataset(ImageRows):
    def __init__(self, dataset_dir: str, num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: bool | None = None, decode: bool = False, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        where = "SUN397Dataset"
        root = check_dir(where, dataset_dir)
        classes = [c.strip() for c in read_lines(where, os.path.join(root, "ClassName.txt")) if c.strip()]
        items = [(path, label) for label, c in enumerate(classes)
                 for path in _files(where, os.path.join(root, c.lstrip("/")))]
        super().__init__(where, ["image", "label"], items, [np.uint32], decode, num_samples, shuffle, sampler,
                         num_shards, shard_id, num_parallel_workers)


class RenderedSST2Dataset(ImageRows):
    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, decode: bool = False,
                 sampler: Any = None, num_shards: int | None = None, shard_id: int | None = None,
                 cache: Any = None) -> None:
        where = "RenderedSST2Dataset"
        root, usage = reader_prelude(where, dataset_dir, usage, ("train", "val", "test", "all"))
        parts = ("test", "train", "valid") if usage == "all" else ("valid" if usage == "val" else usage,)
        items = [(path, label) for part in parts for label, cls in enumerate(("negative", "positive"))
                 for path in _files(where, os.path.join(root, part, cls))]
        super().__init__(where, ["image", "label"], items, [np.uint32], decode, num_samples, shuffle, sampler,
                         num_shards, shard_id, num_parallel_workers)


_PLACES = {"train-standard": ("places365_train_standard.txt", "data_{}_standard"),
           "train-challenge": ("places365_train_challenge.txt", "data_{}_challenge"),
           "val": ("places365_val.txt", "val_{}")}


class Places365Dataset(ImageRows):
    def __init__(self, dataset_dir: str, usage: str | None = None, small: bool = True, decode: bool = False,
                 num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: bool | None = None, sampler: Any = None, num_shards: int | None = None,
                 shard_id: int | None = None, cache: Any = None) -> None:
        where = "Places365Dataset"
        root, usage = reader_prelude(where, dataset_dir, usage, tuple(_PLACES), "train-standard")
        if not isinstance(small, bool):
            raise DatasetError(f"{where}: small must be True or False, got {small!r}")
        listing, folder = _PLACES[usage]
        folder = os.path.join(root, folder.format("256" if small else "large"))
        items = []
        for number, line in enumerate(read_lines(where, os.path.join(root, listing)), 1):
            fields = line.split()
            if not fields:
                continue
            if len(fields) != 2 or not fields[1].isdigit():
                raise DatasetError(f"{where}: {listing} line {number} is not '<image path> <label>'")
            items.append((os.path.join(folder, fields[0].lstrip("/")), int(fields[1])))
        super().__init__(where, ["image", "label"], items, [np.uint32], decode, num_samples, shuffle, sampler,
                         num_shards, shard_id, num_parallel_workers)


class OmniglotDataset(ImageRows):
    def __init__(self, dataset_dir: str, background: bool | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, decode: bool = False,
                 sampler: Any = None, num_shards: int | None = None, shard_id: int | None = None,
                 cache: Any = None) -> None:
        where = "OmniglotDataset"
        root = check_dir(where, dataset_dir)
        background = True if background is None else background
        if not isinstance(background, bool):
            raise DatasetError(f"{where}: background must be True or False, got {background!r}")
        base = os.path.join(root, "images_background" if background else "images_evaluation")
        characters = [os.path.join(base, a, c) for a in listdir_sorted(where, base, dirs=True)
                      for c in listdir_sorted(where, os.path.join(base, a), dirs=True)]
        items = [(path, label) for label, folder in enumerate(characters) for path in _files(where, folder)]
        super().__init__(where, ["image", "label"], items, [np.int32], decode, num_samples, shuffle, sampler,
                         num_shards, shard_id, num_parallel_workers)


_FLICKR = "http://static.flickr.com/"


class SBUDataset(ImageRows):
    def __init__(self, dataset_dir: str, num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: bool | None = None, decode: bool = False, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        where = "SBUDataset"
        root = check_dir(where, dataset_dir)
        urls = read_lines(where, os.path.join(root, "SBU_captioned_photo_dataset_urls.txt"))
        captions = read_lines(where, os.path.join(root, "SBU_captioned_photo_dataset_captions.txt"))
        if len(urls) != len(captions):
            raise DatasetError(f"{where}: the url file has {len(urls)} lines but the caption file {len(captions)}")
        items = []
        for url, caption in zip(urls, captions):
            url = url.strip()
            if not url.startswith(_FLICKR):
                continue
            path = os.path.join(root, "sbu_images", "m_" + url[len(_FLICKR):].replace("/", "_"))
            if os.path.isfile(path):
                items.append((path, caption.rstrip()))
        if not items:
            raise DatasetError(f"{where}: no image of the url file is in {os.path.join(root, 'sbu_images')!r}")
        super().__init__(where, ["image", "caption"], items, [None], decode, num_samples, shuffle, sampler,
                         num_shards, shard_id, num_parallel_workers)


class _DigitArrays(MappableSource):
    def _length(self) -> int:
        return len(self._images)

    def _row(self, index: int) -> Row:
        return self._images[index].copy(), np.array(self._labels_[index], np.uint32)


class SemeionDataset(_DigitArrays):
    def __init__(self, dataset_dir: str, num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: bool | None = None, sampler: Any = None, num_shards: int | None = None,
                 shard_id: int | None = None, cache: Any = None) -> None:
        where = "SemeionDataset"
        path = os.path.join(check_dir(where, dataset_dir), "semeion.data")
        images, labels = [], []
        for number, line in enumerate(read_lines(where, path), 1):
            fields = line.split()
            if not fields:
                continue
            try:
                values = [float(v) for v in fields]
            except ValueError:
                values = []
            onehot = values[256:]
            if len(values) != 266 or sorted(onehot) != [0.0] * 9 + [1.0]:
                raise DatasetError(f"{where}: {path!r} line {number} is not 256 pixel values and a one-hot label "
                                   f"of 10")
            images.append(np.array(values[:256]).reshape(16, 16).astype(np.uint8))
            labels.append(onehot.index(1.0))
        self._images, self._labels_ = np.array(images, np.uint8).reshape(-1, 16, 16), np.array(labels, np.uint32)
        super().__init__(where, ["image", "label"], num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers)


def _usps_file(where: str, path: str) -> list[tuple[np.ndarray, int]]:
    rows = []
    for number, line in enumerate(read_lines(where, path), 1):
        fields = line.split()
        if not fields:
            continue
        try:
            label = int(float(fields[0]))
            pairs = [f.split(":") for f in fields[1:]]
            if [int(k) for k, _ in pairs] != list(range(1, 257)) or not 1 <= label <= 10:
                raise ValueError
            values = np.array([float(v) for _, v in pairs])
        except ValueError:
            raise DatasetError(f"{where}: {path!r} line {number} is not '<label 1-10> 1:<v> ... 256:<v>'") from None
        rows.append((((values + 1) / 2 * 255).astype(np.uint8).reshape(16, 16, 1), label - 1))
    return rows


class USPSDataset(_DigitArrays):
    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: Any = Shuffle.GLOBAL,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        where = "USPSDataset"
        root, usage = reader_prelude(where, dataset_dir, usage, ("train", "test", "all"))
        parts = {"train": ("usps",), "test": ("usps.t",), "all": ("usps", "usps.t")}[usage]
        per_file = [_usps_file(where, os.path.join(root, name)) for name in parts]
        rows = by_workers(per_file, _workers(num_parallel_workers))
        self._images = np.array([r[0] for r in rows], np.uint8).reshape(-1, 16, 16, 1)
        self._labels_ = np.array([r[1] for r in rows], np.uint32)
        super().__init__(where, ["image", "label"], num_samples, _shuffle_flag(where, shuffle), None, num_shards,
                         shard_id, num_parallel_workers)
