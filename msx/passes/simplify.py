"""Algebraic simplification: identities that are exact in floating point.

`x + 0`, `0 + x`, `x - 0`, `x * 1`, `1 * x`, `x / 1`, `x ** 1`, `-(-x)`,
`Identity(x)`, and reshapes, casts, broadcasts, tiles, squeezes and flattens
that change nothing, and transposes by the identity permutation. A rule fires
only when the replacement has exactly the node's shape and dtype, so dtype
promotion and broadcasting are never lost (`int_x * 1.0` stays).
`x * 0` is not simplified: it is NaN for NaN or infinite x.
"""
from __future__ import annotations

from ..ir.graph import Graph, Node, Operand, Var
from .base import Pass
from .rewrite import Substitution, all_equal_to, producers

_NO_OP_IF_SAME_TYPE = frozenset({"Identity", "Reshape", "Cast", "BroadcastTo", "Tile", "Squeeze", "Flatten"})


def _identity_operand(node: Node, made_by: dict[int, Node], subst: Substitution) -> Operand | None:
    """The operand `node` merely passes through, if any."""
    ins = node.inputs
    if node.op in ("Add", "Sub", "Mul", "RealDiv", "Pow") and len(ins) == 2:
        x, y = ins
        if node.op in ("Add", "Sub") and all_equal_to(y, 0):
            return x
        if node.op == "Add" and all_equal_to(x, 0):
            return y
        if node.op in ("Mul", "RealDiv", "Pow") and all_equal_to(y, 1):
            return x
        if node.op == "Mul" and all_equal_to(x, 1):
            return y
        return None
    if node.op in _NO_OP_IF_SAME_TYPE and ins:
        return ins[0]
    if node.op == "Transpose" and ins and isinstance(ins[0], Var):
        perm = node.attrs.get("perm")
        rank = len(ins[0].abstract.shape)
        return ins[0] if (perm is None and rank <= 1) or (perm is not None and tuple(perm) == tuple(range(rank))) \
            else None
    if node.op == "Neg" and isinstance(ins[0], Var):
        inner = made_by.get(ins[0].id)
        return subst.get(inner.inputs[0]) if inner is not None and inner.op == "Neg" else None
    return None


class AlgebraicSimplification(Pass):
    name = "simplify"

    def run(self, graph: Graph) -> Graph:
        made_by = producers(graph)
        subst = Substitution()
        nodes: list[Node] = []
        for node in graph.nodes:
            node = subst.node(node)
            if len(node.outputs) == 1 and not node.subgraphs:
                keep = _identity_operand(node, made_by, subst)
                if isinstance(keep, Var) and keep.abstract == node.outputs[0].abstract:
                    subst.set(node.outputs[0], keep)
                    continue
            nodes.append(node)
        if len(nodes) == len(graph.nodes):
            return graph
        return subst.graph(graph, nodes)
