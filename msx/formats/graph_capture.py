"""The graph an export writes: `net` captured on its example inputs, in eval mode, for one device.

Every graph format (MSXIR, MINDIR, STABLEHLO) starts here, so they all hold
the same graph: captured without side effects (training flags restored,
`versions` touched), refused when a trace's Python control flow depended on
tensor values, and without `Shard` nodes (a file runs on one device whatever
the parallel mode of the capture). Dropping them is a rule of the rewrite
engine (`msx.passes.rules`), applied to every subgraph by the pass driver:
like every rewrite it builds a new Graph and leaves the captured one as it was.
"""
from __future__ import annotations

import os
import sys
import warnings

from dataclasses import replace
from typing import Callable

from .. import versions
from ..capture.builder import Captured
from ..dynamic import symbolic_inputs
from ..errors import ExportError
from ..ir.graph import Graph, Operand
from ..ir.verifier import verify
from ..jit import jit
from ..nn.cell import Cell
from ..passes.base import FunctionPass
from ..passes.rules import Match, Pat, Rule, RuleSet, rewrite
from ..tensor import Tensor


def _sharded_value(m: Match) -> Operand:
    return m.value("x")


# a `Shard` is an identity that only lays its input out over the strategy mesh: each use of it is a use of its input
SHARD_RULES = RuleSet([Rule(Pat.op("Shard", Pat.var("x")), _sharded_value, "drop Shard")])
_DROP_SHARDS = FunctionPass(lambda g: rewrite(g, SHARD_RULES, allow_consts=True), "drop_shards")


def drop_shards(graph: Graph) -> Graph:
    """`graph` without its `Shard` nodes, in subgraphs, outputs and Parameter updates too: a new Graph (or `graph`
    itself when it has none); `graph` is never modified."""
    return _DROP_SHARDS(graph)


def capture_for_export(net: Callable, inputs: tuple, training: bool = False,
                       capture_mode: str = "ast") -> Captured:
    """The graph of `net` on `inputs`, captured without side effects, in eval mode unless `training`."""
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
    checks = [g for g in captured.guards if g.error is not None]
    if checks:  # a check guards only inputs the eager program refuses; the file cannot raise, so say so
        warnings.warn(f"export: {captured.graph.name}'s file does not check "
                      f"{'; '.join(g.describe() for g in checks)}: inputs that the Python program refuses "
                      f"(IndexError, UnboundLocalError) give an unchecked result from the loaded graph",
                      stacklevel=_user_stacklevel())
    outcomes = [g for g in captured.guards if g.error is None]
    if outcomes:
        decided = "; ".join(g.describe() for g in outcomes)
        raise ExportError(f"export: {captured.graph.name}'s Python control flow depends on tensor values "
                          f"({decided}); a graph captured with capture_mode={capture_mode!r} would keep only the "
                          f"outcome seen now. Capture with capture_mode='ast' (graph control flow) or compute the "
                          f"choice with tensor ops (ops.select)")
    captured = replace(captured, graph=drop_shards(captured.graph))
    verify(captured.graph, infer=False)
    return captured


def _user_stacklevel() -> int:
    """The `warnings.warn` stacklevel of the first frame outside msx (the user's export call)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(root + os.sep):
        frame, level = frame.f_back, level + 1
    return level


__all__ = ["capture_for_export", "drop_shards", "SHARD_RULES"]
