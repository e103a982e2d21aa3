"""MindSpore's own checkpoint formats: the protobuf `.ckpt` and the safetensors variant tagged `ms`.

The protobuf file is what `mindspore.save_checkpoint(..., format="ckpt")`
writes: a concatenation of serialized `Checkpoint` messages (MindSpore's
`checkpoint.proto`), one per entry or per 512 MiB slice of a large entry,

    Checkpoint { repeated Value value = 1; }
    Value { required string tag = 1; oneof value { TensorProto tensor = 2; MapTensorProto maptensor = 3; } }
    TensorProto { repeated int64 dims = 1; required string tensor_type = 2; required bytes tensor_content = 3; }

optionally followed by MindSpore's `crc_check` trailer: the 7 bytes
`crc_num` and the CRC-32 of everything before it as 10 big-endian bytes.
Entries are MindSpore dtype names ("Float32", "BFloat16", ...) with raw
little-endian bytes; a string from `append_dict` is tensor_type "str",
dims [0] and the UTF-32-LE bytes numpy gives `np.array(text)`.

The safetensors variant is a plain safetensors file whose metadata is
`{"format": "ms"}`, plus `crc_num` (CRC-32 over each name and its bytes, in
sorted-name order) with `crc_check` and `remove_redundancy` when given.

Files are untrusted input: the records are framed here one by one (so no
multi-GiB file becomes one protobuf message, and an error names the record's
offset), each `Value` is parsed by protobuf, and every field is checked —
dtype name, rank, dims, that the bytes are exactly what the dims need — before
numpy sees the bytes. A CRC present in the file is always verified. The
protobuf classes are built from a descriptor on first use, so `import msx`
does not import protobuf.
"""
from __future__ import annotations

import functools
import math
import os
import warnings
import zlib
from typing import Iterator

import ml_dtypes
import numpy as np
from google.protobuf.message import DecodeError

from . import tensorfile
from .errors import ChecksumError, MalformedFileError, TruncatedFileError

# MindSpore's tensor_type names (mindspore.train.serialization.tensor_to_ms_type) <-> numpy
DTYPES: dict[str, np.dtype] = {
    "Int8": np.dtype(np.int8), "UInt8": np.dtype(np.uint8), "Int16": np.dtype(np.int16),
    "UInt16": np.dtype(np.uint16), "Int32": np.dtype(np.int32), "UInt32": np.dtype(np.uint32),
    "Int64": np.dtype(np.int64), "UInt64": np.dtype(np.uint64), "Float16": np.dtype(np.float16),
    "Float32": np.dtype(np.float32), "Float64": np.dtype(np.float64), "Bool": np.dtype(np.bool_),
    "BFloat16": np.dtype(ml_dtypes.bfloat16),
}
NAMES = {v: k for k, v in DTYPES.items()}
STR = "str"
SAFETENSORS_TAG = "ms"
CRC_MARK = b"crc_num"
CRC_TRAILER = len(CRC_MARK) + 10
SLICE_BYTES = 512 * 1024 * 1024  # MindSpore's slice size: an entry above it is written as several records
MAX_RANK = 32
SAFETENSORS_KEYS = frozenset({"format", "crc_num", "remove_redundancy"})  # MindSpore's metadata keys
_RECORD_KEY = 0x0A  # Checkpoint.value: field 1, wire type 2 (length-delimited)


@functools.lru_cache(maxsize=None)
def _value_class():
    """The `Checkpoint.Value` message class, built from a descriptor in a private pool.

    Imported here, not at module level, so that `import msx` does not pay for protobuf (issue 33); the
    package name is msx's own so the classes never clash with MindSpore's or another library's.
    """
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory  # on first use: descriptor_pb2 is 1.4 ms

    F = descriptor_pb2.FieldDescriptorProto
    pkg = "msx_ms_checkpoint"
    fdp = descriptor_pb2.FileDescriptorProto(name="msx_ms_checkpoint.proto", package=pkg, syntax="proto2")
    tensor = fdp.message_type.add(name="TensorProto")
    tensor.field.add(name="dims", number=1, label=F.LABEL_REPEATED, type=F.TYPE_INT64)
    tensor.field.add(name="tensor_type", number=2, label=F.LABEL_REQUIRED, type=F.TYPE_STRING)
    tensor.field.add(name="tensor_content", number=3, label=F.LABEL_REQUIRED, type=F.TYPE_BYTES)
    fdp.message_type.add(name="MapTensorProto").field.add(
        name="tensor", number=1, label=F.LABEL_REPEATED, type=F.TYPE_MESSAGE, type_name=f".{pkg}.TensorProto")
    value = fdp.message_type.add(name="Value")
    value.oneof_decl.add(name="value")
    value.field.add(name="tag", number=1, label=F.LABEL_REQUIRED, type=F.TYPE_STRING)
    value.field.add(name="tensor", number=2, label=F.LABEL_OPTIONAL, type=F.TYPE_MESSAGE,
                    type_name=f".{pkg}.TensorProto", oneof_index=0)
    value.field.add(name="maptensor", number=3, label=F.LABEL_OPTIONAL, type=F.TYPE_MESSAGE,
                    type_name=f".{pkg}.MapTensorProto", oneof_index=0)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{pkg}.Value"))


