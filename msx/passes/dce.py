"""Dead-code elimination: drop nodes whose outputs nothing uses (side-effecting nodes stay)."""
from __future__ import annotations

from dataclasses import replace

from ..ir.graph import Const, Graph, Node
from .base import Pass
from .rewrite import returned


def _has_effect(node: Node) -> bool:
    """Print and other output-less nodes run for their effect alone; so does a Cond/While/... holding one."""
    return not node.outputs or any(_has_effect(n) for g in node.subgraphs.values() for n in g.nodes)


def eliminate_dead_code(graph: Graph) -> Graph:
    """Keep the nodes that (transitively) feed an output, a parameter update or an effect."""
    live = returned(graph)
    kept: list[Node] = []
    for node in reversed(graph.nodes):
        if _has_effect(node) or any(v.id in live for v in node.outputs):
            kept.append(node)
            live |= {x.id for x in node.inputs if not isinstance(x, Const)}
    kept.reverse()
    if len(kept) == len(graph.nodes):
        return graph
    return replace(graph, nodes=kept)


class DeadCodeElimination(Pass):
    """Unused values and whole unused subgraph nodes (a cond nobody reads) disappear."""

    name = "dce"

    def run(self, graph: Graph) -> Graph:
        return eliminate_dead_code(graph)
