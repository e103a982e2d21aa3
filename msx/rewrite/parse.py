"""Parsing a flattened `construct` into rewrite nodes, one per statement, the way MindSpore's rewrite
classifies them: calls of Cells, Primitives and functions, operators, displays and plain assignments,
returns, control flow (whose blocks are parsed into nodes of their own), and verbatim Python statements."""
from __future__ import annotations

import ast
import builtins
import copy
from typing import Any, Callable, List, Optional

from ..nn.cell import Cell
from ..nn.layer.container import CellList
from ..ops.api import PrimitiveOp
from .containers import is_container, is_subtree
from .expressions import targets_of, to_scoped
from .flatten import flatten_body
from .node import Node
from .node_type import NodeType
from .scoped_value import ScopedValue

_MATH = (ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare)


class ParseContext:
    """What parsing one network needs: the network, its function's globals, the tree's namers, a way to
    parse a sub-network, and where nodes go (`add(node, block, parent)`)."""

    def __init__(self, network: Cell, module_globals: dict, node_namer, target_namer,
                 make_subtree: Callable[[Cell], Any], add: Callable[[Node, list, Optional[Node]], None]) -> None:
        self.network = network
        self.globals = module_globals
        self.node_namer = node_namer
        self.target_namer = target_namer
        self.make_subtree = make_subtree
        self.add = add


def parse_arguments(ctx: ParseContext, args: ast.arguments, block: list) -> None:
    """One Input node per positional argument of `construct` after `self`."""
    positional = args.args[1:]
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    for arg, default in zip(positional, defaults):
        node = Node.make(NodeType.Input, f"input_{arg.arg}", targets=[ScopedValue.create_naming_value(arg.arg)],
                    stmt=arg)
        node._default = default
        ctx.add(node, block, None)


def parse_block(ctx: ParseContext, body: List[ast.stmt], block: list, parent: Optional[Node]) -> None:
    for stmt in body:
        parse_statement(ctx, stmt, block, parent)


def parse_statement(ctx: ParseContext, stmt: ast.stmt, block: list, parent: Optional[Node]) -> None:
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        node = _parse_assign(ctx, stmt, block)
    elif isinstance(stmt, ast.Return):
        value = stmt.value if stmt.value is not None else ast.Constant(value=None)
        node = Node.make(NodeType.Output, "return", args=[to_scoped(value)], arg_asts=[value], stmt=stmt)
    elif isinstance(stmt, (ast.If, ast.For, ast.While)):
        _parse_control_flow(ctx, stmt, block, parent)
        return
    else:
        node = Node.make(NodeType.Python, type(stmt).__name__, stmt=stmt)
    ctx.add(node, block, parent)


def _parse_control_flow(ctx: ParseContext, stmt: ast.stmt, block: list, parent: Optional[Node]) -> None:
    kind = {ast.If: "if", ast.For: "for", ast.While: "while"}[type(stmt)]
    flatten_body(stmt.body, ctx.target_namer)
    if stmt.orelse:
        flatten_body(stmt.orelse, ctx.target_namer)
    test = stmt.iter if isinstance(stmt, ast.For) else stmt.test
    head = Node.make(NodeType.ControlFlow, f"{kind}_node", args=[to_scoped(test)], arg_asts=[test], stmt=stmt)
    ctx.add(head, block, parent)
    parse_block(ctx, stmt.body, head._body, head)
    if stmt.orelse:
        else_name = "else_node" if kind == "if" else f"{kind}_else_node"
        tail = Node.make(NodeType.ControlFlow, else_name, args=[to_scoped(test)], arg_asts=[test], stmt=stmt)
        tail._body_of = head
        tail._is_else = True
        head._orelse = tail
        ctx.add(tail, block, parent)
        parse_block(ctx, stmt.orelse, tail._body, tail)


def fill_container(ctx: ParseContext, owner: Node) -> None:
    """One node per cell of a SequentialCell node (nested containers and sub-networks opened in turn); `add`
    calls it for a container node it names."""
    owner._pending_container = False
    for cell in owner.get_instance():
        node = cell_node(ctx, cell, type(cell).__name__, owner.get_targets(), owner.get_args(), owner.get_kwargs())
        ctx.add(node, owner._body, owner)


