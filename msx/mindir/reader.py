"""Reading MindSpore `.mindir` files into msx Graphs (no MindSpore needed, nothing in the file is run).

Three passes, each refusing a bad file before the next one starts (one module each):

1. **parse** (`parse.py`) — size limit, protobuf decoding (`mind_ir.proto`, msx's own copy);
   an msx-written file's SHA-256 (kept in `doc_string`) is checked.
2. **check** (`parse.py`) — every graph, node, primitive and name reference: unique names,
   exactly one output per node, inputs defined before use (a use before its
   definition is a cycle), references that resolve, and one pass collecting
   every op msx lacks, so the error lists them all with counts.
3. **convert** (`to_graph.py`, over the symbolic values of `symbolic_values.py`) —
   MindIR's graphs are executed symbolically: Constant nodes give Python/numpy values, primitive calls go through the mapping table in
   `msx.mindir.op_readers`, state nodes (`Load`, `UpdateState`, `Depend`) and
   tuples disappear, a called `Switch` of two `Partial`s becomes a `Cond`
   node, a graph that calls itself through a `Switch` (MindSpore's `while`)
   becomes a `While` node, and other graph calls are inlined. Every node's
   result is checked against the type the file records for it, and the
   finished graph is verified (every shape re-inferred).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field, fields

import numpy as np

from ..errors import MalformedFileError, VerifyError
from ..ir.graph import Graph
from ..ir.verifier import verify
from ..passes.base import apply_everywhere
from ..passes.dce import DeadCodeElimination
from .to_graph import Converter
from .parse import DIGEST_PREFIX, MAX_FILE_BYTES, check, parse
from .parse import digest, op_census, supported  # noqa: F401  (the reader's public helpers: inspect, writer)


@dataclass(eq=False)
class LoadedMindIR(Graph):
    """A Graph read from a `.mindir` file, with its weights (`nn.GraphCell(graph)` runs it)."""

    weights: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    requires_grad: dict[str, bool] = field(default_factory=dict, repr=False)
    manifest: dict = field(default_factory=dict, repr=False)


def load_mindir(path: str | os.PathLike, max_bytes: int = MAX_FILE_BYTES) -> LoadedMindIR:
    """Read a `.mindir` file into a `LoadedMindIR`; raises a `LoadError` subclass naming what is wrong."""
    path = os.fspath(path)
    model = parse(path, max_bytes)
    index = check(model, path)
    name = os.path.splitext(os.path.basename(path))[0] or "mindir"
    converter = Converter(model, index, path, name)
    graph = apply_everywhere(DeadCodeElimination(), converter.run())  # loop headers are re-read after a While
    try:  # every node's abstract came from its op's own rule (GraphBuilder.add), so no second inference
        verify(graph, infer=False)
    except VerifyError as exc:
        raise MalformedFileError(f"{path}: the graph msx built from it does not verify: {exc.message}") from None
    manifest = {"format": "MINDIR", "producer": f"{model.producer_name} {model.model_version}".strip(),
                "ir_version": model.ir_version, "mind_ir_version": int(model.mind_ir_version),
                "mindspore_ops": sorted({p.op_type for p in model.primitives}),
                "primitives": sorted(graph.primitives_used()), "graphs": len(index.graphs),
                "written_by_msx": model.doc_string.startswith(DIGEST_PREFIX)}
    return LoadedMindIR(**{f.name: getattr(graph, f.name) for f in fields(Graph)}, weights=converter.weights,
                        requires_grad={k: True for k in converter.weights}, manifest=manifest)


__all__ = ["load_mindir", "LoadedMindIR", "MAX_FILE_BYTES"]
