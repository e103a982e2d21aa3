"""Whether an `if` test is known before the network runs (`if self.use_bias:`, `if DEBUG and self.n > 2:`),
for `SymbolTree.flatten_static_if_control_flow`.

The test is read, not executed: constants, module globals, `self.<attr>` chains, `not`/`and`/`or`,
comparisons and arithmetic on Python numbers. A call, a name `construct` assigns or takes as an argument, or
a Tensor value makes the test dynamic (MindSpore evaluates the expression; reading it keeps a test with side
effects from running at rewrite time).
"""
from __future__ import annotations

import ast
import operator
from typing import Any

from ..tensor import Tensor

_DYNAMIC = object()
_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
            ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
            ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}
_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Mod: operator.mod,
           ast.FloorDiv: operator.floordiv, ast.Div: operator.truediv}


def static_value(test: ast.expr, network: Any, names: dict, local_names: set) -> tuple[bool, bool]:
    """(known, truth) of an `if` test: known is False when the test depends on the run."""
    value = _value(test, network, names, local_names)
    if value is _DYNAMIC or isinstance(value, Tensor):
        return False, False
    try:
        return True, bool(value)
    except (TypeError, ValueError):
        return False, False


def _value(node: ast.expr, network, names, local_names):
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id == "self":
            return network
        if node.id in local_names or node.id not in names:
            return _DYNAMIC
        return names[node.id]
    if isinstance(node, ast.Attribute):
        base = _value(node.value, network, names, local_names)
        if base is _DYNAMIC or not hasattr(base, node.attr):
            return _DYNAMIC
        return getattr(base, node.attr)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub)):
        operand = _plain(_value(node.operand, network, names, local_names))
        if operand is _DYNAMIC:
            return _DYNAMIC
        return (not operand) if isinstance(node.op, ast.Not) else -operand
    if isinstance(node, ast.BoolOp):
        values = [_plain(_value(v, network, names, local_names)) for v in node.values]
        if any(v is _DYNAMIC for v in values):
            return _DYNAMIC
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.Compare):
        left = _plain(_value(node.left, network, names, local_names))
        rights = [_plain(_value(c, network, names, local_names)) for c in node.comparators]
        if left is _DYNAMIC or any(r is _DYNAMIC for r in rights):
            return _DYNAMIC
        for op, right in zip(node.ops, rights):
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left = _plain(_value(node.left, network, names, local_names))
        right = _plain(_value(node.right, network, names, local_names))
        if left is _DYNAMIC or right is _DYNAMIC:
            return _DYNAMIC
        try:
            return _BINARY[type(node.op)](left, right)
        except (ArithmeticError, TypeError):
            return _DYNAMIC
    return _DYNAMIC


def _plain(value):
    """A Tensor's truth is known only when the network runs."""
    return _DYNAMIC if isinstance(value, Tensor) else value
