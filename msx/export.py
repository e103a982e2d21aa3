"""`msx.export` and `msx.load`: networks as self-contained, versioned, safe graph files.

`export(net, *inputs, file_name, file_format)` captures `net` on `inputs`
(which fix the shapes) and writes either

- `"MSXIR"` (`.msxir`): msx's own file — the Graph with every node, subgraph,
  attribute, abstract value and source location, the Parameters' values, and
  a manifest (format version, msx version, primitives used, SHA-256 of every
  part). Layout::

      magic  b"\\x89MSXIR\\r\\n"     8 bytes
      format version             uint32 little-endian
      manifest length N          uint64 little-endian
      SHA-256 of the manifest    32 bytes
      manifest                   N bytes of UTF-8 JSON
      parts                      at the manifest's offsets (counted from the end of the manifest):
                                 "graph" (JSON, see msx.ir.serialize), "weights" and
                                 "constants" (safetensors)

- `"MINDIR"` (`.mindir`): MindSpore's own graph format, for interchange: a file
  MindSpore 2.x loads with `mindspore.load` (see msx.mindir.writer); msx reads
  MindSpore's `.mindir` files back with `load`.

- `"STABLEHLO"` (`.stablehlo`): a `jax.export` artifact (versioned
  flatbuffers + StableHLO) with the weights as constants, followed by msx's
  checksummed trailer (msx.stablehlo_file); `load_stablehlo(path)` checks it
  and returns the `jax.export.Exported` (run `.call(*inputs)`); any program
  with jax also reads it with `jax.export.deserialize(bytes)`.

`load(file_name)` reads an MSXIR file as a `LoadedGraph` (a Graph that also
carries its weights) for `nn.GraphCell`. Loading treats the file as
untrusted: no pickle, no eval, no imports named by the file; the magic, the
format version, the lengths (against the real file size, before reading),
every checksum, every primitive name, the graph itself (with the verifier),
its Parameter updates (names and shapes) and the manifest's description of
it are checked before anything runs, and each defect raises its own
`msx.errors.LoadError` subclass.
"""
from __future__ import annotations

import hashlib
import json
import os
import struct
from dataclasses import dataclass, field, fields
from typing import Any, Callable

import jax
import numpy as np

from . import stablehlo_file, tensorfile, versions
from .atomic import write_atomic
from .fileread import open_regular, read_exact
from .capture.builder import Captured
from .ops.custom.op import custom_op_records, missing_custom_op_message
from .errors import (BadMagicError, ChecksumError, ExportError, FormatVersionError, MalformedFileError, MsxError,
                     TruncatedFileError, UnknownPrimitiveError, VerifyError)
from .ir.graph import Const, Graph, Var
from .ir.interpret import evaluate, to_struct
from .ir.serialize import graph_from_data, graph_to_data
from .ir.verifier import verify
from .ir.symbolic import shape_to_data
from .mindir.reader import LoadedMindIR, load_mindir
from .mindir.writer import write_mindir
from .dynamic import symbolic_inputs
from .ops.primitive import lookup
from .release import __version__
from .stablehlo_file import load_stablehlo
from .tensor import Tensor

MAGIC = b"\x89MSXIR\r\n"
FORMAT_VERSION = 1
HEADER = struct.Struct("<8sIQ32s")  # magic, format version, manifest length, manifest SHA-256
FILE_FORMATS = {"MSXIR": ".msxir", "STABLEHLO": ".stablehlo", "MINDIR": ".mindir"}
PARTS = ("graph", "weights", "constants")


@dataclass(eq=False)
class LoadedGraph(Graph):
    """A Graph read from an MSXIR file, with the values of its parameters (`nn.GraphCell(graph)` runs it)."""

    weights: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    requires_grad: dict[str, bool] = field(default_factory=dict, repr=False)
    manifest: dict = field(default_factory=dict, repr=False)


def _msx_version() -> str:
    return __version__


# ---------------------------------------------------------------- export
def export(net: Callable, *inputs, file_name: str, file_format: str = "MSXIR", training: bool = False,
           capture_mode: str = "ast", platforms: tuple[str, ...] | None = None) -> str:
    """Export `net` (a Cell or a function) run on `inputs`; returns the path written.

    `file_name` gets the format's suffix unless it ends with it (as in
    MindSpore). A Cell is captured in eval mode (its training flags are
    restored afterwards) unless `training=True`. With `capture_mode="ast"`
    (jit's default) tensor-dependent control flow becomes Cond/While/Scan
    nodes; a "trace" capture whose Python control flow depended on tensor
    values is refused, since the file would silently keep one branch.
    `platforms` (STABLEHLO only) lists the jax platforms to lower for
    (default: this machine's).
    """
    if file_format not in FILE_FORMATS:
        raise ExportError(f"export: file_format={file_format!r} is not supported; choose one of {list(FILE_FORMATS)}")
    if not isinstance(file_name, (str, os.PathLike)) or not os.fspath(file_name):
        raise ExportError(f"export: file_name must be a non-empty path, got {file_name!r}")
    if platforms is not None and file_format != "STABLEHLO":
        raise ExportError("export: platforms applies to file_format='STABLEHLO' only")
    path = os.fspath(file_name)
    if not path.endswith(FILE_FORMATS[file_format]):
        path += FILE_FORMATS[file_format]
    captured = capture_for_export(net, inputs, training, capture_mode)
    if file_format == "MSXIR":
        write_msxir(path, captured, {"training": bool(training), "capture_mode": capture_mode})
    elif file_format == "MINDIR":
        write_mindir(path, captured.graph, {v.name: np.asarray(p._data) for v, p in
                                            zip(captured.graph.params, captured.params)}, _msx_version())
    else:
        write_stablehlo(path, captured, platforms)
    return path