def cell_node(ctx: ParseContext, cell: Cell, name: str, targets, args, kwargs, **extra) -> Node:
    """The node calling `cell`: a CellContainer, a Tree (a user network) or a CallCell."""
    if is_container(cell):
        node = Node.make(NodeType.CellContainer, name, targets=targets, args=args, kwargs=kwargs, instance=cell, **extra)
        node._pending_container = True
        return node
    if is_subtree(cell):
        sub = ctx.make_subtree(cell)
        if sub is not None:
            node = Node.make(NodeType.Tree, name, targets=targets, args=args, kwargs=kwargs, instance=cell, **extra)
            node._sub_tree = sub
            return node
    return Node.make(NodeType.CallCell, name, targets=targets, args=args, kwargs=kwargs, instance=cell, **extra)


def _resolve(ctx: ParseContext, dotted: str) -> Any:
    """The object a dotted name in `construct` refers to through the module's globals (None if not found)."""
    parts = dotted.split(".")
    if parts[0] in ctx.globals:
        obj = ctx.globals[parts[0]]
    elif hasattr(builtins, parts[0]):
        obj = getattr(builtins, parts[0])
    else:
        return None
    for part in parts[1:]:
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _assigned_before(block: list, name: str) -> bool:
    return any(str(t) == name or str(t) == name.split(".")[0] for n in block for t in n.get_targets())


def _parse_call(ctx: ParseContext, stmt: ast.Assign, call: ast.Call, targets, block: list) -> Node:
    args = [to_scoped(a) for a in call.args]
    kwargs = {k.arg: to_scoped(k.value) for k in call.keywords if k.arg is not None}
    extra = dict(stmt=stmt, arg_asts=list(call.args),
                 kwarg_asts={k.arg: k.value for k in call.keywords if k.arg is not None})
    func = call.func
    if isinstance(func, ast.Name):
        name, scope = func.id, ""
    elif isinstance(func, ast.Attribute):
        name = func.attr
        scope = ast.unparse(func.value)
    else:
        name, scope = ast.unparse(func).split(".")[-1], ""
    func_sv = ScopedValue.create_naming_value(name, scope)
    if any(isinstance(n, ast.Call) for n in ast.walk(func)) or any(k.arg is None for k in call.keywords):
        return Node.make(NodeType.Python if any(k.arg is None for k in call.keywords) else NodeType.CallFunction,
                    name, targets=targets, func=func_sv, args=args, kwargs=kwargs, **extra)
    full = str(func_sv)
    if scope == "self":
        attr = getattr(ctx.network, name, None) if hasattr(ctx.network, name) else None
        if isinstance(attr, Cell) and name in ctx.network._cells:
            return cell_node(ctx, attr, name, targets, args, kwargs, func=func_sv, **extra)
        if isinstance(attr, PrimitiveOp):
            return Node.make(NodeType.CallPrimitive, name, targets=targets, func=func_sv, args=args, kwargs=kwargs,
                        instance=attr, **extra)
        return Node.make(NodeType.CallFunction, name, targets=targets, func=func_sv, args=args, kwargs=kwargs,
                    instance=attr if callable(attr) else None, **extra)
    if full in dir(builtins) or _assigned_before(block, full):
        return Node.make(NodeType.CallFunction, name, targets=targets, func=func_sv, args=args, kwargs=kwargs, **extra)
    obj = _resolve(ctx, full)
    if isinstance(obj, PrimitiveOp):
        return Node.make(NodeType.CallPrimitive, name, targets=targets, func=func_sv, args=args, kwargs=kwargs,
                    instance=obj, **extra)
    instance = obj if callable(obj) and not isinstance(obj, type) else None
    return Node.make(NodeType.CallFunction, name, targets=targets, func=func_sv, args=args, kwargs=kwargs,
                instance=instance, **extra)


