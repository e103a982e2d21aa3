"""Decoding MindIR protobuf values (tensors, attributes) into numpy and Python values, validating every field.

A MindIR file is untrusted input: every tensor's dtype, dims and byte count
are checked before numpy sees the bytes, and attribute values are decoded
by an explicit table of kinds — nothing a file names is imported or run.
"""
from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from ..errors import MalformedFileError
from . import mind_ir_pb2 as pb

MAX_TENSOR_ELEMENTS = 1 << 31
MAX_RANK = 32
MAX_NESTING = 32

A = pb.AttributeProto
T = pb.TensorProto

# TensorProto.DataType -> numpy dtype
TENSOR_DTYPES = {T.FLOAT: np.dtype(np.float32), T.UINT8: np.dtype(np.uint8), T.INT8: np.dtype(np.int8),
                 T.UINT16: np.dtype(np.uint16), T.INT16: np.dtype(np.int16), T.INT32: np.dtype(np.int32),
                 T.INT64: np.dtype(np.int64), T.BOOL: np.dtype(np.bool_), T.FLOAT16: np.dtype(np.float16),
                 T.DOUBLE: np.dtype(np.float64), T.FLOAT64: np.dtype(np.float64), T.UINT32: np.dtype(np.uint32),
                 T.UINT64: np.dtype(np.uint64), T.COMPLEX64: np.dtype(np.complex64),
                 T.COMPLEX128: np.dtype(np.complex128), T.BFLOAT16: np.dtype(ml_dtypes.bfloat16)}
DTYPE_CODES = {v: k for k, v in TENSOR_DTYPES.items() if k != T.DOUBLE}  # numpy dtype -> code (float64: FLOAT64)

MONAD_KINDS = (A.UMONAD, A.IOMONAD)


class Monad:
    """MindSpore's side-effect token (UMonad / IOMonad): ordering only, no data."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "U"


MONAD = Monad()


def dtype_of(code: int, where: str) -> np.dtype:
    dtype = TENSOR_DTYPES.get(code)
    if dtype is None:
        raise MalformedFileError(f"{where}: tensor data_type {code} is not one msx reads")
    return dtype


def dims_of(t: pb.TensorProto, where: str) -> tuple[int, ...]:
    dims = tuple(int(d) for d in t.dims)
    if len(dims) > MAX_RANK:
        raise MalformedFileError(f"{where}: rank {len(dims)} is more than {MAX_RANK}")
    if any(d < 0 for d in dims):
        raise MalformedFileError(f"{where}: dims {list(dims)} are not static (dynamic-shape MindIR is not supported)")
    if int(np.prod(dims, dtype=object)) > MAX_TENSOR_ELEMENTS:
        raise MalformedFileError(f"{where}: a tensor of shape {list(dims)} is larger than msx accepts")
    return dims


def tensor_value(t: pb.TensorProto, where: str) -> np.ndarray:
    """The array a TensorProto holds (raw little-endian bytes or a typed repeated field), checked for size."""
    if t.HasField("external_data"):
        raise MalformedFileError(f"{where}: tensor data in an external file ({t.external_data.location!r}) is not "
                                 f"read by msx; re-export the model with its weights inside the .mindir file")
    if t.compression_type not in (0,) or len(t.quant_params):
        raise MalformedFileError(f"{where}: compressed or quantized tensors are not supported")
    dtype, dims = dtype_of(t.data_type, where), dims_of(t, where)
    count = int(np.prod(dims, dtype=np.int64))
    if t.HasField("raw_data"):
        expected = count * dtype.itemsize
        if len(t.raw_data) != expected:
            raise MalformedFileError(f"{where}: tensor {list(dims)} {dtype.name} needs {expected} bytes of data, the "
                                     f"file has {len(t.raw_data)}")
        return np.frombuffer(t.raw_data, dtype=dtype.newbyteorder("<")).astype(dtype).reshape(dims)
    for field, kind in (("float_data", np.float32), ("double_data", np.float64), ("int32_data", np.int32),
                        ("int64_data", np.int64), ("uint64_data", np.uint64)):
        values = getattr(t, field)
        if len(values):
            if len(values) != count:
                raise MalformedFileError(f"{where}: tensor {list(dims)} has {len(values)} values in {field}, needs "
                                         f"{count}")
            return np.asarray(values, dtype=kind).astype(dtype).reshape(dims)
    if count:
        raise MalformedFileError(f"{where}: tensor {list(dims)} {dtype.name} has no data")
    return np.zeros(dims, dtype)


_SCALARS = {A.BOOL: bool, A.INT8: int, A.INT16: int, A.INT32: int, A.INT64: int, A.UINT8: int, A.UINT16: int,
            A.UINT32: int, A.UINT64: int}
_FLOATS = {A.FLOAT: "f", A.DOUBLE: "d", A.FLOAT16: "f", A.BFLOAT16: "f"}


def attribute_value(a: pb.AttributeProto, where: str, depth: int = 0) -> Any:
    """A Python value for an AttributeProto: scalars, str, None, numpy arrays, tuples, `MONAD`, or a
    `("graph", name)` reference for closures (resolved by the reader)."""
    if depth > MAX_NESTING:
        raise MalformedFileError(f"{where}: values nested more than {MAX_NESTING} deep")
    kind = a.type
    if kind in _SCALARS:
        cast = _SCALARS[kind]
        if len(a.ints) == 1:
            return cast(a.ints[0])
        return cast(a.i)
    if kind in _FLOATS:
        many = a.floats if _FLOATS[kind] == "f" else a.doubles
        if len(many) == 1:
            return float(many[0])
        return float(a.f if _FLOATS[kind] == "f" else a.d)
    if kind == A.STRING:
        data = a.strings[0] if len(a.strings) == 1 and not a.s else a.s
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise MalformedFileError(f"{where}: a string attribute is not UTF-8") from None
    if kind in (A.TUPLE, A.LIST):
        if len(a.values):
            return tuple(attribute_value(v, where, depth + 1) for v in a.values)
        if len(a.ints):
            return tuple(int(v) for v in a.ints)
        if len(a.floats):
            return tuple(float(v) for v in a.floats)
        return ()
    if kind in (A.TENSORS, A.TENSOR):
        tensors = list(a.tensors) if kind == A.TENSORS else [a.t]
        if len(tensors) != 1:
            raise MalformedFileError(f"{where}: a tensor value holds {len(tensors)} tensors, expected 1")
        return tensor_value(tensors[0], where)
    if kind == A.NONE:
        return None
    if kind in MONAD_KINDS:
        return MONAD
    if kind in (A.FUNCGRAPHCLOSURE, A.GRAPH):
        return ("graph", a.s.decode("utf-8", "replace"))
    raise MalformedFileError(f"{where}: attribute kind {A.AttributeType.Name(kind) if kind in A.AttributeType.values() else kind}"
                             f" is not supported")


def attributes(attrs, where: str, skip: tuple[str, ...] = ("input_names", "output_names")) -> dict[str, Any]:
    out = {}
    for a in attrs:
        if a.name in skip:
            continue
        out[a.name] = attribute_value(a, f"{where}: attribute {a.name!r}")
    return out
