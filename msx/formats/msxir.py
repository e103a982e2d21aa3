"""MSXIR (`.msxir`): msx's own graph file, self-contained, versioned and safe to load.

The Graph with every node, subgraph, attribute, abstract value and source
location, the Parameters' values, and a manifest (format version, msx
version, primitives used, SHA-256 of every part). Layout (docs/format.md)::

    magic  b"\\x89MSXIR\\r\\n"     8 bytes
    format version             uint32 little-endian
    manifest length N          uint64 little-endian
    SHA-256 of the manifest    32 bytes
    manifest                   N bytes of UTF-8 JSON
    parts                      at the manifest's offsets (counted from the end of the manifest):
                               "graph" (JSON, see msx.ir.serialize), "weights" and
                               "constants" (safetensors)

Loading treats the file as untrusted: no pickle, no eval, no imports named
by the file; the magic, the format version, the lengths (against the real
file size, before reading), every checksum, every primitive name, the graph
itself (with the verifier), its Parameter updates (names and shapes) and the
manifest's description of it are checked before anything runs, and each
defect raises its own `msx.errors.LoadError` subclass.
"""
from __future__ import annotations

import hashlib
import json
import struct
from dataclasses import dataclass, field, fields
from typing import Any

import jax
import numpy as np

from .. import tensorfile
from ..atomic import write_atomic
from ..release import __version__
from ..capture.builder import Captured
from ..errors import (BadMagicError, ChecksumError, ExportError, FormatVersionError, MalformedFileError,
                      TruncatedFileError, UnknownPrimitiveError, VerifyError)
from ..fileread import open_regular, read_exact
from ..ir.graph import Const, Graph
from ..ir.serialize import graph_from_data, graph_to_data
from ..ir.symbolic import shape_to_data
from ..ir.verifier import verify
from ..ops.custom.op import custom_op_records, missing_custom_op_message
from ..ops.primitive import REGISTRY
from .graph_capture import capture_for_export
from .registry import ExportRequest, register_format
from .table import table

MAGIC = b"\x89MSXIR\r\n"
FORMAT_VERSION = 1
HEADER = struct.Struct("<8sIQ32s")  # magic, format version, manifest length, manifest SHA-256
PARTS = ("graph", "weights", "constants")


@dataclass(eq=False)
class LoadedGraph(Graph):
    """A Graph read from an MSXIR file, with the values of its parameters (`nn.GraphCell(graph)` runs it)."""

    weights: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    requires_grad: dict[str, bool] = field(default_factory=dict, repr=False)
    manifest: dict = field(default_factory=dict, repr=False)


def _msx_version() -> str:
    return __version__


# ---------------------------------------------------------------- write
def export_msxir(path: str, request: ExportRequest) -> None:
    """`msx.export(..., file_format="MSXIR")`: the captured graph and its Parameters' current values."""
    captured = capture_for_export(request.net, request.inputs, request.training, request.capture_mode)
    write_msxir(path, captured, {"training": bool(request.training), "capture_mode": request.capture_mode})


def write_msxir(path: str, captured: Captured, info: dict | None = None) -> None:
    """Write `captured` (its graph and the current values of its Parameters) as an MSXIR file, atomically."""
    graph = captured.graph
    weights = {v.name: np.asarray(p._data) for v, p in zip(graph.params, captured.params)}
    data, constants = graph_to_data(graph)
    try:
        blobs = {"graph": json.dumps(data, allow_nan=False, separators=(",", ":")).encode(),
                 "weights": tensorfile.dump(weights), "constants": tensorfile.dump(constants)}
    except (TypeError, ValueError) as exc:
        raise ExportError(f"export: graph {graph.name}: {exc}") from None
    parts, offset = [], 0
    for name in PARTS:
        blob = blobs[name]
        parts.append({"name": name, "offset": offset, "length": len(blob),
                      "sha256": hashlib.sha256(blob).hexdigest()})
        offset += len(blob)
    manifest = {
        "format": "MSXIR", "format_version": FORMAT_VERSION, "msx_version": _msx_version(),
        "jax_version": jax.__version__,
        "graph": {"name": graph.name, **(info or {}),
                  "inputs": [{"name": v.name, **_abstract(v)} for v in graph.inputs],
                  "outputs": [_abstract(v) for v in graph.outputs]},
        "primitives": sorted(graph.primitives_used()),
        "custom_ops": custom_op_records(graph.primitives_used()),
        "parameters": [{"name": v.name, **_abstract(v), "requires_grad": bool(p.requires_grad)}
                       for v, p in zip(graph.params, captured.params)],
        "parts": parts,
    }
    text = json.dumps(manifest, indent=1).encode()
    header = HEADER.pack(MAGIC, FORMAT_VERSION, len(text), hashlib.sha256(text).digest())
    write_atomic(path, [header, text] + [blobs[name] for name in PARTS])


