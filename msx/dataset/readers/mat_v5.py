"""A structural check of MATLAB v5 files before scipy reads them.

scipy's MATLAB reader trusts what a file says: a damaged byte count makes it read past its buffer, a sparse or
complex flag set on the wrong matrix makes it read parts that are not there — and the process dies (a bus error
or a segmentation fault, not an exception). `check` walks every variable (inside compressed elements, cells and
structs too) and holds each matrix to its class: the array-flags, dimensions and name elements, then exactly the
parts the class has (numeric: real [+ imaginary] of prod(dims) values; sparse: int32 row indices inside the rows,
nondecreasing column starts, values; cell / struct: one matrix per element [per field]; char: prod(dims)
characters). The format is MathWorks' "MAT-File Format" (v5: a 128-byte header, then tagged data elements; a
small element packs up to 4 bytes into its tag). MATLAB objects (class 3) are refused.
"""
from __future__ import annotations

import math
import struct
import zlib

import numpy as np

# element type -> bytes per value (miMATRIX 14 and miCOMPRESSED 15 hold further elements)
_SIZES = {1: 1, 2: 1, 3: 2, 4: 2, 5: 4, 6: 4, 7: 4, 9: 8, 12: 8, 13: 8, 14: 0, 15: 0, 16: 1, 17: 2, 18: 4}
_NUMERIC = range(6, 16)  # mxDOUBLE_CLASS .. mxUINT64_CLASS
_CELL, _STRUCT, _OBJECT, _CHAR, _SPARSE = 1, 2, 3, 4, 5
_MAX_DEPTH = 32
MAX_INFLATED = 1 << 32  # the largest compressed element msx inflates (4 GiB)


class MatError(ValueError):
    """The file is not a well-formed MATLAB v5 file; the message says where."""


def check(data: bytes) -> None:
    """Raise MatError unless every variable of the MATLAB v5 file `data` is a well-formed matrix."""
    if len(data) < 128 or data[126:128] not in (b"IM", b"MI"):
        raise MatError("not a MATLAB v5 file (no 128-byte header ending in the byte-order mark 'IM' / 'MI')")
    order = "<" if data[126:128] == b"IM" else ">"
    for kind, start, count in _split(data, 128, len(data), order):
        if kind == 15:
            inner = _inflate(data[start:start + count], start)
            for k, s, c in _split(inner, 0, len(inner), order):
                _variable(inner, k, s, c, order)
        else:
            _variable(data, kind, start, count, order)


def _variable(data: bytes, kind: int, start: int, count: int, order: str) -> None:
    if kind != 14:
        raise MatError(f"the variable at byte {start - 8} is an element of type {kind}, not a matrix")
    _matrix(data, start, count, order, 0)


def _inflate(blob: bytes, at: int) -> bytes:
    inflater = zlib.decompressobj()
    try:
        inner = inflater.decompress(blob, MAX_INFLATED)
    except zlib.error as exc:
        raise MatError(f"the compressed element at byte {at - 8} does not inflate ({exc})") from None
    if inflater.unconsumed_tail:
        raise MatError(f"the compressed element at byte {at - 8} inflates past {MAX_INFLATED} bytes")
    return inner


def _split(data: bytes, pos: int, end: int, order: str) -> list[tuple[int, int, int]]:
    """The (type, data start, byte count) of each element between `pos` and `end`, each inside that range."""
    out = []
    while pos < end:
        if pos + 8 > end:
            raise MatError(f"a data element's tag at byte {pos} is cut off")
        word, count = struct.unpack_from(order + "II", data, pos)
        if word >> 16:  # a small element: type and count in one word, its data in the next 4 bytes
            kind, count, start, after = word & 0xFFFF, word >> 16, pos + 4, pos + 8
            if count > 4:
                raise MatError(f"the small element at byte {pos} claims {count} bytes (at most 4)")
        else:
            kind, start = word, pos + 8
            after = start + count
            if after > end:
                raise MatError(f"the element at byte {pos} claims {count} bytes; only {end - start} follow")
            if kind not in (14, 15):
                after = min(end, after + (-count % 8))
        if kind not in _SIZES:
            raise MatError(f"the element at byte {pos} has unknown type {kind}")
        if _SIZES[kind] and count % _SIZES[kind]:
            raise MatError(f"the element at byte {pos} holds {count} bytes, not whole values of {_SIZES[kind]}")
        out.append((kind, start, count))
        pos = after
    return out


