"""Which While node a `Grad` node would have to differentiate: jax differentiates no `while_loop`, so the
captures find it on the graph (ast when its capture ends, bytecode as it records the `Grad` node) and say so
before lowering would fail."""
from __future__ import annotations

from ..ops.rule_tables import RuleTable, by_impl
from .control import CALL, CASE, COND, FUSED, GRAD, GRAD_HOOK, SCAN, VMAP, WHILE
from .graph import Graph, Node, Var

# `(node) -> [(subgraph, the node inputs its inputs take, in order)]`: the data flow into an op's subgraphs, this
# analysis's own table (filled below, for every op over subgraphs; an op without subgraphs has none to follow)
OPERANDS = RuleTable("operands", "msx/ir/gradient_path.py (OPERANDS)",
                     derived=by_impl(lambda node: []))


@OPERANDS.register(GRAD)
def _grad_operands(node: Node) -> list:
    """The body takes every input but the sensitivities."""
    n_sens = node.attrs["n_sens"]
    return [(node.subgraphs["body"], list(node.inputs[:len(node.inputs) - n_sens]))]


@OPERANDS.register(CALL, FUSED, SCAN, VMAP)
def _body_takes_inputs(node: Node) -> list:
    return [(node.subgraphs["body"], list(node.inputs))]


@OPERANDS.register(COND, CASE)
def _branches_take_operands(node: Node) -> list:
    return [(g, list(node.inputs[1:])) for g in node.subgraphs.values()]


@OPERANDS.register(WHILE)
def _while_operands(node: Node) -> list:
    return [(node.subgraphs["cond"], list(node.inputs)), (node.subgraphs["body"], list(node.inputs))]


@OPERANDS.register(GRAD_HOOK)
def _hook_takes_inputs(node: Node) -> list:
    return [(node.subgraphs["hook"], list(node.inputs))]


def gradient_while(grad: Node) -> Node | None:
    """The While node (if any) on the path from the differentiated inputs of a `Grad` node to its outputs."""
    body = grad.subgraphs["body"]
    n_diff = grad.attrs["n_args"] + grad.attrs["n_params"]
    differentiated = body.outputs[:1] if grad.attrs["has_aux"] else body.outputs
    return _while_on_gradient_path(body, {v.id for v in body.inputs[:n_diff]},
                                   {x.id for x in differentiated if isinstance(x, Var)})


def _subgraph_inputs(node: Node) -> list[tuple[Graph, list]]:
    """(subgraph, the node inputs that feed its inputs, in order): the op's rule in `OPERANDS`."""
    return OPERANDS.rule_for(node.op)(node)


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
