"""MINDIR (`.mindir`): MindSpore's own graph format, written for MindSpore 2.x and read back from its files.

The format's code is `msx.mindir` (its proto, reader, op tables and writer);
this module only registers it. A MindIR file is bare protobuf with no magic,
so it is recognised by its first byte (a ModelProto starts with field 1 or 2,
length-delimited) after the stricter protobuf checkpoint sniff, or by name.
"""
from __future__ import annotations

import numpy as np

from ..mindir.reader import load_mindir, op_census, parse, supported
from ..mindir.writer import write_mindir
from .graph_capture import capture_for_export
from ..release import __version__
from .registry import ExportRequest, register_format
from .table import table


def export_mindir(path: str, request: ExportRequest) -> None:
    """`msx.export(..., file_format="MINDIR")`: a file MindSpore 2.x loads with `mindspore.load`."""
    captured = capture_for_export(request.net, request.inputs, request.training, request.capture_mode)
    weights = {v.name: np.asarray(p._data) for v, p in zip(captured.graph.params, captured.params)}
    write_mindir(path, captured.graph, weights, __version__)


def inspect_mindir(path: str) -> str:
    """The model's producer, its MindSpore ops (supported or not) and, when msx can run it, graph and weights."""
    model = parse(path)
    census = op_census(model)
    rows = [(op, count, "yes" if supported(op) else "NO") for op, count in sorted(census.items())]
    lines = [f"MindIR file {path}", f"made by {model.producer_name or '?'} {model.model_version} (ir_version "
             f"{model.ir_version!r}, mind_ir_version {model.mind_ir_version}), {1 + len(model.functions)} graph(s)", "",
             f"MindSpore ops: {len(census)} kinds, {sum(census.values())} nodes",
             table(rows, ("op", "nodes", "msx runs it"))]
    missing = [op for op, _, ok in rows if ok == "NO"]
    if missing:
        lines += ["", f"msx cannot run this file: unsupported op(s) {', '.join(missing)}"]
        return "\n".join(lines)
    graph = load_mindir(path)
    params = [(v.name, v.abstract.dtype, list(v.abstract.shape)) for v in graph.params]
    total = sum(w.nbytes for w in graph.weights.values())
    lines += ["", f"inputs:  {', '.join(f'{v.name}: {v.abstract}' for v in graph.inputs) or '()'}",
              f"outputs: {', '.join(str(o.abstract) for o in graph.outputs) or '()'}", "",
              f"parameters: {len(params)} tensors, {total} bytes", table(params, ("name", "dtype", "shape")), "",
              "as an msx graph:", str(graph)]
    return "\n".join(lines)


def _sniff(path: str, head: bytes) -> bool:
    return head[:1] in (b"\x0a", b"\x12")


register_format("MINDIR", suffixes=".mindir", sniff=_sniff, export=export_mindir, load=load_mindir,
                inspect=inspect_mindir, description="MindSpore's graph format (mindspore.load reads msx's files)")

__all__ = ["export_mindir", "inspect_mindir"]
