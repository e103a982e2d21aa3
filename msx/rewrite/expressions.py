"""ScopedValue <-> Python expressions: the operands of a parsed statement as ScopedValues, and the source
of a ScopedValue when code is generated."""
from __future__ import annotations

import ast
from typing import List

from .scoped_value import ScopedValue, ValueType


def to_scoped(node: ast.AST) -> ScopedValue:
    """The ScopedValue of an operand expression (MindSpore's reading: names, `scope.name`, constants, flat
    tuples/lists of those; anything else is kept as its source text, `UnsupportedValue`)."""
    if isinstance(node, ast.Name):
        return ScopedValue.create_naming_value(node.id)
    if isinstance(node, ast.Attribute):
        if isinstance(node.value, ast.Name):
            return ScopedValue.create_naming_value(node.attr, node.value.id)
        return ScopedValue(ValueType.UnsupportedValue, "", ast.unparse(node))
    if isinstance(node, (ast.Tuple, ast.List)):
        items = []
        for elt in node.elts:
            if isinstance(elt, ast.Constant):
                items.append(elt.value)
            elif isinstance(elt, ast.Name):
                items.append(elt.id)
            elif isinstance(elt, ast.Attribute) and isinstance(elt.value, ast.Name):
                items.append(f"{elt.value.id}.{elt.attr}")
            else:
                return ScopedValue(ValueType.UnsupportedValue, "", ast.unparse(elt))
        return ScopedValue.create_variable_value(tuple(items))
    if isinstance(node, ast.Constant):
        return ScopedValue.create_variable_value(node.value)
    return ScopedValue(ValueType.UnsupportedValue, "", ast.unparse(node))


def targets_of(target: ast.AST) -> List[ScopedValue]:
    """The targets of an assignment, nested tuples flattened (`a, (b, c) = ...` -> a, b, c)."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return [t for elt in target.elts for t in targets_of(elt)]
    return [to_scoped(target)]


def to_expr(value: ScopedValue, ctx: ast.expr_context | None = None) -> ast.expr:
    """The expression spelling `value` (a name, `scope.name`, a constant, a tuple/list/dict of values)."""
    ctx = ctx or ast.Load()
    kind = value.type
    if kind == ValueType.NamingValue:
        if value.scope:
            scope: ast.expr = ast.Name(id=value.scope.split(".")[0], ctx=ast.Load())
            for part in value.scope.split(".")[1:]:
                scope = ast.Attribute(value=scope, attr=part, ctx=ast.Load())
            return ast.Attribute(value=scope, attr=value.value, ctx=ctx)
        return ast.Name(id=value.value, ctx=ctx)
    if kind == ValueType.ConstantValue:
        return ast.Constant(value=value.value)
    if kind in (ValueType.TupleValue, ValueType.ListValue):
        elts = [to_expr(v) if isinstance(v, ScopedValue) else ast.Constant(value=v) for v in value.value]
        return (ast.Tuple if kind == ValueType.TupleValue else ast.List)(elts=elts, ctx=ctx)
    if kind == ValueType.DictValue:
        return ast.Dict(keys=[to_expr(k) for k in value.value], values=[to_expr(v) for v in value.value.values()])
    if kind == ValueType.UnsupportedValue and isinstance(value.value, str):
        return ast.parse(value.value, mode="eval").body
    raise TypeError(f"rewrite: cannot write the value {value!r} ({kind}) as code; a custom object argument is "
                    f"stored on the network when its node is inserted")


def targets_expr(targets: List[ScopedValue]) -> ast.expr:
    if len(targets) == 1:
        return to_expr(targets[0], ast.Store())
    return ast.Tuple(elts=[to_expr(t, ast.Store()) for t in targets], ctx=ast.Store())
