"""The node table `SymbolTree.print_node_tabulate` prints (MindSpore's columns; a plain-text layout like
the `tabulate` package's default, without needing it)."""
from __future__ import annotations

import ast
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