# ---------------------------------------------------------------- protobuf .ckpt: write
def dump_ckpt(entries: dict[str, np.ndarray | str], crc_check: bool = False) -> Iterator[bytes]:
    """The chunks of a MindSpore protobuf checkpoint of `entries` (arrays, or str for append_dict strings).

    Raises TypeError at once (not when the chunks are written) for a dtype MindSpore's checkpoint cannot hold.
    """
    for name, value in entries.items():
        if not isinstance(value, str) and np.asarray(value).dtype not in NAMES:
            raise TypeError(f"entry {name!r} has dtype {np.asarray(value).dtype}, which MindSpore's checkpoint cannot "
                            f"store (it stores {', '.join(sorted(DTYPES))} and str); save with format='msx', which "
                            f"stores it losslessly")
    return _chunks(entries, crc_check)


def _chunks(entries: dict[str, np.ndarray | str], crc_check: bool) -> Iterator[bytes]:
    Value, crc = _value_class(), 0
    for name, value in entries.items():
        for record in _records(Value, name, value):
            crc = zlib.crc32(record, crc)
            yield record
    if crc_check:
        yield CRC_MARK + crc.to_bytes(10, "big")


def _records(Value, name: str, value: np.ndarray | str) -> Iterator[bytes]:
    """One serialized `Checkpoint` per slice of the entry's bytes (a single one below `SLICE_BYTES`)."""
    if isinstance(value, str):
        dims, kind, raw = [0], STR, np.array(value).tobytes()
    else:
        arr = np.asarray(value, order="C")  # (np.ascontiguousarray would turn 0-d into 1-d)
        dims, kind, raw = list(arr.shape), NAMES[arr.dtype], arr.tobytes()
    for start in range(0, max(len(raw), 1), SLICE_BYTES):
        v = Value(tag=name)
        v.tensor.dims.extend(dims)
        v.tensor.tensor_type = kind
        v.tensor.tensor_content = raw[start:start + SLICE_BYTES]
        body = v.SerializeToString()
        yield bytes([_RECORD_KEY]) + _varint(len(body)) + body


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


# ---------------------------------------------------------------- protobuf .ckpt: read
def is_ckpt(head: bytes) -> bool:
    """Whether a file starting with `head` is framed as a MindSpore protobuf checkpoint (its first record)."""
    return head[:1] == bytes([_RECORD_KEY])


def looks_like_ckpt(head: bytes) -> bool:
    """Whether `head` (a file's first bytes, 4 KiB say) is the start of a protobuf checkpoint, not a MindIR.

    Both are protobuf and start with 0x0a; a checkpoint's first record is
    `Checkpoint.value` = Value {tag = 1 (0x0a, a name), tensor = 2 (0x12) or
    maptensor = 3 (0x1a)}, inside the record's length. A MindIR ModelProto's
    field 1 is its ir_version text, which never holds that structure.
    """
    if not is_ckpt(head):
        return False
    try:
        record, pos = _read_varint(memoryview(head), 1, "")
        if head[pos:pos + 1] != b"\x0a":
            return False
        tag, start = _read_varint(memoryview(head), pos + 1, "")
    except (TruncatedFileError, MalformedFileError):
        return False
    end = start + tag
    return 0 < tag and end - pos < record and head[end:end + 1] in (b"\x12", b"\x1a")


def parse_ckpt(blob: bytes | memoryview, path: str, crc_check: bool = False) -> tuple[dict[str, np.ndarray | str],
                                                                                       bool]:
    """({name: array or str} in file order, whether the file carried a CRC) from a protobuf checkpoint.

    Every defect raises a `LoadError` subclass naming `path`, the entry or the byte offset, and the field.
    """
    view = memoryview(blob)
    has_crc = len(view) >= CRC_TRAILER and bytes(view[-CRC_TRAILER:-10]) == CRC_MARK
    if has_crc:
        stored = int.from_bytes(view[-10:], "big")
        view = view[:-CRC_TRAILER]
        if stored != zlib.crc32(view):
            raise ChecksumError(f"{path}: the checkpoint does not match its CRC-32 (crc_num); the file is corrupted")
    elif crc_check:
        warnings.warn(f"load_checkpoint: {path} has no CRC (it was not saved with crc_check=True); loading it "
                      f"unchecked, as MindSpore does", stacklevel=4)
    Value = _value_class()
    entries: dict[str, np.ndarray | str] = {}
    pending: list = []  # the slices of the entry being read
    for offset, body in _frames(view, path):
        record = _parse_value(Value, body, path, offset)
        if pending and record.tag != pending[0][1].tag:
            _finish(entries, pending, path)
        pending.append((offset, record))
    if pending:
        _finish(entries, pending, path)
    if not entries:
        raise MalformedFileError(f"{path}: the checkpoint has no entries")
    return entries, has_crc


