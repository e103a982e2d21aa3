"""`FileWriter`: writing mindrecord files that MindSpore's MindDataset (and msx's) read.

The layout is the one `mindrecord_format.py` describes, as MindSpore 2.10
writes it: per shard one BLOB_DATA page (page 0) and one RAW_DATA page
(page 1) after the padded JSON header, and the SQLite index `<shard>.db`
with MindSpore's table layout. Rows go to the shards in consecutive chunks.
A shard's blob or raw data must fit one page (`set_page_size`, up to 256 MB;
more shards hold more). Files are written atomically at `commit()`.
"""
from __future__ import annotations

import json
import os
import sqlite3
import struct
import tempfile
from typing import Any, Sequence

import msgpack
import numpy as np

from ...atomic import write_atomic
from ...errors import DatasetError
from . import mindrecord_format as fmt

_SQL_TYPES = {"int32": "INTEGER", "int64": "INTEGER", "float32": "REAL", "float64": "REAL", "string": "TEXT"}
_LIMITS = {"header": (1 << 14, 1 << 27), "page": (1 << 15, 1 << 28)}


def _size_arg(what: str, value: Any) -> int:
    low, high = _LIMITS[what]
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high or value % 8:
        raise DatasetError(f"FileWriter: {what} size must be a multiple of 8 in [{low}, {high}] bytes, got {value!r}")
    return value