def _abstract(x) -> dict:
    a = x.abstract
    return {"shape": shape_to_data(a.shape), "dtype": a.dtype}



# ---------------------------------------------------------------- load
def load_msxir(path: str) -> LoadedGraph:
    """Read an MSXIR file into a `LoadedGraph`, every check first; a `LoadError` subclass names what is wrong."""
    manifest, parts = read_container(path)
    listed = manifest["primitives"]
    if not isinstance(listed, list) or not all(isinstance(p, str) for p in listed):
        raise MalformedFileError(f"{path}: the manifest's primitive list is not a list of names")
    missing = [p for p in listed if not _known_op(p)]
    if missing:
        records = manifest.get("custom_ops") if isinstance(manifest.get("custom_ops"), dict) else {}
        hints = "".join(f"; {missing_custom_op_message(p, records[p])}" for p in missing if p in records)
        raise UnknownPrimitiveError(f"{path} uses primitive(s) {missing}, which this msx ({_msx_version()}) does "
                                    f"not have; it was written by msx {manifest.get('msx_version')!r}{hints}")
    constants, _ = tensorfile.parse(parts["constants"], f"{path}: part 'constants'")
    weights, _ = tensorfile.parse(parts["weights"], f"{path}: part 'weights'")
    graph = graph_from_data(_json(parts["graph"], f"{path}: part 'graph'"), constants, _known_op)
    unlisted = graph.primitives_used() - set(listed)
    if unlisted:
        raise MalformedFileError(f"{path}: the graph uses {sorted(unlisted)}, which its manifest does not list")
    requires_grad = _check_parameters(path, graph, weights, manifest["parameters"])
    try:
        verify(graph, infer=True)
    except VerifyError as exc:
        raise MalformedFileError(f"{path}: the graph does not verify: {exc.message}") from None
    _check_updates(path, graph)
    _check_signature(path, graph, manifest.get("graph"))
    return LoadedGraph(**{f.name: getattr(graph, f.name) for f in fields(Graph)}, weights=weights,
                       requires_grad=requires_grad, manifest=manifest)


def _known_op(name: str) -> bool:
    return name in REGISTRY


def read_container(path: str) -> tuple[dict, dict[str, bytes]]:
    """(manifest, parts by name) of an MSXIR file, after checking magic, version, lengths and checksums.

    Every size the file declares is compared with its real size before the
    bytes it announces are read.
    """
    f, size = open_regular(path, "MSXIR file")
    with f:
        if size == 0:
            raise TruncatedFileError(f"{path} is empty")
        head = f.read(HEADER.size)
        if head[:len(MAGIC)] != MAGIC[:len(head)]:
            raise BadMagicError(f"{path} is not an MSXIR file: it starts with {head[:8]!r}, MSXIR files start with "
                                f"{MAGIC!r}{_guess(head)}")
        if len(head) < HEADER.size:
            raise TruncatedFileError(f"{path} is truncated: {len(head)} bytes, less than the {HEADER.size}-byte "
                                     f"header")
        _, version, manifest_size, digest = HEADER.unpack(head)
        if version > FORMAT_VERSION or version < 1:
            newer = "; upgrade msx to read it" if version > FORMAT_VERSION else ""
            raise FormatVersionError(f"{path} has MSXIR format version {version}; this msx ({_msx_version()}) reads "
                                     f"versions 1 to {FORMAT_VERSION}{newer}")
        start = HEADER.size + manifest_size
        if size < start:
            raise TruncatedFileError(f"{path} is truncated: its header says the manifest ends at byte {start}, the "
                                     f"file has {size} bytes")
        text = read_exact(f, manifest_size, path, "the manifest")
        if hashlib.sha256(text).digest() != digest:
            raise ChecksumError(f"{path}: the manifest does not match its SHA-256 checksum; the file is corrupted")
        manifest = _json(text, f"{path}: the manifest")
        _check_manifest(path, manifest, version)
        end = start + max(p["offset"] + p["length"] for p in manifest["parts"])
        if size < end:
            raise TruncatedFileError(f"{path} is truncated: its manifest describes {end} bytes, the file has {size}")
        if size > end:
            raise MalformedFileError(f"{path} has {size - end} unexpected bytes after its last part")
        body = read_exact(f, end - start, path, "the parts")
    parts = {}
    for p in manifest["parts"]:
        data = body[p["offset"]:p["offset"] + p["length"]]
        if hashlib.sha256(data).hexdigest() != p["sha256"]:
            raise ChecksumError(f"{path}: part {p['name']!r} does not match its SHA-256 checksum; the file is "
                                f"corrupted")
        parts[p["name"]] = data
    return manifest, parts


