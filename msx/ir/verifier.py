"""The graph verifier: well-formed, every value defined before use, ops declared, abstracts re-inferable.

Per node it checks, in order: the op is declared (`REGISTRY`); its attrs are
among the declaration's `attrs`; its subgraphs are the declared ones (none for
a first-order op), and for an op over subgraphs its structural
`abstract_eval` rule accepts it (subgraph arity and types); with `infer`, the outputs' abstracts are what the op gives
(`infer_node`, cached per (op, input avals, attrs), so verifying a deep model
costs a dictionary lookup per repeated layer). Graph-wide: each update names
a Parameter (or, in a subgraph, an input) of the graph, at most once.

Like jax's `check_jaxpr`, a failure prints the failing node between its
neighbours (three each side) with their source lines, marked `>>>`.
"""
from __future__ import annotations

from ..errors import VerifyError
from ..ops.primitive import REGISTRY
from .graph import RECOMPUTE, Const, Graph, Node, Var
from .interpret import infer_node
from .printer import _Names, format_node

CONTEXT = 3  # nodes shown on each side of a failing one


def verify(graph: Graph, infer: bool = True) -> Graph:
    """Raise `VerifyError` naming the graph, node and problem; return the graph when it is sound."""
    _verify(graph, infer, top=True)
    return graph


def node_context(graph: Graph, index: int, around: int = CONTEXT) -> str:
    """Nodes `index - around .. index + around` of `graph` as printed, the one at `index` marked `>>>`."""
    names = _Names()
    for v in [*graph.inputs, *graph.params]:
        names.define(v)
    lines = []
    for i, node in enumerate(graph.nodes):
        try:
            text = format_node(node, names)
        except Exception:  # a malformed node still gets a line
            text = f"  {node.op}(...)"
        if abs(i - index) <= around:
            lines.append(("  >>>" if i == index else "     ") + text)
    return "\n".join(lines)


def _fail(graph: Graph, index: int, node: Node, problem: str) -> VerifyError:
    return VerifyError(f"graph {graph.name}: node {index} ({node.op}): {problem}\n{node_context(graph, index)}",
                       loc=node.loc)


def _check_node(node: Node, infer: bool) -> str | None:
    """The problem with `node` itself (declaration, attrs, layout, abstracts), or None."""
    prim = REGISTRY.get(node.op)
    if prim is None:
        return f"unknown primitive {node.op!r}"
    extra = [k for k in node.op_attrs if k not in prim.attrs] if "*" not in prim.attrs else []
    if RECOMPUTE in node.attrs and (prim.subgraphs or not isinstance(node.attrs[RECOMPUTE], bool)):
        return f"attr {RECOMPUTE}={node.attrs[RECOMPUTE]!r}: only a first-order op carries the mark, as a bool"
    if extra:
        return f"attrs {extra} are not among {node.op}'s declared attrs {list(prim.attrs)}"
    problem = prim.subgraph_problem(node.subgraphs)
    if problem is not None:
        return problem
    structural = bool(prim.subgraphs)  # an op over subgraphs has a structural shape rule: cheap, always run
    if not (infer or structural):
        return None
    try:
        expected = infer_node(node)
    except Exception as exc:  # a shape rule rejecting the inputs is a verification failure
        return f"its inputs are rejected by the op: {getattr(exc, 'message', exc)}"
    got = [v.abstract for v in node.outputs]
    if len(expected) != len(got) or (infer and expected != got):
        return f"outputs say {', '.join(map(str, got))} but the op gives {', '.join(map(str, expected))}"
    return None


def _verify(graph: Graph, infer: bool, top: bool) -> None:
    defined: set[int] = set()

    def define(v, where: str) -> None:
        if not isinstance(v, Var):
            raise VerifyError(f"graph {graph.name}: {where} defines {v!r}, which is not a Var")
        if v.id in defined:
            raise VerifyError(f"graph {graph.name}: {where} redefines %{v.name or v.id}")
        defined.add(v.id)

    def use(x, where: str) -> str | None:
        if isinstance(x, Const):
            return None
        if not isinstance(x, Var):
            return f"{where} uses {x!r}, which is neither a Var nor a Const"
        if x.id not in defined:
            return f"{where} uses %{x.name or x.id}, which is not defined before it (dangling use)"
        return None

    for v in graph.inputs:
        define(v, "an input")
    for v in graph.params:
        if not v.name:
            raise VerifyError(f"graph {graph.name}: a parameter input has no name")
        define(v, f"parameter {v.name}")
    for i, node in enumerate(graph.nodes):
        for x in node.inputs:
            problem = use(x, "it")
            if problem is not None:
                raise _fail(graph, i, node, problem)
        for sub in node.subgraphs.values():
            _verify(sub, infer, top=False)  # subgraphs are closed: free values are explicit inputs
        problem = _check_node(node, infer)
        if problem is not None:
            raise _fail(graph, i, node, problem)
        for v in node.outputs:
            define(v, f"node {i} ({node.op})")
    for x in graph.outputs:
        problem = use(x, "the return")
        if problem is not None:
            raise VerifyError(f"graph {graph.name}: {problem}")
    names = [n for n, _ in graph.updates]
    if len(set(names)) != len(names):
        raise VerifyError(f"graph {graph.name}: a parameter is updated twice: {names}")
    writable = {v.name for v in graph.params} | (set() if top else {v.name for v in graph.inputs})
    for name, x in graph.updates:
        if name not in writable:
            raise VerifyError(f"graph {graph.name}: it updates {name!r}, which is not one of its parameters "
                              f"({sorted(n for n in writable if n)})")
        problem = use(x, f"update of {name}")
        if problem is not None:
            raise VerifyError(f"graph {graph.name}: {problem}")
