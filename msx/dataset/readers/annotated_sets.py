"""Image sets with per-image annotation files, in their published layouts: `LFWDataset`, `KITTIDataset`,
`WIDERFaceDataset`, `FlickrDataset`, `DIV2KDataset`, `CityscapesDataset`, `PhotoTourDataset`, `LSUNDataset`.

* LFW: `lfw/`, `lfw_funneled/` or `lfw-deepfunneled/` (`image_set` original, funneled (default), deepfunneled)
  holding `<name>/<name>_NNNN.jpg`; `lfw-names.txt` (`<name><TAB><count>`: a name's line number is its label);
  task people: `peopleDevTrain.txt` / `peopleDevTest.txt` (a count line, then `<name><TAB><images>`), usage
  10fold: `people.txt` (a fold count, then each fold's count and lines); columns `image`, `label` uint32. Task
  pairs: `pairsDevTrain.txt` / `pairsDevTest.txt` / `pairs.txt` (n matched `<name> <i> <j>` then n mismatched
  `<name> <i> <name2> <j>` lines per fold); columns `image1`, `image2`, `label` uint32 (1: the same person).
  usage all: train then test.
* KITTI: `data_object_image_2/<training|testing>/image_2/<id>.png`, `data_object_label_2/training/label_2/<id>.txt`
  (15 fields an object); train columns `image`, `label` uint32 (the type's position among every type the label
  files name, sorted), `truncated`, `occluded` (uint32), `alpha`, `bbox` (n, 4), `dimensions` (n, 3), `location`
  (n, 3), `rotation_y` (float32, (n, 1) unless said); test: `image` only.
* WIDERFace: `wider_face_split/wider_face_<train|val>_bbx_gt.txt` (an image path, a face count, a line of 10 ints
  a face — one line of zeros when the count is 0) naming `WIDER_<train|val>/images/<path>`; columns `image`,
  `bbox` int32 (n, 4) and `blur`, `expression`, `illumination`, `occlusion`, `pose`, `invalid` int32 (n,) — the
  line's fields 5-10 in that order, as MindSpore 2.10 assigns them. usage all: train then valid; test:
  `wider_face_test_filelist.txt`, `image` only.
* Flickr8k / 30k: the token file lines `<image>#<k><TAB><caption>`; images in `dataset_dir`, sorted by name;
  columns `image`, `annotation` (the image's captions, 1-D strings, in the file's order).
* DIV2K: `DIV2K_<train|valid>_HR/NNNN.png` and `DIV2K_<usage>_LR_<bicubic|unknown>/X<scale>/NNNNx<scale>.png`,
  `..._LR_x8/NNNNx8.png` (bicubic, scale 8), `..._LR_<mild|difficult|wild>/NNNNx4<m|d|w>.png`; columns `hr_image`,
  `lr_image`; usage all: train then valid.
* Cityscapes: `leftImg8bit/<usage>/<city>/<stem>_leftImg8bit.png` and `gtFine/` (or `gtCoarse/`) `<usage>/<city>/
  <stem>_gtFine_<instanceIds|labelIds|color>.png` / `_polygons.json`; columns `image`, `task` (an image, or for
  task polygon the JSON re-serialized compactly with sorted keys, a string); usage all: train, test, val (coarse:
  train, train_extra, val).
* PhotoTour: `<name>/patches*.bmp` (1024 x 1024, 16 x 16 patches of 64 x 64, left to right, top to bottom),
  `info.txt` (a line a patch), `m50_100000_100000_0.txt`; train: column `image` (64, 64, 1) a patch; test:
  `image1`, `image2`, `matches` uint32 (1 when both patches show the same 3D point).
* LSUN: `<class>_train/`, `<class>_val/`, `test/` image folders; `label` uint32, the folder's position among the
  folders read (for usage all each class's train then val folder).

`image` columns are the files' bytes (uint8, 1-D), or with `decode=True` RGB images, as in every image reader.
"""
from __future__ import annotations

import json
import os
from typing import Any

import numpy as np

from ...errors import DatasetError
from ..pipeline import Row
from ..sources import MappableSource
from .common import ImageRows, check_dir, image_file, listdir_sorted, read_lines, reader_prelude

_LFW_SETS = {"original": "lfw", "funneled": "lfw_funneled", "deepfunneled": "lfw-deepfunneled"}
_LFW_FILES = {"people": {"train": "peopleDevTrain.txt", "test": "peopleDevTest.txt", "10fold": "people.txt"},
              "pairs": {"train": "pairsDevTrain.txt", "test": "pairsDevTest.txt", "10fold": "pairs.txt"}}


