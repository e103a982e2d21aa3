"""safetensors blobs <-> numpy arrays, with msx's error types.

safetensors is a plain, non-executable tensor format (a JSON header plus raw
little-endian bytes) whose parser validates every offset, so it is safe to
read from an untrusted source. Used for MSXIR weights and constants and for
checkpoints. bfloat16 (which numpy lacks natively) round-trips through
ml_dtypes as safetensors' "BF16".
"""
from __future__ import annotations

import json

import ml_dtypes
import numpy as np
import safetensors
import safetensors.numpy

from .errors import LoadError, MalformedFileError, TruncatedFileError

DTYPES: dict[str, np.dtype] = {
    "BOOL": np.dtype(np.bool_), "U8": np.dtype(np.uint8), "I8": np.dtype(np.int8), "U16": np.dtype(np.uint16),
    "I16": np.dtype(np.int16), "U32": np.dtype(np.uint32), "I32": np.dtype(np.int32), "U64": np.dtype(np.uint64),
    "I64": np.dtype(np.int64), "F16": np.dtype(np.float16), "BF16": np.dtype(ml_dtypes.bfloat16),
    "F32": np.dtype(np.float32), "F64": np.dtype(np.float64), "C64": np.dtype(np.complex64),
}
SUPPORTED = frozenset(DTYPES.values())


def dump(tensors: dict[str, np.ndarray], metadata: dict[str, str] | None = None) -> bytes:
    """A safetensors blob of `tensors`; raises TypeError for a dtype safetensors cannot hold."""
    arrays = {}
    for name, value in tensors.items():
        arr = np.asarray(value, order="C")  # (np.ascontiguousarray would turn 0-d into 1-d)
        if arr.dtype not in SUPPORTED:
            raise TypeError(f"tensor {name!r} has dtype {arr.dtype}, which safetensors cannot store "
                            f"(supported: {', '.join(sorted(d.name for d in SUPPORTED))})")
        arrays[name] = arr
    return safetensors.numpy.save(arrays, metadata=metadata)


def parse(blob: bytes, what: str) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """(arrays by name, metadata) from a safetensors blob; `what` names it in errors."""
    _check_length(blob, what)
    try:
        flat = safetensors.deserialize(bytes(blob))
    except safetensors.SafetensorError as exc:
        raise MalformedFileError(f"{what} is not a valid safetensors blob: {exc}") from None
    arrays = {}
    for name, info in flat:
        dtype = DTYPES.get(info["dtype"])
        if dtype is None:
            raise MalformedFileError(f"{what}: tensor {name!r} has dtype {info['dtype']}, which msx does not read")
        shape = tuple(info["shape"])
        if len(info["data"]) != dtype.itemsize * int(np.prod(shape, dtype=np.int64)):
            raise MalformedFileError(f"{what}: tensor {name!r} is {info['dtype']}{list(shape)}, which needs "
                                     f"{dtype.itemsize * int(np.prod(shape))} bytes, but it has {len(info['data'])}")
        arrays[name] = np.frombuffer(info["data"], dtype=dtype).reshape(shape)
    return arrays, _header(blob).get("__metadata__") or {}


def _header(blob: bytes) -> dict:
    n = int.from_bytes(blob[:8], "little")
    try:
        header = json.loads(blob[8:8 + n])
    except (ValueError, RecursionError) as exc:
        raise MalformedFileError(f"safetensors header is not valid JSON: {exc}") from None
    if not isinstance(header, dict):
        raise MalformedFileError("safetensors header is not a JSON object")
    return header


def _check_length(blob: bytes, what: str) -> None:
    """Tell a cut-off blob (TruncatedFileError) from other damage before safetensors' generic message."""
    if len(blob) < 8:
        raise TruncatedFileError(f"{what} is truncated: {len(blob)} bytes, less than the 8-byte safetensors header")
    if len(blob) > 8 and blob[8:9] != b"{":
        pickle = " (it looks like a Python pickle; msx never unpickles)" if blob[:1] == b"\x80" else ""
        raise MalformedFileError(f"{what} is not a safetensors blob: its header is not JSON{pickle}")
    n = int.from_bytes(blob[:8], "little")
    if len(blob) < 8 + n:
        raise TruncatedFileError(f"{what} is truncated: its header says {n} header bytes, but only "
                                 f"{len(blob) - 8} follow")
    try:
        header = _header(blob)
        ends = [int(v["data_offsets"][1]) for k, v in header.items() if k != "__metadata__"]
    except (LoadError, KeyError, IndexError, TypeError, ValueError):
        return  # not ours to explain: safetensors reports the malformed header
    if len(blob) < 8 + n + max(ends, default=0):
        raise TruncatedFileError(f"{what} is truncated: it has {len(blob)} bytes, its header describes "
                                 f"{8 + n + max(ends)}")
