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
from typing import Any, BinaryIO

import msgpack
import numpy as np

from ...errors import LoadError
from ...fileread import open_regular
from .mindrecord_errors import MRMOpenError

TYPES = {"int32": np.int32, "int64": np.int64, "float32": np.float32, "float64": np.float64,
         "string": None, "bytes": None}
VERSION = "3.0"
PAGE_TYPES = ("RAW_DATA", "BLOB_DATA")
MAX_HEADER_SIZE = 1 << 27  # MindSpore's FileWriter.set_header_size limit (128 MB)
MAX_PAGE_SIZE = 1 << 32
MAX_FIELDS = 1 << 12
MAX_RANK = 32
MAX_SHARDS = 1000  # MindSpore's shard_num limit


def _bad(path: str, what: str) -> MRMOpenError:
    return MRMOpenError(f"mindrecord file {path!r} is corrupt or not a mindrecord file: {what}")


def open_shard(path: str) -> tuple[BinaryIO, int]:
    """(the open file, its size); an msx error for a missing file or anything but a regular file."""
    try:
        return open_regular(path, "mindrecord file")
    except LoadError as exc:
        raise MRMOpenError(exc.message) from None
    except OSError as exc:
        raise MRMOpenError(f"cannot read mindrecord file {path!r}: {exc.strerror}") from None


def read_header(path: str) -> dict:
    """The JSON header of shard `path`, checked; a bad file is an `MRMOpenError` (a DatasetError) naming it."""
    f, size = open_shard(path)
    with f:
        return header_from(f, size, path)


