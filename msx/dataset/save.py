"""`Dataset.save`: one pass of a pipeline written as MindRecord files, with MindSpore 2.10's column mapping.

MindSpore maps each column by its first row (checked against files its `save` wrote): a number scalar becomes an
int32 (bool, int8/16/32, uint8/16), int64 (int64, uint32/64), float32 (float16/32) or float64 field, and an
index field; a string scalar a string field (indexed too); bytes a bytes field; an array of rank >= 1 an array
field of that type with shape `[-1, *the rest]` (a blob field) — so its first dimension may vary between rows
and the others may not, as in MindSpore. The rows go through `mindrecord.FileWriter`, which writes every file
atomically at the end.
"""
from __future__ import annotations

import os
from typing import Any

import numpy as np

from ..errors import DatasetError
from .base import register_steps
from .readers.mindrecord_writer import FileWriter

def _field_type(dtype: np.dtype) -> str | None:
    if dtype.kind == "b" or (dtype.kind in "iu" and dtype.itemsize <= 2) or dtype == np.int32:
        return "int32"
    if dtype.kind in "iu":
        return "int64"
    if dtype.kind == "f":
        return "float64" if dtype.itemsize == 8 else "float32"
    return None


def column_spec(name: str, value: Any) -> dict:
    """The MindRecord field of a column, from its first row's value."""
    array = np.asarray(value)
    if array.dtype.kind == "U" and array.ndim == 0:
        return {"type": "string"}
    if array.dtype.kind == "S" and array.size == 1:
        return {"type": "bytes"}
    kind = _field_type(array.dtype)
    if kind is None or array.dtype.kind in "US":
        raise DatasetError(f"save: column {name!r} of dtype {array.dtype} and shape {list(array.shape)} cannot be "
                           f"saved to MindRecord (numbers, strings and bytes only)")
    return {"type": kind} if array.ndim == 0 else {"type": kind, "shape": [-1, *array.shape[1:]]}


def field_value(name: str, spec: dict, value: Any, row: int) -> Any:
    array = np.asarray(value)
    if spec["type"] == "string":
        return str(array)
    if spec["type"] == "bytes":
        return bytes(array.reshape(-1)[0])
    if "shape" in spec:
        if array.ndim != len(spec["shape"]) or list(array.shape[1:]) != spec["shape"][1:]:
            raise DatasetError(f"save: row {row} of column {name!r} has shape {list(array.shape)}; the first row "
                               f"fixed it as {spec['shape']} (only the first dimension may vary between rows, as in "
                               f"MindSpore; reshape the column to a fixed shape before saving)")
        return array
    if array.ndim:
        raise DatasetError(f"save: row {row} of column {name!r} has shape {list(array.shape)}, but the first row "
                           f"was a scalar")
    return int(array) if spec["type"].startswith("int") else float(array)


def save(dataset: Any, file_name: str, num_files: int = 1, file_type: str = "mindrecord") -> None:
    if file_type != "mindrecord":
        raise DatasetError(f"save: file_type must be 'mindrecord' (MindSpore's only one), got {file_type!r}")
    if isinstance(num_files, bool) or not isinstance(num_files, int) or not 1 <= num_files <= 1000:
        raise DatasetError(f"save: num_files must be an int in [1, 1000], got {num_files!r}")
    if not isinstance(file_name, (str, os.PathLike)) or not os.fspath(file_name):
        raise DatasetError(f"save: file_name must be a path, got {file_name!r}")
    names = dataset.get_col_names()
    rows = dataset.create_tuple_iterator(num_epochs=1, output_numpy=True)
    specs, records = None, []
    for i, row in enumerate(rows):
        if specs is None:
            for name, value in zip(names, row):
                if isinstance(value, dict):
                    raise DatasetError(f"save: column {name!r} holds dicts, which MindRecord cannot hold")
            specs = {n: column_spec(n, v) for n, v in zip(names, row)}
        records.append({n: field_value(n, specs[n], v, i) for n, v in zip(names, row)})
    if specs is None:
        raise DatasetError("save: the dataset is empty; there is nothing to save")
    writer = FileWriter(os.fspath(file_name), num_files, overwrite=False)
    writer.add_schema(specs, "mindrecord")
    index = [n for n, s in specs.items() if "shape" not in s and s["type"] != "bytes"]
    if index:
        writer.add_index(index)
    writer.write_raw_data(records)
    writer.commit()


register_steps(save)
