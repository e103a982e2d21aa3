"""Image datasets with annotation files, in their published layouts: `VOCDataset` (detection, segmentation),
`CelebADataset`, `ManifestDataset` (MindSpore's JSON-lines manifest); COCO has its own module (coco.py).

* VOC: `dataset_dir/ImageSets/<Main|Segmentation>/<usage>.txt` names the images; `JPEGImages/<id>.jpg`,
  `Annotations/<id>.xml` (detection) or `SegmentationClass/<id>.png` (segmentation). Detection columns `image`,
  `bbox` float32 (n, 4) [xmin, ymin, xmax - xmin, ymax - ymin], `label` uint32 (n, 1) (by `class_indexing`,
  default: the object names sorted, numbered from 0), `difficult`, `truncate` uint32 (n, 1); segmentation
  columns `image`, `target` (the PNG's bytes, or decoded).
* CelebA: `dataset_dir/list_attr_celeba.txt` (a count line, the attribute names, then `<file> ±1 ...` per image)
  and `list_eval_partition.txt` (`<file> 0|1|2`: train, valid, test), the images in `dataset_dir`; columns
  `image` and `attr` uint32 (40 values, -1 read as 0).

Every file is treated as untrusted: a JSON or XML that does not fit its layout is a DatasetError naming it (XML
is parsed with the standard library's expat-based parser, which expands no external entities).
"""
from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from typing import Any

import numpy as np

from ...errors import DatasetError
from ..pipeline import Row
from ..sources import MappableSource
from .common import image_file


def _no_extras(where: str, extra_metadata: Any, decrypt: Any) -> None:
    if extra_metadata:
        raise DatasetError(f"{where}: extra_metadata=True (the hidden '_meta-filename' column) is not supported by "
                           f"msx")
    if decrypt is not None:
        raise DatasetError(f"{where}: decrypt (a function decrypting the images) is not supported by msx")


def _voc_objects(where: str, path: str) -> list[tuple[str, list[float], int, int]]:
    try:
        root = ET.parse(path).getroot()
        objects = []
        for obj in root.iter("object"):
            box = obj.find("bndbox")
            xmin, ymin, xmax, ymax = (float(box.find(k).text) for k in ("xmin", "ymin", "xmax", "ymax"))
            objects.append((obj.find("name").text.strip(), [xmin, ymin, xmax - xmin, ymax - ymin],
                            int(obj.findtext("difficult", "0")), int(obj.findtext("truncated", "0"))))
        return objects
    except OSError as exc:
        raise DatasetError(f"{where}: cannot read {path!r}: {exc.strerror}") from None
    except (ET.ParseError, AttributeError, TypeError, ValueError) as exc:
        raise DatasetError(f"{where}: {path!r} is not a VOC annotation ({type(exc).__name__}: {exc})") from None


class VOCDataset(MappableSource):
    def __init__(self, dataset_dir: str, task: str = "Segmentation", usage: str = "train",
                 class_indexing: dict | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, decode: bool = False,
                 sampler: Any = None, num_shards: int | None = None, shard_id: int | None = None, cache: Any = None,
                 extra_metadata: bool = False, decrypt: Any = None) -> None:
        where = "VOCDataset"
        if task not in ("Segmentation", "Detection"):
            raise DatasetError(f"{where}: task must be 'Segmentation' or 'Detection', got {task!r}")
        if task == "Segmentation" and class_indexing is not None:
            raise DatasetError(f"{where}: class_indexing goes with task='Detection' (MindSpore refuses it too)")
        _no_extras(where, extra_metadata, decrypt)
        listing = os.path.join(dataset_dir, "ImageSets", "Main" if task == "Detection" else "Segmentation",
                               f"{usage}.txt")
        if not isinstance(usage, str) or not os.path.isfile(listing):
            raise DatasetError(f"{where}: {listing!r} (the image list of usage {usage!r}) does not exist")
        with open(listing, encoding="utf-8") as f:
            ids = [line.strip() for line in f if line.strip()]
        self._task, self._decode = task, bool(decode)
        self._images = [os.path.join(dataset_dir, "JPEGImages", f"{i}.jpg") for i in ids]
        if task == "Segmentation":
            self._targets = [os.path.join(dataset_dir, "SegmentationClass", f"{i}.png") for i in ids]
            names = ["image", "target"]
        else:
            self._objects = [_voc_objects(where, os.path.join(dataset_dir, "Annotations", f"{i}.xml")) for i in ids]
            found = sorted({o[0] for objs in self._objects for o in objs})
            if class_indexing is None:
                class_indexing = {n: i for i, n in enumerate(found)}
            elif not isinstance(class_indexing, dict) or not all(isinstance(v, int) for v in class_indexing.values()):
                raise DatasetError(f"{where}: class_indexing must be a dict {{class name: int}}, got "
                                   f"{class_indexing!r}")
            unknown = [n for n in found if n not in class_indexing]
            if unknown:
                raise DatasetError(f"{where}: the annotations name classes {unknown} that class_indexing lacks")
            self._indexing = dict(class_indexing)
            names = ["image", "bbox", "label", "difficult", "truncate"]
        super().__init__(where, names, num_samples, shuffle, sampler, num_shards, shard_id, num_parallel_workers)

    def get_class_indexing(self) -> dict:
        if self._task != "Detection":
            raise DatasetError("VOCDataset: get_class_indexing is for task='Detection'")
        return dict(self._indexing)

    def _length(self) -> int:
        return len(self._images)

    def _row(self, index: int) -> Row:
        image = image_file("VOCDataset", self._images[index], self._decode)
        if self._task == "Segmentation":
            return image, image_file("VOCDataset", self._targets[index], self._decode)
        objs = self._objects[index]
        return (image, np.array([o[1] for o in objs], np.float32).reshape(-1, 4),
                np.array([[self._indexing[o[0]]] for o in objs], np.uint32).reshape(-1, 1),
                np.array([[o[2]] for o in objs], np.uint32).reshape(-1, 1),
                np.array([[o[3]] for o in objs], np.uint32).reshape(-1, 1))