def _frames(view: memoryview, path: str) -> Iterator[tuple[int, memoryview]]:
    """(offset, bytes) of each `Checkpoint.value` record; anything else at the top level is damage."""
    pos, end = 0, len(view)
    while pos < end:
        if view[pos] != _RECORD_KEY:
            raise MalformedFileError(f"{path}: byte {pos} is 0x{view[pos]:02x}, not the start of a checkpoint record "
                                     f"(0x0a); the file is damaged or not a MindSpore checkpoint")
        length, start = _read_varint(view, pos + 1, path)
        if start + length > end:
            raise TruncatedFileError(f"{path} is truncated: the record at byte {pos} needs {length} bytes, "
                                     f"{end - start} follow")
        yield pos, view[start:start + length]
        pos = start + length


def _read_varint(view: memoryview, pos: int, path: str) -> tuple[int, int]:
    value = 0
    for i in range(10):
        if pos + i >= len(view):
            raise TruncatedFileError(f"{path} is truncated in a record length at byte {pos}")
        byte = view[pos + i]
        value |= (byte & 0x7F) << (7 * i)
        if not byte & 0x80:
            return value, pos + i + 1
    raise MalformedFileError(f"{path}: the record length at byte {pos} is not a valid varint")


def _parse_value(Value, body: memoryview, path: str, offset: int):
    try:
        record = Value.FromString(bytes(body))
        tag = record.tag
    except (DecodeError, UnicodeDecodeError, ValueError, RuntimeError) as exc:
        raise MalformedFileError(f"{path}: the record at byte {offset} is not a valid checkpoint Value "
                                 f"({str(exc)[:120]})") from None
    if not isinstance(tag, str) or not tag:  # (protobuf hands invalid UTF-8 in a proto2 string over as bytes)
        raise MalformedFileError(f"{path}: the record at byte {offset} has {'an empty' if not tag else 'a non-UTF-8'} "
                                 f"tag (entry name)")
    if record.HasField("maptensor"):
        raise MalformedFileError(f"{path}: entry {tag[:80]!r} is a MapParameter (a hash-table embedding), which msx "
                                 f"does not read")
    if not record.HasField("tensor"):
        raise MalformedFileError(f"{path}: entry {tag[:80]!r} (byte {offset}) has no tensor")
    return record


def _finish(entries: dict, pending: list, path: str) -> None:
    """Join one entry's slices (consecutive records with its tag) into its array or string; check every field."""
    offset, first = pending[0]
    name, t = first.tag, first.tensor
    where = f"{path}: entry {name[:80]!r}"
    pending_copy = list(pending)
    pending.clear()
    if name in entries:
        raise MalformedFileError(f"{where} appears twice (again at byte {offset})")
    kind, dims = t.tensor_type, [int(d) for d in t.dims]
    if not isinstance(kind, str):
        raise MalformedFileError(f"{where}: its tensor_type is not UTF-8 text")
    for off, other in pending_copy[1:]:
        if other.tensor.tensor_type != kind or list(other.tensor.dims) != dims:
            raise MalformedFileError(f"{where}: its slice at byte {off} has tensor_type/dims "
                                     f"{other.tensor.tensor_type[:20]!r} {list(other.tensor.dims)[:MAX_RANK]}, the "
                                     f"first slice {kind[:20]!r} {dims[:MAX_RANK]}")
    raw = b"".join(r.tensor.tensor_content for _, r in pending_copy)
    if kind == STR:
        entries[name] = _text(raw, dims, where)
        return
    dtype = DTYPES.get(kind)
    if dtype is None:
        hint = " (MindSpore's packed int4, qint4x2)" if kind == "Int4" else ""
        raise MalformedFileError(f"{where}: tensor_type {kind[:40]!r}{hint} is not one msx reads (it reads "
                                 f"{', '.join(sorted(DTYPES))} and str)")
    if len(dims) > MAX_RANK or any(d < 0 for d in dims):
        raise MalformedFileError(f"{where}: dims {dims[:MAX_RANK + 1]} are not a valid shape (rank at most "
                                 f"{MAX_RANK}, no negative dims)")
    if dims == [0] and len(raw) == dtype.itemsize:
        dims = []  # MindSpore's loader reads dims [0] as a scalar
    need = math.prod(dims) * dtype.itemsize
    if need != len(raw):
        raise MalformedFileError(f"{where}: tensor_content has {len(raw)} bytes, but {kind}{dims} needs {need}")
    arr = np.frombuffer(raw, dtype=dtype).reshape(dims)
    if dtype == np.bool_ and arr.view(np.uint8).max(initial=0) > 1:
        raise MalformedFileError(f"{where}: a Bool tensor holds bytes other than 0 and 1")
    entries[name] = arr


