"""Inlining: a `Call` node is replaced by a copy of its body's nodes.

Each call site gets fresh values, so one body called twice inlines twice.
A call whose result would become a constant is kept as it is (its outputs
must stay typed values).
"""
from __future__ import annotations

from dataclasses import replace

from ..ir.control import CALL
from ..ir.graph import Const, Graph, Node, Var
from .base import Pass
from .rewrite import Substitution


def _inline(call: Node, subst: Substitution) -> list[Node] | None:
    body = call.subgraphs["body"]
    if body.params:
        return None
    env = Substitution()
    for inner, outer in zip(body.inputs, call.inputs):
        env.set(inner, outer)
    copies = []
    for node in body.nodes:
        fresh = [Var(v.abstract, v.name) for v in node.outputs]
        for old, new in zip(node.outputs, fresh):
            env.set(old, new)
        copies.append(replace(node, inputs=[env.get(x) for x in node.inputs], outputs=fresh))
    results = [env.get(x) for x in list(body.outputs) + [x for _, x in body.updates]]
    if len(results) != len(call.outputs) or any(isinstance(r, Const) for r in results):
        return None
    for out, r in zip(call.outputs, results):
        subst.set(out, r)
    return copies


class Inline(Pass):
    name = "inline"

    def run(self, graph: Graph) -> Graph:
        subst = Substitution()
        nodes: list[Node] = []
        changed = False
        for node in graph.nodes:
            node = subst.node(node)
            copies = _inline(node, subst) if node.op == CALL.name else None
            if copies is None:
                nodes.append(node)
            else:
                nodes.extend(copies)
                changed = True
        return subst.graph(graph, nodes) if changed else graph
