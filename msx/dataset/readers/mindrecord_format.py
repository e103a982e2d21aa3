"""The mindrecord file layout, as MindSpore 2.10's FileWriter writes it (read from its files; see below).

A mindrecord file ("shard") is: an 8-byte little-endian header length, the
header as JSON (schema, blob fields, page table, the group's shard file
names, header and page sizes), zero padding up to `header_size`; then pages
of `page_size` bytes each (the last one cut to its content), page k at
`header_size + k * page_size`. A RAW_DATA page holds the non-blob fields of
consecutive rows: per row an 8-byte little-endian length and a msgpack map.
A BLOB_DATA page holds per row an 8-byte little-endian length and the row's
blob: with one blob field, its bytes; with several, per field (in
`blob_fields` order) an 8-byte BIG-endian length and the bytes. Float arrays
are their little-endian bytes, shaped by the schema; int32/int64 arrays are
packed: a 4-byte big-endian element count, 2 bits per element (first element
in the high bits; 0/1/2/3: the element takes 1/2/4/8 bytes), then each element
as a little-endian signed integer of that width. Next to each shard a SQLite
file `<shard>.db` indexes the rows (table INDEXES: row id, raw/blob page and
offsets, the index fields) and names the shard (table SHARD_NAME).

There is no published specification; this description was taken from the
files MindSpore writes (tests/golden/mindrecord/, made by
tests/oracle/make_mindrecord_golden.py) and is checked against them.
"""
from __future__ import annotations

import json
import os
import struct
from typing import Any

import msgpack
import numpy as np

from ...errors import DatasetError

TYPES = {"int32": np.int32, "int64": np.int64, "float32": np.float32, "float64": np.float64,
         "string": None, "bytes": None}
VERSION = "3.0"


def read_header(path: str) -> dict:
    """The JSON header of shard `path`, checked; a bad file is a DatasetError naming it."""
    try:
        with open(path, "rb") as f:
            head = f.read(8)
            if len(head) < 8:
                raise DatasetError(f"mindrecord file {path!r} is truncated: {len(head)} bytes, shorter than its header")
            (length,) = struct.unpack("<Q", head)
            size = os.fstat(f.fileno()).st_size
            if length > size - 8 or length > 1 << 30:
                raise DatasetError(f"{path!r} is not a mindrecord file: its header length {length} does not fit "
                                   f"the file's {size} bytes")
            text = f.read(length)
    except OSError as exc:
        raise DatasetError(f"cannot read mindrecord file {path!r}: {exc.strerror}") from None
    try:
        header = json.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DatasetError(f"{path!r} is not a mindrecord file: its header is not JSON ({exc})") from None
    need = ("header_size", "page_size", "page", "schema", "shard_addresses")
    missing = [k for k in need if not isinstance(header, dict) or k not in header]
    if missing:
        raise DatasetError(f"{path!r} is not a mindrecord file: its header lacks {missing}")
    if len(header["schema"]) != 1:
        raise DatasetError(f"mindrecord file {path!r} holds {len(header['schema'])} schemas; msx reads files of "
                           f"one schema (as FileWriter writes them)")
    for name, spec in header["schema"][0]["schema"].items():
        if spec.get("type") not in TYPES:
            raise DatasetError(f"mindrecord file {path!r}: field {name!r} has type {spec.get('type')!r}, not one of "
                               f"{sorted(TYPES)}")
    return header


def _records(data: bytes, path: str, what: str) -> list[bytes]:
    out, at = [], 0
    while at < len(data):
        if at + 8 > len(data):
            raise DatasetError(f"mindrecord file {path!r}: a {what} page ends inside a record length")
        (n,) = struct.unpack_from("<Q", data, at)
        if at + 8 + n > len(data):
            raise DatasetError(f"mindrecord file {path!r}: a {what} record of {n} bytes runs past its page")
        out.append(data[at + 8:at + 8 + n])
        at += 8 + n
    return out


def read_shard(path: str, header: dict) -> tuple[list[dict], list[bytes]]:
    """The raw field maps and the blobs of every row of one shard, in row order."""
    raw: list[tuple[int, bytes]] = []
    blob: list[tuple[int, bytes]] = []
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        for page in header["page"]:
            start = header["header_size"] + page["page_id"] * header["page_size"]
            if page["page_size"] > header["page_size"] or start + page["page_size"] > size:
                raise DatasetError(f"mindrecord file {path!r} is truncated: page {page['page_id']} would end at byte "
                                   f"{start + page['page_size']} of {size}")
            f.seek(start)
            data = f.read(page["page_size"])
            (raw if page["page_type"] == "RAW_DATA" else blob).append((page["page_type_id"], data))
    fields = [_unpack(r, path) for _, d in sorted(raw, key=lambda p: p[0]) for r in _records(d, path, "raw")]
    blobs = [b for _, d in sorted(blob, key=lambda p: p[0]) for b in _records(d, path, "blob")]
    if header["schema"][0].get("blob_fields") and len(blobs) != len(fields):
        raise DatasetError(f"mindrecord file {path!r} is corrupt: {len(fields)} rows of fields but {len(blobs)} blobs")
    return fields, blobs


