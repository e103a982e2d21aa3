"""What a pass is: a named Graph -> Graph rewrite (ARCHITECTURE rule 4).

A pass rewrites one graph at a time and must not modify its input: it returns
the same object when it changed nothing, or a new Graph (sharing the nodes it
kept). The pass manager applies it to every subgraph too (cond/while/scan
bodies, gradient bodies), innermost first, so a pass never walks subgraphs
itself.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import replace
from typing import Callable

from ..errors import PassError
from ..ir.graph import Const, Graph, Node


class Pass(ABC):
    """Subclass and implement `run(graph)`; `name` (default: the class name) is how users list and disable it."""

    name: str = ""

    def __init__(self) -> None:
        if not self.name:
            self.name = type(self).__name__

    @abstractmethod
    def run(self, graph: Graph) -> Graph:
        """Rewrite one graph (its subgraphs were already rewritten); return it unchanged or a new Graph."""

    def enters(self, node: Node) -> bool:
        """Whether the pass also runs inside `node`'s subgraphs (all of them by default)."""
        return True

    def __call__(self, graph: Graph) -> Graph:
        """Apply the pass to `graph` and all its subgraphs (no verification; the manager adds that)."""
        return apply_everywhere(self, graph)

    def __repr__(self) -> str:
        return f"<pass {self.name}>"


class FunctionPass(Pass):
    """A plain `Graph -> Graph` function used as a pass."""

    def __init__(self, fn: Callable[[Graph], Graph], name: str | None = None) -> None:
        self.fn = fn
        self.name = name or getattr(fn, "__name__", type(fn).__name__)

    def run(self, graph: Graph) -> Graph:
        out = self.fn(graph)
        if not isinstance(out, Graph):
            raise TypeError(f"pass {self.name!r} returned {type(out).__name__}, expected a Graph")
        return out


def as_pass(p) -> Pass:
    """A `Pass` for a Pass instance or a `Graph -> Graph` callable; a clear error for anything else."""
    if isinstance(p, Pass):
        return p
    if isinstance(p, type) and issubclass(p, Pass):
        raise TypeError(f"{p.__name__} is a pass class; pass an instance: {p.__name__}()")
    if callable(p):
        return FunctionPass(p)
    raise TypeError(f"a pass must be a msx.passes.Pass or a Graph -> Graph function, got {type(p).__name__}")


def apply_everywhere(p: Pass, graph: Graph) -> Graph:
    """Run `p` on every subgraph (innermost first), then on `graph`; returns `graph` itself if nothing changed."""
    nodes, changed = [], False
    for node in graph.nodes:
        if node.subgraphs and p.enters(node):
            subs = {key: apply_everywhere(p, sub) for key, sub in node.subgraphs.items()}
            for key, sub in subs.items():
                if sub is not node.subgraphs[key]:
                    check_interface(p, node.subgraphs[key], sub, f"subgraph {key!r} of {node.op} in graph {graph.name}")
            if any(subs[key] is not node.subgraphs[key] for key in subs):
                node, changed = replace(node, subgraphs=subs), True
        nodes.append(node)
    if changed:
        graph = replace(graph, nodes=nodes)
    return p.run(graph)


def interface(graph: Graph) -> tuple:
    """What a graph's user sees: input, parameter, output and update names, shapes and dtypes."""
    def abstract(x):
        return x.abstract if not isinstance(x, Const) else ("const", type(x.value).__name__, x.abstract)

    return ([v.abstract for v in graph.inputs], [(v.name, v.abstract) for v in graph.params],
            [abstract(x) for x in graph.outputs], [(name, abstract(x)) for name, x in graph.updates])


def check_interface(p: Pass, before: Graph, after: Graph, where: str) -> None:
    """A pass may rewrite a graph's inside, never its interface (callers depend on it)."""
    for part, old, new in zip(("inputs", "parameters", "outputs", "updates"), interface(before), interface(after)):
        if old != new:
            raise PassError(f"pass {p.name!r} changed the {part} of {where}: {_show(old)} -> {_show(new)}")


def _show(items: list) -> str:
    return "[" + ", ".join(str(x) for x in items) + "]"
