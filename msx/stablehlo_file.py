"""STABLEHLO artifacts in msx's checksummed envelope: jax's bytes first, then a 52-byte msx trailer.

jax's deserializer trusts its input: one flipped byte in a `jax.export`
artifact can abort the process inside MLIR's bytecode reader
(`malloc(): invalid size`). So msx never hands jax bytes it has not checked:

    payload   N bytes   `jax.export.Exported.serialize()`, unchanged
    magic     8 bytes   b"\\x89MSXHLO\\n"
    version   uint32 LE (1)
    length    uint64 LE (N)
    sha256    32 bytes  SHA-256 of payload + magic + version + length

The trailer sits at the end so the file stays a valid jax artifact (jax's
flatbuffers reader ignores trailing bytes): `jax.export.deserialize` still
reads it directly. msx reads the trailer first (after checking the file is a
regular file big enough to hold one), compares the declared length with the
real size, checks the digest, and only then deserializes.

A checksum proves the file is the one msx wrote, not that its writer was
honest: a crafted file with a recomputed digest reaches jax. `describe`
(used by `python -m msx inspect`) therefore parses the module in a child
process, so even then a crash becomes an msx error, not an abort.
"""
from __future__ import annotations

import hashlib
import json
import signal
import struct
import subprocess
import sys
import jax

from .atomic import write_atomic
from .errors import BadMagicError, ChecksumError, FormatVersionError, MalformedFileError, TruncatedFileError
from .fileread import open_regular, read_exact

MAGIC = b"\x89MSXHLO\n"
VERSION = 1
TRAILER = struct.Struct("<8sIQ32s")  # magic, version, payload length, SHA-256
_REEXPORT = "re-export it with msx.export(..., file_format='STABLEHLO')"


def seal(payload: bytes) -> bytes:
    """`payload` followed by its msx trailer."""
    fields = MAGIC + VERSION.to_bytes(4, "little") + len(payload).to_bytes(8, "little")
    return payload + fields + hashlib.sha256(payload + fields).digest()


def write(path: str, payload: bytes) -> None:
    """Write `payload` (serialized `jax.export` bytes) sealed, atomically."""
    write_atomic(path, [seal(payload)])


def is_sealed(path: str) -> bool:
    """Whether `path` is a regular file ending with an msx STABLEHLO trailer (whatever its name)."""
    f, size = open_regular(path, "file")
    with f:
        if size < TRAILER.size:
            return False
        f.seek(size - TRAILER.size)
        return f.read(len(MAGIC)) == MAGIC


def read_payload(path: str) -> bytes:
    """The checked jax.export bytes of a sealed STABLEHLO file; a `LoadError` subclass names the defect."""
    f, size = open_regular(path, "STABLEHLO artifact")
    with f:
        if size < TRAILER.size:
            raise TruncatedFileError(f"{path} is truncated: {size} bytes, less than the {TRAILER.size}-byte msx "
                                     f"STABLEHLO trailer")
        f.seek(size - TRAILER.size)
        trailer = f.read(TRAILER.size)
        magic, version, length, digest = TRAILER.unpack(trailer)
        if magic != MAGIC:
            raise BadMagicError(f"{path} does not end with msx's STABLEHLO trailer: it is cut short or damaged, or it "
                                f"was written without one (by msx 0.1.0 or by jax itself), so msx cannot check it "
                                f"before jax parses it; {_REEXPORT}")
        if version != VERSION:
            newer = "; upgrade msx to read it" if version > VERSION else ""
            raise FormatVersionError(f"{path} has STABLEHLO trailer version {version}; this msx reads version "
                                     f"{VERSION}{newer}")
        if length != size - TRAILER.size:
            cls = TruncatedFileError if length > size - TRAILER.size else MalformedFileError
            raise cls(f"{path}: its trailer says the artifact is {length} bytes, the file holds "
                      f"{size - TRAILER.size} before the trailer")
        f.seek(0)
        payload = read_exact(f, length, path, "the artifact")
    if hashlib.sha256(payload + trailer[:-32]).digest() != digest:
        raise ChecksumError(f"{path}: the STABLEHLO artifact does not match its SHA-256 checksum; the file is "
                            f"corrupted")
    return payload


def load_stablehlo(path: str):
    """The `jax.export.Exported` in a sealed STABLEHLO file, after checking its trailer and checksum."""
    payload = read_payload(path)
    try:
        return jax.export.deserialize(bytearray(payload))
    except Exception as exc:  # jax's own reader: any failure is a malformed artifact
        raise MalformedFileError(f"{path}: jax cannot deserialize the artifact ({type(exc).__name__}: "
                                 f"{str(exc)[:200]})") from None


_CHILD = """
import json, sys
import jax
e = jax.export.deserialize(bytearray(sys.stdin.buffer.read()))
json.dump({"platforms": list(e.platforms), "in_avals": [str(a) for a in e.in_avals],
           "out_avals": [str(a) for a in e.out_avals], "calling_convention_version": e.calling_convention_version,
           "module": e.mlir_module()}, sys.stdout)
"""


def describe(path: str, timeout: float = 300) -> dict:
    """Signature and module text of a sealed STABLEHLO file, parsed in a child process.

    Returns {"platforms", "in_avals", "out_avals", "calling_convention_version",
    "module"}; a crash or error of jax's parser is a `MalformedFileError`.
    """
    payload = read_payload(path)
    try:
        proc = subprocess.run([sys.executable, "-c", _CHILD], input=payload, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise MalformedFileError(f"{path}: jax's StableHLO reader did not finish within {timeout:g} s") from None
    if proc.returncode != 0:
        died = f"crashed ({signal.Signals(-proc.returncode).name})" if proc.returncode < 0 and \
            -proc.returncode in signal.valid_signals() else f"failed (exit status {proc.returncode})"
        last = proc.stderr.decode(errors="replace").strip().splitlines()[-1:] or [""]
        raise MalformedFileError(f"{path}: jax's StableHLO reader {died} on this artifact: {last[0][:200]}")
    return json.loads(proc.stdout)
