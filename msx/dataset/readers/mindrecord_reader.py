"""`mindrecord.FileReader` and `mindrecord.MindPage`: MindSpore's row-by-row and by-category readers of MindRecord
files (the files MindDataset reads; layout in `mindrecord_format.py`).

Both read every shard of the group (or the list of shards given) when they are made, through the same checked
reader as MindDataset. A row is a dict as MindSpore's readers give it: the raw fields first (Python int, float,
str, as stored), then the blob fields (an array field as a numpy array of its type and shape, a bytes field as
bytes). `MindPage` groups the rows by one of the header's index fields, as MindSpore's does from its SQLite
index: categories in ascending order of value, named by the value as text.
"""
from __future__ import annotations

import json
from typing import Any, Iterator, Sequence

from . import mindrecord_format as fmt
from .mindrecord import shard_files
from .mindrecord_errors import MRMDefineCategoryError, MRMFetchDataError, ParamTypeError, ParamValueError


def _read_group(file_name: Any, where: str, columns: Sequence[str] | None) -> tuple[dict, list[str], list[dict]]:
    """(the group's header, its index fields, its rows as FileReader yields them)."""
    files = shard_files(file_name, where)
    header, schema, records = None, None, []
    for path in files:
        this = fmt.read_header(path)
        if schema is None:
            header, schema = this, this["schema"][0]["schema"]
        elif this["schema"][0]["schema"] != schema:
            raise ParamValueError(f"{where}: {path!r} has a different schema than {files[0]!r}")
        f, size = fmt.open_shard(path)
        with f:
            records += [_record(r, schema, this["schema"][0].get("blob_fields", []), path)
                        for r in fmt.records_from(f, size, path, this)]
    names = [n for n in (columns or []) if n not in schema]
    if names:
        raise ParamValueError(f"{where}: columns {names} are not fields of the schema {sorted(schema)}")
    if columns:
        records = [{k: v for k, v in r.items() if k in columns} for r in records]
    index = header.get("index_fields") or []
    fields = [i.get("index_field") for i in index if isinstance(i, dict)] if isinstance(index, list) else []
    scalar = [f for f in fields if isinstance(f, str) and f in schema and "shape" not in schema[f] and
              schema[f]["type"] != "bytes"]  # what an index can hold (a crafted header may name others)
    return header, scalar, records


def _record(values: dict, schema: dict, blob_fields: list[str], path: str) -> dict:
    out = {}
    for name in [n for n in sorted(schema) if n not in blob_fields] + sorted(blob_fields):
        if name not in values:
            raise fmt.MRMOpenError(f"mindrecord file {path!r}: a row lacks its field {name!r}")
        spec, value = schema[name], values[name]
        checked = fmt.column(name, spec, value, path)  # checks the stored value against its type
        if isinstance(value, float) and value.is_integer():
            value = int(value)  # MindSpore's reader passes rows through JSON, where 1.0 comes back as 1
        out[name] = checked if "shape" in spec else value
    return out


def _file_name_arg(where: str, file_name: Any) -> None:
    if not (isinstance(file_name, str) or (isinstance(file_name, list) and file_name and
                                           all(isinstance(f, str) for f in file_name))):
        raise ParamValueError(f"{where}: file_name must be a str or a non-empty list of str, got {file_name!r}")


def _consumer_arg(where: str, num_consumer: Any) -> None:
    if isinstance(num_consumer, bool) or not isinstance(num_consumer, int) or num_consumer < 1:
        raise ParamValueError(f"{where}: num_consumer must be a positive int, got {num_consumer!r}")


class FileReader:
    """MindSpore's `FileReader(file_name, num_consumer=4, columns=None, operator=None)`: `get_next()` yields each row
    as a dict; `schema()`, `len()`, `close()`. `num_consumer` is checked; msx reads on the calling thread."""

    def __init__(self, file_name: str | list[str], num_consumer: int = 4, columns: list[str] | None = None,
                 operator: Any = None) -> None:
        where = "FileReader"
        _file_name_arg(where, file_name)
        _consumer_arg(where, num_consumer)
        if columns is not None and columns != [] and not isinstance(columns, list):
            raise ParamTypeError("columns", "list")
        header, _, self._rows = _read_group(file_name, where, columns or None)
        self._schema = header["schema"][0]["schema"]
        self._closed = False

    def get_next(self) -> Iterator[dict]:
        yield from self._rows

    def schema(self) -> dict:
        return dict(self._schema)

    def len(self) -> int:
        return len(self._rows)

    def close(self) -> None:
        self._closed = True