def _ints(where: str, path: str, number: int, fields: list[str]) -> list[int]:
    try:
        return [int(f) for f in fields]
    except ValueError:
        raise DatasetError(f"{where}: {path!r} line {number}: expected integers, got {fields}") from None


class LFWDataset(MappableSource):
    def __init__(self, dataset_dir: str, task: str | None = None, usage: str | None = None,
                 image_set: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, decode: bool = False,
                 sampler: Any = None, num_shards: int | None = None, shard_id: int | None = None,
                 cache: Any = None) -> None:
        where = "LFWDataset"
        root, usage = reader_prelude(where, dataset_dir, usage, ("10fold", "train", "test", "all"))
        task = "people" if task is None else task
        if task not in _LFW_FILES:
            raise DatasetError(f"{where}: task must be 'people' or 'pairs', got {task!r}")
        image_set = "funneled" if image_set is None else image_set
        if image_set not in _LFW_SETS:
            raise DatasetError(f"{where}: image_set must be one of {list(_LFW_SETS)}, got {image_set!r}")
        self._images_dir, self._task, self._decode = os.path.join(root, _LFW_SETS[image_set]), task, bool(decode)
        names_file = os.path.join(root, "lfw-names.txt")
        self._label = {line.split()[0]: i for i, line in enumerate(read_lines(where, names_file)) if line.split()}
        self._items: list[tuple] = []
        for part in (("train", "test") if usage == "all" else (usage,)):
            path = os.path.join(root, _LFW_FILES[task][part])
            lines = [line.strip().split("\t") for line in read_lines(where, path)]
            (self._people if task == "people" else self._pairs)(where, path, lines, part == "10fold")
        super().__init__(where, ["image", "label"] if task == "people" else ["image1", "image2", "label"],
                         num_samples, shuffle, sampler, num_shards, shard_id, num_parallel_workers)

    def _people(self, where: str, path: str, lines: list[list[str]], folds: bool) -> None:
        count, at = (_ints(where, path, 1, lines[0][:1])[0], 1) if folds and lines else (1, 0)
        for _ in range(count):
            if at >= len(lines):
                raise DatasetError(f"{where}: {path!r} ends before its folds do")
            n = _ints(where, path, at + 1, lines[at][:1])[0]
            for number in range(at + 1, at + 1 + n):
                if number >= len(lines) or len(lines[number]) != 2:
                    raise DatasetError(f"{where}: {path!r} line {number + 1} is not '<name><TAB><image count>'")
                name, images = lines[number][0], _ints(where, path, number + 1, lines[number][1:])[0]
                self._items += [((name, i), self._known(where, name)) for i in range(1, images + 1)]
            at += n + 1

    def _pairs(self, where: str, path: str, lines: list[list[str]], folds: bool) -> None:
        head = _ints(where, path, 1, lines[0]) if lines else []
        count, n = (head[0], head[1]) if folds and len(head) == 2 else (1, head[0] if head else 0)
        at = 1
        for _ in range(count):
            for number in range(at, at + 2 * n):
                fields = lines[number] if number < len(lines) else []
                if len(fields) == 3:
                    name, i, j = fields[0], *_ints(where, path, number + 1, fields[1:])
                    self._items.append(((name, i), (name, j), 1))
                elif len(fields) == 4:
                    i, j = _ints(where, path, number + 1, [fields[1], fields[3]])
                    self._items.append(((fields[0], i), (fields[2], j), 0))
                else:
                    raise DatasetError(f"{where}: {path!r} line {number + 1} is not a pair line")
            at += 2 * n

    def _known(self, where: str, name: str) -> int:
        if name not in self._label:
            raise DatasetError(f"{where}: {name!r} is not in lfw-names.txt")
        return self._label[name]

    def _image(self, who: tuple[str, int]) -> np.ndarray:
        name, i = who
        return image_file(self._where, os.path.join(self._images_dir, name, f"{name}_{i:04d}.jpg"), self._decode)

    def _length(self) -> int:
        return len(self._items)

    def _row(self, index: int) -> Row:
        *people, label = self._items[index]
        return tuple(self._image(p) for p in people) + (np.array(label, np.uint32),)


_KITTI_COLUMNS = ["image", "label", "truncated", "occluded", "alpha", "bbox", "dimensions", "location", "rotation_y"]