class FileWriter:
    """MindSpore's `mindrecord.FileWriter(file_name, shard_num=1, overwrite=False)`.

    `add_schema({field: {"type": t[, "shape": [...]]}}, desc)` with t one of
    int32/int64/float32/float64/string/bytes (a shape makes an array field),
    `add_index([fields])` (default: every scalar field), `write_raw_data(rows)`
    (dicts), `commit()`. With shard_num > 1 the files are `file_name0`, `file_name1`, ...
    """

    def __init__(self, file_name: str, shard_num: int = 1, overwrite: bool = False) -> None:
        if not isinstance(file_name, str) or not file_name:
            raise DatasetError(f"FileWriter: file_name must be a non-empty str, got {file_name!r}")
        if isinstance(shard_num, bool) or not isinstance(shard_num, int) or not 1 <= shard_num <= 1000:
            raise DatasetError(f"FileWriter: shard_num must be an int in [1, 1000], got {shard_num!r}")
        self._paths = [file_name] if shard_num == 1 else [f"{file_name}{i}" for i in range(shard_num)]
        for path in self._paths:
            if not overwrite and (os.path.exists(path) or os.path.exists(path + ".db")):
                raise DatasetError(f"FileWriter: {path!r} (or its .db) exists; pass overwrite=True to replace it")
        if not os.path.isdir(os.path.dirname(os.path.abspath(file_name))):
            raise DatasetError(f"FileWriter: the folder of {file_name!r} does not exist")
        self._schema: dict | None = None
        self._desc = ""
        self._index: list[str] | None = None
        self._rows: list[dict] = []
        self._header_size, self._page_size = 1 << 24, 1 << 25
        self._committed = False

    def set_header_size(self, header_size: int) -> None:
        self._header_size = _size_arg("header", header_size)

    def set_page_size(self, page_size: int) -> None:
        self._page_size = _size_arg("page", page_size)

    def add_schema(self, content: dict, desc: str | None = None) -> int:
        if self._schema is not None:
            raise DatasetError("FileWriter: add_schema was called already (one schema per file)")
        if not isinstance(content, dict) or not content:
            raise DatasetError(f"FileWriter: the schema must be a non-empty dict {{field: {{'type': ...}}}}, got "
                               f"{content!r}")
        schema = {}
        for name, spec in content.items():
            if not isinstance(name, str) or not name.replace("_", "a").isalnum():
                raise DatasetError(f"FileWriter: field name {name!r} must be letters, digits and '_'")
            if not isinstance(spec, dict) or spec.get("type") not in fmt.TYPES or set(spec) - {"type", "shape"}:
                raise DatasetError(f"FileWriter: field {name!r} needs {{'type': one of {sorted(fmt.TYPES)}[, "
                                   f"'shape': [...]]}}, got {spec!r}")
            if "shape" in spec:
                shape = spec["shape"]
                ok = isinstance(shape, list) and shape and all(isinstance(d, int) and (d > 0 or d == -1) for d in shape)
                if not ok or spec["type"] in ("string", "bytes") or shape.count(-1) > 1:
                    raise DatasetError(f"FileWriter: field {name!r} has a bad shape {shape!r} (numbers only; "
                                       f"positive dims and at most one -1)")
            schema[name] = dict(spec)
        self._schema, self._desc = schema, "" if desc is None else str(desc)
        return 0

    def add_index(self, index_fields: Sequence[str]) -> None:
        if self._schema is None:
            raise DatasetError("FileWriter: add_schema before add_index")
        fields = list(index_fields) if isinstance(index_fields, (list, tuple)) else None
        bad = [f for f in fields or [] if f not in self._schema or "shape" in self._schema[f] or
               self._schema[f]["type"] == "bytes"]
        if not fields or bad:
            raise DatasetError(f"FileWriter: index_fields must be a list of scalar (not bytes) fields of the schema, "
                               f"got {index_fields!r}")
        self._index = fields

    def write_raw_data(self, raw_data: Sequence[dict], parallel_writer: bool = False) -> None:
        if self._schema is None:
            raise DatasetError("FileWriter: add_schema before write_raw_data")
        if self._committed:
            raise DatasetError("FileWriter: the files were committed already")
        if not isinstance(raw_data, (list, tuple)):
            raise DatasetError(f"FileWriter: raw_data must be a list of dicts, got {type(raw_data).__name__}")
        for i, row in enumerate(raw_data):
            if not isinstance(row, dict) or set(row) != set(self._schema):
                have = sorted(row) if isinstance(row, dict) else type(row).__name__
                raise DatasetError(f"FileWriter: row {i} must have exactly the fields {sorted(self._schema)}, got "
                                   f"{have}")
            self._rows.append({k: self._check(k, v, i) for k, v in row.items()})

    def _check(self, name: str, value: Any, i: int) -> Any:
        spec = self._schema[name]
        kind = spec["type"]
        where = f"FileWriter: row {i} field {name!r} ({kind}{' ' + str(spec['shape']) if 'shape' in spec else ''})"
        if kind == "string":
            if not isinstance(value, str):
                raise DatasetError(f"{where} needs a str, got {type(value).__name__}")
            return value
        if kind == "bytes":
            if not isinstance(value, (bytes, bytearray)):
                raise DatasetError(f"{where} needs bytes, got {type(value).__name__}")
            return bytes(value)
        dtype = np.dtype(fmt.TYPES[kind])
        if "shape" in spec:
            array = np.asarray(value)
            if array.dtype.kind not in "biuf" or not np.can_cast(array.dtype, dtype, "same_kind") and \
                    array.dtype.kind != "b":
                raise DatasetError(f"{where} needs numbers castable to {kind}, got dtype {array.dtype}")
            shape = spec["shape"]
            fixed = int(np.prod([d for d in shape if d != -1]))
            if (-1 in shape and array.size % fixed) or (-1 not in shape and array.size != fixed):
                raise DatasetError(f"{where} got {array.size} values of shape {list(array.shape)}")
            return array.astype(dtype)
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise DatasetError(f"{where} needs a number, got {value!r}")
        if dtype.kind == "i":
            if not float(value).is_integer() or not np.iinfo(dtype).min <= int(value) <= np.iinfo(dtype).max:
                raise DatasetError(f"{where} needs an integer in the range of {kind}, got {value!r}")
            return int(value)
        return float(value)  # stored as given (as MindSpore does); the reader casts it to the field's type

    def commit(self) -> None:
        if self._schema is None:
            raise DatasetError("FileWriter: add_schema before commit")
        if self._committed:
            raise DatasetError("FileWriter: commit was called already")
        blob_fields = sorted(n for n, s in self._schema.items() if "shape" in s or s["type"] == "bytes")
        index = self._index if self._index is not None else sorted(n for n in self._schema if n not in blob_fields)
        per = -(-len(self._rows) // len(self._paths)) if self._rows else 0
        names = [os.path.basename(p) for p in self._paths]
        for k, path in enumerate(self._paths):
            rows = self._rows[k * per:(k + 1) * per]
            self._write_shard(path, k, names, rows, blob_fields, index)
        self._committed = True

    def _raw(self, row: dict, blob_fields: list[str]) -> bytes:
        """The msgpack map of a row's scalar fields as MindSpore writes it: keys sorted, a float as msgpack
        float32 when float32 holds it exactly (else float64)."""
        names = sorted(n for n in row if n not in blob_fields)
        n = len(names)
        out = [bytes([0x80 | n]) if n < 16 else b"\xde" + struct.pack(">H", n)]
        for name in names:
            value = row[name]
            single = isinstance(value, float) and float(np.float32(value)) == value
            out.append(msgpack.packb(name) + msgpack.packb(value, use_single_float=single))
        return b"".join(out)

    def _blob(self, row: dict, blob_fields: list[str]) -> bytes:
        parts = []
        for name in blob_fields:
            value = row[name]
            if isinstance(value, bytes):
                parts.append(value)
            elif value.dtype.kind == "i":
                parts.append(fmt.pack_ints(value))
            else:
                parts.append(value.astype(value.dtype.newbyteorder("<")).tobytes())
        if not blob_fields:
            return bytes(4)  # what MindSpore writes for a row without blob fields
        if len(parts) == 1:
            return parts[0]
        return b"".join(struct.pack(">Q", len(p)) + p for p in parts)

    def _write_shard(self, path: str, shard: int, names: list[str], rows: list[dict], blob_fields: list[str],
                     index: list[str]) -> None:
        raws = [self._raw(r, blob_fields) for r in rows]
        blobs = [self._blob(r, blob_fields) for r in rows]
        raw_page = b"".join(struct.pack("<Q", len(r)) + r for r in raws)
        blob_page = b"".join(struct.pack("<Q", len(b)) + b for b in blobs)
        for what, page in (("blob", blob_page), ("raw", raw_page)):
            if len(page) > self._page_size:
                raise DatasetError(f"FileWriter: shard {path!r} has {len(page)} bytes of {what} data, more than one "
                                   f"page of {self._page_size}; set_page_size larger or use more shards")
        pages = [{"end_row_id": len(rows), "page_id": 0, "page_size": len(blob_page), "page_type": "BLOB_DATA",
                  "page_type_id": 0, "row_group_ids": [{"id": 0, "offset": 0}], "shard_id": shard,
                  "start_row_id": 0},
                 {"end_row_id": 0, "page_id": 1, "page_size": len(raw_page), "page_type": "RAW_DATA",
                  "page_type_id": 0, "row_group_ids": [{"id": 0, "offset": 0}], "shard_id": shard,
                  "start_row_id": 0}]
        saved = sum(r[n].size * r[n].itemsize - len(fmt.pack_ints(r[n])) for r in rows for n in blob_fields
                    if not isinstance(r[n], bytes) and r[n].dtype.kind == "i")
        header = {"header_size": self._header_size,
                  "index_fields": [{"index_field": n, "schema_id": 0} for n in index], "page": pages,
                  "page_size": self._page_size, "compression_size": saved,
                  "schema": [{"blob_fields": blob_fields, "desc": self._desc, "schema": self._schema}],
                  "shard_addresses": names, "shard_id": shard, "statistics": None, "version": fmt.VERSION}
        # MindSpore's key order at the top, sorted keys inside
        text = ("{" + ",".join(f'"{k}":' + json.dumps(v, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
                               for k, v in header.items()) + "}").encode("utf-8")
        if 8 + len(text) > self._header_size:
            raise DatasetError(f"FileWriter: the header of {path!r} needs {8 + len(text)} bytes, more than "
                               f"header_size {self._header_size}; set_header_size larger")
        write_atomic(path, [struct.pack("<Q", len(text)), text, bytes(self._header_size - 8 - len(text)), blob_page,
                            bytes(self._page_size - len(blob_page)), raw_page])
        self._write_index(path, rows, raws, blobs, index)

    def _write_index(self, path: str, rows: list[dict], raws: list[bytes], blobs: list[bytes],
                     index: list[str]) -> None:
        fields = "".join(f",INC_{j} INT, {n}_0 {_SQL_TYPES[self._schema[n]['type']]}" for j, n in enumerate(index))
        key = ",".join(["ROW_ID"] + [f"INC_{j}" for j in range(len(index))])
        create = ("CREATE TABLE INDEXES(  ROW_ID               INT  NOT NULL, PAGE_ID_RAW          INT  NOT NULL, "
                  "PAGE_OFFSET_RAW      INT  NOT NULL, PAGE_OFFSET_RAW_END  INT  NOT NULL, ROW_GROUP_ID         INT "
                  " NOT NULL, PAGE_ID_BLOB         INT  NOT NULL, PAGE_OFFSET_BLOB     INT  NOT NULL, "
                  f"PAGE_OFFSET_BLOB_END INT  NOT NULL{fields}, PRIMARY KEY({key}))")
        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.db.", dir=os.path.dirname(os.path.abspath(path)))
        os.close(fd)
        try:
            db = sqlite3.connect(tmp)
            with db:
                db.execute(create)
                db.execute("CREATE TABLE SHARD_NAME(NAME TEXT NOT NULL)")
                db.execute("INSERT INTO SHARD_NAME VALUES (?)", (os.path.basename(path),))
                raw_at = blob_at = 0
                marks = ",".join("?" * (8 + 2 * len(index)))
                for i, row in enumerate(rows):
                    raw_end, blob_end = raw_at + 8 + len(raws[i]), blob_at + 8 + len(blobs[i])
                    values = [i, 1, raw_at, raw_end, 0, 0, blob_at, blob_end]
                    for n in index:
                        values += [0, row[n]]
                    db.execute(f"INSERT INTO INDEXES VALUES ({marks})", values)
                    raw_at, blob_at = raw_end, blob_end
            db.close()
            os.replace(tmp, path + ".db")
        except BaseException:
            if os.path.exists(tmp):
                os.remove(tmp)
            raise