def _parse_assign(ctx: ParseContext, stmt: ast.Assign, block: list) -> Node:
    targets = targets_of(stmt.targets[0])
    value = stmt.value
    if isinstance(value, ast.Call):
        return _parse_call(ctx, stmt, value, targets, block)
    if isinstance(value, _MATH):
        operands, name = _math_operands(value)
        return Node.make(NodeType.MathOps, name, targets=targets, func=ScopedValue.create_naming_value(
            type(value).__name__), args=[to_scoped(o) for o in operands], arg_asts=operands, stmt=stmt)
    if isinstance(value, ast.Subscript):
        return _pass_through(stmt, targets, value, "subscript_var")
    if isinstance(value, ast.Constant):
        return _pass_through(stmt, targets, value, "constant_assign")
    if isinstance(value, (ast.Name, ast.Attribute)):
        inst = None
        if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and value.value.id == "self":
            inst = getattr(ctx.network, value.attr, None)
        if isinstance(inst, CellList) or (isinstance(inst, list) and inst and all(isinstance(c, Cell)
                                                                                   for c in inst)):
            return Node.make(NodeType.Python, "Assign", targets=targets, stmt=stmt)  # a cell list: kept as written
        return _pass_through(stmt, targets, value, f"{type(value).__name__.lower()}_assign")
    if isinstance(value, (ast.Tuple, ast.List)):
        if all(isinstance(e, (ast.Name, ast.Attribute, ast.Tuple, ast.Constant)) for e in value.elts):
            kind = "tuple" if isinstance(value, ast.Tuple) else "list"
            return Node.make(NodeType.CallMethod, kind, targets=targets, func=ScopedValue.create_naming_value(kind),
                        args=[to_scoped(e) for e in value.elts], arg_asts=list(value.elts), stmt=stmt)
    if isinstance(value, ast.Dict) and all(isinstance(k, ast.Constant) and isinstance(k.value, str)
                                           for k in value.keys) \
            and all(isinstance(v, (ast.Name, ast.Attribute, ast.Tuple, ast.Constant)) for v in value.values):
        return Node.make(NodeType.CallMethod, "dict", targets=targets, func=ScopedValue.create_naming_value("dict"),
                    kwargs={k.value: to_scoped(v) for k, v in zip(value.keys, value.values)},
                    kwarg_asts={k.value: v for k, v in zip(value.keys, value.values)}, stmt=stmt)
    return Node.make(NodeType.Python, type(stmt).__name__, targets=targets, stmt=stmt)


def _pass_through(stmt: ast.Assign, targets, value: ast.expr, name: str) -> Node:
    return Node.make(NodeType.CallMethod, name, targets=targets, func=ScopedValue.create_naming_value("pass_through"),
                args=[to_scoped(value)], arg_asts=[value], stmt=stmt)


def _math_operands(value: ast.expr) -> tuple[list, str]:
    """The operand expressions of an operator and the node name MindSpore gives it (`binop_add`,
    `compare_gt`, `unaryop_usub`, `boolop_and`)."""
    kind = type(value).__name__
    if isinstance(value, ast.BinOp):
        return [value.left, value.right], f"{kind}_{type(value.op).__name__}".lower()
    if isinstance(value, ast.UnaryOp):
        return [value.operand], f"{kind}_{type(value.op).__name__}".lower()
    if isinstance(value, ast.BoolOp):
        return list(value.values), f"{kind}_{type(value.op).__name__}".lower()
    name = kind + "".join(f"_{type(op).__name__}" for op in value.ops)
    return [value.left, *value.comparators], name.lower()


def math_with(template: ast.expr, operands: List[ast.expr]) -> ast.expr:
    """A copy of operator expression `template` over new operand expressions."""
    new = copy.copy(template)
    if isinstance(new, ast.BinOp):
        new.left, new.right = operands
    elif isinstance(new, ast.UnaryOp):
        (new.operand,) = operands
    elif isinstance(new, ast.BoolOp):
        new.values = list(operands)
    else:
        new.left, new.comparators = operands[0], list(operands[1:])
    return new