_CELEBA_PARTS = {"train": "0", "valid": "1", "test": "2"}


class CelebADataset(MappableSource):
    def __init__(self, dataset_dir: str, num_parallel_workers: int | None = None, shuffle: bool | None = None,
                 usage: str = "all", sampler: Any = None, decode: bool = False, extensions: Any = None,
                 num_samples: int | None = None, num_shards: int | None = None, shard_id: int | None = None,
                 cache: Any = None, decrypt: Any = None) -> None:
        where = "CelebADataset"
        if usage not in ("all", *_CELEBA_PARTS):
            raise DatasetError(f"{where}: usage must be one of ['all', 'train', 'valid', 'test'], got {usage!r}")
        _no_extras(where, False, decrypt)
        attr_file = os.path.join(dataset_dir, "list_attr_celeba.txt")
        try:
            with open(attr_file, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except OSError as exc:
            raise DatasetError(f"{where}: cannot read {attr_file!r}: {exc.strerror}") from None
        if len(lines) < 2:
            raise DatasetError(f"{where}: {attr_file!r} lacks its count and attribute-name lines")
        count = len(lines[1].split())
        rows = []
        for number, line in enumerate(lines[2:], 3):
            parts = line.split()
            if not parts:
                continue
            if len(parts) != count + 1 or not all(p in ("1", "-1") for p in parts[1:]):
                raise DatasetError(f"{where}: {attr_file!r} line {number} is not '<file> {count} values of 1/-1'")
            rows.append((parts[0], [1 if p == "1" else 0 for p in parts[1:]]))
        if usage != "all":
            part_file = os.path.join(dataset_dir, "list_eval_partition.txt")
            try:
                with open(part_file, encoding="utf-8") as f:
                    partition = dict(line.split()[:2] for line in f if len(line.split()) >= 2)
            except OSError as exc:
                raise DatasetError(f"{where}: cannot read {part_file!r}: {exc.strerror}") from None
            rows = [r for r in rows if partition.get(r[0]) == _CELEBA_PARTS[usage]]
        if extensions is not None:
            exts = tuple(e.lower() for e in ([extensions] if isinstance(extensions, str) else extensions))
            rows = [r for r in rows if r[0].lower().endswith(exts)]
        self._rows = [(os.path.join(dataset_dir, name), np.array(attr, np.uint32)) for name, attr in rows]
        self._decode = bool(decode)
        super().__init__(where, ["image", "attr"], num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers)

    def _length(self) -> int:
        return len(self._rows)

    def _row(self, index: int) -> Row:
        path, attr = self._rows[index]
        return image_file("CelebADataset", path, self._decode), attr.copy()


class ManifestDataset(MappableSource):
    """MindSpore's `ManifestDataset(dataset_file, usage="train", ..., class_indexing, decode)`: a manifest of JSON
    lines `{"source": image path, "usage": "train"|"eval"|..., "annotation": [{"type": "label", "name": n}, ...]}`
    (usage matched without case, as MindSpore does). Columns `image` and `label` int32 — a scalar for one label,
    `(k,)` for several; labels by `class_indexing`, default the names of that usage sorted, numbered from 0."""

    def __init__(self, dataset_file: str, usage: str = "train", num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, sampler: Any = None,
                 class_indexing: dict | None = None, decode: bool = False, num_shards: int | None = None,
                 shard_id: int | None = None, cache: Any = None) -> None:
        where = "ManifestDataset"
        if not isinstance(usage, str) or usage.lower() not in ("train", "eval", "inference"):
            raise DatasetError(f"{where}: usage must be 'train', 'eval' or 'inference', got {usage!r}")
        try:
            with open(dataset_file, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except (OSError, TypeError) as exc:
            raise DatasetError(f"{where}: cannot read the manifest {dataset_file!r}: {exc}") from None
        items = []
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
                if str(entry.get("usage", "")).lower() != usage.lower():
                    continue
                names = [str(a["name"]) for a in entry.get("annotation", []) if a.get("type") == "label"]
                items.append((str(entry["source"]), names))
            except (ValueError, RecursionError, KeyError, TypeError, AttributeError) as exc:
                raise DatasetError(f"{where}: line {number} of {dataset_file!r} is not a manifest entry "
                                   f"({type(exc).__name__}: {exc})") from None
        if class_indexing is None:
            class_indexing = {n: i for i, n in enumerate(sorted({n for _, names in items for n in names}))}
        elif not isinstance(class_indexing, dict) or not all(isinstance(v, int) for v in class_indexing.values()):
            raise DatasetError(f"{where}: class_indexing must be a dict {{class name: int}}, got {class_indexing!r}")
        unknown = sorted({n for _, names in items for n in names} - set(class_indexing))
        if unknown:
            raise DatasetError(f"{where}: the manifest names classes {unknown} that class_indexing lacks")
        self._indexing, self._decode = dict(class_indexing), bool(decode)
        self._items = [(path, np.array([class_indexing[n] for n in names], np.int32)) for path, names in items]
        super().__init__(where, ["image", "label"], num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers)

    def get_class_indexing(self) -> dict:
        return dict(self._indexing)

    def _length(self) -> int:
        return len(self._items)

    def _row(self, index: int) -> Row:
        path, labels = self._items[index]
        label = np.array(labels[0]) if len(labels) == 1 else labels.copy()
        return image_file("ManifestDataset", path, self._decode), label
