"""Building msx Graphs while reading a MindIR file: nested graph builders that capture outer values.

MindIR graphs refer to values of the graphs around them (free variables);
msx subgraphs (Cond branches, While bodies) are closed. A `GraphBuilder`
for a subgraph therefore turns every outer value it uses into an extra
input of its own and remembers the outer operand, so the node that holds
the subgraph can pass it in (`captures`).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import MalformedFileError
from ..ir.graph import Abstract, Const, Graph, Node, Var
from ..ir.interpret import infer_node
from ..ops.primitive import REGISTRY

MAX_NODES = 1_000_000


class Budget:
    """How many msx nodes one file may expand to (graphs called many times are inlined each time)."""

    def __init__(self, limit: int | None = None) -> None:
        self.limit = MAX_NODES if limit is None else limit
        self.left = self.limit

    def spend(self, where: str) -> None:
        self.left -= 1
        if self.left < 0:
            raise MalformedFileError(f"{where}: the file expands to more than {self.limit} msx nodes")


class GraphBuilder:
    """Appends nodes to one msx Graph; `parent` is the builder of the graph around it (None at the top)."""

    def __init__(self, name: str, budget: Budget, parent: "GraphBuilder | None" = None) -> None:
        self.graph = Graph(name)
        self.parent = parent
        self.budget = budget
        self.owned: set[int] = set()
        self.captures: list[tuple[int, Var, Any]] = []  # (outer var id, local input, operand in the parent)
        self._captured: dict[int, Var] = {}

    def input(self, abstract: Abstract, name: str | None = None) -> Var:
        v = Var(abstract, name)
        self.graph.inputs.append(v)
        self.owned.add(v.id)
        return v

    def param(self, abstract: Abstract, name: str) -> Var:
        v = Var(abstract, name)
        self.graph.params.append(v)
        self.owned.add(v.id)
        return v

    def local(self, x: Any) -> Var | Const:
        """`x` as an operand of this graph: constants as Const, outer Vars captured as inputs."""
        if isinstance(x, Const):
            return x
        if isinstance(x, np.ndarray):
            return Const(x)
        if isinstance(x, (bool, int, float)):
            return Const(x)
        if not isinstance(x, Var):  # a monad, a string or a graph where a tensor belongs: the file is malformed
            raise MalformedFileError(f"graph {self.graph.name}: an op input is not a tensor value ({x!r})")
        if x.id in self.owned:
            return x
        got = self._captured.get(x.id)
        if got is not None:
            return got
        if self.parent is None:
            raise MalformedFileError(f"graph {self.graph.name}: uses a value that no enclosing graph defines")
        outer = self.parent.local(x)
        v = Var(x.abstract, x.name)
        self.graph.inputs.append(v)
        self.owned.add(v.id)
        self._captured[x.id] = v
        self.captures.append((x.id, v, outer))
        return v

    def add(self, op: str, inputs: list, attrs: dict, where: str, subgraphs: dict | None = None,
            outputs: list[Abstract] | None = None) -> list[Var]:
        """Append one node; its outputs' abstracts come from the op's own rule (a bad input is the file's fault)."""
        self.budget.spend(where)
        operands = [self.local(x) for x in inputs]
        node = Node(op, operands, [], dict(attrs), None, dict(subgraphs or {}))
        if outputs is None:
            try:
                outputs = infer_node(node)
            except MalformedFileError:
                raise
            except Exception as exc:
                raise MalformedFileError(f"{where}: {op} rejects its inputs "
                                         f"({', '.join(str(o.abstract) for o in operands)}): "
                                         f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") from None
        node.outputs = [Var(a) for a in outputs]
        for v in node.outputs:
            self.owned.add(v.id)
        self.graph.nodes.append(node)
        return node.outputs

    def add_made(self, node: Node, where: str) -> list[Var]:
        """Append a node made by a higher-order constructor (`COND.make(...)`); its operands may be outer values."""
        self.budget.spend(where)
        node.inputs = [self.local(x) for x in node.inputs]
        for v in node.outputs:
            self.owned.add(v.id)
        self.graph.nodes.append(node)
        return node.outputs

    def primitive(self, op: str, inputs: list, attrs: dict, where: str) -> Var | tuple[Var, ...]:
        outs = self.add(op, inputs, attrs, where)
        return tuple(outs) if REGISTRY[op].multiple_results else outs[0]


def close_over(builders: list[GraphBuilder], explicit: int) -> list:
    """Give sibling subgraphs one input list: their `explicit` inputs, then every value any of them captured.

    Returns the parent operands for the captured values, in the order they now appear in each graph's inputs.
    """
    order: list[int] = []
    outer: dict[int, Any] = {}
    for b in builders:
        for vid, _, operand in b.captures:
            if vid not in outer:
                order.append(vid)
                outer[vid] = operand
    for b in builders:
        mine = {vid: v for vid, v, _ in b.captures}
        own = b.graph.inputs[:explicit]
        extra = [mine.get(vid) or Var(_abstract(outer[vid])) for vid in order]
        b.graph.inputs = own + extra
        b.owned.update(v.id for v in extra)
    return [outer[vid] for vid in order]


def _abstract(x) -> Abstract:
    return x.abstract