class KITTIDataset(MappableSource):
    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, decode: bool = False,
                 sampler: Any = None, num_shards: int | None = None, shard_id: int | None = None,
                 cache: Any = None) -> None:
        where = "KITTIDataset"
        root, usage = reader_prelude(where, dataset_dir, usage, ("train", "test"), "train")
        part = "training" if usage == "train" else "testing"
        image_dir = os.path.join(root, "data_object_image_2", part, "image_2")
        self._images = [os.path.join(image_dir, n) for n in listdir_sorted(where, image_dir, dirs=False)]
        self._objects: list[list[list[str]]] = []
        if usage == "train":
            label_dir = os.path.join(root, "data_object_label_2", "training", "label_2")
            for image in self._images:
                path = os.path.join(label_dir, os.path.splitext(os.path.basename(image))[0] + ".txt")
                objects = [line.split() for line in read_lines(where, path) if line.strip()]
                for number, fields in enumerate(objects, 1):
                    try:
                        [float(v) for v in fields[1:]]
                    except ValueError:
                        fields = []
                    if len(fields) != 15:
                        raise DatasetError(f"{where}: {path!r} object {number} is not a type and 14 numbers")
                self._objects.append(objects)
            self._types = {t: i for i, t in enumerate(sorted({o[0] for objs in self._objects for o in objs}))}
        self._decode = bool(decode)
        super().__init__(where, _KITTI_COLUMNS if usage == "train" else ["image"], num_samples, shuffle, sampler,
                         num_shards, shard_id, num_parallel_workers)

    def _length(self) -> int:
        return len(self._images)

    def _row(self, index: int) -> Row:
        image = image_file(self._where, self._images[index], self._decode)
        if not self._objects:
            return (image,)
        objs = self._objects[index]
        numbers = np.array([[float(v) for v in o[1:]] for o in objs], np.float64).reshape(-1, 14)
        return (image, np.array([[self._types[o[0]]] for o in objs], np.uint32).reshape(-1, 1),
                numbers[:, 0:1].astype(np.float32), numbers[:, 1:2].astype(np.int64).astype(np.uint32),
                numbers[:, 2:3].astype(np.float32), numbers[:, 3:7].astype(np.float32),
                numbers[:, 7:10].astype(np.float32), numbers[:, 10:13].astype(np.float32),
                numbers[:, 13:14].astype(np.float32))


_WIDER_COLUMNS = ["image", "bbox", "blur", "expression", "illumination", "occlusion", "pose", "invalid"]


def _wider_gt(where: str, path: str, image_dir: str) -> list[tuple[str, np.ndarray]]:
    lines = [line.strip() for line in read_lines(where, path)]
    items, at = [], 0
    while at < len(lines):
        if not lines[at]:
            at += 1
            continue
        name = lines[at]
        count = _ints(where, path, at + 2, lines[at + 1:at + 2])
        if len(count) != 1:
            raise DatasetError(f"{where}: {path!r} line {at + 2} is not a face count")
        n = max(count[0], 1)
        faces = [_ints(where, path, at + 3 + k, lines[at + 2 + k].split()) if at + 2 + k < len(lines) else []
                 for k in range(n)]
        if any(len(f) != 10 for f in faces):
            raise DatasetError(f"{where}: {path!r}: a face line of {name!r} does not hold 10 integers")
        items.append((os.path.join(image_dir, name), np.array(faces, np.int32)))
        at += 2 + n
    return items


class WIDERFaceDataset(MappableSource):
    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, decode: bool = False,
                 sampler: Any = None, num_shards: int | None = None, shard_id: int | None = None,
                 cache: Any = None) -> None:
        where = "WIDERFaceDataset"
        root, usage = reader_prelude(where, dataset_dir, usage, ("train", "test", "valid", "all"))
        split = os.path.join(root, "wider_face_split")
        self._items: list[tuple[str, Any]] = []
        if usage == "test":
            image_dir = os.path.join(root, "WIDER_test", "images")
            self._items = [(os.path.join(image_dir, line.strip()), None)
                           for line in read_lines(where, os.path.join(split, "wider_face_test_filelist.txt"))
                           if line.strip()]
        for part in {"train": ("train",), "valid": ("val",), "all": ("train", "val"), "test": ()}[usage]:
            self._items += _wider_gt(where, os.path.join(split, f"wider_face_{part}_bbx_gt.txt"),
                                     os.path.join(root, f"WIDER_{part}", "images"))
        self._decode = bool(decode)
        super().__init__(where, ["image"] if usage == "test" else _WIDER_COLUMNS, num_samples, shuffle, sampler,
                         num_shards, shard_id, num_parallel_workers)

    def _length(self) -> int:
        return len(self._items)

    def _row(self, index: int) -> Row:
        path, faces = self._items[index]
        image = image_file(self._where, path, self._decode)
        if faces is None:
            return (image,)
        return (image, faces[:, :4].copy()) + tuple(faces[:, k].copy() for k in range(4, 10))


