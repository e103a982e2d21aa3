"""Flattening `construct`: every nested call or operator becomes its own assignment to a fresh name, so each
statement is one operation and becomes one rewrite node.

`return self.fc2(ops.relu(self.fc1(x)))` becomes

    fc1_var = self.fc1(x)
    relu_var = ops.relu(fc1_var)
    fc2_var = self.fc2(relu_var)
    return fc2_var

The order of the new statements and their names follow MindSpore's rewrite (statements are visited last to
first, the operands of one expression are hoisted right to left), so node and target names agree with it.
"""
from __future__ import annotations

import ast
import copy
import keyword

from .namer import Namer

# the fields of each expression kind whose operands are hoisted
_HOISTED: dict[type, tuple[str, ...]] = {
    ast.Return: ("value",),
    ast.Call: ("func", "args", "keywords"),
    ast.BinOp: ("left", "right"),
    ast.BoolOp: ("values",),
    ast.UnaryOp: ("operand",),
    ast.Compare: ("left", "comparators"),
    ast.If: ("test",),
    ast.For: ("iter",),
    ast.Tuple: ("elts",),
    ast.List: ("elts",),
}


def _target_names(body: list[ast.stmt]) -> list[str]:
    """The names the statements of `body` assign (the base names fresh names must avoid)."""
    names: list[str] = []
    todo: list = [t for stmt in body if isinstance(stmt, ast.Assign) for t in stmt.targets]
    while todo:
        item = todo.pop(0)
        if isinstance(item, ast.Name):
            if item.id not in names:
                names.append(item.id)
        elif isinstance(item, (ast.Tuple, ast.List)):
            todo[:0] = item.elts
    return names


def _base_name(node: ast.AST) -> str:
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Name):
            return func.id + "_var"
        if isinstance(func, ast.Attribute):
            return func.attr + "_var"
        return "function_var"
    if isinstance(node, ast.Return):
        return "return_value"
    if isinstance(node, (ast.BinOp, ast.BoolOp, ast.UnaryOp)):
        return type(node.op).__name__.lower() + "_var"
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{node.value.id}_{node.attr}"
    return type(node).__name__.lower() + "_var"


class _Body:
    """Flattens one statement list in place."""

    def __init__(self, body: list[ast.stmt], namer: Namer | None) -> None:
        self.body = body
        self.namer = namer
        self.taken = _target_names(body)

    def fresh(self, node: ast.AST) -> str:
        name = _base_name(node)
        if keyword.iskeyword(name):
            name += "_var"
        result, suffix = name, 0
        while result in self.taken:
            suffix += 1
            result = f"{name}_{suffix}"
        if self.namer is not None:
            result = self.namer.get_name(result)
        self.taken.append(result)
        return result

    def hoist(self, operand: ast.AST, parent: ast.AST) -> tuple[ast.AST, ast.Assign | None]:
        """`operand` as a plain name plus the assignment that computes it, or `operand` itself and None."""
        if isinstance(operand, (ast.Name, ast.Constant)):
            return operand, None
        if isinstance(operand, ast.Attribute) and not isinstance(parent, ast.For):
            root = operand
            while isinstance(root.value, ast.Attribute):
                root = root.value
            if isinstance(root.value, ast.Name):
                return operand, None
            name = self.fresh(root.value)
            assign = ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=root.value)
            return ast.Attribute(value=ast.Name(id=name, ctx=ast.Load()), attr=root.attr, ctx=root.ctx), assign
        name = self.fresh(operand)
        assign = ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=operand)
        return ast.Name(id=name, ctx=ast.Load()), assign

    def flatten_expr(self, node: ast.AST) -> list[ast.Assign]:
        fields = _HOISTED.get(type(node))
        if fields is None:
            return []
        hoisted: list[ast.Assign] = []
        for field in fields:
            value = getattr(node, field)
            if isinstance(value, list):
                kept = []
                for i, item in enumerate(value):
                    if isinstance(item, ast.Starred) or (isinstance(node, ast.BoolOp)
                                                         and isinstance(node.op, ast.And) and i > 0):
                        kept.append(item)  # `*args` stays; `a and f(b)` must not run f(b) when a is false
                        continue
                    if isinstance(item, ast.keyword):
                        new, assign = self.hoist(item.value, node)
                        if assign is not None:
                            item.value = new
                            hoisted.append(assign)
                        kept.append(item)
                        continue
                    new, assign = self.hoist(item, node)
                    kept.append(new)
                    if assign is not None:
                        hoisted.append(assign)
                setattr(node, field, kept)
            elif value is not None:
                new, assign = self.hoist(value, node)
                if assign is not None:
                    setattr(node, field, new)
                    hoisted.append(assign)
        return hoisted

    def run(self) -> None:
        body = self.body
        _split_chained_assign(body)
        index = len(body) - 1
        while index >= 0:
            stmt = body[index]
            if isinstance(stmt, ast.If) and not hasattr(stmt, "msx_original_test"):
                stmt.msx_original_test = copy.deepcopy(stmt.test)  # read by flatten_static_if_control_flow
            expr = stmt.value if isinstance(stmt, (ast.Assign, ast.Expr)) else stmt
            hoisted = self.flatten_expr(expr)
            for assign in reversed(hoisted):
                body.insert(index, assign)
                index += 1
            index -= 1


def _split_chained_assign(body: list[ast.stmt]) -> None:
    """`a = b = v` -> `b = v; a = b`, as rewrite wants one target per assignment."""
    pos = 0
    while pos < len(body):
        stmt = body[pos]
        if isinstance(stmt, ast.Assign) and len(stmt.targets) > 1:
            extra = [ast.Assign(targets=[t], value=stmt.targets[i + 1]) for i, t in enumerate(stmt.targets[:-1])]
            stmt.targets = [stmt.targets[-1]]
            body[pos + 1:pos + 1] = extra
        pos += 1


def flatten_body(body: list[ast.stmt], namer: Namer | None = None) -> None:
    """Flattens the statements of `body` in place (not the bodies of its control flow: the parser flattens
    those when it reaches them, with the tree's namer, as MindSpore does)."""
    _Body(body, namer).run()
    for stmt in body:
        ast.fix_missing_locations(stmt)