def _text(raw: bytes, dims: list[int], where: str) -> str:
    """An append_dict string: numpy's UTF-32-LE bytes of `np.array(text)`, trailing NULs dropped as numpy does."""
    if dims != [0] or len(raw) % 4:
        raise MalformedFileError(f"{where}: a str entry must have dims [0] and a multiple of 4 bytes, got dims "
                                 f"{dims[:MAX_RANK]} and {len(raw)} bytes")
    try:
        return raw.decode("utf-32-le").rstrip("\x00")
    except UnicodeDecodeError:
        raise MalformedFileError(f"{where}: the str entry is not valid UTF-32 text") from None


def check_memory(path: str, size: int) -> None:
    """Refuse a protobuf checkpoint larger than the free memory before reading it (MindSpore's check).

    The records are read whole into memory to be parsed; a file that cannot fit is a clear error at once
    instead of a `MemoryError` (or the OOM killer) halfway through.
    """
    try:
        free = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, OSError, ValueError):  # not POSIX, or the system does not say
        return
    if 0 < free < size:
        raise MalformedFileError(f"{path}: the protobuf checkpoint is {size} bytes, more than the {free} bytes of free "
                                 f"memory it must be read into; load it on a machine with more memory, or convert it "
                                 f"to safetensors (ms.ckpt_to_safetensors) there")


# ---------------------------------------------------------------- safetensors tagged "ms"
def dump_safetensors(arrays: dict[str, np.ndarray], crc_check: bool = False,
                     remove_redundancy: bool | None = None) -> bytes:
    """A safetensors blob as MindSpore writes it: metadata {"format": "ms"} (+ crc_num, remove_redundancy)."""
    metadata = {"format": SAFETENSORS_TAG}
    if remove_redundancy is not None:
        metadata["remove_redundancy"] = str(bool(remove_redundancy))
    if crc_check:
        metadata["crc_num"] = str(_safetensors_crc(arrays))
    return tensorfile.dump(arrays, metadata if arrays else None)


def _safetensors_crc(arrays: dict[str, np.ndarray]) -> int:
    crc = 0
    for name in sorted(arrays):
        crc = zlib.crc32(name.encode(), crc)
        crc = zlib.crc32(np.ascontiguousarray(arrays[name]).tobytes(), crc)
    return crc


def check_safetensors(arrays: dict[str, np.ndarray], metadata: dict[str, str], path: str,
                      crc_check: bool = False) -> list[str]:
    """Validate a safetensors file tagged `ms` (its metadata keys, its CRC when present); its names, sorted.

    MindSpore reads these files in sorted-name order, so msx returns that order too.
    """
    for key, value in metadata.items():
        if key in arrays and value == "Int4":
            raise MalformedFileError(f"{path}: tensor {key[:80]!r} is MindSpore's packed int4 (qint4x2), which msx "
                                     f"does not read")
        if key == "crc_num" and not (isinstance(value, str) and value.isdigit() and len(value) <= 10):
            raise MalformedFileError(f"{path}: metadata crc_num {str(value)[:20]!r} is not a CRC-32 number")
        if key == "remove_redundancy" and value not in ("True", "False"):
            raise MalformedFileError(f"{path}: metadata remove_redundancy {str(value)[:20]!r} is not True or False")
        if key not in SAFETENSORS_KEYS:
            raise MalformedFileError(f"{path}: a MindSpore safetensors file (tag 'ms') has the unknown metadata key "
                                     f"{str(key)[:80]!r}")
    if "crc_num" in metadata:
        if int(metadata["crc_num"]) != _safetensors_crc(arrays):
            raise ChecksumError(f"{path}: the file does not match its CRC-32 (metadata crc_num); it is corrupted")
    elif crc_check:
        warnings.warn(f"load_checkpoint: {path} has no CRC (it was not saved with crc_check=True); loading it "
                      f"unchecked, as MindSpore does", stacklevel=4)
    return sorted(arrays)
