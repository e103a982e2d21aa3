"""Checkpoint files, as `python -m msx inspect` and `msx.load` see them (they are written by `msx.save_checkpoint`).

Three formats: msx's own checkpoint (`MSX_CHECKPOINT`, `save_checkpoint(...,
format="msx")`: safetensors tagged `msx.checkpoint`, with checksums and
requires_grad, whatever its suffix), other safetensors files (`SAFETENSORS`:
MindSpore's, tagged "ms", and other writers') and MindSpore's protobuf
`.ckpt` (`CKPT`). `msx.checkpoint.read_checkpoint` reads and checks them all;
this module registers them, so `inspect` prints their tensor tables and
`msx.load` points at `msx.load_checkpoint` instead of failing on a "bad graph
file". msx's tag is sniffed before plain safetensors, a safetensors file
before a protobuf one (a safetensors header length can start with the
protobuf byte 0x0a), and a protobuf checkpoint before a MindIR (both are
protobuf).
"""
from __future__ import annotations

import json
import os

from ..checkpoint import FORMAT, MINDSPORE_CKPT, read_checkpoint
from ..errors import BadMagicError
from ..fileread import open_regular
from ..ms_checkpoint import SAFETENSORS_TAG, looks_like_ckpt
from .registry import register_format
from .table import table

MAX_HEADER = 100 * 2 ** 20  # bytes of a safetensors header (the safetensors library's own limit)


def refuse_load(path: str) -> None:
    """What `msx.load` does with a checkpoint: it holds tensors, not a graph."""
    raise BadMagicError(f"{path} is a checkpoint, not a graph file: read it with msx.load_checkpoint (or "
                        f"`python -m msx inspect` to see its tensors)")


def inspect_checkpoint(path: str) -> str:
    """Who wrote it, its checksum or CRC, and its tensor table (name, dtype, shape, bytes, requires_grad)."""
    ckpt = read_checkpoint(path)  # every check first, a CRC the file has included
    metadata = ckpt.metadata
    if ckpt.writer == FORMAT:
        head = (f"checkpoint {path} ({FORMAT} version {metadata.get('format_version')}, written by msx "
                f"{metadata.get('msx_version')}; SHA-256 of every entry and the header: valid)")
    elif ckpt.writer in (MINDSPORE_CKPT, SAFETENSORS_TAG):
        kind = "protobuf .ckpt" if ckpt.writer == MINDSPORE_CKPT else "safetensors (tagged 'ms')"
        crc = "valid" if "crc32" in metadata or "crc_num" in metadata else "none (saved without crc_check)"
        head = f"MindSpore checkpoint {path} ({kind}; CRC-32: {crc})"
    else:
        head = f"safetensors file {path} (not written by msx{f'; tagged {ckpt.writer!r}' if ckpt.writer else ''})"
    rows = [(name, "str", repr(ckpt.texts[name]), len(ckpt.texts[name].encode()), "") if name in ckpt.texts else
            (name, ckpt.arrays[name].dtype.name, list(ckpt.arrays[name].shape), ckpt.arrays[name].nbytes,
             ckpt.requires_grad.get(name, "-")) for name in ckpt.order]  # "-": the format does not store it
    total = sum(r[3] for r in rows)
    return "\n".join([head, f"{len(rows)} entries, {total} bytes", "",
                      table(rows, ("name", "dtype", "shape", "bytes", "requires_grad"))])


def _safetensors(path: str, head: bytes) -> bool:
    """An 8-byte little-endian header length that fits in the file, then the header's JSON object."""
    return head[8:9] == b"{" and 8 + int.from_bytes(head[:8], "little") <= os.path.getsize(path)


def _msx_checkpoint(path: str, head: bytes) -> bool:
    """A safetensors file whose metadata carries msx's format tag (the header is read whole: the tag's place in it
    is not fixed)."""
    if not _safetensors(path, head):
        return False
    length = int.from_bytes(head[:8], "little")
    if length > MAX_HEADER:
        return False
    f, _ = open_regular(path)
    with f:
        f.seek(8)
        header = f.read(length)
    try:
        metadata = json.loads(header).get("__metadata__")
    except (ValueError, AttributeError, RecursionError):  # damage: SAFETENSORS' reader reports it
        return False
    return isinstance(metadata, dict) and metadata.get("format") == FORMAT


def _ckpt(path: str, head: bytes) -> bool:
    return looks_like_ckpt(head)


register_format("MSX_CHECKPOINT", suffixes=(".ckpt", ".safetensors"), sniff=_msx_checkpoint, load=refuse_load,
                inspect=inspect_checkpoint, description="msx's own checkpoint (save_checkpoint(format='msx')): "
                "safetensors with SHA-256 checksums and requires_grad")
register_format("SAFETENSORS", suffixes=".safetensors", sniff=_safetensors, load=refuse_load,
                inspect=inspect_checkpoint, description="safetensors checkpoints: MindSpore's (format='safetensors') "
                "and other writers'")
register_format("CKPT", suffixes=".ckpt", sniff=_ckpt, load=refuse_load, inspect=inspect_checkpoint,
                description="MindSpore's protobuf checkpoint (save_checkpoint's default format='ckpt')")

__all__ = ["inspect_checkpoint"]