def _guess(blob: bytes) -> str:
    if blob[:1] == b"\x80":
        return " (it looks like a Python pickle; msx never unpickles files)"
    if blob[8:9] == b"{":
        return " (it looks like a safetensors checkpoint: use msx.load_checkpoint)"
    return " (a file exported with file_format='STABLEHLO' is read with msx.export's load_stablehlo)"


def _json(data: bytes, what: str) -> Any:
    def refuse(constant: str):
        raise ValueError(f"non-standard JSON constant {constant}")

    try:
        return json.loads(data, parse_constant=refuse)
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise MalformedFileError(f"{what} is not valid JSON: {exc}") from None


def _check_manifest(path: str, manifest: Any, version: int) -> None:
    def bad(problem: str) -> MalformedFileError:
        return MalformedFileError(f"{path}: malformed manifest: {problem}")

    if not isinstance(manifest, dict):
        raise bad("not a JSON object")
    for key in ("format", "format_version", "primitives", "parameters", "parts"):
        if key not in manifest:
            raise bad(f"no {key!r}")
    if manifest["format"] != "MSXIR" or manifest["format_version"] != version:
        raise bad(f"format {manifest['format']!r} version {manifest['format_version']!r} does not match the header "
                  f"(MSXIR version {version})")
    parts = manifest["parts"]
    names = [p.get("name") if isinstance(p, dict) else None for p in parts] if isinstance(parts, list) else [None]
    if not all(isinstance(n, str) for n in names) or sorted(names) != sorted(PARTS):
        raise bad(f"parts must be exactly {list(PARTS)}")
    for p in parts:
        if not (_natural(p.get("offset")) and _natural(p.get("length")) and isinstance(p.get("sha256"), str)):
            raise bad(f"part {p['name']!r} needs a non-negative offset and length and a sha256")


