"""Dead-code elimination: drop nodes whose outputs nothing uses (side-effecting nodes stay)."""
from __future__ import annotations

from dataclasses import replace

from ..ir.graph import Const, Graph, Node


def _has_effect(node: Node) -> bool:
    return not node.outputs  # Print and other nodes run for their effect alone


def eliminate_dead_code(graph: Graph, keep: tuple = ()) -> Graph:
    """`keep`: extra values the caller needs (guard values), kept alive like outputs."""
    live = {x.id for x in list(graph.outputs) + list(keep) if not isinstance(x, Const)}
    live |= {x.id for _, x in graph.updates if not isinstance(x, Const)}
    kept: list[Node] = []
    for node in reversed(graph.nodes):
        if _has_effect(node) or any(v.id in live for v in node.outputs):
            kept.append(node)
            live |= {x.id for x in node.inputs if not isinstance(x, Const)}
    kept.reverse()
    if len(kept) == len(graph.nodes):
        return graph
    return replace(graph, nodes=kept)