class MindPage:
    """MindSpore's `MindPage(file_name, num_consumer=4)`: pages of the rows of one category of an index field.

    Set `category_field` (one of `candidate_fields`, the header's index fields), then `read_category_info()` (a
    JSON string: the categories, their ids and counts) and `read_at_page_by_id(category_id, page, num_row)` /
    `read_at_page_by_name(category_name, page, num_row)` (rows `page * num_row` to `(page + 1) * num_row` of the
    category, as FileReader's dicts).
    """

    def __init__(self, file_name: str | list[str], num_consumer: int = 4) -> None:
        where = "MindPage"
        _file_name_arg(where, file_name)
        _consumer_arg(where, num_consumer)
        _, self._candidates, self._rows = _read_group(file_name, where, None)
        self._category_field: str | None = None
        self._categories: list[tuple[str, list[dict]]] = []

    @property
    def candidate_fields(self) -> list[str]:
        return list(self._candidates)

    @property
    def category_field(self) -> str | None:
        return self._category_field

    @category_field.setter
    def category_field(self, category_field: str) -> None:
        if not category_field or not isinstance(category_field, str):
            raise ParamTypeError("category_fields", "str")
        if category_field not in self._candidates:
            raise MRMDefineCategoryError(f"Field '{category_field}' is not a candidate category field.")
        groups: dict[Any, list[dict]] = {}
        for row in self._rows:
            groups.setdefault(row[category_field], []).append(row)
        self._category_field = category_field
        self._categories = [(str(value), groups[value]) for value in sorted(groups)]

    def read_category_info(self) -> str:
        self._need_field()
        categories = [{"count": len(rows), "id": i, "name": name} for i, (name, rows) in enumerate(self._categories)]
        return json.dumps({"categories": categories, "key": f"{self._category_field}_0"}, separators=(",", ":"))

    def read_at_page_by_id(self, category_id: int, page: int, num_row: int) -> list[dict]:
        if isinstance(category_id, bool) or not isinstance(category_id, int) or category_id < 0:
            raise ParamValueError("Category id should be int and greater than or equal to 0.")
        self._page_args(page, num_row)
        self._need_field()
        if category_id >= len(self._categories):
            raise MRMFetchDataError(f"category_id {category_id} must be in the range [0, {len(self._categories)})")
        return self._page(self._categories[category_id][1], page, num_row)

    def read_at_page_by_name(self, category_name: str, page: int, num_row: int) -> list[dict]:
        if not isinstance(category_name, str):
            raise ParamValueError("Category name should be str.")
        self._page_args(page, num_row)
        self._need_field()
        rows = next((rows for name, rows in self._categories if name == category_name), None)
        if rows is None:
            raise MRMFetchDataError(f"category_name: {category_name} could not be found in field "
                                    f"{self._category_field!r}")
        return self._page(rows, page, num_row)

    @staticmethod
    def _page_args(page: Any, num_row: Any) -> None:
        if isinstance(page, bool) or not isinstance(page, int) or page < 0:
            raise ParamValueError("Page should be int and greater than or equal to 0.")
        if isinstance(num_row, bool) or not isinstance(num_row, int) or num_row <= 0:
            raise ParamValueError("num_row should be int and greater than 0.")

    def _need_field(self) -> None:
        if self._category_field is None:
            raise MRMDefineCategoryError("set category_field (one of candidate_fields) first")

    @staticmethod
    def _page(rows: list[dict], page: int, num_row: int) -> list[dict]:
        if page * num_row >= len(rows):
            raise MRMFetchDataError(f"page {page} of {num_row} rows is past the category's {len(rows)} rows")
        return rows[page * num_row:(page + 1) * num_row]
