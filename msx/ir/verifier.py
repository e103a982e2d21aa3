"""The graph verifier: well-formed, every value defined before use, abstracts re-inferable."""
from __future__ import annotations

from ..errors import VerifyError
from ..ops.primitive import REGISTRY
from .graph import Const, Graph, Var
from .interpret import HIGHER_ORDER, infer_node


def verify(graph: Graph, infer: bool = True) -> Graph:
    """Raise `VerifyError` naming the graph, node and problem; return the graph when it is sound."""
    _verify(graph, infer)
    return graph


def _verify(graph: Graph, infer: bool) -> None:
    defined: set[int] = set()

    def define(v, where: str) -> None:
        if not isinstance(v, Var):
            raise VerifyError(f"graph {graph.name}: {where} defines {v!r}, which is not a Var")
        if v.id in defined:
            raise VerifyError(f"graph {graph.name}: {where} redefines %{v.name or v.id}")
        defined.add(v.id)

    def use(x, where: str) -> None:
        if isinstance(x, Const):
            return
        if not isinstance(x, Var):
            raise VerifyError(f"graph {graph.name}: {where} uses {x!r}, which is neither a Var nor a Const")
        if x.id not in defined:
            raise VerifyError(f"graph {graph.name}: {where} uses %{x.name or x.id}, which is not defined before it "
                              f"(dangling use)")

    for v in graph.inputs:
        define(v, "an input")
    for v in graph.params:
        if not v.name:
            raise VerifyError(f"graph {graph.name}: a parameter input has no name")
        define(v, f"parameter {v.name}")
    for i, node in enumerate(graph.nodes):
        where = f"node {i} ({node.op})"
        if node.op not in REGISTRY and node.op not in HIGHER_ORDER:
            raise VerifyError(f"graph {graph.name}: {where}: unknown primitive {node.op!r}")
        for x in node.inputs:
            use(x, where)
        for sub in node.subgraphs.values():
            _verify(sub, infer)  # subgraphs are closed: free values are explicit inputs
        if infer:
            try:
                expected = infer_node(node)
            except Exception as exc:  # a shape rule rejecting the inputs is a verification failure
                raise VerifyError(f"graph {graph.name}: {where}: its inputs are rejected by the op: {getattr(exc, 'message', exc)}",
                                  loc=node.loc) from None
            got = [v.abstract for v in node.outputs]
            if expected != got:
                raise VerifyError(f"graph {graph.name}: {where}: outputs say {', '.join(map(str, got))} but the op "
                                  f"gives {', '.join(map(str, expected))}", loc=node.loc)
        for v in node.outputs:
            define(v, where)
    for x in graph.outputs:
        use(x, "the return")
    names = [n for n, _ in graph.updates]
    if len(set(names)) != len(names):
        raise VerifyError(f"graph {graph.name}: a parameter is updated twice: {names}")
    for name, x in graph.updates:
        use(x, f"update of {name}")