def _int(value: Any, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def header_from(f: BinaryIO, size: int, path: str) -> dict:
    """The header of the shard open as `f` (`size` bytes): every field the reader uses checked for type and range,
    so a damaged or crafted header is refused here, before anything is read on its word."""
    try:
        head = f.read(8)
        if len(head) < 8:
            raise MRMOpenError(f"mindrecord file {path!r} is truncated: {len(head)} bytes, shorter than its header")
        (length,) = struct.unpack("<Q", head)
        if length > size - 8 or length > MAX_HEADER_SIZE:
            raise _bad(path, f"its header length {length} does not fit the file's {size} bytes")
        text = f.read(length)
    except OSError as exc:
        raise MRMOpenError(f"cannot read mindrecord file {path!r}: {exc.strerror}") from None
    if len(text) != length:
        raise _bad(path, "the file ends inside its header")
    try:
        header = json.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise _bad(path, f"its header is not JSON ({type(exc).__name__})") from None
    except RecursionError:  # crafted nesting: the JSON parser's recursion limit
        raise _bad(path, "its header nests too deeply") from None
    if not isinstance(header, dict):
        raise _bad(path, "its header is not a JSON object")
    missing = [k for k in ("header_size", "page_size", "page", "schema", "shard_addresses") if k not in header]
    if missing:
        raise _bad(path, f"its header lacks {missing}")
    header_size, page_size = header["header_size"], header["page_size"]
    if not _int(header_size, 8 + length, min(size, MAX_HEADER_SIZE)):
        raise _bad(path, f"header_size {header_size!r} is not an int between its header's {8 + length} bytes and "
                         f"the file's {size}")
    if not _int(page_size, 1, MAX_PAGE_SIZE):
        raise _bad(path, f"page_size {page_size!r} is not an int in [1, {MAX_PAGE_SIZE}]")
    _check_schema(header["schema"], path)
    _check_pages(header["page"], header_size, page_size, size, path)
    shards = header["shard_addresses"]
    if not isinstance(shards, list) or not 1 <= len(shards) <= MAX_SHARDS or \
            not all(isinstance(a, str) and os.path.basename(a) for a in shards):
        raise _bad(path, f"shard_addresses must be a list of 1 to {MAX_SHARDS} file names")
    return header


def _check_schema(schemas: Any, path: str) -> None:
    if not isinstance(schemas, list) or not schemas or not isinstance(schemas[0], dict):
        raise _bad(path, "its schema is not a list of schema objects")
    if len(schemas) != 1:
        raise MRMOpenError(f"mindrecord file {path!r} holds {len(schemas)} schemas; msx reads files of one schema "
                           f"(as FileWriter writes them)")
    fields, blobs = schemas[0].get("schema"), schemas[0].get("blob_fields", [])
    if not isinstance(fields, dict) or not 1 <= len(fields) <= MAX_FIELDS:
        raise _bad(path, f"its schema must map 1 to {MAX_FIELDS} field names to their types")
    for name, spec in fields.items():
        if not isinstance(spec, dict) or not isinstance(spec.get("type"), str) or spec["type"] not in TYPES:
            got = spec.get("type") if isinstance(spec, dict) else spec
            raise MRMOpenError(f"mindrecord file {path!r}: field {name!r} has type {got!r}, not one of "
                               f"{sorted(TYPES)}")
        if "shape" in spec:
            shape = spec["shape"]
            ok = isinstance(shape, list) and 1 <= len(shape) <= MAX_RANK and shape.count(-1) <= 1 and \
                all(d == -1 or _int(d, 1, MAX_PAGE_SIZE) for d in shape if not isinstance(d, bool)) and \
                not any(isinstance(d, bool) for d in shape) and TYPES[spec["type"]] is not None
            if not ok:
                raise _bad(path, f"field {name!r} has a bad shape {shape!r}")
    if not isinstance(blobs, list) or len(set(map(repr, blobs))) != len(blobs) or \
            not all(isinstance(b, str) and b in fields for b in blobs):
        raise _bad(path, "its blob_fields are not distinct fields of its schema")


def _check_pages(pages: Any, header_size: int, page_size: int, size: int, path: str) -> None:
    if not isinstance(pages, list) or len(pages) > 2 * ((size - header_size) // page_size + 1):
        raise _bad(path, "its page table is not a list of pages that fit the file")
    seen = set()
    for page in pages:
        if not isinstance(page, dict):
            raise _bad(path, "a page of its page table is not an object")
        pid, psize, kind, kid = (page.get(k) for k in ("page_id", "page_size", "page_type", "page_type_id"))
        if not (_int(pid, 0, size) and _int(psize, 0, page_size) and isinstance(kind, str) and kind in PAGE_TYPES
                and _int(kid, 0, size)):
            raise _bad(path, f"page {pid!r} has a bad id, size, type or type id")
        end = header_size + pid * page_size + psize
        if end > size:
            raise MRMOpenError(f"mindrecord file {path!r} is truncated: page {pid} would end at byte {end} of {size}")
        if (kind, kid) in seen or ("id", pid) in seen:
            raise _bad(path, f"page {pid} ({kind} {kid}) appears twice in its page table")
        seen |= {(kind, kid), ("id", pid)}


def _records(data: bytes, path: str, what: str) -> list[bytes]:
    out, at = [], 0
    while at < len(data):
        if at + 8 > len(data):
            raise _bad(path, f"a {what} page ends inside a record length")
        (n,) = struct.unpack_from("<Q", data, at)
        if at + 8 + n > len(data):
            raise _bad(path, f"a {what} record of {n} bytes runs past its page")
        out.append(data[at + 8:at + 8 + n])
        at += 8 + n
    return out


def shard_from(f: BinaryIO, size: int, path: str, header: dict) -> tuple[list[dict], list[bytes]]:
    raw: list[tuple[int, bytes]] = []
    blob: list[tuple[int, bytes]] = []
    for page in header["page"]:
        start = header["header_size"] + page["page_id"] * header["page_size"]
        if start + page["page_size"] > size:  # the file may have changed since its header was read
            raise MRMOpenError(f"mindrecord file {path!r} is truncated: page {page['page_id']} would end at byte "
                               f"{start + page['page_size']} of {size}")
        f.seek(start)
        data = f.read(page["page_size"])
        if len(data) != page["page_size"]:
            raise MRMOpenError(f"mindrecord file {path!r} is truncated inside page {page['page_id']}")
        (raw if page["page_type"] == "RAW_DATA" else blob).append((page["page_type_id"], data))
    fields = [_unpack(r, path) for _, d in sorted(raw, key=lambda p: p[0]) for r in _records(d, path, "raw")]
    blobs = [b for _, d in sorted(blob, key=lambda p: p[0]) for b in _records(d, path, "blob")]
    if header["schema"][0].get("blob_fields") and len(blobs) != len(fields):
        raise _bad(path, f"{len(fields)} rows of fields but {len(blobs)} blobs")
    return fields, blobs


def records_from(f: BinaryIO, size: int, path: str, header: dict) -> list[dict]:
    """Every row of the shard open as `f` as {field: its stored value} (raw fields as msgpack gave them, blob fields
    as bytes), in row order; `header`: its checked header."""
    blob_names = list(header["schema"][0].get("blob_fields", []))
    fields, blobs = shard_from(f, size, path, header)
    records = []
    for i, raw in enumerate(fields):
        values = dict(raw)
        if blob_names:
            values.update(split_blob(blobs[i], blob_names, path))
        records.append(values)
    return records


def rows_from(f: BinaryIO, size: int, path: str, header: dict, chosen: list[str]) -> list[tuple]:
    """The rows of the shard open as `f`, with the fields `chosen` (of its checked `header`), as MindDataset
    yields them."""
    schema = header["schema"][0]["schema"]
    unknown = [c for c in chosen if c not in schema]
    if unknown:
        raise MRMOpenError(f"mindrecord file {path!r} has no fields {unknown}; its schema has {sorted(schema)}")
    rows = []
    for values in records_from(f, size, path, header):
        missing = [c for c in chosen if c not in values]
        if missing:
            raise MRMOpenError(f"MindDataset: a row of {path!r} lacks the fields {missing}")
        rows.append(tuple(column(c, schema[c], values[c], path) for c in chosen))
    return rows


def _unpack(record: bytes, path: str) -> dict:
    try:  # msgpack's C unpacker bounds its own nesting and lengths (by the record's size)
        value = msgpack.unpackb(record, raw=False, strict_map_key=True)
    except Exception as exc:  # noqa: BLE001 — msgpack raises several types for bad bytes
        raise _bad(path, f"a row's fields are not msgpack ({type(exc).__name__})") from None
    if not isinstance(value, dict):
        raise _bad(path, "a row's fields are not a map")
    return value


def split_blob(blob: bytes, names: list[str], path: str) -> dict[str, bytes]:
    """A row's blob cut into its blob fields."""
    if len(names) == 1:
        return {names[0]: blob}
    out, at = {}, 0
    for name in names:
        if at + 8 > len(blob):
            raise MRMOpenError(f"mindrecord file {path!r}: a blob ends before its field {name!r}")
        (n,) = struct.unpack_from(">Q", blob, at)
        if at + 8 + n > len(blob):
            raise MRMOpenError(f"mindrecord file {path!r}: blob field {name!r} of {n} bytes runs past its row")
        out[name] = blob[at + 8:at + 8 + n]
        at += 8 + n
    return out


def column(name: str, spec: dict, value: Any, path: str) -> np.ndarray:
    """One field of a row as MindDataset yields it."""
    kind = spec["type"]
    if kind == "string":
        if not isinstance(value, str):
            raise MRMOpenError(f"mindrecord file {path!r}: field {name!r} should be a string, got "
                               f"{type(value).__name__}")
        return np.array(value)
    if kind == "bytes":
        if not isinstance(value, (bytes, bytearray)):
            raise _bad(path, f"field {name!r} should be bytes, got {type(value).__name__}")
        return np.array([bytes(value)])
    dtype = np.dtype(TYPES[kind])
    if "shape" in spec:
        if not isinstance(value, (bytes, bytearray)):
            raise MRMOpenError(f"mindrecord file {path!r}: array field {name!r} is not stored as bytes")
        if dtype.kind == "i":
            return _reshape(unpack_ints(value, name, path).astype(dtype), spec, name, path)
        if len(value) % dtype.itemsize:
            raise MRMOpenError(f"mindrecord file {path!r}: field {name!r} holds {len(value)} bytes, not a whole "
                               f"number of {kind}")
        return _reshape(np.frombuffer(value, dtype.newbyteorder("<")).astype(dtype), spec, name, path)
    if dtype.kind == "i":
        if not isinstance(value, int) or isinstance(value, bool) or \
                not np.iinfo(dtype).min <= value <= np.iinfo(dtype).max:
            raise _bad(path, f"field {name!r} should be an integer in the range of {kind}, got {value!r}")
        return np.array(value, dtype)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _bad(path, f"field {name!r} should be a {kind} number, got {value!r}")
    try:
        number = float(value)
    except OverflowError:
        raise _bad(path, f"field {name!r} holds an integer too large for {kind}") from None
    with np.errstate(over="ignore"):  # a float64 beyond float32's range reads as inf
        return np.array(number, dtype)


def _reshape(array: np.ndarray, spec: dict, name: str, path: str) -> np.ndarray:
    try:
        return array.reshape(spec["shape"])
    except ValueError:
        raise MRMOpenError(f"mindrecord file {path!r}: field {name!r} holds {array.size} values, which do not fit "
                           f"its shape {spec['shape']}") from None


_WIDTHS = (1, 2, 4, 8)
_INT = {1: "<i1", 2: "<i2", 4: "<i4", 8: "<i8"}


def unpack_ints(data: bytes, name: str, path: str) -> np.ndarray:
    """An int32/int64 array field from its packed bytes (see the module docstring)."""
    if len(data) < 4:
        raise MRMOpenError(f"mindrecord file {path!r}: integer field {name!r} is shorter than its count")
    (count,) = struct.unpack_from(">I", data, 0)
    codes_end = 4 + (count + 3) // 4
    if codes_end > len(data):
        raise MRMOpenError(f"mindrecord file {path!r}: integer field {name!r} of {count} values is truncated")
    codes = np.frombuffer(data, np.uint8, count=codes_end - 4, offset=4)
    widths = np.array(_WIDTHS)[((codes[:, None] >> np.array([6, 4, 2, 0])) & 3).reshape(-1)[:count]]
    if codes_end + int(widths.sum()) != len(data):
        raise MRMOpenError(f"mindrecord file {path!r}: integer field {name!r} holds {len(data)} bytes, not the "
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
