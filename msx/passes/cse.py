"""Common-subexpression elimination: one node per (op, attributes, operands).

Only pure primitives are merged: random ops, optimizer state updates, effects
(nodes without outputs) and higher-order nodes are left alone.
"""
from __future__ import annotations

from ..ir.graph import Graph, Node
from ..ops.primitive import REGISTRY
from .base import Pass
from .rewrite import Substitution, freeze, operand_key

IMPURE_CATEGORIES = frozenset({"random", "state"})


def is_pure_primitive(node: Node) -> bool:
    prim = REGISTRY.get(node.op)
    return prim is not None and prim.category not in IMPURE_CATEGORIES and bool(node.outputs) \
        and not node.subgraphs


class CommonSubexpressionElimination(Pass):
    name = "cse"

    def run(self, graph: Graph) -> Graph:
        subst = Substitution()
        seen: dict[object, Node] = {}
        nodes: list[Node] = []
        for node in graph.nodes:
            node = subst.node(node)
            if is_pure_primitive(node):
                key = (node.op, freeze(node.attrs), tuple(operand_key(x) for x in node.inputs))
                first = seen.get(key)
                if first is not None and [v.abstract for v in first.outputs] == [v.abstract for v in node.outputs]:
                    for old, new in zip(node.outputs, first.outputs):
                        subst.set(old, new)
                    continue
                seen.setdefault(key, node)
            nodes.append(node)
        if len(nodes) == len(graph.nodes) and not subst:
            return graph
        return subst.graph(graph, nodes)
