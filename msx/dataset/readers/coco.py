"""`CocoDataset`: the COCO 2017 annotation files (instances, stuff, person keypoints, panoptic, captions) beside
the image folder, read as MindSpore 2.10 reads them.

`dataset_dir/<file_name>` holds the images; `annotation_file` is the task's JSON (`images`, `annotations`, and for
Detection / Panoptic `categories`). Rows follow the file's `images` order, keyed by `file_name`; an image no
annotation names is left out. Per task (every array column has one row per annotation, or per polygon / segment,
and rows shorter than the longest are padded with -1, as MindSpore pads them):

* Detection: `image`, `bbox` float32 (n, 4) [x, y, w, h] as stored, `category_id` uint32 (n, 1), `iscrowd`
  uint32 (n, 1) (0 when absent).
* Stuff: `image`, `segmentation` float32 (one row per polygon of an `iscrowd` 0 annotation, the RLE `counts` of an
  `iscrowd` 1 one), `iscrowd` uint32 (one per annotation).
* Keypoint: `image`, `keypoints` float32 (n, 3k), `num_keypoints` uint32 (n, 1).
* Panoptic: the annotations' `segments_info`: `image`, `bbox` float32, `category_id`, `iscrowd`, `area` uint32
  (n, 1) each.
* Captioning: `image`, `captions` string (n, 1).

`extra_metadata=True` adds `_meta-filename` (the file name before its first dot), which iterators leave out unless
it is renamed (`rename(["_meta-filename"], ["filename"])`), as MindSpore does. `get_class_indexing()` is
{name: [id]} for Detection, {name: [id, isthing]} for Panoptic. The JSON is untrusted input: whatever does not fit
the layout above is a DatasetError naming the file, the annotation and the field.
"""
from __future__ import annotations

import json
import os
from typing import Any, Callable

import numpy as np

from ...errors import DatasetError
from ..pipeline import Row
from ..sources import MappableSource
from .common import image_file

_COLUMNS = {"Detection": ["image", "bbox", "category_id", "iscrowd"],
            "Stuff": ["image", "segmentation", "iscrowd"],
            "Keypoint": ["image", "keypoints", "num_keypoints"],
            "Panoptic": ["image", "bbox", "category_id", "iscrowd", "area"],
            "Captioning": ["image", "captions"]}
META = "_meta-filename"


class _Bad(Exception):
    """A field that does not fit the COCO layout (turned into a DatasetError naming the file)."""


def _field(node: Any, key: str, where: str) -> Any:
    if not isinstance(node, dict) or key not in node:
        raise _Bad(f"{where} has no {key!r}")
    return node[key]


def _int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _Bad(f"{what} is {value!r}, not a number")
    return int(value)


def _uint(value: Any, what: str) -> int:
    """A value of a uint32 column (category_id, iscrowd, num_keypoints, area)."""
    number = _int(value, what)
    if not 0 <= number < 2 ** 32:
        raise _Bad(f"{what} is {value!r}, outside uint32")
    return number


def _floats(value: Any, what: str) -> list[float]:
    if not isinstance(value, list) or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                              for v in value):
        raise _Bad(f"{what} is not a list of numbers")
    return [float(v) for v in value]


def _padded(rows: list[list[float]], dtype: Any = np.float32) -> np.ndarray:
    """Rows of unequal length as one (n, longest) array, the short ones padded with -1 (MindSpore's padding)."""
    width = max((len(r) for r in rows), default=0)
    return np.array([r + [-1.0] * (width - len(r)) for r in rows], dtype).reshape(len(rows), width)


def _column(values: list[int]) -> np.ndarray:
    return np.array(values, np.uint32).reshape(-1, 1)