def _unpack(record: bytes, path: str) -> dict:
    try:
        value = msgpack.unpackb(record, raw=False, strict_map_key=True)
    except Exception as exc:  # msgpack raises several types for bad bytes
        raise DatasetError(f"mindrecord file {path!r}: a row's fields are not msgpack ({type(exc).__name__})") from None
    if not isinstance(value, dict):
        raise DatasetError(f"mindrecord file {path!r}: a row's fields are not a map")
    return value


def split_blob(blob: bytes, names: list[str], path: str) -> dict[str, bytes]:
    """A row's blob cut into its blob fields."""
    if len(names) == 1:
        return {names[0]: blob}
    out, at = {}, 0
    for name in names:
        if at + 8 > len(blob):
            raise DatasetError(f"mindrecord file {path!r}: a blob ends before its field {name!r}")
        (n,) = struct.unpack_from(">Q", blob, at)
        if at + 8 + n > len(blob):
            raise DatasetError(f"mindrecord file {path!r}: blob field {name!r} of {n} bytes runs past its row")
        out[name] = blob[at + 8:at + 8 + n]
        at += 8 + n
    return out


def column(name: str, spec: dict, value: Any, path: str) -> np.ndarray:
    """One field of a row as MindDataset yields it."""
    kind = spec["type"]
    if kind == "string":
        if not isinstance(value, str):
            raise DatasetError(f"mindrecord file {path!r}: field {name!r} should be a string, got {type(value).__name__}")
        return np.array(value)
    if kind == "bytes":
        return np.array([bytes(value)])
    dtype = np.dtype(TYPES[kind])
    if "shape" in spec:
        if not isinstance(value, (bytes, bytearray)):
            raise DatasetError(f"mindrecord file {path!r}: array field {name!r} is not stored as bytes")
        if dtype.kind == "i":
            return _reshape(unpack_ints(value, name, path).astype(dtype), spec, name, path)
        if len(value) % dtype.itemsize:
            raise DatasetError(f"mindrecord file {path!r}: field {name!r} holds {len(value)} bytes, not a whole "
                               f"number of {kind}")
        return _reshape(np.frombuffer(value, dtype.newbyteorder("<")).astype(dtype), spec, name, path)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise DatasetError(f"mindrecord file {path!r}: field {name!r} should be a {kind} number, got {value!r}")
    return np.array(value, dtype)


def _reshape(array: np.ndarray, spec: dict, name: str, path: str) -> np.ndarray:
    try:
        return array.reshape(spec["shape"])
    except ValueError:
        raise DatasetError(f"mindrecord file {path!r}: field {name!r} holds {array.size} values, which do not fit "
                           f"its shape {spec['shape']}") from None


_WIDTHS = (1, 2, 4, 8)
_INT = {1: "<i1", 2: "<i2", 4: "<i4", 8: "<i8"}


def unpack_ints(data: bytes, name: str, path: str) -> np.ndarray:
    """An int32/int64 array field from its packed bytes (see the module docstring)."""
    if len(data) < 4:
        raise DatasetError(f"mindrecord file {path!r}: integer field {name!r} is shorter than its count")
    (count,) = struct.unpack_from(">I", data, 0)
    codes_end = 4 + (count + 3) // 4
    if codes_end > len(data):
        raise DatasetError(f"mindrecord file {path!r}: integer field {name!r} of {count} values is truncated")
    codes = np.frombuffer(data, np.uint8, count=codes_end - 4, offset=4)
    widths = np.array(_WIDTHS)[((codes[:, None] >> np.array([6, 4, 2, 0])) & 3).reshape(-1)[:count]]
    if codes_end + int(widths.sum()) != len(data):
        raise DatasetError(f"mindrecord file {path!r}: integer field {name!r} holds {len(data)} bytes, not the "
                           f"{codes_end + int(widths.sum())} its {count} values need")
    out, at = np.empty(count, np.int64), codes_end
    for i, w in enumerate(widths.tolist()):
        out[i] = np.frombuffer(data, _INT[w], count=1, offset=at)[0]
        at += w
    return out


def pack_ints(values: np.ndarray) -> bytes:
    """The packed bytes of an int32/int64 array (each value in the fewest of 1/2/4/8 bytes)."""
    flat = np.asarray(values, np.int64).reshape(-1)
    codes, body = [], []
    for v in flat.tolist():
        code = 0 if -128 <= v < 128 else 1 if -32768 <= v < 32768 else 2 if -2 ** 31 <= v < 2 ** 31 else 3
        codes.append(code)
        body.append(int(v).to_bytes(_WIDTHS[code], "little", signed=True))
    codes += [0] * (-len(codes) % 4)
    packed = bytes((a << 6) | (b << 4) | (c << 2) | d for a, b, c, d in zip(*[iter(codes)] * 4))
    return struct.pack(">I", len(flat)) + packed + b"".join(body)
