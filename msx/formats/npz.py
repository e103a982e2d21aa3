"""NPZ (`.npz`): a Cell's Parameters as numpy's zip of `.npy` arrays, keyed by `Parameter.name` (weights only).

`msx.export(net, file_name="w", file_format="NPZ")` writes what `np.savez`
writes (uncompressed members `NAME.npy`, no pickled objects), atomically; no
graph is captured, so example inputs may be given (MindSpore's export call
shape) but are not used. `msx.load("w.npz")` returns `{name: Parameter}`
(`load_param_into_net(net, ...)` loads it), and it reads `np.savez` /
`np.savez_compressed` files from anywhere too.

The file is untrusted: no pickle (object dtypes are refused before numpy
would unpickle them), the zip's declared sizes are checked against the
machine's memory before a byte is inflated, each member's `.npy` header
against the bytes its shape and dtype need, and the CRC-32 of every member is
verified by reading it to its end. Any defect is a `LoadError` subclass.
"""
from __future__ import annotations

import io
import math
import struct
import zipfile
from typing import Any

import numpy as np

from .. import sizes
from ..atomic import write_atomic
from ..errors import BadMagicError, ExportError, MalformedFileError, MsxError, TruncatedFileError
from ..fileread import open_regular, read_exact
from ..tensor import Parameter, Tensor
from .registry import ExportRequest, register_format
from .table import table

MAGIC = (b"PK\x03\x04", b"PK\x05\x06")  # a zip's first local header, or the end record of an empty zip
KINDS = "biufc"  # bool, signed and unsigned ints, floats, complex: what numpy stores without pickle
MAX_HEADER = 10_000  # bytes of one .npy header (numpy's own default limit)
LOCAL = struct.Struct("<26xHH")  # a zip local file header: its name and extra-field lengths (30 bytes in all)