class _Annotations:
    """Per image file: the rows of the task's columns, gathered annotation by annotation."""

    def __init__(self, task: str, categories: dict[int, Any]) -> None:
        self.task, self.categories = task, categories
        self.coords: dict[str, list[list[float]]] = {}  # bbox / segmentation / keypoints rows
        self.items: dict[str, list[Any]] = {}  # the further columns' values

    def _category(self, node: Any, what: str) -> int:
        cid = _uint(_field(node, "category_id", what), f"{what}'s category_id")
        if cid not in self.categories:
            raise _Bad(f"{what}'s category_id {cid} is not among the categories")
        return cid

    def add(self, ann: Any, name: str, what: str) -> None:
        coords, items = self.coords.setdefault(name, []), self.items.setdefault(name, [])
        if self.task == "Detection":
            _field(ann, "id", what)
            coords.append(_floats(_field(ann, "bbox", what), f"{what}'s bbox"))
            items.append((self._category(ann, what), _uint(ann.get("iscrowd", 0), f"{what}'s iscrowd")))
        elif self.task == "Stuff":
            _field(ann, "id", what)
            crowd = _uint(_field(ann, "iscrowd", what), f"{what}'s iscrowd")
            items.append(crowd)
            seg = _field(ann, "segmentation", what)
            if crowd == 0:
                if not isinstance(seg, list):
                    raise _Bad(f"{what}'s segmentation is not a list of polygons")
                coords += [_floats(p, f"a polygon of {what}") for p in seg]
            elif crowd == 1:
                coords.append(_floats(_field(seg, "counts", f"{what}'s segmentation"), f"{what}'s RLE counts"))
        elif self.task == "Keypoint":
            _field(ann, "id", what)
            items.append(_uint(_field(ann, "num_keypoints", what), f"{what}'s num_keypoints"))
            coords.append(_floats(_field(ann, "keypoints", what), f"{what}'s keypoints"))
        elif self.task == "Panoptic":
            segments = _field(ann, "segments_info", what)
            if not isinstance(segments, list):
                raise _Bad(f"{what}'s segments_info is not a list")
            for k, seg in enumerate(segments):
                at = f"segment {k} of {what}"
                coords.append(_floats(_field(seg, "bbox", at), f"{at}'s bbox"))
                items.append((self._category(seg, at), _uint(_field(seg, "iscrowd", at), f"{at}'s iscrowd"),
                              _uint(_field(seg, "area", at), f"{at}'s area")))
        else:
            caption = _field(ann, "caption", what)
            if not isinstance(caption, str):
                raise _Bad(f"{what}'s caption is not a string")
            items.append(caption)

    def present(self, name: str) -> bool:
        """Whether the image has a row: MindSpore keeps an image once an annotation gave it a bbox / polygon /
        keypoints row (a caption, for Captioning)."""
        return bool((self.items if self.task == "Captioning" else self.coords).get(name))

    def row(self, name: str) -> tuple:
        items = self.items[name]
        if self.task == "Captioning":
            return (np.array([[c] for c in items], dtype=str).reshape(len(items), 1),)
        coords = _padded(self.coords[name])
        if self.task in ("Stuff", "Keypoint"):
            return coords, _column(items)
        return (coords,) + tuple(_column([v[k] for v in items]) for k in range(len(items[0]) if items else 0))


def _load(where: str, path: Any) -> Any:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, TypeError) as exc:
        raise DatasetError(f"{where}: cannot read the annotation file {path!r}: {exc}") from None
    except (ValueError, RecursionError) as exc:
        raise DatasetError(f"{where}: {path!r} is not a JSON annotation file ({type(exc).__name__})") from None


def _categories(task: str, doc: Any) -> tuple[dict[int, Any], dict[str, list[int]]]:
    if task not in ("Detection", "Panoptic"):
        return {}, {}
    nodes = _field(doc, "categories", "the file")
    if not isinstance(nodes, list) or not nodes:
        raise _Bad("'categories' is not a non-empty list")
    ids, indexing = {}, {}
    for k, c in enumerate(nodes):
        cid = _int(_field(c, "id", f"category {k}"), f"category {k}'s id")
        name = _field(c, "name", f"category {k}")
        info = [cid] + ([_int(_field(c, "isthing", f"category {k}"), f"category {k}'s isthing")]
                        if task == "Panoptic" else [])
        ids[cid], indexing[str(name)] = name, info
    return ids, indexing


