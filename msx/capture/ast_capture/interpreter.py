"""The abstract interpreter of `capture_mode="ast"`: it walks a function's AST and builds its graph.

Python values are ordinary Python values, evaluated at compile time (what
MindSpore calls JIT Fallback). Tensor values are Tensors whose data is an
abstract jax value, so every op a statement applies is recorded by the
GraphBuilder as it runs. Control flow on a Python value is decided here, at
compile time; on a tensor it becomes a Cond, While or Scan node (see
`control_flow`). Calls of user functions, methods and Cells are interpreted
recursively; library code (msx, jax, numpy, the standard library) runs as it is.
"""
from __future__ import annotations

import ast
import builtins
import importlib
import inspect
import threading
import types
from typing import Any, Callable

import jax

from ...errors import SOURCE_FRAMES, CaptureError, MsxError, SourceLoc
from ... import tensor as tensor_module
from ...tensor import Parameter, Tensor
from .. import policy, reads
from ..handlers import handlers
from ..failures import CONCRETE_ERRORS as _CONCRETE_ERRORS
from ..failures import MAX_CALL_DEPTH, call_depth_limit
from . import control_flow
from .rule_context import AstContext
from .expressions import Expressions
from .failures import Unsupported, user_error
from .scope import (_INPLACE, _SIGNATURES, _UNSUPPORTED_STATEMENTS, LOOP, Frame,
                    InterpretedFunction, Return, Scope, _Break, _Continue, _Signal)
from .source import FunctionSource, function_source
from .values import DeferredString, is_dynamic


class _Active(threading.local):
    """The interpreters running in this thread, innermost last (for `user_loc`)."""

    stack: list = []

    def __init__(self) -> None:
        self.stack = []


_ACTIVE = _Active()


def _active_loc() -> SourceLoc | None:
    stack = _ACTIVE.stack
    return stack[-1].loc() if stack else None


