"""The data the ast interpreter runs on: variable scopes, frames, functions defined inside a captured
function, control signals, and the tables of Python operators and mutating methods."""
from __future__ import annotations

import ast
import inspect
import operator
import weakref
from typing import TYPE_CHECKING, Any, Callable

from .. import reads
from .failures import Unsupported
from .source import FunctionSource
from .values import MaybeUnbound, Undefined

if TYPE_CHECKING:
    from .interpreter import Interpreter


# ---------------------------------------------------------------- control signals (never leave a function)
class _Signal(Exception):
    pass


class Return(_Signal):
    def __init__(self, value: Any) -> None:
        self.value = value


class _Break(_Signal):
    pass


class _Continue(_Signal):
    pass


LOOP = "loop"  # marks a loop body on the continuation stack




# ---------------------------------------------------------------- scopes
class Scope:
    """The variables of one function activation (or comprehension), and where its free names come from."""

    __slots__ = ("vars", "local_names", "global_names", "nonlocal_names", "parent", "closure", "globals", "builtins")

    def __init__(self, vars: dict, source: FunctionSource | None, parent: "Scope | None", closure: dict,
                 globals_: dict, builtins_: dict, local_names: frozenset | None = None) -> None:
        self.vars = vars
        self.local_names = local_names if local_names is not None else source.local_names
        self.global_names = source.global_names if source is not None else frozenset()
        self.nonlocal_names = source.nonlocal_names if source is not None else frozenset()
        self.parent, self.closure, self.globals, self.builtins = parent, closure, globals_, builtins_

    def load(self, name: str) -> Any:
        if name in self.local_names:
            try:
                value = self.vars[name]
            except KeyError:
                raise UnboundLocalError(f"cannot access local variable '{name}' where it is not associated with "
                                        f"a value") from None
        elif name in self.global_names:
            value = self.load_global(name)
        else:
            value = self._free(name)
        if type(value) is Undefined:
            raise Unsupported(value.reason)
        if type(value) is MaybeUnbound:
            plain = value.read()   # checked from here on: later reads need no second check
            if self.vars.get(name) is value:
                self.vars[name] = plain
            value = plain
        return value

    def _free(self, name: str) -> Any:
        scope: Scope | None = self
        while scope is not None:
            if scope is not self and name in scope.local_names:
                try:
                    return scope.vars[name]
                except KeyError:
                    raise NameError(f"cannot access free variable '{name}' where it is not associated with a "
                                    f"value in enclosing scope") from None
            cell = scope.closure.get(name)
            if cell is not None:
                try:
                    value = cell.cell_contents
                except ValueError:
                    raise NameError(f"cannot access free variable '{name}' where it is not associated with a "
                                    f"value in enclosing scope") from None
                reads.note_closure(cell, name, value)
                return value
            scope = scope.parent
        return self.load_global(name)

    def load_global(self, name: str) -> Any:
        if name in self.globals:
            value = self.globals[name]
            reads.note_global(self.globals, name, value)
            return value
        if name in self.builtins:
            return self.builtins[name]
        raise NameError(f"name '{name}' is not defined")

    def store(self, name: str, value: Any, interp: "Interpreter") -> None:
        if name in self.global_names:
            raise Unsupported(f"`{name} = ...` writes the global variable `{name}`: a Python side effect that "
                              f"would happen once, at compile time, not on every call; return the value instead")
        if name in self.nonlocal_names:
            scope = self.parent
            while scope is not None and name not in scope.local_names:
                scope = scope.parent
            if scope is None or interp.branch_depth:
                raise Unsupported(f"`{name} = ...` writes the variable `{name}` of an enclosing function "
                                  f"(nonlocal){' inside tensor-dependent control flow' if scope else ''}; "
                                  f"return the value instead")
            scope.vars[name] = value
            return
        self.vars[name] = value


class Frame:
    """One interpreted call: its scope, its source, and the continuation (statements left in each open block)."""

    __slots__ = ("scope", "filename", "name", "rest")

    def __init__(self, scope: Scope, filename: str, name: str) -> None:
        self.scope, self.filename, self.name = scope, filename, name
        self.rest: list = []


class InterpretedFunction:
    """A `def` or `lambda` evaluated inside captured code: calling it interprets its body.

    It closes over the scope it was defined in, as Python closures do, and can
    be handed to library code (`value_and_grad(inner_fn, ...)`), which calls it.
    Its internals live in slots, so `functools.wraps` (which copies `__dict__`)
    cannot turn a wrapper into the function it wraps.
    """

    __slots__ = ("_interp", "_source", "_scope", "_signature", "__dict__", "__weakref__")

    def __init__(self, interp: "Interpreter", source: FunctionSource, scope: Scope,
                 signature: inspect.Signature) -> None:
        self._interp, self._source, self._scope, self._signature = interp, source, scope, signature
        self.__name__ = self.__qualname__ = source.name
        self.__module__ = scope.globals.get("__name__")
        node = source.node
        self.__doc__ = ast.get_docstring(node) if isinstance(node, ast.FunctionDef) else None

    def __call__(self, *args, **kwargs):
        return self._interp.call_interpreted(self, args, kwargs)

    def __repr__(self) -> str:
        return f"<function {self.__qualname__} (captured)>"


# ---------------------------------------------------------------- the interpreter
_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
           ast.MatMult: operator.matmul, ast.BitAnd: operator.and_, ast.BitOr: operator.or_,
           ast.BitXor: operator.xor, ast.LShift: operator.lshift, ast.RShift: operator.rshift}
_INPLACE = {ast.Add: operator.iadd, ast.Sub: operator.isub, ast.Mult: operator.imul, ast.Div: operator.itruediv,
            ast.FloorDiv: operator.ifloordiv, ast.Mod: operator.imod, ast.Pow: operator.ipow,
            ast.MatMult: operator.imatmul, ast.BitAnd: operator.iand, ast.BitOr: operator.ior,
            ast.BitXor: operator.ixor, ast.LShift: operator.ilshift, ast.RShift: operator.irshift}
_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
            ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
            ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert}

_UNSUPPORTED_STATEMENTS = {ast.Try: "try", ast.With: "with", ast.AsyncWith: "async with", ast.AsyncFor: "async for",
                           ast.AsyncFunctionDef: "async def", ast.ClassDef: "class", ast.Match: "match"}
if hasattr(ast, "TryStar"):
    _UNSUPPORTED_STATEMENTS[ast.TryStar] = "try"
_SIGNATURES: "weakref.WeakKeyDictionary[Callable, tuple]" = weakref.WeakKeyDictionary()
