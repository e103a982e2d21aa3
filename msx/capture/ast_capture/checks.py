"""Checks of a captured graph for what jax cannot differentiate, so the error comes at capture with the line."""
from __future__ import annotations

from typing import Iterator

from ...ir.control import GRAD, WHILE
from ...ir.graph import Graph, Node, Var
from ...ops.higher_order import HIGHER_ORDER
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
        body = node.subgraphs["body"]
        n_diff = node.attrs["n_args"] + node.attrs["n_params"]
        differentiated = body.outputs[:1] if node.attrs["has_aux"] else body.outputs
        found = _while_on_gradient_path(body, {v.id for v in body.inputs[:n_diff]},
                                        {x.id for x in differentiated if isinstance(x, Var)})
        if found is not None:
            raise Unsupported(WHILE_GRAD, found.loc)


def _subgraph_inputs(node: Node) -> list[tuple[Graph, list]]:
    """(subgraph, the node inputs that feed its inputs, in order): the op's declared `operands` rule."""
    prim = HIGHER_ORDER.get(node.op)
    return prim.rule_for("operands")(node) if prim is not None else []


def _while_on_gradient_path(graph: Graph, depends: set[int], needed: set[int]) -> Node | None:
    """A While node that depends on `depends` and feeds `needed`, in `graph` or its control-flow subgraphs."""
    dep = set(depends)
    for node in graph.nodes:
        if any(isinstance(x, Var) and x.id in dep for x in node.inputs):
            dep.update(v.id for v in node.outputs)
    need = set(needed)
    for node in reversed(graph.nodes):
        if any(v.id in need for v in node.outputs):
            need.update(x.id for x in node.inputs if isinstance(x, Var))
    for node in graph.nodes:
        feeding = [isinstance(x, Var) and x.id in dep for x in node.inputs]
        if not any(feeding) or not any(v.id in need for v in node.outputs):
            continue
        if node.op == WHILE.name:
            return node
        for sub, inputs in _subgraph_inputs(node):
            sub_dep = {v.id for v, x in zip(sub.inputs, inputs) if isinstance(x, Var) and x.id in dep}
            found = _while_on_gradient_path(sub, sub_dep, {x.id for x in sub.outputs if isinstance(x, Var)})
            if found is not None:
                return found
    return None
