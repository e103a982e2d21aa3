"""MindSpore's `dataset.Schema`: the columns a reader yields, with their dtype and shape (TFRecordDataset reads it).

A schema is made column by column (`add_column(name, de_type, shape)`), or
from MindSpore's JSON layout — `{"columns": {name: {"type", "shape"}}}`
(columns sorted by name, as MindSpore orders a dict) or `{"columns": [{"name",
"type", "shape"}, ...]}` (in list order), with an optional `numRows` — given
as a dict (`from_json`) or a file name (`Schema("schema.json")`). JSON is
read with `json` alone.
"""
from __future__ import annotations

import json
from typing import Any

import numpy as np

from ..errors import DatasetError
from .transforms.ops import np_dtype

STRING = "string"  # MindSpore's string column type (msx has no `ms.string` dtype: name it as a str)


def _type_name(where: str, de_type: Any) -> str:
    if isinstance(de_type, str) and de_type.lower() == STRING or getattr(de_type, "name", None) in ("String", "string"):
        return STRING
    return np_dtype(where, de_type).name


class Schema:
    """The columns of a dataset: name, type (an msx/numpy dtype, or "string") and optional shape."""

    def __init__(self, schema_file: str | None = None) -> None:
        self.columns: list[dict] = []
        self.num_rows: int | None = None
        if schema_file is not None:
            try:
                with open(schema_file, encoding="utf-8") as f:
                    data = json.load(f)
            except OSError as exc:
                raise DatasetError(f"Schema: cannot read schema file {schema_file!r}: {exc.strerror}") from None
            except ValueError as exc:
                raise DatasetError(f"Schema: schema file {schema_file!r} is not JSON: {exc}") from None
            self.from_json(data)

    def add_column(self, name: str, de_type: Any, shape: list[int] | None = None) -> None:
        """Append column `name` of type `de_type` (an msx or numpy dtype, or "string"); `shape` reshapes it."""
        if not isinstance(name, str) or not name:
            raise DatasetError(f"Schema.add_column: name must be a non-empty str, got {name!r}")
        if shape is not None and not (isinstance(shape, (list, tuple)) and
                                      all(isinstance(d, int) and not isinstance(d, bool) and d >= -1 for d in shape)):
            raise DatasetError(f"Schema.add_column: shape of {name!r} must be a list of ints, got {shape!r}")
        self.columns.append({"name": name, "type": _type_name(f"Schema column {name!r}", de_type),
                             "shape": None if shape is None else list(shape)})

    def parse_columns(self, columns: dict | list) -> None:
        """Replace the columns by MindSpore's JSON form: a dict {name: {"type", "shape"}} (sorted by name) or a
        list of {"name", "type", "shape"} (in order)."""
        if isinstance(columns, dict):
            entries = [dict(spec, name=name) for name, spec in sorted(columns.items()) if isinstance(spec, dict)]
            if len(entries) != len(columns):
                raise DatasetError(f"Schema: each column of the dict form must be a dict, got {columns!r}")
        elif isinstance(columns, list) and all(isinstance(c, dict) for c in columns):
            entries = columns
        else:
            raise DatasetError(f"Schema: columns must be a dict or a list of dicts, got {type(columns).__name__}")
        self.columns = []
        for entry in entries:
            if "name" not in entry or "type" not in entry:
                raise DatasetError(f"Schema: a column needs a name and a type, got {entry!r}")
            self.add_column(entry["name"], entry["type"], entry.get("shape"))

    def from_json(self, json_obj: dict) -> None:
        """Read MindSpore's schema JSON (as a dict): its `columns` and optional `numRows`."""
        if not isinstance(json_obj, dict) or "columns" not in json_obj:
            raise DatasetError("Schema: the JSON must be an object with a 'columns' entry")
        self.parse_columns(json_obj["columns"])
        rows = json_obj.get("numRows")
        if rows is not None and (isinstance(rows, bool) or not isinstance(rows, int) or rows < 0):
            raise DatasetError(f"Schema: numRows must be a non-negative int, got {rows!r}")
        self.num_rows = rows or None

    def to_json(self) -> str:
        """The schema as MindSpore's JSON text."""
        columns = [{"name": c["name"], "type": c["type"], "rank": 1 if c["shape"] is None else len(c["shape"]),
                    **({} if c["shape"] is None else {"shape": c["shape"]})} for c in self.columns]
        data: dict[str, Any] = {"columns": columns}
        if self.num_rows is not None:
            data["numRows"] = self.num_rows
        return json.dumps(data, indent=2)

    def names(self) -> list[str]:
        return [c["name"] for c in self.columns]

    def apply(self, where: str, name: str, value: np.ndarray) -> np.ndarray:
        """`value` of column `name` in the schema's type and shape (a DatasetError naming both where it cannot)."""
        column = next(c for c in self.columns if c["name"] == name)
        if column["type"] == STRING:
            if value.dtype != np.uint8:
                raise DatasetError(f"{where}: column {name!r} is a string column in the schema, but the record holds "
                                   f"{value.dtype} values (a string column reads a bytes feature)")
            value = np.array([value.tobytes().decode("utf-8")])
        else:
            value = value.astype(column["type"])
        shape = column["shape"]
        if shape is not None:
            try:
                value = value.reshape(shape)
            except ValueError:
                raise DatasetError(f"{where}: column {name!r} has shape {list(shape)} in the schema, but a record holds "
                                   f"{value.size} values") from None
        return value

    def __repr__(self) -> str:
        return self.to_json()
