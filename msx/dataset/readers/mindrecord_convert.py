"""MindSpore's `*ToMR` converters: a dataset's published on-disk layout written as MindRecord files with the schema,
index fields, header and page sizes MindSpore's converters use, through `mindrecord.FileWriter`.

* `ImageNetToMR(map_file, image_dir, destination, partition_number=1)`: `map_file` lines `<folder> <label>`; every
  `*.JPEG`/`*.jpg` file of `image_dir/<folder>` becomes a row {file_name (its path), label (int32), image (its
  bytes)} — as MindSpore, except that a folder's files are taken in sorted order (MindSpore: `os.listdir`'s).
* `CsvToMR(source, destination, columns_list=None, partition_number=1)`: the first line names the columns; a column
  whose every value is an integer is int64, a number float64, True/False int32, anything else a string
  (pandas' `read_csv` types, which MindSpore's converter uses; msx reads with the csv module, no pandas).
* `MnistToMR(source, destination, partition_number=1)`: the four gzipped idx files of MNIST in `source`; writes
  `<destination>_train.mindrecord` and `<destination>_test.mindrecord`, rows {label (int64), data (the image as
  JPEG bytes)}. MindSpore encodes with OpenCV (quality 95); msx with Pillow at quality 95 — other bytes, and the
  decoded images differ from MindSpore's by a few grey levels at most.

The CIFAR converters (`Cifar10ToMR`, `Cifar100ToMR`) read the python-pickle form of CIFAR, which msx does not
unpickle (file readers never use pickle): `msx.mindrecord` has them as names that refuse, pointing to
`Cifar10Dataset(...).save(...)` on CIFAR's binary files. `TFRecordToMR(source, destination, feature_dict,
bytes_fields=None)` is there to refuse clearly: its `feature_dict` is TensorFlow's `tf.io.FixedLenFeature` specs and
MindSpore parses the records with TensorFlow, which msx does not depend on; the same conversion without TensorFlow
is `msx.dataset.TFRecordDataset(source, schema=...).save(destination)` (msx reads tf.train.Example records itself).
"""
from __future__ import annotations

import csv
import gzip
import io
import os
import re
from typing import Any, Iterator

import numpy as np
from PIL import Image

from .mindrecord_errors import ParamValueError, PathNotExistsError
from .mindrecord_writer import FileWriter

_HEADER, _PAGE = 1 << 24, 1 << 26  # what MindSpore's converters set