def _values(data: bytes, element: tuple[int, int, int], order: str, what: str) -> int:
    kind, _, count = element
    if kind in (14, 15):
        raise MatError(f"{what} is a nested element, not values")
    return count // _SIZES[kind]


def _ints(data: bytes, element: tuple[int, int, int], order: str, what: str) -> np.ndarray:
    kind, start, count = element
    if kind != 5:
        raise MatError(f"{what} is of element type {kind}, not int32")
    return np.frombuffer(data, order + "i4", count // 4, start)


def _matrix(data: bytes, start: int, count: int, order: str, depth: int) -> None:
    if depth > _MAX_DEPTH:
        raise MatError(f"matrices nested deeper than {_MAX_DEPTH}")
    parts = _split(data, start, start + count, order)
    if not parts:
        return  # an empty matrix (what an empty cell holds)
    where = f"the matrix at byte {start - 8}"
    if len(parts) < 3 or parts[0][0] != 6 or parts[0][2] != 8:
        raise MatError(f"{where} does not start with its array flags, dimensions and name")
    flags, nzmax = struct.unpack_from(order + "II", data, parts[0][1])
    cls, complex_ = flags & 0xFF, bool(flags & 0x800)
    dims = _ints(data, parts[1], order, f"{where}'s dimensions")
    if len(dims) < 2 or (dims < 0).any():
        raise MatError(f"{where} has dimensions {dims.tolist()}")
    n, rest = math.prod(int(d) for d in dims), parts[3:]
    if cls in _NUMERIC:
        if len(rest) != 1 + complex_ or any(_values(data, p, order, where) != n for p in rest):
            raise MatError(f"{where} ({'complex ' if complex_ else ''}numeric, {n} values) does not hold "
                           f"{1 + complex_} part(s) of {n} values")
    elif cls == _CHAR:
        if len(rest) > 1 or (n and (not rest or _values(data, rest[0], order, where) != n)):
            raise MatError(f"{where} (char) does not hold {n} characters")
    elif cls == _SPARSE:
        if len(dims) != 2 or len(rest) != 3 + complex_:
            raise MatError(f"{where} (sparse) does not hold row indices, column starts and {1 + complex_} "
                           f"part(s) of values")
        rows, starts = _ints(data, rest[0], order, f"{where}'s row indices"), \
            _ints(data, rest[1], order, f"{where}'s column starts")
        nnz = int(starts[-1]) if len(starts) else -1
        values = [_values(data, p, order, where) for p in rest[2:]]
        if len(starts) != dims[1] + 1 or starts[0] != 0 or (np.diff(starts) < 0).any() or \
                not 0 <= nnz <= min(len(rows), nzmax if nzmax else len(rows)) or any(v < nnz for v in values) or \
                ((rows[:nnz] < 0) | (rows[:nnz] >= dims[0])).any():
            raise MatError(f"{where} (sparse {dims.tolist()}) has inconsistent row indices / column starts")
    elif cls == _CELL:
        if len(rest) != n or any(k != 14 for k, _, _ in rest):
            raise MatError(f"{where} (cell of {n}) does not hold {n} matrices")
        for _, s, c in rest:
            _matrix(data, s, c, order, depth + 1)
    elif cls == _STRUCT:
        if len(rest) < 2:
            raise MatError(f"{where} (struct) lacks its field names")
        lengths = _ints(data, rest[0], order, f"{where}'s field name length")
        width = int(lengths[0]) if len(lengths) == 1 else 0
        fields = _values(data, rest[1], order, where) // width if width > 0 else -1
        if fields < 0 or len(rest) - 2 != n * fields or any(k != 14 for k, _, _ in rest[2:]):
            raise MatError(f"{where} (struct of {n}) does not hold its fields' matrices")
        for _, s, c in rest[2:]:
            _matrix(data, s, c, order, depth + 1)
    elif cls == _OBJECT:
        raise MatError(f"{where} is a MATLAB object, which msx does not read")
    else:
        raise MatError(f"{where} has unknown class {cls}")
