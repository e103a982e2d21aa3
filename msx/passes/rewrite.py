"""Small helpers every rewrite needs: value substitution, users, producers, hashable keys."""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..ir.graph import Const, Graph, Node, Operand, Var


class Substitution:
    """Value replacements (`old Var -> new operand`), applied to node inputs, outputs and updates."""

    def __init__(self) -> None:
        self.to: dict[int, Operand] = {}

    def __bool__(self) -> bool:
        return bool(self.to)

    def set(self, old: Var, new: Operand) -> None:
        self.to[old.id] = new

    def get(self, x: Operand) -> Operand:
        while isinstance(x, Var) and x.id in self.to:
            x = self.to[x.id]
        return x

    def node(self, node: Node) -> Node:
        """`node` with its inputs substituted (the same object when none changes)."""
        if not self.to:
            return node
        ins = [self.get(x) for x in node.inputs]
        if all(a is b for a, b in zip(ins, node.inputs)):
            return node
        return replace(node, inputs=ins)

    def graph(self, graph: Graph, nodes: list[Node]) -> Graph:
        """`graph` with `nodes` (already substituted) and its outputs and updates substituted."""
        return replace(graph, nodes=nodes, outputs=[self.get(x) for x in graph.outputs],
                       updates=[(name, self.get(x)) for name, x in graph.updates])


def users(graph: Graph) -> dict[int, list[Node]]:
    """Var id -> the nodes of `graph` that read it."""
    found: dict[int, list[Node]] = {}
    for node in graph.nodes:
        for x in node.inputs:
            if isinstance(x, Var):
                found.setdefault(x.id, []).append(node)
    return found


def producers(graph: Graph) -> dict[int, Node]:
    """Var id -> the node of `graph` that defines it."""
    return {v.id: node for node in graph.nodes for v in node.outputs}


def returned(graph: Graph) -> set[int]:
    """Ids of the values that leave the graph (outputs and parameter updates)."""
    return {x.id for x in list(graph.outputs) + [x for _, x in graph.updates] if isinstance(x, Var)}


def freeze(value) -> object:
    """A hashable key for an attribute or constant value; it tells 1, 1.0 and True apart."""
    if isinstance(value, np.ndarray):
        return "ndarray", value.dtype.str, value.shape, value.tobytes()
    if isinstance(value, (list, tuple)):  # attributes given as lists and recorded as tuples are the same
        return "seq", tuple(freeze(v) for v in value)
    if isinstance(value, dict):
        return "dict", tuple(sorted((str(k), freeze(v)) for k, v in value.items()))
    try:
        hash(value)
    except TypeError:
        return "repr", repr(value)
    return type(value).__name__, value


def operand_key(x: Operand) -> object:
    return ("var", x.id) if isinstance(x, Var) else ("const", freeze(x.value))


def const_equals(c: Const, value) -> bool:
    """Whether constant `c` has the shape and values of `value` (dtypes are not compared)."""
    try:
        a, b = np.asarray(c.value), np.asarray(value)
        return a.shape == b.shape and bool(np.array_equal(a, b))
    except (TypeError, ValueError):
        return False


def all_equal_to(x: Operand, scalar: float) -> bool:
    """Whether `x` is a numeric (non-bool) constant whose every element equals `scalar`."""
    if not isinstance(x, Const) or isinstance(x.value, bool) or x.value is None:
        return False
    if isinstance(x.value, (int, float, complex)):  # a Python scalar: no array needed
        return x.value == scalar
    arr = np.asarray(x.value)
    return arr.dtype.kind in "iufc" and arr.size > 0 and bool(np.all(arr == scalar))

