"""From nodes back to Python: the statements of each node, the `construct` of a tree, the class that holds
it, and the network object built from that class.

The class is real source (what `SymbolTree.get_code()` shows is what runs): it subclasses the original
network's class, its `__init__` takes the original's state (same Parameters, same sub-cells) plus the new
fields (inserted cells, rewritten sub-networks), and its `construct` is the rewritten one. The source is
registered with `linecache` under a `<msx.rewrite ...>` name, in a module `msx_rewritten_<n>` of its own, so
`inspect.getsource`, tracebacks and `msx.jit`'s source capture read it like a file.
"""
from __future__ import annotations

import ast
import copy
import linecache
import sys
import types
from collections import OrderedDict
from typing import List

from ..nn.cell import Cell
from .expressions import targets_expr, targets_of, to_expr
from .node import Node
from .node_type import NodeType
from .parse import math_with

_CALLS = (NodeType.CallCell, NodeType.CallPrimitive, NodeType.CallFunction, NodeType.Tree, NodeType.CellContainer)
_SOURCES: dict = {"count": 0}


def _operands(node: Node) -> tuple[list, list]:
    args = [src if src is not None else to_expr(arg) for arg, src in zip(node._args, node._arg_asts)]
    kwargs = [ast.keyword(arg=key, value=node._kwarg_asts.get(key) or to_expr(value))
              for key, value in node._kwargs.items()]
    return [copy.deepcopy(a) for a in args], [copy.deepcopy(k) for k in kwargs]


def _assign(node: Node, value: ast.expr) -> ast.stmt:
    stmt = node._stmt
    if isinstance(stmt, ast.Assign) and _same_targets(node):
        target = copy.deepcopy(stmt.targets[0])
    elif node._targets:
        target = targets_expr(node._targets)
    else:
        return ast.Expr(value=value)
    return ast.Assign(targets=[target], value=value)


def _same_targets(node: Node) -> bool:
    return [str(t) for t in targets_of(node._stmt.targets[0])] == [str(t) for t in node._targets]


def _func_expr(node: Node) -> ast.expr:
    stmt = node._stmt
    if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call):
        return copy.deepcopy(stmt.value.func)
    return to_expr(node._func)


def node_statements(node: Node) -> List[ast.stmt]:
    """The statements node `node` stands for (none for inputs and else nodes, which their owners write)."""
    kind = node._type
    if kind in (NodeType.Input,) or node._body_of is not None:
        return []
    if kind == NodeType.Python:
        return [copy.deepcopy(node._stmt)]
    args, kwargs = _operands(node)
    if kind == NodeType.Output:
        value = args[0] if len(args) == 1 else ast.Tuple(elts=args, ctx=ast.Load())
        return [ast.Return(value=value)]
    if kind in _CALLS:
        return [_assign(node, ast.Call(func=_func_expr(node), args=args, keywords=kwargs))]
    if kind == NodeType.MathOps:
        return [_assign(node, math_with(node._stmt.value, args))]
    if kind == NodeType.CallMethod:
        method = node._func.value
        if method == "pass_through":
            return [_assign(node, args[0])]
        if method in ("tuple", "list"):
            return [_assign(node, (ast.Tuple if method == "tuple" else ast.List)(elts=args, ctx=ast.Load()))]
        return [_assign(node, ast.Dict(keys=[ast.Constant(value=k.arg) for k in kwargs],
                                       values=[k.value for k in kwargs]))]
    if kind == NodeType.ControlFlow and node._is_else:
        return _orphan_else(node, args[0])
    if kind == NodeType.ControlFlow:
        return [_control_flow(node, args[0])]
    raise TypeError(f"rewrite: cannot write code for node {node.get_name()!r} of type {kind}")


def block_statements(block: List[Node]) -> List[ast.stmt]:
    out = [s for node in block for s in node_statements(node)]
    return out or [ast.Pass()]


def _control_flow(node: Node, head: ast.expr) -> ast.stmt:
    stmt = copy.copy(node._stmt)
    body = block_statements(node._body)
    orelse = block_statements(node._orelse._body) if node._orelse is not None else []
    if isinstance(stmt, ast.For):
        stmt.iter = head
    else:
        stmt.test = head
    stmt.body, stmt.orelse = body, orelse
    return stmt


def _orphan_else(node: Node, head: ast.expr) -> List[ast.stmt]:
    """An else block whose `if`/loop was flattened away: `if <test>: pass else: ...` for an if (as MindSpore
    writes it); a loop's else (run when the loop ends) runs in place."""
    body = block_statements(node._body)
    if isinstance(node._stmt, ast.If):
        return [ast.If(test=head, body=[ast.Pass()], orelse=body)]
    return [s for s in body if not isinstance(s, ast.Pass)]


