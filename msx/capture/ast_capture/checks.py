"""Checks of a captured graph for what jax cannot differentiate, so the error comes at capture with the line."""
from __future__ import annotations

from typing import Iterator

from ...ir.control import GRAD
from ...ir.gradient_path import gradient_while
from ...ir.graph import Graph, Node
from .failures import Unsupported

WHILE_GRAD = ("reverse-mode differentiation through this `while` loop is not supported: its trip count depends "
              "on tensor values, and the gradient would need every iteration's values. Use a bounded loop "
              "instead: `for _ in range(max_steps):` with an `if` on the condition inside (a static trip count "
              "that is differentiable)")


def _nodes(graph: Graph) -> Iterator[Node]:
    for node in graph.nodes:
        yield node
        for sub in node.subgraphs.values():
            yield from _nodes(sub)


def check_reverse_mode(graph: Graph) -> None:
    """Raise `Unsupported` at a While node whose loop a Grad node would have to differentiate."""
    for node in _nodes(graph):
        if node.op != GRAD.name:
            continue
        found = gradient_while(node)
        if found is not None:
            raise Unsupported(WHILE_GRAD, found.loc)
