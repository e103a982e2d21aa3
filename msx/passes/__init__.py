"""Graph -> graph passes (ARCHITECTURE rule 4). This module holds the pipeline `jit` runs."""
from __future__ import annotations

import os

from ..ir.graph import Graph
from ..ir.verifier import verify
from .dce import eliminate_dead_code

_VERIFY_SHAPES = os.environ.get("MSX_VERIFY_SHAPES", "0") == "1"


def optimise(graph: Graph, jit_level: str = "O0", keep: tuple = ()) -> Graph:
    """The frontend pipeline: dead-code elimination, then the verifier.

    The verifier always checks structure; with MSX_VERIFY_SHAPES=1 (the test
    suite sets it) it also re-infers every abstract value.
    """
    graph = eliminate_dead_code(graph, keep)
    verify(graph, infer=_VERIFY_SHAPES)
    return graph