class CocoDataset(MappableSource):
    def __init__(self, dataset_dir: str, annotation_file: str, task: str = "Detection", num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, decode: bool = False,
                 sampler: Any = None, num_shards: int | None = None, shard_id: int | None = None, cache: Any = None,
                 extra_metadata: bool = False, decrypt: Any = None) -> None:
        where = "CocoDataset"
        if task not in _COLUMNS:
            raise DatasetError(f"{where}: task must be one of {list(_COLUMNS)}, got {task!r}")
        if decrypt is not None:
            raise DatasetError(f"{where}: decrypt (a function decrypting the images) is not supported by msx")
        if not isinstance(dataset_dir, (str, os.PathLike)) or not os.path.isdir(dataset_dir):
            raise DatasetError(f"{where}: dataset_dir {dataset_dir!r} is not a directory")
        doc = _load(where, annotation_file)
        try:
            images = _field(doc, "images", "the file")
            if not isinstance(images, list) or not images:
                raise _Bad("'images' is not a non-empty list")
            files: dict[int, str] = {}
            order = []
            for k, im in enumerate(images):
                name = _field(im, "file_name", f"image {k}")
                if not isinstance(name, str):
                    raise _Bad(f"image {k}'s file_name is not a string")
                files[_int(_field(im, "id", f"image {k}"), f"image {k}'s id")] = name
                order.append(name)
            categories, self._indexing = _categories(task, doc)
            anns = _Annotations(task, categories)
            nodes = _field(doc, "annotations", "the file")
            if not isinstance(nodes, list):
                raise _Bad("'annotations' is not a list")
            for k, ann in enumerate(nodes):
                image_id = _int(_field(ann, "image_id", f"annotation {k}"), f"annotation {k}'s image_id")
                if image_id not in files:
                    raise _Bad(f"annotation {k}'s image_id {image_id} is not among the images")
                anns.add(ann, files[image_id], f"annotation {k}")
        except _Bad as exc:
            raise DatasetError(f"{where}: {annotation_file!r} is not a COCO {task} annotation file: {exc}") from None
        self._names = [n for n in order if anns.present(n)]
        if not self._names:
            raise DatasetError(f"{where}: {annotation_file!r} annotates none of its images (no rows)")
        if extra_metadata and any("." not in n for n in self._names):
            bad = next(n for n in self._names if "." not in n)
            raise DatasetError(f"{where}: extra_metadata needs file names with a suffix such as '.jpg', got {bad!r}")
        self._dir, self._task, self._decode, self._meta = os.fspath(dataset_dir), task, bool(decode), bool(
            extra_metadata)
        self._row_of: Callable[[str], tuple] = anns.row
        super().__init__(where, _COLUMNS[task] + ([META] if extra_metadata else []), num_samples, shuffle, sampler,
                         num_shards, shard_id, num_parallel_workers)

    def get_class_indexing(self) -> dict:
        """{category name: [id]} (Panoptic: [id, isthing]); MindSpore has it for Detection and Panoptic only."""
        if self._task not in ("Detection", "Panoptic"):
            raise NotImplementedError("Only 'Detection' and 'Panoptic' support get_class_indexing.")
        return {k: list(v) for k, v in self._indexing.items()}

    def _length(self) -> int:
        return len(self._names)

    def _row(self, index: int) -> Row:
        name = self._names[index]
        row = (image_file("CocoDataset", os.path.join(self._dir, name), self._decode),) + self._row_of(name)
        return row + ((np.array(name.split(".", 1)[0]),) if self._meta else ())
