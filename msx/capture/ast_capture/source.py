"""The Python source of a function as an AST node, and which of its names are local.

The whole file is parsed (once per file text), so line and column numbers are
the file's own and decorators, indentation, methods and nested functions need
no special care; a lambda is told apart from others on its line by position.
Only user code is interpreted: functions of msx itself, of the standard library
and of installed packages run as they are.
"""
from __future__ import annotations

import ast
import linecache
import types
from dataclasses import dataclass

from ..user_code import is_user_file

FunctionNode = ast.FunctionDef | ast.Lambda


@dataclass(frozen=True, eq=False)
class FunctionSource:
    """A function's AST node and its scope: names it binds locally, and those it declares global/nonlocal."""

    node: FunctionNode
    filename: str
    name: str
    local_names: frozenset
    global_names: frozenset
    nonlocal_names: frozenset
    is_generator: bool


# ---------------------------------------------------------------- parsing, cached per file text
_MODULES: dict[str, tuple[str, dict]] = {}   # filename -> (its text, {(first line, name): [function nodes]})
_BY_CODE: dict[types.CodeType, FunctionSource | None] = {}
_BY_NODE: dict[int, FunctionSource] = {}


def _index(filename: str, module_globals: dict | None) -> dict | None:
    lines = linecache.getlines(filename, module_globals)
    if not lines:
        return None
    text = "".join(lines)
    cached = _MODULES.get(filename)
    if cached is not None and cached[0] == text:
        return cached[1]
    try:
        tree = ast.parse(text, filename)
    except (SyntaxError, ValueError):
        return None
    index: dict[tuple[int, str], list[FunctionNode]] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
            index.setdefault((first, node.name), []).append(node)
        elif isinstance(node, ast.Lambda):
            index.setdefault((node.lineno, "<lambda>"), []).append(node)
    _MODULES[filename] = (text, index)
    return index


def function_source(fn: types.FunctionType) -> FunctionSource | None:
    """The source of a user function, or None (library code, or no source to be found)."""
    code = fn.__code__
    if code in _BY_CODE:
        return _BY_CODE[code]
    found = None
    if is_user_file(code.co_filename):
        index = _index(code.co_filename, fn.__globals__)
        if index is not None:
            node = _pick(index.get((code.co_firstlineno, code.co_name), []), code)
            if node is not None and not isinstance(node, ast.AsyncFunctionDef):
                found = source_of_node(node, code.co_filename)
    _BY_CODE[code] = found
    return found


def _pick(candidates: list, code: types.CodeType) -> FunctionNode | None:
    argnames = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    matching = [n for n in candidates if tuple(a.arg for a in n.args.posonlyargs + n.args.args +
                                                n.args.kwonlyargs) == argnames]
    if len(matching) > 1:  # several lambdas on one line: the one whose body the code object's positions cover
        starts = {(p[0], p[2]) for p in code.co_positions() if p[0] is not None}
        matching = [n for n in matching if isinstance(n, ast.Lambda) and (n.body.lineno, n.body.col_offset) in starts]
    return matching[0] if len(matching) == 1 else None


def source_of_node(node: FunctionNode, filename: str) -> FunctionSource:
    """Scope analysis of a function node (cached per node)."""
    found = _BY_NODE.get(id(node))
    if found is not None and found.node is node:
        return found
    local, glob, nonlocal_, generator = _scope(node)
    name = node.name if isinstance(node, ast.FunctionDef) else "<lambda>"
    found = FunctionSource(node, filename, name, frozenset(local - glob - nonlocal_), frozenset(glob),
                           frozenset(nonlocal_), generator)
    _BY_NODE[id(node)] = found
    return found


def argument_names(args: ast.arguments) -> list[str]:
    names = [a.arg for a in args.posonlyargs + args.args]
    if args.vararg:
        names.append(args.vararg.arg)
    names += [a.arg for a in args.kwonlyargs]
    if args.kwarg:
        names.append(args.kwarg.arg)
    return names


_NEW_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda,
               ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _scope(fn: FunctionNode) -> tuple[set, set, set, bool]:
    """(names bound in fn, names declared global, names declared nonlocal, whether fn is a generator)."""
    local, glob, nonlocal_ = set(argument_names(fn.args)), set(), set()
    generator = False

    def visit(node: ast.AST) -> None:
        nonlocal generator
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                local.add(child.name)
                continue
            if isinstance(child, _NEW_SCOPES):
                continue
            if isinstance(child, ast.Name) and isinstance(child.ctx, (ast.Store, ast.Del)):
                local.add(child.id)
            elif isinstance(child, ast.Global):
                glob.update(child.names)
            elif isinstance(child, ast.Nonlocal):
                nonlocal_.update(child.names)
            elif isinstance(child, (ast.Import, ast.ImportFrom)):
                local.update((a.asname or a.name).split(".")[0] for a in child.names if a.name != "*")
            elif isinstance(child, ast.ExceptHandler) and child.name:
                local.add(child.name)
            elif isinstance(child, (ast.Yield, ast.YieldFrom)):
                generator = True
            visit(child)

    if isinstance(fn, ast.Lambda):
        visit(ast.Expr(fn.body))
    else:
        for stmt in fn.body:
            visit(ast.Module([stmt], []))
    return local, glob, nonlocal_, generator