class _ExplicitSuper(ast.NodeTransformer):
    """`super()` -> `super(Owner, self)`: the generated class is not the one the source was written in."""

    def __init__(self, owner: str, self_name: str) -> None:
        self.owner, self.self_name = owner, self_name

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        return node  # a nested function's own super() is its own business

    def visit_Call(self, node: ast.Call) -> ast.Call:
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "super" and not node.args and not node.keywords:
            node.args = [ast.Name(id=self.owner, ctx=ast.Load()), ast.Name(id=self.self_name, ctx=ast.Load())]
        return node


def construct_def(func_def: ast.FunctionDef, inputs: List[Node], block: List[Node],
                  owner: str) -> ast.FunctionDef:
    """`def construct(self, <inputs>): <block>`, the original signature's defaults and extra arguments kept;
    `owner` names the class the original construct was defined in."""
    new = copy.deepcopy(func_def)
    new.decorator_list = []
    self_arg = func_def.args.args[0]
    args, defaults = [copy.deepcopy(self_arg)], []
    for node in inputs:
        arg = copy.deepcopy(node._stmt) if isinstance(node._stmt, ast.arg) else ast.arg(arg=str(node._targets[0]))
        args.append(arg)
        default = node._default
        if default is not None:
            defaults.append(copy.deepcopy(default) if isinstance(default, ast.expr) else to_expr(default))
        elif defaults:
            raise ValueError(f"rewrite: input {arg.arg!r} of construct has no default but follows one with a "
                             f"default")
    new.args.args, new.args.defaults = args, defaults
    new.body = [_ExplicitSuper(owner, self_arg.arg).visit(stmt) for stmt in block_statements(block)]
    return new


def class_source(class_name: str, base_name: str, construct: ast.FunctionDef) -> str:
    init = ast.parse(
        "def __init__(self, obj, fields):\n"
        "    copy_cell_state(self, obj)\n"
        "    for name, value in fields.items():\n"
        "        setattr(self, name, value)\n").body[0]
    cls = ast.ClassDef(name=class_name, bases=[ast.Name(id=base_name, ctx=ast.Load())], keywords=[],
                       body=[init, construct], decorator_list=[])
    module = ast.Module(body=[cls], type_ignores=[])
    return ast.unparse(ast.fix_missing_locations(module)) + "\n"


def copy_cell_state(new: Cell, old: Cell) -> None:
    """Gives `new` the state of `old`: the same Parameters, sub-cells and attributes (containers copied, so
    fields added to the rewritten network do not appear on the original)."""
    state = new.__dict__
    for key, value in old.__dict__.items():
        state[key] = copy.copy(value) if isinstance(value, (dict, list, set, OrderedDict)) else value
    state["_jit_cache"] = None


def compile_class(source: str, class_name: str, namespace: dict) -> type:
    """Runs generated class source in `namespace` and returns the class (the source registered for
    `inspect` and capture under a unique `<msx.rewrite ...>` file name)."""
    _SOURCES["count"] += 1
    filename = f"<msx.rewrite {class_name} {_SOURCES['count']}>"
    lines = source.splitlines(keepends=True)
    linecache.cache[filename] = (len(source), None, lines, filename)
    namespace["copy_cell_state"] = copy_cell_state
    code = compile(source, filename, "exec")
    exec(code, namespace)  # noqa: S102  (source generated by rewrite from the user's own construct)
    cls = namespace[class_name]
    # a module of its own, so `inspect.getsource(type(new_net))` finds the class (MindSpore's is in a file)
    name = f"msx_rewritten_{_SOURCES['count']}"
    module = types.ModuleType(name)
    module.__dict__.update({k: v for k, v in namespace.items() if not k.startswith("__")})
    module.__file__ = filename
    sys.modules[name] = module
    cls.__module__ = name
    return cls


def compile_function(func_def: ast.FunctionDef, namespace: dict) -> types.FunctionType:
    """A generated module-level function (sparsify's sparse copies), its source registered like a class's."""
    source = ast.unparse(ast.fix_missing_locations(ast.Module(body=[func_def], type_ignores=[]))) + "\n"
    _SOURCES["count"] += 1
    filename = f"<msx.rewrite {func_def.name} {_SOURCES['count']}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102  (generated from the user's own function)
    return namespace[func_def.name]