def capture_for_export(net: Callable, inputs: tuple, training: bool = False,
                       capture_mode: str = "ast") -> Captured:
    """The graph of `net` on `inputs`, captured without side effects, in eval mode unless `training`."""
    from .jit import jit
    from .nn.cell import Cell

    if any(isinstance(x, Tensor) and x._data is None for x in inputs):  # Tensor(shape=[None, 16]): symbolic dims
        if capture_mode != "ast":
            raise ExportError(f"export: placeholder inputs (symbolic dims) need capture_mode='ast', got "
                              f"{capture_mode!r}")
        inputs = symbolic_inputs(inputs, "export")
    cells = [c for _, c in net.cells_and_names()] if isinstance(net, Cell) else []
    flags = [c.training for c in cells]
    try:
        if cells:
            net.set_train(training)
        captured = jit(net, capture_mode=capture_mode, fullgraph=True).captured(*inputs)
    finally:
        for cell, flag in zip(cells, flags):
            object.__setattr__(cell, "training", flag)
        versions.touch()
    if captured.guards:
        decided = "; ".join(g.describe() for g in captured.guards)
        raise ExportError(f"export: {captured.graph.name}'s Python control flow depends on tensor values "
                          f"({decided}); a graph captured with capture_mode={capture_mode!r} would keep only the "
                          f"outcome seen now. Capture with capture_mode='ast' (graph control flow) or compute the "
                          f"choice with tensor ops (ops.select)")
    drop_shards(captured.graph)
    verify(captured.graph, infer=False)
    return captured


def drop_shards(graph: Graph) -> Graph:
    """`graph` (in place) without its `Shard` nodes, so an exported file runs on one device whatever the parallel
    mode of the capture: a `Shard` is an identity that only lays its input out over the strategy mesh, so each
    use of its output (in subgraphs, outputs and Parameter updates too) becomes a use of its input."""
    alias: dict[int, Any] = {}

    def resolve(x):
        while isinstance(x, Var) and id(x) in alias:
            x = alias[id(x)]
        return x

    def rewrite(g: Graph) -> None:
        kept = []
        for node in g.nodes:
            if node.op == "Shard":
                alias[id(node.outputs[0])] = node.inputs[0]
                continue
            node.inputs = [resolve(x) for x in node.inputs]
            for sub in node.subgraphs.values():
                rewrite(sub)
            kept.append(node)
        g.nodes = kept
        g.outputs = [resolve(x) for x in g.outputs]
        g.updates = [(name, resolve(x)) for name, x in g.updates]

    rewrite(graph)
    return graph


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


def write_stablehlo(path: str, captured: Captured, platforms: tuple[str, ...] | None = None) -> None:
    """Write a `jax.export` artifact computing the graph's outputs from its inputs, weights baked in."""
    graph = captured.graph
    if graph.updates:
        written = ", ".join(name for name, _ in graph.updates)
        raise ExportError(f"export: graph {graph.name} writes Parameters ({written}); a STABLEHLO artifact holds "
                          f"the weights as constants and cannot carry state. Export in eval mode, or as MSXIR")
    weights = [np.asarray(p._data) for p in captured.params]   # host copies: not laid out over a mesh

    def forward(*inputs):
        outs, _ = evaluate(graph, list(inputs), weights)
        return outs[0] if len(outs) == 1 else tuple(outs)

    try:
        exported = jax.export.export(jax.jit(forward), platforms=platforms)(
            *[to_struct(v.abstract) for v in graph.inputs])
        blob = bytes(exported.serialize())
    except MsxError:
        raise
    except Exception as exc:
        raise ExportError(f"export: jax.export could not export graph {graph.name}: {exc}") from exc
    stablehlo_file.write(path, blob)


# ---------------------------------------------------------------- load
def load(file_name: str | os.PathLike) -> LoadedGraph | LoadedMindIR:
    """Read an MSXIR file into a `LoadedGraph`, or a MindSpore `.mindir` file into a `LoadedMindIR`
    (see msx.mindir); raises a `LoadError` subclass naming what is wrong."""
    path = os.fspath(file_name)
    if stablehlo_file.is_sealed(path):
        raise BadMagicError(f"{path} is a STABLEHLO artifact, not an MSXIR or MindIR file: read it with "
                            f"`from msx.export import load_stablehlo` (it returns a jax.export.Exported)")
    if is_mindir(path):
        return load_mindir(path)
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


def is_mindir(path: str) -> bool:
    """A `.mindir` name, or protobuf bytes (a ModelProto starts with field 1 or 2, length-delimited)."""
    if path.lower().endswith(".mindir"):
        return True
    f, _ = open_regular(path)
    with f:
        head = f.read(len(MAGIC))
    return head[:1] in (b"\x0a", b"\x12") and head != MAGIC[:len(head)]


def _known_op(name: str) -> bool:
    return lookup(name) is not None


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


__all__ = ["export", "load", "load_stablehlo", "LoadedGraph", "MAGIC", "FORMAT_VERSION"]