class FlickrDataset(ImageRows):
    def __init__(self, dataset_dir: str, annotation_file: str, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, decode: bool | None = None,
                 sampler: Any = None, num_shards: int | None = None, shard_id: int | None = None,
                 cache: Any = None) -> None:
        where = "FlickrDataset"
        root = check_dir(where, dataset_dir)
        captions: dict[str, list[str]] = {}
        for number, line in enumerate(read_lines(where, annotation_file), 1):
            if not line.strip():
                continue
            key, tab, caption = line.partition("\t")
            name, hash_, k = key.rpartition("#")[0], "#" in key, key.rpartition("#")[2]
            if not tab or not hash_ or not k.isdigit():
                raise DatasetError(f"{where}: {annotation_file!r} line {number} is not '<image>#<k><TAB><caption>'")
            captions.setdefault(name, []).append(caption)
        items = [(os.path.join(root, name), caps) for name, caps in sorted(captions.items())]
        super().__init__(where, ["image", "annotation"], items, [None], decode, num_samples, shuffle, sampler,
                         num_shards, shard_id, num_parallel_workers)


_DIV2K_SCALES = {"bicubic": (2, 3, 4, 8), "unknown": (2, 3, 4), "mild": (4,), "difficult": (4,), "wild": (4,)}


class DIV2KDataset(MappableSource):
    def __init__(self, dataset_dir: str, usage: str = "train", downgrade: str = "bicubic", scale: int = 2,
                 num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: bool | None = None, decode: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        where = "DIV2KDataset"
        root, usage = reader_prelude(where, dataset_dir, usage, ("train", "valid", "all"), "train")
        if downgrade not in _DIV2K_SCALES:
            raise DatasetError(f"{where}: downgrade must be one of {list(_DIV2K_SCALES)}, got {downgrade!r}")
        if scale not in _DIV2K_SCALES[downgrade]:
            raise DatasetError(f"{where}: downgrade {downgrade!r} takes scale {list(_DIV2K_SCALES[downgrade])}, "
                               f"got {scale!r}")
        self._pairs = []
        for part in (("train", "valid") if usage == "all" else (usage,)):
            hr_dir = os.path.join(root, f"DIV2K_{part}_HR")
            if scale == 8:
                lr_dir, suffix = os.path.join(root, f"DIV2K_{part}_LR_x8"), "x8"
            elif downgrade in ("bicubic", "unknown"):
                lr_dir, suffix = os.path.join(root, f"DIV2K_{part}_LR_{downgrade}", f"X{scale}"), f"x{scale}"
            else:
                lr_dir, suffix = os.path.join(root, f"DIV2K_{part}_LR_{downgrade}"), f"x4{downgrade[0]}"
            for name in listdir_sorted(where, hr_dir, dirs=False):
                stem, ext = os.path.splitext(name)
                lr = os.path.join(lr_dir, f"{stem}{suffix}{ext}")
                if not os.path.isfile(lr):
                    raise DatasetError(f"{where}: {lr!r} (the low-resolution image of {name}) does not exist")
                self._pairs.append((os.path.join(hr_dir, name), lr))
        self._decode = bool(decode)
        super().__init__(where, ["hr_image", "lr_image"], num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers)

    def _length(self) -> int:
        return len(self._pairs)

    def _row(self, index: int) -> Row:
        return tuple(image_file(self._where, p, self._decode) for p in self._pairs[index])


_CITYSCAPES_TASKS = {"instance": "instanceIds.png", "semantic": "labelIds.png", "color": "color.png",
                     "polygon": "polygons.json"}


class CityscapesDataset(MappableSource):
    def __init__(self, dataset_dir: str, usage: str = "train", quality_mode: str = "fine", task: str = "instance",
                 num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: bool | None = None, decode: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        where = "CityscapesDataset"
        if quality_mode not in ("fine", "coarse"):
            raise DatasetError(f"{where}: quality_mode must be 'fine' or 'coarse', got {quality_mode!r}")
        parts = ("train", "test", "val") if quality_mode == "fine" else ("train", "train_extra", "val")
        root, usage = reader_prelude(where, dataset_dir, usage, parts + ("all",), "train")
        if task not in _CITYSCAPES_TASKS:
            raise DatasetError(f"{where}: task must be one of {list(_CITYSCAPES_TASKS)}, got {task!r}")
        gt = "gtFine" if quality_mode == "fine" else "gtCoarse"
        self._items = []
        for part in (parts if usage == "all" else (usage,)):
            image_root = os.path.join(root, "leftImg8bit", part)
            for city in listdir_sorted(where, image_root, dirs=True):
                for name in listdir_sorted(where, os.path.join(image_root, city), dirs=False):
                    if not name.endswith("_leftImg8bit.png"):
                        continue
                    stem = name[:-len("_leftImg8bit.png")]
                    self._items.append((os.path.join(image_root, city, name),
                                        os.path.join(root, gt, part, city, f"{stem}_{gt}_{_CITYSCAPES_TASKS[task]}")))
        self._polygon, self._decode = task == "polygon", bool(decode)
        super().__init__(where, ["image", "task"], num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers)

    def _length(self) -> int:
        return len(self._items)

    def _row(self, index: int) -> Row:
        image, target = self._items[index]
        if not self._polygon:
            return image_file(self._where, image, self._decode), image_file(self._where, target, self._decode)
        try:
            with open(target, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError, RecursionError) as exc:
            raise DatasetError(f"{self._where}: cannot read the polygons file {target!r}: {exc}") from None
        return (image_file(self._where, image, self._decode),
                np.array(json.dumps(doc, separators=(",", ":"), sort_keys=True, ensure_ascii=False)))


_PHOTO_TOUR = ("notredame", "yosemite", "liberty", "notredame_harris", "yosemite_harris", "liberty_harris")


class PhotoTourDataset(MappableSource):
    def __init__(self, dataset_dir: str, name: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        where = "PhotoTourDataset"
        root, usage = reader_prelude(where, dataset_dir, usage, ("train", "test"), "train")
        if name not in _PHOTO_TOUR:
            raise DatasetError(f"{where}: name must be one of {list(_PHOTO_TOUR)}, got {name!r}")
        self._base = os.path.join(root, name)
        self._bitmaps: dict[int, np.ndarray] = {}
        if usage == "train":
            info = os.path.join(self._base, "info.txt")
            self._items = [(i,) for i, line in enumerate(read_lines(where, info)) if line.strip()]
        else:
            path = os.path.join(self._base, "m50_100000_100000_0.txt")
            self._items = []
            for number, line in enumerate(read_lines(where, path), 1):
                fields = _ints(where, path, number, line.split()) if line.strip() else None
                if fields is None:
                    continue
                if len(fields) != 7:
                    raise DatasetError(f"{where}: {path!r} line {number} has {len(fields)} fields, not 7")
                self._items.append((fields[0], fields[3], int(fields[1] == fields[4])))
        super().__init__(where, ["image"] if usage == "train" else ["image1", "image2", "matches"], num_samples,
                         shuffle, sampler, num_shards, shard_id, num_parallel_workers)

    def _patch(self, index: int) -> np.ndarray:
        page, cell = divmod(index, 256)
        if page not in self._bitmaps:
            path = os.path.join(self._base, f"patches{page:04d}.bmp")
            bitmap = image_file(self._where, path, True)[..., 0]
            if bitmap.shape != (1024, 1024):
                raise DatasetError(f"{self._where}: {path!r} is {bitmap.shape}, not 1024 x 1024")
            self._bitmaps[page] = bitmap
        row, col = divmod(cell, 16)
        return self._bitmaps[page][64 * row:64 * row + 64, 64 * col:64 * col + 64, None].copy()

    def _length(self) -> int:
        return len(self._items)

    def _row(self, index: int) -> Row:
        item = self._items[index]
        if len(item) == 1:
            return (self._patch(item[0]),)
        return self._patch(item[0]), self._patch(item[1]), np.array(item[2], np.uint32)


class LSUNDataset(ImageRows):
    def __init__(self, dataset_dir: str, usage: str | None = None, classes: Any = None,
                 num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: bool | None = None, decode: bool = False, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        where = "LSUNDataset"
        root, usage = reader_prelude(where, dataset_dir, usage, ("train", "test", "valid", "all"))
        if classes is not None and (not isinstance(classes, list) or not all(isinstance(c, str) for c in classes)):
            raise DatasetError(f"{where}: classes must be a list of class names, got {classes!r}")
        if usage == "test":
            folders = ["test"]
        else:
            if classes is None:
                classes = sorted({n.rsplit("_", 1)[0] for n in listdir_sorted(where, root, dirs=True)
                                  if n.endswith(("_train", "_val"))})
            suffixes = {"train": ("train",), "valid": ("val",), "all": ("train", "val")}[usage]
            folders = [f"{c}_{s}" for c in classes for s in suffixes]
        items = [(os.path.join(root, folder, n), label) for label, folder in enumerate(folders)
                 for n in listdir_sorted(where, os.path.join(root, folder), dirs=False)]
        super().__init__(where, ["image", "label"], items, [np.uint32], decode, num_samples, shuffle, sampler,
                         num_shards, shard_id, num_parallel_workers)