class Interpreter(Expressions):
    """Interprets user functions into the active GraphBuilder; one per capture."""

    def __init__(self) -> None:
        self.frame: Frame | None = None
        self.node: ast.AST | None = None
        self.calls: list[str] = []
        self.branch_depth = 0          # > 0 inside a tensor-dependent branch or loop body
        self._local_ids: set[int] = set()
        self._keep: list = []          # keeps locally created objects alive so their ids stay unique
        self.active = False
        self.context = AstContext(self)  # what the builtins' capture rules (capture/handlers.py) read through

    # ------------------------------------------------------------ bookkeeping
    def __enter__(self) -> "Interpreter":
        _ACTIVE.stack.append(self)
        self.active = True
        return self

    def __exit__(self, *exc) -> None:
        self.active = False
        _ACTIVE.stack.remove(self)

    def loc(self) -> SourceLoc | None:
        node, frame = self.node, self.frame
        if frame is None or node is None or not hasattr(node, "lineno"):
            return None
        end = node.end_col_offset if node.end_lineno == node.lineno else None
        return SourceLoc(frame.filename, node.lineno, node.col_offset, end, frame.name)

    def unsupported(self, reason: str, loc: SourceLoc | None = None) -> Unsupported:
        return Unsupported(reason, loc or self.loc())

    def mark_local(self, obj: Any) -> Any:
        """`obj` was created by the captured code: mutating it is not a side effect outside the function."""
        self._local_ids.add(id(obj))
        self._keep.append(obj)
        return obj

    def is_local(self, obj: Any) -> bool:
        return id(obj) in self._local_ids

    def check_mutable(self, obj: Any, what: str) -> None:
        if isinstance(obj, Tensor):
            if not is_dynamic(obj) and not self.is_local(obj):
                raise self.unsupported(f"{what} writes into a Tensor created outside the captured function; only "
                                       f"Parameters are state that a graph updates: make it a Parameter or work "
                                       f"on a copy")
            return
        if not self.is_local(obj):
            raise self.unsupported(f"{what} changes a {type(obj).__name__} created outside the captured function: a "
                                   f"Python side effect that would happen once, at compile time, not on every call")

    # ------------------------------------------------------------ calling
    def call(self, func: Any, args: tuple, kwargs: dict) -> Any:
        """Call `func` as the captured code would: user code is interpreted, library code runs."""
        func, args, kwargs = policy.unwrap(func, args, kwargs)   # bound methods, partials, nested jit functions
        special = _SPECIAL.get(id(func))
        if special is not None and special[0] is func:
            return special[1](self.context, args, kwargs)
        kind = type(func)
        if kind is InterpretedFunction:
            return self.call_interpreted(func, args, kwargs)
        if kind is types.FunctionType:
            source = function_source(func)
            if source is not None:
                return self.call_function(func, source, args, kwargs)
        elif not isinstance(func, type):
            method = getattr(kind, "__call__", None)  # an object of a user class with __call__
            if type(method) is types.FunctionType:
                source = function_source(method)
                if source is not None:
                    return self.call_function(method, source, (func, *args), kwargs)
        return self._call_library(func, args, kwargs)

    def _call_library(self, func: Any, args: tuple, kwargs: dict) -> Any:
        """Library code runs at compile time (JIT Fallback); the one call policy (`policy.judge`) refuses what
        has effects outside the graph and changes of containers the function did not make."""
        verdict = policy.judge(self.context, func, args, kwargs)
        if verdict.kind == policy.EFFECT:
            raise self.unsupported(f"{verdict.what} cannot be captured into a graph")
        if verdict.kind == policy.METHOD and policy.mutates(verdict.self_, verdict.func.__name__):
            self.check_mutable(verdict.self_, f"`.{verdict.func.__name__}(...)`")
        if _builds_constant(func, args, kwargs):
            with jax.ensure_compile_time_eval():  # `Tensor(2.0)` is a constant of the graph, not a traced value
                result = func(*args, **kwargs)
            return self.mark_local(result)
        if _is_sourceless_user_code(func):
            # the user's function whose source cannot be read (a script piped to `python -`, exec'd code) runs
            # natively, as trace capture runs it: watched the same way, so the globals it reads are guarded
            with reads.watch_calls(func, args, kwargs):
                result = func(*args, **kwargs)
        else:
            result = func(*args, **kwargs)
        fresh = type(result)
        # a container built by its type or copied is the function's own (`list`, `sorted`: capture rules)
        if fresh in (list, dict, set) and (isinstance(func, type) or getattr(func, "__name__", "") == "copy"):
            self.mark_local(result)
        elif isinstance(result, Tensor) and not is_dynamic(result):
            self.mark_local(result)
        return result

    def convert(self, func: Any, args: tuple, kwargs: dict) -> Any:
        """The `recording.converter` hook: library code calling back into user code."""
        return self.call(func, args, kwargs)

    def call_function(self, fn: types.FunctionType, source: FunctionSource, args: tuple, kwargs: dict) -> Any:
        if source.is_generator:
            raise self.unsupported(f"`{source.name}` is a generator function (it uses `yield`); generators "
                                   f"cannot be captured into a graph")
        entry = _SIGNATURES.get(fn)
        if entry is None or entry[0] is not fn.__defaults__ or entry[1] is not fn.__kwdefaults__:
            entry = (fn.__defaults__, fn.__kwdefaults__, inspect.signature(fn, follow_wrapped=False))
            _SIGNATURES[fn] = entry
        vars_ = self._bind(entry[2], args, kwargs, source.name)
        reads.note_function(fn)
        closure = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
        builtins_ = fn.__globals__.get("__builtins__", builtins)
        builtins_ = builtins_.__dict__ if isinstance(builtins_, types.ModuleType) else builtins_
        scope = Scope(vars_, source, None, closure, fn.__globals__, builtins_)
        return self._run(source, scope, fn.__code__.co_name)

    def call_interpreted(self, fn: InterpretedFunction, args: tuple, kwargs: dict) -> Any:
        if fn._interp is not self or not self.active:
            raise CaptureError(f"{fn.__qualname__} was defined inside a captured function and cannot be called "
                               f"after that capture")
        vars_ = self._bind(fn._signature, args, kwargs, fn.__qualname__)
        outer = fn._scope
        scope = Scope(vars_, fn._source, outer, {}, outer.globals, outer.builtins)
        return self._run(fn._source, scope, fn._source.name)

    def _bind(self, signature: inspect.Signature, args: tuple, kwargs: dict, name: str) -> dict:
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise TypeError(f"{name}() {exc}") from None
        bound.apply_defaults()
        arguments = dict(bound.arguments)
        for param in signature.parameters.values():
            if param.kind is inspect.Parameter.VAR_KEYWORD:
                self.mark_local(arguments[param.name])
        return arguments

    def _run(self, source: FunctionSource, scope: Scope, name: str) -> Any:
        if len(self.calls) >= (limit := call_depth_limit()):
            chain = " -> ".join(self.calls[-4:] + [name])
            raise self.unsupported(f"calls nest deeper than {limit} levels (... {chain}; set_context("
                                   f"max_call_depth) sets the limit, up to {MAX_CALL_DEPTH}): a recursion "
                                   f"whose end depends on a tensor value never ends at compile time, and one this "
                                   f"deep on Python values is too large a graph; write it as a loop")
        saved_frame, saved_node = self.frame, self.node
        self.frame, self.node = Frame(scope, source.filename, name), source.node
        self.calls.append(name)
        try:
            node = source.node
            if isinstance(node, ast.Lambda):
                return self.value_of(node.body)
            try:
                self.exec_block(node.body)
            except Return as ret:
                return ret.value
            return None
        finally:
            self.calls.pop()
            self.frame, self.node = saved_frame, saved_node

    # ------------------------------------------------------------ statements
    def exec_block(self, stmts: list, start: int = 0) -> None:
        rest = self.frame.rest
        for i in range(start, len(stmts)):
            rest.append((stmts, i + 1))
            try:
                self.exec_stmt(stmts[i])
            finally:
                rest.pop()

    def run_continuation(self, saved: list) -> None:
        """Run what follows a statement (the rest of each enclosing block), then return None from the function."""
        for depth in range(len(saved) - 1, -1, -1):
            stmts, start = saved[depth]
            self.frame.rest = saved[:depth]
            self.exec_block(stmts, start)
        raise Return(None)

    def exec_stmt(self, node: ast.stmt) -> None:
        prev = self.node
        self.node = node
        try:
            handler = _STATEMENTS.get(type(node))
            if handler is None:
                keyword = _UNSUPPORTED_STATEMENTS.get(type(node), type(node).__name__)
                raise self.unsupported(f"`{keyword}` statements cannot be captured into a graph")
            handler(self, node)
        except (_Signal, Unsupported, MsxError) as exc:
            if isinstance(exc, CaptureError):
                raise self.unsupported(exc.message, exc.loc) from None
            if isinstance(exc, (Unsupported, MsxError)) and exc.loc is None:
                exc.loc = self.loc()   # an error raised inside library code (an msx layer): the user's line
            raise
        except _CONCRETE_ERRORS as exc:
            raise self.unsupported(_concrete_reason(exc)) from None
        except RecursionError:
            raise self.unsupported("Python's recursion limit was reached while capturing: a recursion whose end "
                                   "depends on a tensor value cannot be captured") from None
        except Exception as exc:
            raise user_error(exc, self.loc()) from exc
        finally:
            self.node = prev

    def exec_Expr(self, node: ast.Expr) -> None:
        self.value_of(node.value)

    def exec_Pass(self, node: ast.Pass) -> None:
        pass

    def exec_Return(self, node: ast.Return) -> None:
        raise Return(self.value_of(node.value) if node.value is not None else None)

    def exec_Break(self, node: ast.Break) -> None:
        raise _Break()

    def exec_Continue(self, node: ast.Continue) -> None:
        raise _Continue()

    def exec_Assign(self, node: ast.Assign) -> None:
        value = self.value_of(node.value)
        for target in node.targets:
            self.assign(target, value)

    def exec_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.assign(node.target, self.value_of(node.value))

    def exec_AugAssign(self, node: ast.AugAssign) -> None:
        op = _INPLACE[type(node.op)]
        target = node.target
        if isinstance(target, ast.Name):
            current = self.frame.scope.load(target.id)
            if isinstance(current, (list, dict, set, bytearray)):
                self.check_mutable(current, f"`{target.id} {_op_text(node.op)}= ...`")
            self.frame.scope.store(target.id, op(current, self.value_of(node.value)), self)
        elif isinstance(target, ast.Subscript):
            obj, index = self.value_of(target.value), self.value_of(target.slice)
            value = op(obj[index], self.value_of(node.value))
            self.set_item(obj, index, value)
        else:
            obj = self.value_of(target.value)
            value = op(getattr(obj, target.attr), self.value_of(node.value))
            self.set_attr(obj, target.attr, value)

    def exec_If(self, node: ast.If) -> None:
        test = self.value_of(node.test)
        if is_dynamic(test):
            control_flow.tensor_if(self, node, test)
        else:
            self.exec_block(node.body if self.truth(test, "an `if` condition") else node.orelse)

    def exec_While(self, node: ast.While) -> None:
        self.frame.rest.append(LOOP)
        try:
            while True:
                test = self.value_of(node.test)
                if is_dynamic(test):
                    control_flow.tensor_while(self, node, test)
                    return
                if not self.truth(test, "a `while` condition"):
                    self.exec_block(node.orelse)
                    return
                try:
                    self.exec_block(node.body)
                except _Break:
                    return
                except _Continue:
                    pass
        finally:
            self.frame.rest.pop()

    def exec_For(self, node: ast.For) -> None:
        iterable = self.value_of(node.iter)
        if is_dynamic(iterable):
            control_flow.tensor_for(self, node, iterable)
            return
        self.frame.rest.append(LOOP)
        try:
            for item in iterable:
                self.assign(node.target, item)
                try:
                    self.exec_block(node.body)
                except _Break:
                    return
                except _Continue:
                    pass
        finally:
            self.frame.rest.pop()
        self.exec_block(node.orelse)

    def exec_Assert(self, node: ast.Assert) -> None:
        test = self.value_of(node.test)
        if is_dynamic(test):
            raise self.unsupported("`assert` on a tensor value: the value is only known when the graph runs; "
                                   "check it outside the compiled function")
        if not self.truth(test, "an `assert` condition"):
            if self.branch_depth:
                raise self.unsupported("an `assert` that fails inside tensor-dependent control flow: it would "
                                       "fail only when that branch runs")
            if node.msg is None:
                raise AssertionError()
            raise AssertionError(self.value_of(node.msg))

    def exec_Raise(self, node: ast.Raise) -> None:
        if self.branch_depth:
            raise self.unsupported("`raise` inside tensor-dependent control flow: whether it happens is only "
                                   "known when the graph runs")
        if node.exc is None:
            raise self.unsupported("a bare `raise` (re-raise) cannot be captured")
        exc = self.value_of(node.exc)
        cause = self.value_of(node.cause) if node.cause is not None else None
        if isinstance(exc, type):
            exc = exc()
        if cause is not None:
            raise exc from cause
        raise exc

    def exec_FunctionDef(self, node: ast.FunctionDef) -> None:
        decorators = [self.value_of(d) for d in node.decorator_list]
        fn: Any = self.make_function(node)
        for decorator in reversed(decorators):
            fn = self.call(decorator, (fn,), {})
        self.frame.scope.store(node.name, fn, self)

    def exec_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            module = importlib.import_module(alias.name)
            if alias.asname:
                self.frame.scope.store(alias.asname, module, self)
            else:
                top = alias.name.split(".")[0]
                self.frame.scope.store(top, importlib.import_module(top), self)

    def exec_ImportFrom(self, node: ast.ImportFrom) -> None:
        package = self.frame.scope.globals.get("__package__")
        base = importlib.import_module("." * node.level + (node.module or ""), package)
        for alias in node.names:
            if alias.name == "*":
                raise self.unsupported("`from ... import *` inside a function cannot be captured")
            try:
                value = getattr(base, alias.name)
            except AttributeError:
                value = importlib.import_module(f"{base.__name__}.{alias.name}")
            self.frame.scope.store(alias.asname or alias.name, value, self)

    def exec_Global(self, node: ast.Global) -> None:
        pass  # reads are fine; writes are refused where they happen (Scope.store)

    exec_Nonlocal = exec_Global

    def exec_Delete(self, node: ast.Delete) -> None:
        for target in node.targets:
            if isinstance(target, ast.Name):
                if self.frame.scope.vars.pop(target.id, _MISSING) is _MISSING:
                    raise NameError(f"name '{target.id}' is not defined")
            elif isinstance(target, ast.Subscript):
                obj = self.value_of(target.value)
                index = self.value_of(target.slice)
                self.check_mutable(obj, "`del x[...]`")
                del obj[index]
            else:
                raise self.unsupported(f"`del ...{target.attr}` deletes an attribute: a Python side effect")

    # ------------------------------------------------------------ assignment
    def assign(self, target: ast.expr, value: Any) -> None:
        kind = type(target)
        if kind is ast.Name:
            self.frame.scope.store(target.id, value, self)
        elif kind is ast.Tuple or kind is ast.List:
            self._unpack(target.elts, value)
        elif kind is ast.Subscript:
            self.set_item(self.value_of(target.value), self.value_of(target.slice), value)
        elif kind is ast.Attribute:
            self.set_attr(self.value_of(target.value), target.attr, value)
        else:
            raise self.unsupported(f"cannot assign to {type(target).__name__}")

    def _unpack(self, targets: list, value: Any) -> None:
        if isinstance(value, DeferredString):
            raise self.unsupported("unpacking an f-string that holds tensors")
        items = list(value)
        starred = [i for i, t in enumerate(targets) if isinstance(t, ast.Starred)]
        if not starred:
            if len(items) != len(targets):
                if len(items) < len(targets):
                    raise ValueError(f"not enough values to unpack (expected {len(targets)}, got {len(items)})")
                raise ValueError(f"too many values to unpack (expected {len(targets)})")
            for target, item in zip(targets, items):
                self.assign(target, item)
            return
        k = starred[0]
        after = len(targets) - k - 1
        if len(items) < len(targets) - 1:
            raise ValueError(f"not enough values to unpack (expected at least {len(targets) - 1}, got {len(items)})")
        for target, item in zip(targets[:k], items[:k]):
            self.assign(target, item)
        self.assign(targets[k].value, self.mark_local(items[k:len(items) - after]))
        for target, item in zip(targets[k + 1:], items[len(items) - after:]):
            self.assign(target, item)

    def set_item(self, obj: Any, index: Any, value: Any) -> None:
        self.check_mutable(obj, "item assignment (`x[...] = ...`)")
        obj[index] = value

    def set_attr(self, obj: Any, name: str, value: Any) -> None:
        params = getattr(obj, "__dict__", {}).get("_params")
        if isinstance(params, dict) and name in params and isinstance(value, Tensor):
            setattr(obj, name, value)  # a Cell's Parameter: `self.step = self.step + 1` writes it (set_data), as
            return                     # MindSpore's graph mode does, and the write is recorded like set_data's
        if not self.is_local(obj):
            raise self.unsupported(f"assigning `.{name}` on a {type(obj).__name__} object is a Python side effect "
                                   f"that would happen once, at compile time, not on every call; keep state in "
                                   f"Parameters (ops.assign, Parameter.set_data) or return the value")
        setattr(obj, name, value)

    # ------------------------------------------------------------ expressions
    def value_of(self, node: ast.expr) -> Any:
        prev = self.node
        self.node = node
        try:
            return _EXPRESSIONS[type(node)](self, node)
        except (_Signal, Unsupported, MsxError) as exc:
            if isinstance(exc, CaptureError):
                raise self.unsupported(exc.message, exc.loc) from None
            if isinstance(exc, (Unsupported, MsxError)) and exc.loc is None:
                exc.loc = self.loc()   # an error raised inside library code (an msx layer): the user's line
            raise
        except KeyError as exc:
            if type(node) not in _EXPRESSIONS:
                raise self.unsupported(f"{type(node).__name__} expressions cannot be captured into a graph") from None
            raise user_error(exc, self.loc()) from exc
        except _CONCRETE_ERRORS as exc:
            raise self.unsupported(_concrete_reason(exc)) from None
        except RecursionError:
            raise self.unsupported("Python's recursion limit was reached while capturing: a recursion whose end "
                                   "depends on a tensor value cannot be captured") from None
        except Exception as exc:
            raise user_error(exc, self.loc()) from exc
        finally:
            self.node = prev

    def truth(self, value: Any, what: str) -> bool:
        if isinstance(value, DeferredString):
            raise self.unsupported(f"{what} on an f-string that holds tensors")
        return bool(value)


