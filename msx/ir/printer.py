"""The readable text form of a Graph.

One line per node: outputs, the op with its static attributes in brackets,
the operands, the result type and the user's source line::

    graph forward(%x: f32[4,16]) params(%fc1.weight: f32[32,16], %fc1.bias: f32[32]) {
      %0 = Dense(%x, %fc1.weight, %fc1.bias) : f32[4,32]          # model.py:12
      %1 = ReLU(%0) : f32[4,32]                                     # model.py:12
      return %1
    }

Values are `%name` for inputs and parameters and `%N` for node outputs;
constants print inline. Writes to Parameters print as `update %p <- %v`.
Higher-order nodes name their subgraphs (`body=@forward_body`), which print
after the graph that uses them.
"""
from __future__ import annotations

from .graph import Const, Graph, Node, Var


class _Names:
    def __init__(self) -> None:
        self.names: dict[int, str] = {}
        self.counter = 0

    def define(self, var: Var) -> str:
        if var.name is not None:
            name = var.name
        else:
            name = str(self.counter)
            self.counter += 1
        self.names[var.id] = name
        return "%" + name

    def use(self, x) -> str:
        if isinstance(x, Const):
            return repr(x)
        return "%" + self.names.get(x.id, f"?{x.id}")


def value_names(graph: Graph) -> dict[int, str]:
    """The printed name (`%x`, `%3`) of each value `graph` defines (not its subgraphs'), by `Var.id`."""
    names = _Names()
    for v in [*graph.inputs, *graph.params, *(v for node in graph.nodes for v in node.outputs)]:
        names.define(v)
    return {k: "%" + name for k, name in names.names.items()}


def _attr(v) -> str:
    if isinstance(v, str):
        return repr(v)
    return str(v)


def format_node(node: Node, names: _Names, width: int = 64) -> str:
    ins = ", ".join(names.use(x) for x in node.inputs)
    outs = ", ".join(names.define(v) for v in node.outputs) or "()"
    shown = [f"{k}={_attr(v)}" for k, v in node.attrs.items()] + [f"{k}=@{g.name}" for k, g in node.subgraphs.items()]
    shown = f"[{', '.join(shown)}]" if shown else ""
    types = ", ".join(str(v.abstract) for v in node.outputs)
    types = f"({types})" if len(node.outputs) != 1 else types
    text = f"  {outs} = {node.op}{shown}({ins}) : {types}"
    if node.loc is not None:
        text = text.ljust(width) + f"  # {node.loc.short()}"
    return text


def format_graph(graph: Graph, _seen: set | None = None) -> str:
    names = _Names()
    ins = ", ".join(f"{names.define(v)}: {v.abstract}" for v in graph.inputs)
    header = f"graph {graph.name}({ins})"
    if graph.params:
        header += " params(" + ", ".join(f"{names.define(v)}: {v.abstract}" for v in graph.params) + ")"
    lines = [header + " {"]
    lines += [format_node(n, names) for n in graph.nodes]
    outs = ", ".join(names.use(x) for x in graph.outputs)
    for pname, value in graph.updates:
        lines.append(f"  update %{pname} <- {names.use(value)}")
    lines.append(f"  return ({outs})" if len(graph.outputs) != 1 else f"  return {outs}")
    lines.append("}")
    seen = _seen if _seen is not None else set()
    for node in graph.nodes:
        for sub in node.subgraphs.values():
            if id(sub) not in seen:
                seen.add(id(sub))
                lines.append("")
                lines.append(format_graph(sub, seen))
    return "\n".join(lines)
