"""Elementwise fusion (O1): chains of elementwise primitives become one `Fused` node.

A `Fused` node's body is an ordinary subgraph of the fused nodes and its
lowering is the evaluation of that body (`msx.ir.interpret`), so emission
stays lowering and a backend sees one kernel per group (the simulated Ascend
cost model counts it as one launch).

Groups are formed in program order: an elementwise node joins the group of
one of its producers unless that group is *sealed* — some node outside it
already read one of its values. The fused node is placed where the group's
last member was, so sealing is exactly what keeps every reader after it.
"""
from __future__ import annotations

from dataclasses import replace

from ..ir.control import FUSED as FUSED_OP
from ..ir.graph import Graph, Node, Var, common_scope
from ..ops.primitive import REGISTRY
from .base import Pass
from .rewrite import producers, returned, users

FUSED = FUSED_OP.name  # the op's name, as graph views match it


def fusible(node: Node) -> bool:
    prim = REGISTRY.get(node.op)
    return prim is not None and prim.category == "elementwise" and not prim.multiple_results \
        and len(node.outputs) == 1


class _Group:
    def __init__(self, first: Node) -> None:
        self.members: list[Node] = [first]
        self.ids = {id(first)}
        self.sealed = False

    def add(self, node: Node) -> None:
        self.members.append(node)
        self.ids.add(id(node))


def _groups(graph: Graph) -> list[_Group]:
    made_by = producers(graph)
    group_of: dict[int, _Group] = {}
    groups: list[_Group] = []
    for node in graph.nodes:
        sources = []
        for x in node.inputs:
            g = group_of.get(id(made_by[x.id])) if isinstance(x, Var) and x.id in made_by else None
            if g is not None and g not in sources:
                sources.append(g)
        joined = None
        if fusible(node):
            joined = next((g for g in sources if not g.sealed), None)
            if joined is None:
                joined = _Group(node)
                groups.append(joined)
            else:
                joined.add(node)
            group_of[id(node)] = joined
        for g in sources:
            if g is not joined:
                g.sealed = True
    return [g for g in groups if len(g.members) > 1]


def _fuse(graph: Graph, group: _Group, index: int, read_outside: set[int]) -> Node:
    """One Fused node computing `group`; its outputs are the members' values read outside the group."""
    inputs: list[Var] = []
    inner: dict[int, Var] = {}
    body_nodes = []
    defined: dict[int, Var] = {}
    for node in group.members:
        ins = []
        for x in node.inputs:
            if not isinstance(x, Var):
                ins.append(x)
            elif x.id in defined:
                ins.append(defined[x.id])
            else:
                if x.id not in inner:
                    inner[x.id] = Var(x.abstract, x.name)
                    inputs.append(x)
                ins.append(inner[x.id])
        outs = [Var(v.abstract) for v in node.outputs]
        defined.update({v.id: o for v, o in zip(node.outputs, outs)})
        body_nodes.append(Node(node.op, ins, outs, dict(node.attrs), node.loc, scope=node.scope))
    escaping = [v for node in group.members for v in node.outputs if v.id in read_outside]
    body = Graph(f"{graph.name}_fused{index}", [inner[x.id] for x in inputs], [], body_nodes,
                 [defined[v.id] for v in escaping])
    scope = common_scope([m.scope for m in group.members])  # shown inside the Cell that holds all members
    # its outputs are the members' own values: every reader outside the group keeps reading them
    return FUSED_OP.make(body, list(inputs), outputs=escaping, loc=group.members[-1].loc, scope=scope)


class ElementwiseFusion(Pass):
    name = "fuse_elementwise"

    def enters(self, node: Node) -> bool:
        return node.op != FUSED

    def run(self, graph: Graph) -> Graph:
        groups = _groups(graph)
        if not groups:
            return graph
        read_by, leaving = users(graph), returned(graph)
        member_of: set[int] = set()
        fused_at: dict[int, Node] = {}
        for g in groups:
            outside = {v.id for n in g.members for v in n.outputs
                       if v.id in leaving or any(id(u) not in g.ids for u in read_by.get(v.id, ()))}
            if outside:  # a group nobody reads is dead code: left for dce, not turned into an effect-less node
                fused_at[id(g.members[-1])] = _fuse(graph, g, len(fused_at), outside)
                member_of |= g.ids
        nodes = [fused_at.get(id(node), node) for node in graph.nodes
                 if id(node) in fused_at or id(node) not in member_of]
        return replace(graph, nodes=nodes) if fused_at else graph