_MISSING = object()


def _builds_constant(func: Any, args: tuple, kwargs: dict) -> bool:
    """`ms.Tensor(...)`/`ms.tensor(...)` of Python or numpy data only (no graph value among the arguments)."""
    if not (func is tensor_module or (isinstance(func, type) and issubclass(func, Tensor)
                                      and not issubclass(func, Parameter))):
        return False
    leaves = jax.tree_util.tree_leaves((args, kwargs), is_leaf=lambda x: isinstance(x, Tensor))
    return not any(isinstance(x, jax.core.Tracer) or (isinstance(x, Tensor) and is_dynamic(x)) for x in leaves)


def _op_text(op: ast.operator) -> str:
    return {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}.get(type(op), type(op).__name__)


def _concrete_reason(exc: Exception) -> str:
    first = str(exc).strip().split("\n")[0]
    return f"this needs the value of a tensor that is only known when the graph runs ({first})"


_SPECIAL: dict[int, tuple[Any, Callable]] = handlers("ast")  # the capture rules of builtins (capture/handlers.py)


def _dispatch(prefix: str) -> dict:
    table = {}
    for name, fn in [item for klass in reversed(Interpreter.__mro__) for item in vars(klass).items()]:
        if name.startswith(prefix):
            node_type = getattr(ast, name[len(prefix):], None)
            if node_type is not None:
                table[node_type] = fn
    return table


_STATEMENTS = _dispatch("exec_")
_EXPRESSIONS = _dispatch("eval_")


def _register_source_frames(*namespaces) -> None:
    """Frames running these functions interpret user source: their user line is the interpreter's."""
    def codes(code: types.CodeType):
        yield code
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                yield from codes(const)

    for namespace in namespaces:
        for value in vars(namespace).values():
            fn = getattr(value, "__func__", value)
            if isinstance(fn, types.FunctionType):
                for code in codes(fn.__code__):
                    SOURCE_FRAMES[code] = _active_loc


_register_source_frames(Interpreter, Expressions, InterpretedFunction, Scope, control_flow, AstContext)


def _is_sourceless_user_code(func: Any) -> bool:
    """`func` is (or calls through `__call__`) a Python function of the user's code: `call` found no source."""
    code = getattr(getattr(func, "__func__", func), "__code__", None)
    if code is None and not isinstance(func, type):
        code = getattr(getattr(type(func), "__call__", None), "__code__", None)
    return code is not None and reads.is_user_code(code)
