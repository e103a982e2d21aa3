"""Which While node a `Grad` node would have to differentiate: jax differentiates no `while_loop`, so the
captures find it on the graph (ast when its capture ends, bytecode as it records the `Grad` node) and say so
before lowering would fail."""
from __future__ import annotations

from .control import WHILE
from .graph import Graph, Node, Var
from ..ops.higher_order import HIGHER_ORDER


def gradient_while(grad: Node) -> Node | None:
    """The While node (if any) on the path from the differentiated inputs of a `Grad` node to its outputs."""
    body = grad.subgraphs["body"]
    n_diff = grad.attrs["n_args"] + grad.attrs["n_params"]
    differentiated = body.outputs[:1] if grad.attrs["has_aux"] else body.outputs
    return _while_on_gradient_path(body, {v.id for v in body.inputs[:n_diff]},
                                   {x.id for x in differentiated if isinstance(x, Var)})


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
