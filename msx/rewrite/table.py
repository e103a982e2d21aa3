"""Text views of a tree: the node table `SymbolTree.print_node_tabulate` prints (MindSpore's columns; a
plain-text layout like the `tabulate` package's default, without needing it) and `SymbolTree.dump`'s listing."""
from __future__ import annotations

import ast
import inspect
from typing import List

from .codegen import node_statements


def _code(node) -> str:
    try:
        stmts = node_statements(node)
    except (TypeError, ValueError, SyntaxError):
        return ""
    if not stmts:
        return str(node._targets[0]) if node._targets else ""
    text = ast.unparse(ast.fix_missing_locations(ast.Module(body=stmts[:1], type_ignores=[])))
    return text.splitlines()[0] if text else ""


def node_table(title: str, block: List) -> str:
    rows = []
    for node in block:
        providers = [[i, (p.get_name(), t)] for i, (p, t) in node.get_arg_providers().items()]
        users = [[t, [(u.get_name(), a) for u, a in us]] for t, us in node.get_target_users().items()]
        rows.append([str(node.get_node_type()), node.get_name(), _code(node), str(providers), str(users)])
    headers = ["node type", "name", "codes", "arg providers", "target users"]
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]
    lines = [f"\n[{title}]", "  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip(),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    return "\n".join(lines) + "\n"


def _file_of(obj) -> str | None:
    try:
        return inspect.getfile(obj)
    except TypeError:
        return None


def dump_text(network, block: List) -> str:
    """MindSpore's dump layout: the inputs, then one numbered line per node (`%1(y) = Dense(%0)`)."""
    inputs = [n for n in block if n.get_node_type().name == "Input"]
    lines = ["#SymbolTree entry    : @construct ", f"#Inputs num     : {len(inputs)}"]
    index = {}
    for node in inputs:
        name = str(node.get_targets()[0])
        index[name] = f"%input_{name}"
        lines.append(index[name])
    lines += ["", "Symbol Tree @construct { "]
    number = -1
    net_file = _file_of(type(network))
    for node in block:
        if node in inputs:
            continue
        operands = [index.get(str(a), str(a)) for a in node.get_args() + list(node.get_kwargs().values())]
        if node.get_node_type().name == "Output":
            lines += [f"  Return({', '.join(operands)}) ", "      : (null) ", f"      # In file {net_file}"]
            continue
        number += 1
        targets = node.get_targets() or [None]
        for target in node.get_targets():
            index[str(target)] = f"%{number}"
        attrs = ", ".join(f"{k}: {v}" for k, v in node.get_attributes().items())
        call = f"({', '.join(operands)})" if operands else ""
        lines += [f"  %{number}({targets[0]}) = {node.get_instance_type().__name__}{call}"
                  f"{{instance name: {node.get_name()}}} attributes {{{attrs}}}",
                  "      : (null) -> (null)",
                  f"      # In file {_file_of(node.get_instance_type()) if node.get_instance() is not None else None}",
                  f"      # In file {net_file}"]
    lines.append("}")
    return "\n".join(lines)