def export_npz(path: str, request: ExportRequest) -> None:
    """`msx.export(net, file_name=..., file_format="NPZ")`: `net`'s Parameters by name, no capture."""
    net = request.net
    if not hasattr(net, "parameters_and_names"):
        raise ExportError(f"export: file_format='NPZ' writes a Cell's Parameters; got {type(net).__name__}")
    arrays: dict[str, np.ndarray] = {}
    for _, p in net.parameters_and_names():
        if p.name in arrays:
            raise ExportError(f"export: two Parameters of {type(net).__name__} are named {p.name!r}; NPZ keys "
                              f"entries by name")
        array = np.asarray(p._data)
        if array.dtype.kind not in KINDS or array.dtype.names is not None:
            raise ExportError(f"export: Parameter {p.name!r} is {array.dtype.name}, which .npz cannot hold without "
                              f"a custom dtype; save it with msx.save_checkpoint(..., format='msx')")
        arrays[p.name] = array
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as zf:
        for name, array in arrays.items():
            with zf.open(f"{name}.npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, array, allow_pickle=False)
    write_atomic(path, [buffer.getvalue()])


def load_npz(path: str) -> dict[str, Parameter]:
    """`{name: Parameter}` from an `.npz` file, in the file's order, after every check (module docstring)."""
    f, size = open_regular(path, "NPZ file")
    with f:
        if size == 0:
            raise TruncatedFileError(f"{path} is empty")
        blob = read_exact(f, size, path, "the NPZ file")
    if not blob.startswith(MAGIC):
        raise BadMagicError(f"{path} is not an NPZ (zip) file: it starts with {blob[:4]!r}, a zip starts with "
                            f"{MAGIC[0]!r}")
    try:
        return _read(path, blob)
    except MsxError:
        raise
    except Exception as exc:  # zipfile's inflaters and parsers raise a dozen types (BadZipFile, zlib, EOF, ...)
        raise MalformedFileError(f"{path}: damaged NPZ file: {type(exc).__name__}: {str(exc)[:200]}") from None


def _read(path: str, blob: bytes) -> dict[str, Parameter]:
    zf = zipfile.ZipFile(io.BytesIO(blob))
    members = zf.infolist()
    declared = sum(info.file_size for info in members)
    limit = sizes.device_memory("cpu")
    if declared > limit:
        raise MalformedFileError(f"{path}: its members declare {declared} bytes, more than this machine's {limit} "
                                 f"bytes of memory")
    _check_layout(path, blob, members, zf.start_dir)
    params: dict[str, Parameter] = {}
    for info in members:
        name = info.filename[:-4] if info.filename.endswith(".npy") else None
        if not name or info.is_dir():
            raise MalformedFileError(f"{path}: member {info.filename[:80]!r} is not a NAME.npy array")
        if name in params:
            raise MalformedFileError(f"{path}: two members are named {name[:80]!r}")
        with zf.open(info) as member:
            array = _array(path, name, member, info.file_size)
        params[name] = Parameter(Tensor(array), name=name)
    return params


def _check_layout(path: str, blob: bytes, members: list[zipfile.ZipInfo], start_dir: int) -> None:
    """The members must tile the file from byte 0 to the central directory, each local header where the directory
    says: a directory entry damaged so that it skips a member (or points into another) is refused, not read as a
    shorter file."""
    at = 0
    for info in sorted(members, key=lambda i: i.header_offset):
        if info.header_offset != at or at + LOCAL.size > len(blob):
            raise MalformedFileError(f"{path}: the zip's directory does not match its members (member "
                                     f"{info.filename[:80]!r} at byte {info.header_offset}, expected {at})")
        name_len, extra_len = LOCAL.unpack_from(blob, at)
        end = at + 30 + name_len + extra_len + info.compress_size
        if info.flag_bits & 0x08:  # a data descriptor follows the data (a zip written to a stream): CRC, sizes
            lengths = (16, 24) if blob[end:end + 4] == b"PK\x07\x08" else (12, 20)  # signed or not; 32/64-bit
            end += next((n for n in lengths if blob[end + n:end + n + 2] == b"PK"), lengths[0])
        at = end
    if at != start_dir:
        raise MalformedFileError(f"{path}: the zip's members end at byte {at}, its central directory starts at "
                                 f"{start_dir}")


def _array(path: str, name: str, member: Any, size: int) -> np.ndarray:
    """One `.npy` member: its header checked (no object dtype, the byte count its shape needs), then its data."""
    where = f"{path}: member {name[:80]!r}"
    version = np.lib.format.read_magic(member)
    if version not in ((1, 0), (2, 0), (3, 0)):
        raise MalformedFileError(f"{where}: unknown .npy format version {version}")
    header = {(1, 0): np.lib.format.read_array_header_1_0}.get(version, np.lib.format.read_array_header_2_0)
    shape, fortran, dtype = header(member, max_header_size=MAX_HEADER)
    if dtype.kind not in KINDS or dtype.names is not None or dtype.subdtype is not None:
        raise MalformedFileError(f"{where} has dtype {str(dtype)[:60]}; msx reads only bool, int, uint, float and "
                                 f"complex arrays (an object array would need pickle, which msx never uses)")
    need = math.prod(shape) * dtype.itemsize
    if need != size - member.tell():
        raise MalformedFileError(f"{where}: its header says {dtype.name}{tuple(shape)} ({need} bytes), the member "
                                 f"holds {size - member.tell()} bytes of data")
    data = member.read(need)
    if len(data) != need or member.read(1):  # reading to the end checks the member's CRC-32
        raise TruncatedFileError(f"{where} is truncated")
    array = np.frombuffer(data, dtype).reshape(shape, order="F" if fortran else "C")
    return np.ascontiguousarray(array.astype(dtype.newbyteorder("="), copy=False))


def inspect_npz(path: str) -> str:
    """The tensor table (name, dtype, shape, bytes) of an `.npz` file, after every check `load` makes."""
    params = load_npz(path)
    rows = [(name, p._data.dtype.name, list(p.shape), p._data.nbytes) for name, p in params.items()]
    return "\n".join([f"NPZ weights file {path}", f"{len(rows)} arrays, {sum(r[3] for r in rows)} bytes", "",
                      table(rows, ("name", "dtype", "shape", "bytes"))])


def _sniff(path: str, head: bytes) -> bool:
    return head.startswith(MAGIC)


register_format("NPZ", suffixes=".npz", sniff=_sniff, export=export_npz, load=load_npz, inspect=inspect_npz,
                description="a Cell's Parameters as numpy's .npz (weights only, no pickle)")

__all__ = ["export_npz", "load_npz", "inspect_npz"]
