"""The readable text form of a Graph, and its grammar (`msx.ir.parse` reads it back).

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
after the graph that uses them (a name two different subgraphs share gets a
`.N` suffix, so every `@name` means one graph).

The grammar (EBNF; `{x}` is zero or more, `[x]` optional; the first graph
is the one printed, the rest its subgraphs)::

    text     = graph { graph } ;
    graph    = "graph" NAME "(" [ binders ] ")" [ "params" "(" binders ")" ] "{" { line } "}" ;
    binders  = VAR ":" type { "," VAR ":" type } ;
    line     = node | update | return ;
    node     = outs "=" OP [ "[" attr { "," attr } "]" ] "(" [ operands ] ")" ":" types [ "#" FILE ":" INT ] ;
    outs     = "()" | VAR { "," VAR } ;
    attr     = NAME "=" ( "@" NAME | literal ) ;         (* "@" NAME: a subgraph *)
    operands = operand { "," operand } ;
    operand  = VAR | scalar | array ;
    update   = "update" VAR "<-" operand ;
    return   = "return" ( operand | "(" [ operands ] ")" ) ;
    types    = type | "(" [ type { "," type } ] ")" ;
    type     = DTYPE "[" [ DIM { "," DIM } ] "]" ;          (* f32[4,16]; DIM an int or a symbol expression *)
    array    = type "{" [ scalar { "," scalar } ] "}" | type "{...}" ;   (* row-major values; "..." elided *)
    literal  = scalar | STRING | "None" | array
             | "(" [ literal { "," literal } [ "," ] ] ")" | "[" [ literal { "," literal } ] "]"
             | "{" [ literal ":" literal { "," literal ":" literal } ] "}" ;
    scalar   = INT | FLOAT | "inf" | "-inf" | "nan" | "True" | "False" ;

`VAR` is `%` followed by a name (`%fc1.weight`, `%3`); `DTYPE` a short name
(`f32`, `i64`, `bool`) or a numpy dtype name. A constant array of more than
`SHOWN` elements prints elided (`f32[64,3]{...}`) unless `full_constants`.
"""
from __future__ import annotations

import numpy as np

from .graph import _SHORT, Const, Graph, Node, Var, register_format

SHOWN = 4  # constant arrays up to this many elements print their values by default


class _Names:
    def __init__(self, full_constants: bool = False, graph_names: dict[int, str] | None = None) -> None:
        self.names: dict[int, str] = {}
        self.counter = 0
        self.full = full_constants
        self.graph_names = graph_names or {}

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
            return format_const(x.value, self.full)
        return "%" + self.names.get(x.id, f"?{x.id}")

    def graph(self, g: Graph) -> str:
        return self.graph_names.get(id(g), g.name)


def _scalar(v) -> str:
    if isinstance(v, (bool, np.bool_)):
        return "True" if v else "False"
    if isinstance(v, (float, np.floating)):
        return repr(float(v))  # repr round-trips a float64, so every narrower float too
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    return repr(v)


def format_const(value, full: bool = False) -> str:
    """A constant operand: a Python scalar as Python writes it, an array as `f32[2]{1.0, 2.0}`."""
    if not isinstance(value, np.ndarray):
        return _scalar(value)
    short = _SHORT.get(value.dtype.name, value.dtype.name)
    head = f"{short}[{','.join(str(d) for d in value.shape)}]"
    if value.size > SHOWN and not full:
        return head + "{...}"
    return head + "{" + ", ".join(_scalar(v) for v in value.reshape(-1).tolist()) + "}"


def value_names(graph: Graph) -> dict[int, str]:
    """The printed name (`%x`, `%3`) of each value `graph` defines (not its subgraphs'), by `Var.id`."""
    names = _Names()
    for v in [*graph.inputs, *graph.params, *(v for node in graph.nodes for v in node.outputs)]:
        names.define(v)
    return {k: "%" + name for k, name in names.names.items()}


def _attr(v, full: bool) -> str:
    if isinstance(v, np.ndarray):
        return format_const(v, full)
    if isinstance(v, (bool, float, np.floating, np.integer, np.bool_)):
        return _scalar(v)
    if isinstance(v, tuple):
        inner = ", ".join(_attr(x, full) for x in v)
        return f"({inner},)" if len(v) == 1 else f"({inner})"
    if isinstance(v, list):
        return "[" + ", ".join(_attr(x, full) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_attr(k, full)}: {_attr(x, full)}" for k, x in v.items()) + "}"
    return repr(v) if isinstance(v, str) else str(v)


def format_node(node: Node, names: _Names, width: int = 64) -> str:
    ins = ", ".join(names.use(x) for x in node.inputs)
    outs = ", ".join(names.define(v) for v in node.outputs) or "()"
    shown = [f"{k}={_attr(v, names.full)}" for k, v in node.attrs.items()] + \
        [f"{k}=@{names.graph(g)}" for k, g in node.subgraphs.items()]
    shown = f"[{', '.join(shown)}]" if shown else ""
    types = ", ".join(str(v.abstract) for v in node.outputs)
    types = f"({types})" if len(node.outputs) != 1 else types
    text = f"  {outs} = {node.op}{shown}({ins}) : {types}"
    if node.loc is not None:
        text = text.ljust(width) + f"  # {node.loc.short()}"
    return text


def _subgraph_names(graph: Graph) -> dict[int, str]:
    """A unique printed name per subgraph (by identity): a repeated name gets `.1`, `.2`, ..."""
    names: dict[int, str] = {id(graph): graph.name}
    taken = {graph.name}
    for sub in graph.subgraphs():
        if id(sub) in names:
            continue
        name, k = sub.name, 0
        while name in taken:
            k += 1
            name = f"{sub.name}.{k}"
        names[id(sub)] = name
        taken.add(name)
    return names


def format_graph(graph: Graph, _seen: set | None = None, *, full_constants: bool = False,
                 _names: dict[int, str] | None = None) -> str:
    """The graph's text (the grammar above); `full_constants` prints every constant array's values."""
    graph_names = _names if _names is not None else _subgraph_names(graph)
    names = _Names(full_constants, graph_names)
    ins = ", ".join(f"{names.define(v)}: {v.abstract}" for v in graph.inputs)
    header = f"graph {graph_names.get(id(graph), graph.name)}({ins})"
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
                lines.append(format_graph(sub, seen, full_constants=full_constants, _names=graph_names))
    return "\n".join(lines)


register_format(format_graph)  # str(graph) prints through format_graph
