"""An msx `Graph` as Model Explorer graphs (`model_explorer.graph_builder`), ready to show or save as JSON.

Why this shape: Model Explorer folds nodes into collapsible layers by their
`namespace` path and jumps into subgraphs by `subgraphIds`, so the IR maps
onto it directly:

- every IR node is one Model Explorer node (label: the op), in the namespace
  of the Cell path it was recorded under (`Node.scope`, e.g.
  `SimpleNet/fc1`), with its static attributes, its output shapes/dtypes
  (`tensor_shape`, which Model Explorer draws on edges) and its source line;
- edges are the IR's uses (output k of the producer -> input j of the user);
  constant operands are attributes (`input 1`), not nodes;
- graph inputs and Parameters are nodes of their own (Parameters in the
  layer of the nodes that read them, shaded); each Parameter write is an
  `Update` node, and the return is an `Output` node;
- a `Grad` node's body (the forward pass a gradient differentiates: a
  training step's whole model) is drawn inline, each op in its own Cell
  layer, so the step's top level shows the network; the backward pass is
  one `Grad` node in a `Grad<index>` layer, fed by the forward values and
  the differentiated inputs, giving the gradients;
- `Cond`/`While`/`Scan`/`Call` bodies are separate graphs of the
  collection (`<graph>/<Op><index>.<key>`), reached from their node;
- an O1 `Fused` node becomes a group: its body's ops drawn inline in a
  `Fused<index>` layer, with the `Fused` node pinned at the group's top.

`Converted.node_ids` maps each IR node (by identity) to its Model Explorer
(graph id, node id), which overlays use to key their values.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..ir.graph import Const, Graph, Node, Var, common_scope
from ..passes.fusion import FUSED

GRAD = "Grad"
from ._me import graph_builder as gb

PARAM_STYLE = {"backgroundColor": "#e3f2fd", "borderColor": "#1e88e5"}
UPDATE_STYLE = {"backgroundColor": "#fde7e9", "borderColor": "#d93025"}
IO_STYLE = {"backgroundColor": "#f1f3f4", "borderColor": "#5f6368"}
FUSED_GROUP = {"backgroundColor": "#fff3e0", "borderColor": "#fb8c00"}


@dataclass
class Converted:
    """The Model Explorer collection of one msx graph, and where each IR node went."""

    collection: Any                                   # model_explorer.graph_builder.GraphCollection
    node_ids: dict[int, tuple[str, str]] = field(default_factory=dict)  # id(ir Node) -> (graph id, node id)
    nodes: dict[int, Node] = field(default_factory=dict)                # id(ir Node) -> the node (kept alive)

    @property
    def graphs(self) -> list:
        return self.collection.graphs

    def graph(self, graph_id: str):
        return next(g for g in self.collection.graphs if g.id == graph_id)


def convert(graph: Graph, label: str | None = None, stage: str = "") -> Converted:
    """`graph` (and its subgraphs) as one Model Explorer `GraphCollection` labelled `label` (default: its name)."""
    out = Converted(gb.GraphCollection(label=label or graph.name, graphSorting="name_asc"))
    _GraphConverter(out, graph, graph.name, stage).run()
    return out


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, Const):
        return repr(value)
    text = repr(value) if not hasattr(value, "shape") else f"array{tuple(value.shape)} {value.dtype}"
    return text if len(text) <= 200 else text[:197] + "..."


def _kv(key: str, value: Any) -> Any:
    return gb.KeyValue(key=key, value=_text(value))


def _tensor(k: int, v: Var, tag: str) -> Any:
    return gb.MetadataItem(id=str(k), attrs=[_kv("tensor_shape", f"{v.abstract.dtype}[{','.join(map(str, v.abstract.shape))}]"),
                                              _kv("__tensor_tag", tag)])


class _GraphConverter:
    """Converts one msx graph into one Model Explorer graph, recursing into subgraphs."""

    def __init__(self, out: Converted, graph: Graph, gid: str, stage: str) -> None:
        self.out, self.graph, self.gid, self.stage = out, graph, gid, stage
        self.me = gb.Graph(id=gid, nodes=[], layoutConfigs=gb.LayoutConfigs(keepLayersWithASingleChild=True),
                           groupNodeConfigs=[gb.GroupNodeConfig(namespaceRegex=r"(.*/)?Fused\d+", **FUSED_GROUP)])
        self.source: dict[int, tuple[str, str]] = {}   # Var.id -> (ME node id, output id)
        self.names: dict[int, str] = {}                 # Var.id -> printed name (%3, %x)
        self.counter = 0
        self.namespaces: dict[str, dict[str, str]] = {}

    # ------------------------------------------------------------ values
    def name(self, v: Var) -> str:
        if v.id not in self.names:
            if v.name is not None:
                self.names[v.id] = "%" + v.name
            else:
                self.names[v.id] = f"%{self.counter}"
                self.counter += 1
        return self.names[v.id]

    def define(self, v: Var, node_id: str, k: int) -> Any:
        self.source[v.id] = (node_id, str(k))
        return _tensor(k, v, self.name(v))

    def edges(self, operands: list) -> tuple[list, list]:
        """(incoming edges, attributes for constant operands) of a node reading `operands`."""
        edges, consts = [], []
        for j, x in enumerate(operands):
            if isinstance(x, Const):
                consts.append(_kv(f"input {j}", x))
            elif x.id in self.source:
                src, k = self.source[x.id]
                edges.append(gb.IncomingEdge(sourceNodeId=src, sourceNodeOutputId=k, targetNodeInputId=str(j)))
        return edges, consts

    # ------------------------------------------------------------ nodes
    def add(self, node_id: str, label: str, namespace: str, **kw: Any) -> Any:
        me = gb.GraphNode(id=node_id, label=label, namespace=namespace, **kw)
        self.me.nodes.append(me)
        return me

    def run(self) -> None:
        g = self.graph
        self.out.collection.graphs.append(self.me)
        param_scope = self.param_scopes()
        for i, v in enumerate(g.inputs):
            self.add(f"input{i}", v.name or f"input{i}", "", attrs=[_kv("kind", "graph input"), _kv("index", str(i))],
                     outputsMetadata=[self.define(v, f"input{i}", 0)], style=gb.GraphNodeStyle(**IO_STYLE))
        for v in g.params:
            self.add(f"param:{v.name}", v.name, param_scope.get(v.id, ""),
                     attrs=[_kv("kind", "Parameter (read)"), _kv("name", v.name)],
                     outputsMetadata=[self.define(v, f"param:{v.name}", 0)], style=gb.GraphNodeStyle(**PARAM_STYLE))
        for i, node in enumerate(g.nodes):
            self.node(node, f"n{i}", i)
        edges, consts = self.edges(list(g.outputs))
        self.add("output", "Output", "", incomingEdges=edges, attrs=[_kv("kind", "graph output")] + consts,
                 inputsMetadata=[gb.MetadataItem(id=str(k), attrs=[_kv("__tensor_tag", f"return {k}")])
                                 for k in range(len(g.outputs))], style=gb.GraphNodeStyle(**IO_STYLE))
        by_name = {v.name: v for v in g.params}
        for pname, value in g.updates:
            edges, consts = self.edges([value])
            p = by_name.get(pname)
            self.add(f"update:{pname}", "Update", param_scope.get(p.id, "") if p is not None else "",
                     incomingEdges=edges, attrs=[_kv("kind", "Parameter write"), _kv("parameter", pname)] + consts,
                     style=gb.GraphNodeStyle(**UPDATE_STYLE))
        self.group_attributes()

    def node(self, node: Node, node_id: str, index: int) -> None:
        self.out.node_ids[id(node)] = (self.gid, node_id)
        self.out.nodes[id(node)] = node
        if node.op == FUSED:
            return self.fused(node, node_id, index)
        if node.op == GRAD:
            return self.grad(node, node_id, index)
        attrs = [_kv(k, v) for k, v in node.attrs.items()]
        subgraph_ids = []
        for key, sub in node.subgraphs.items():
            sid = f"{self.gid}/{node.op}{index}.{key}"
            subgraph_ids.append(sid)
            attrs.append(gb.KeyValue(key=f"subgraph {key}", value=sid))
            _GraphConverter(self.out, sub, sid, self.stage).run()
        attrs += self.where(node)
        edges, consts = self.edges(node.inputs)
        self.add(node_id, node.op, node.scope, attrs=attrs + consts, incomingEdges=edges, subgraphIds=subgraph_ids,
                 outputsMetadata=[self.define(v, node_id, k) for k, v in enumerate(node.outputs)],
                 inputsMetadata=self.input_tags(node.inputs))
        self.count(node.scope)

    def fused(self, node: Node, node_id: str, index: int) -> None:
        """A Fused node: its body drawn inline in a `Fused<index>` layer, the node itself pinned at its top."""
        body = node.subgraphs["body"]
        namespace = f"{node.scope}/Fused{index}" if node.scope else f"Fused{index}"
        self.alias(body.inputs, node.inputs)
        ops = "+".join(m.op for m in body.nodes)
        self.add(node_id, FUSED, namespace, config=gb.GraphNodeConfig(pinToGroupTop=True),
                 attrs=[_kv("ops", ops), _kv("kernels", "1"), _kv("members", str(len(body.nodes)))] + self.where(node),
                 outputsMetadata=[_tensor(k, v, self.name(v)) for k, v in enumerate(node.outputs)])
        for j, member in enumerate(body.nodes):
            member_id = f"{node_id}.{j}"
            self.out.node_ids[id(member)] = (self.gid, member_id)
            self.out.nodes[id(member)] = member
            edges, consts = self.edges(member.inputs)
            self.add(member_id, member.op, namespace, incomingEdges=edges,
                     attrs=[_kv(k, v) for k, v in member.attrs.items()] + [_kv("fused into", node_id)]
                     + self.where(member) + consts,
                     outputsMetadata=[self.define(v, member_id, k) for k, v in enumerate(member.outputs)],
                     inputsMetadata=self.input_tags(member.inputs))
        self.alias(node.outputs, body.outputs)
        self.namespaces.setdefault(namespace, {})["fused"] = f"{len(body.nodes)} ops in one kernel: {ops}"
        self.count(namespace)

    def alias(self, inner: list, outer: list) -> None:
        """Values of a body drawn inline: each inner value is drawn where its outer counterpart is."""
        for i, o in zip(inner, outer):
            if isinstance(o, Var) and isinstance(i, Var) and o.id in self.source:
                self.source[i.id] = self.source[o.id]
                self.names[i.id] = self.name(o)

    def grad(self, node: Node, node_id: str, index: int | str) -> None:
        """A Grad node: its body's forward ops inline (in their Cell layers), then the backward pass as one
        `Grad` node in a `Grad<index>` layer reading the forward's values and the differentiated inputs."""
        body = node.subgraphs["body"]
        n_diff = node.attrs["n_args"] + node.attrs["n_params"]
        n_sens, n_out = node.attrs["n_sens"], len(body.outputs)
        sens = node.inputs[len(node.inputs) - n_sens:] if n_sens else []
        self.alias(body.inputs, node.inputs[:len(node.inputs) - n_sens])
        for j, member in enumerate(body.nodes):
            self.node(member, f"{node_id}.{j}", f"{index}.{j}")
        namespace = f"{node.scope}/Grad{index}" if node.scope else f"Grad{index}"
        operands = [*body.outputs, *node.inputs[:n_diff], *sens]
        edges, consts = self.edges(operands)
        grads = node.outputs[n_out:n_out + n_diff]
        self.add(node_id, GRAD, namespace, incomingEdges=edges, inputsMetadata=self.input_tags(operands),
                 attrs=[_kv(k, v) for k, v in node.attrs.items()] + [_kv("kind", "backward pass")]
                 + self.where(node) + consts,
                 outputsMetadata=[self.define(v, node_id, k) for k, v in enumerate(grads)])
        self.alias(node.outputs[:n_out], body.outputs)                                   # the forward's values
        self.alias(node.outputs[n_out + n_diff:], [value for _, value in body.updates])  # its state writes
        self.namespaces.setdefault(namespace, {})["backward"] = (
            f"gradients of {n_diff} input(s); the forward pass is drawn in its own layers")
        self.count(namespace)

    def input_tags(self, operands: list) -> list:
        return [gb.MetadataItem(id=str(j), attrs=[_kv("__tensor_tag", self.name(x))])
                for j, x in enumerate(operands) if isinstance(x, Var)]

    @staticmethod
    def where(node: Node) -> list:
        attrs = [_kv("cell", node.scope)] if node.scope else []
        if node.loc is not None:
            loc = node.loc
            attrs += [_kv("source", f"{loc.file}:{loc.line}"), _kv("function", loc.func)]
        return attrs

    # ------------------------------------------------------------ layers
    def param_scopes(self) -> dict[int, str]:
        """Each Parameter drawn in the innermost layer holding every node that reads it."""
        users: dict[int, list[str]] = {}

        def visit(nodes: list[Node], outer: dict[int, Var]) -> None:
            for node in nodes:
                if node.op in (FUSED, GRAD):   # drawn inline: their bodies' readers count
                    body = node.subgraphs["body"]
                    inner = {b.id: outer.get(x.id, x) for b, x in zip(body.inputs, node.inputs) if isinstance(x, Var)}
                    visit(body.nodes, inner)
                    if node.op == FUSED:
                        continue
                for x in node.inputs:
                    if isinstance(x, Var):
                        users.setdefault(outer.get(x.id, x).id, []).append(node.scope)

        visit(self.graph.nodes, {})
        return {v.id: common_scope(users[v.id]) for v in self.graph.params if v.id in users}

    def count(self, namespace: str) -> None:
        parts = namespace.split("/") if namespace else []
        for k in range(1, len(parts) + 1):
            entry = self.namespaces.setdefault("/".join(parts[:k]), {})
            entry["ops"] = str(int(entry.get("ops", "0")) + 1)

    def group_attributes(self) -> None:
        g = self.graph
        params_in: dict[str, list[str]] = {}
        for me in self.me.nodes:
            if me.id.startswith("param:") and me.namespace:
                params_in.setdefault(me.namespace, []).append(me.label)
        attrs: dict[str, dict[str, str]] = {"": {
            "graph": g.name, **({"stage": self.stage} if self.stage else {}),
            "inputs": ", ".join(f"{v.name}: {v.abstract}" for v in g.inputs) or "()",
            "parameters": str(len(g.params)), "nodes": str(len(g.nodes)),
            "outputs": ", ".join(str(x.abstract) for x in g.outputs) or "()",
            "updates": ", ".join(name for name, _ in g.updates) or "none"}}
        for ns, entry in self.namespaces.items():
            attrs[ns] = {"Cell path": ns, **entry}
            if ns in params_in:
                attrs[ns]["parameters"] = ", ".join(params_in[ns])
        self.me.groupNodeAttributes = attrs