def _natural(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x >= 0


def _check_parameters(path: str, graph: Graph, weights: dict[str, np.ndarray], table: Any) -> dict[str, bool]:
    """The weights must be exactly the graph's parameters, with their shapes and dtypes; returns requires_grad."""
    names = graph.param_names
    if set(weights) != set(names) or len(names) != len(set(names)):
        raise MalformedFileError(f"{path}: the weights ({sorted(weights)}) are not the graph's parameters "
                                 f"({sorted(names)})")
    for v in graph.params:
        w = weights[v.name]
        if tuple(w.shape) != v.abstract.shape or w.dtype.name != v.abstract.dtype:
            raise MalformedFileError(f"{path}: weight {v.name!r} is {w.dtype.name}{tuple(w.shape)}, the graph says "
                                     f"{v.abstract}")
    if not isinstance(table, list) or [e.get("name") if isinstance(e, dict) else None for e in table] != names:
        raise MalformedFileError(f"{path}: the manifest's parameter table does not list the graph's parameters")
    flags = {e["name"]: e.get("requires_grad") for e in table}
    if not all(isinstance(f, bool) for f in flags.values()):
        raise MalformedFileError(f"{path}: the manifest's parameter table needs a requires_grad flag per parameter")
    for entry, v in zip(table, graph.params):
        if set(entry) != {"name", "shape", "dtype", "requires_grad"} or \
                {k: entry[k] for k in ("shape", "dtype")} != _abstract(v):
            raise MalformedFileError(f"{path}: the manifest's parameter table says {v.name!r} is "
                                     f"{str({k: entry.get(k) for k in ('shape', 'dtype')})[:80]}, the graph says "
                                     f"{v.abstract}")
    return flags


def _check_signature(path: str, graph: Graph, info: Any) -> None:
    """The manifest's description of the graph (what `inspect` shows) must be the graph's own signature."""
    if not isinstance(info, dict):
        raise MalformedFileError(f"{path}: the manifest's graph description is not a JSON object")
    want = {"name": graph.name, "inputs": [{"name": v.name, **_abstract(v)} for v in graph.inputs],
            "outputs": [_abstract(v) for v in graph.outputs]}
    got = {k: info.get(k) for k in want}
    if got != want:
        raise MalformedFileError(f"{path}: the manifest describes the graph as {str(got)[:200]}, but the graph is "
                                 f"{str(want)[:200]}")


def _check_updates(path: str, graph: Graph) -> None:
    """Each update writes a parameter of the graph, once, with a value of exactly that parameter's shape and dtype
    (a runtime writing it back by name would otherwise fail with a KeyError or silently reshape a weight)."""
    params = {v.name: v.abstract for v in graph.params}
    for name, value in graph.updates:
        if name not in params:
            raise MalformedFileError(f"{path}: graph {graph.name} updates {name[:60]!r}, which is not one of its "
                                     f"parameters ({', '.join(sorted(params)) or 'none'})")
        scalar = isinstance(value, Const) and isinstance(value.value, (bool, int, float)) and params[name].shape == ()
        got = value.abstract
        if got != params[name] and not scalar:
            raise MalformedFileError(f"{path}: graph {graph.name} updates parameter {name!r} ({params[name]}) with a "
                                     f"value of {got}")


# ---------------------------------------------------------------- inspect
def inspect_msxir(path: str) -> str:
    """The manifest (versions, inputs, outputs, primitives, parameters, parts with checksums) and the graph's text."""
    graph = load_msxir(path)  # checks everything first: what is printed below has been validated
    manifest = graph.manifest
    info = manifest.get("graph") if isinstance(manifest.get("graph"), dict) else {}
    params = [(v.name, v.abstract.dtype, list(v.abstract.shape), graph.requires_grad[v.name]) for v in graph.params]
    total = sum(w.nbytes for w in graph.weights.values())
    lines = [f"MSXIR file {path}",
             f"format version {manifest['format_version']}, written by msx {manifest.get('msx_version')} "
             f"(jax {manifest.get('jax_version')})",
             f"graph {graph.name}: capture_mode={info.get('capture_mode')}, training={info.get('training')}",
             f"inputs:  {', '.join(f'{v.name}: {v.abstract}' for v in graph.inputs) or '()'}",
             f"outputs: {', '.join(str(o.abstract) for o in graph.outputs) or '()'}",
             f"primitives: {', '.join(manifest['primitives'])}", "",
             f"parameters: {len(params)} tensors, {total} bytes",
             table(params, ("name", "dtype", "shape", "requires_grad")), "",
             table([(p["name"], p["offset"], p["length"], p["sha256"][:16] + "…") for p in manifest["parts"]],
                   ("part", "offset", "length", "sha256")), "", str(graph)]
    return "\n".join(lines)


def _sniff(path: str, head: bytes) -> bool:
    return head[:len(MAGIC)] == MAGIC[:len(head)]


register_format("MSXIR", suffixes=".msxir", sniff=_sniff, export=export_msxir, load=load_msxir,
                inspect=inspect_msxir, description="msx's own graph file: graph, weights, manifest, checksums")

__all__ = ["LoadedGraph", "load_msxir", "write_msxir", "read_container", "inspect_msxir", "MAGIC", "FORMAT_VERSION",
           "HEADER", "PARTS"]