def _path_arg(where: str, name: str, value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise ParamValueError(f"{where}: {name} must be a non-empty str, got {value!r}")
    return value


def _partitions(where: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ParamValueError(f"{where}: partition_number must be an int, got {value!r}")
    return value


def _write(destination: str, shards: int, schema: dict, desc: str, index: list[str], rows: Iterator[dict]) -> None:
    writer = FileWriter(destination, shards)
    writer.set_header_size(_HEADER)
    writer.set_page_size(_PAGE)
    writer.add_schema(schema, desc)
    writer.add_index(index)
    writer.write_raw_data(list(rows))
    writer.commit()


class ImageNetToMR:
    def __init__(self, map_file: str, image_dir: str, destination: str, partition_number: int = 1) -> None:
        where = "ImageNetToMR"
        self.map_file = _path_arg(where, "map_file", map_file)
        self.image_dir = _path_arg(where, "image_dir", image_dir)
        self.destination = _path_arg(where, "destination", destination)
        self.partition_number = _partitions(where, partition_number)

    def _rows(self) -> Iterator[dict]:
        if not os.path.isfile(self.map_file):
            raise PathNotExistsError(f"map file {self.map_file} not exists")
        folders: dict[str, str] = {}
        with open(self.map_file, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                parts = line.split(" ")
                if len(parts) < 2 or not parts[1].strip().lstrip("-").isdigit():
                    raise ParamValueError(f"ImageNetToMR: line {number} of {self.map_file!r} is not "
                                          f"'<folder> <label>': {line.strip()!r}")
                folders[parts[1]] = parts[0]  # MindSpore keys by the label text
        found = {label: os.path.join(self.image_dir, d) for label, d in folders.items()
                 if os.path.isdir(os.path.join(self.image_dir, d))}
        if not found:
            raise PathNotExistsError(f"not valid image dir in {self.image_dir}")
        for label, folder in found.items():
            for item in sorted(os.listdir(folder)):
                path = os.path.join(folder, item)
                if not (item.endswith("JPEG") or item.endswith("jpg")):
                    continue
                with open(path, "rb") as f:
                    data = f.read()
                if data:
                    yield {"file_name": str(path), "label": int(label), "image": data}

    def run(self) -> int:
        schema = {"label": {"type": "int32"}, "image": {"type": "bytes"}, "file_name": {"type": "string"}}
        _write(self.destination, self.partition_number, schema, "imagenet_schema", ["label", "file_name"],
               self._rows())
        return 0

    def transform(self) -> int:
        return self.run()


_INT = re.compile(r"^\s*[-+]?\d+\s*$")


def _csv_type(values: list[str]) -> str:
    """pandas' read_csv dtype of a column, as MindSpore maps it (int64, float64, bool -> int32, else string)."""
    present = [v for v in values if v != ""]
    if present and len(present) == len(values) and all(_INT.match(v) for v in values):
        return "int64"
    if present and all(v.strip() in ("True", "False", "TRUE", "FALSE", "true", "false") for v in values):
        return "int32"
    try:
        [float(v) if v != "" else 0.0 for v in values]
    except ValueError:
        return "string"
    return "float64" if present else "string"


class CsvToMR:
    def __init__(self, source: str, destination: str, columns_list: list[str] | None = None,
                 partition_number: int = 1) -> None:
        where = "CsvToMR"
        self.source = _path_arg(where, "source", source)
        self.destination = _path_arg(where, "destination", destination)
        if columns_list and (not isinstance(columns_list, list) or not all(isinstance(c, str) for c in columns_list)):
            raise ParamValueError("The parameter columns_list must be list of str.")
        self.columns_list = columns_list
        self.partition_number = _partitions(where, partition_number)

    def run(self) -> int:
        if not os.path.isfile(self.source):
            raise PathNotExistsError(f"Csv file {self.source} do not exist.")
        with open(self.source, newline="", encoding="utf-8") as f:
            table = list(csv.reader(f))
        if not table:
            raise ParamValueError(f"CsvToMR: {self.source!r} is empty; its first line must name the columns")
        names, body = table[0], table[1:]
        bad = [i + 2 for i, r in enumerate(body) if len(r) != len(names)]
        if bad:
            raise ParamValueError(f"CsvToMR: lines {bad[:5]} of {self.source!r} do not have {len(names)} fields")
        columns = self.columns_list or names
        missing = [c for c in columns if c not in names]
        if missing:
            raise ParamValueError(f"The parameter columns_list is illegal, column {missing[0]} does not exist.")
        if any(str(c).isdigit() for c in columns):
            raise ParamValueError("The first line content of the CSV file is used as a column name and does not allow "
                                  "starting with a number.")
        types = {c: _csv_type([r[names.index(c)] for r in body]) for c in columns}
        convert = {"int64": int, "float64": lambda v: float(v) if v != "" else float("nan"),
                   "int32": lambda v: int(v.strip().lower() == "true"), "string": str}
        rows = ({c: convert[types[c]](r[names.index(c)]) for c in columns} for r in body)
        _write(self.destination, self.partition_number, {c: {"type": t} for c, t in types.items()}, "csv_schema",
               list(columns), rows)
        return 0

    def transform(self) -> int:
        return self.run()


class MnistToMR:
    def __init__(self, source: str, destination: str, partition_number: int = 1) -> None:
        where = "MnistToMR"
        self.source = _path_arg(where, "source", source)
        self.destination = _path_arg(where, "destination", destination)
        self.partition_number = _partitions(where, partition_number)

    def _idx(self, name: str, images: bool) -> np.ndarray:
        path = os.path.join(self.source, name)
        if not os.path.isfile(path):
            raise PathNotExistsError(f"{path} (MnistToMR needs the four gzipped MNIST idx files in {self.source})")
        try:
            with gzip.open(path, "rb") as f:
                data = f.read(1 << 31)
        except (OSError, EOFError) as exc:
            raise ParamValueError(f"MnistToMR: {path!r} is not a gzip file ({exc})") from None
        head = 16 if images else 8
        magic = int.from_bytes(data[:4], "big") if len(data) >= head else 0
        if magic != (2051 if images else 2049):
            raise ParamValueError(f"MnistToMR: {path!r} is not an MNIST idx{3 if images else 1} file")
        body = np.frombuffer(data, np.uint8, offset=head)
        if images:
            if body.size % (28 * 28):
                raise ParamValueError(f"MnistToMR: {path!r} holds {body.size} image bytes, not 28x28 images")
            return body.reshape(-1, 28, 28)
        return body

    def _rows(self, part: str) -> Iterator[dict]:
        images = self._idx(f"{part}-images-idx3-ubyte.gz", True)
        labels = self._idx(f"{part}-labels-idx1-ubyte.gz", False)
        if len(images) != len(labels):
            raise ParamValueError(f"MnistToMR: {len(images)} {part} images but {len(labels)} labels")
        for image, label in zip(images, labels):
            out = io.BytesIO()
            Image.fromarray(image).save(out, "JPEG", quality=95)
            yield {"label": int(label), "data": out.getvalue()}

    def run(self) -> int:
        schema = {"label": {"type": "int64"}, "data": {"type": "bytes"}}
        for part, suffix in (("train", "train"), ("t10k", "test")):
            _write(f"{self.destination}_{suffix}.mindrecord", self.partition_number, schema, "mnist_schema",
                   ["label"], self._rows(part))
        return 0

    def transform(self) -> int:
        return self.run()


class TFRecordToMR:
    """Refused with the way to do it: see the module docstring."""

    def __init__(self, source: str, destination: str, feature_dict: dict, bytes_fields: list | None = None) -> None:
        raise ParamValueError(
            "TFRecordToMR: its feature_dict holds TensorFlow's tf.io.FixedLenFeature specs and MindSpore parses the "
            "records with TensorFlow, which msx does not use; convert with "
            f"msx.dataset.TFRecordDataset({source!r}).save({destination!r}) (msx reads tf.train.Example records "
            "itself; pass schema= / columns_list= to choose the columns)")
