"""The call policy of the symbolic interpreter: which calls are inlined (user code, Cells), which run now
(msx ops, pure functions, containers the function made) and which are graph breaks (`SymbolicVM` mixin;
the tables are `policy.py`). It is also bytecode's `HandlerContext`: the builtins' capture rules
(`capture/handlers.py`, one for every mode) read Boxes and call back through it."""
from __future__ import annotations

import types
from typing import Any

from ... import tensor as tensor_mod
from ...tensor import Tensor
from ...nn.cell import Cell, _cast_float
from ..failures import MAX_CALL_DEPTH as MAX_DEPTH, call_depth_limit
from ..failures import is_jit_function as _is_jit_function
from ..handlers import handlers
from .breaks import GraphBreak, mutation, value_break, value_needed
from .kinds import CONCRETE_ERRORS, _cell_path, _is_cell_class, _is_cell_instance, _is_user_class
from ..policy import METHOD, PURE_SELF_TYPES, RUN, VALUE, callable_module, describe_callable, is_pure_module, judge, \
    mutates, unwrap
from .frame_sources import Attr, Item, Source
from .stack_values import UNBOUND, is_immutable_constant, is_user_code
from .vm import EXHAUSTED, PUSHED, Frame, bind_arguments, new_frame, type_lookup

SPECIAL = handlers("bytecode")   # the capture rules of builtins: id(builtin) -> (builtin, rule)


class CallPolicy:
    """See the module docstring."""

    EXHAUSTED = EXHAUSTED

    def call(self, frames: list[Frame], func: Any, args: tuple, kwargs: dict) -> Any:
        func, args, kwargs = unwrap(self.use(func), args, kwargs)
        special = SPECIAL.get(id(func))
        if special is not None and special[0] is func:
            return special[1](self, args, kwargs)
        ftype = type(func)
        if ftype is types.FunctionType:
            if is_user_code(func.__code__) or id(func) in self.local_ids:  # user code, or made by interpreted code
                return self.inline(frames, func, args, kwargs)
            return self.library_call(func, args, kwargs)
        if _is_cell_instance(func):
            return self.call_cell(frames, func, args, kwargs)
        if isinstance(func, type):
            return self.instantiate(frames, func, args, kwargs)
        call = type_lookup(ftype, "__call__")
        if type(call) is types.FunctionType and is_user_code(call.__code__):
            return self.inline(frames, call, (func,) + args, kwargs)
        return self.library_call(func, args, kwargs)

    def call_value(self, func: Any, args: tuple, kwargs: dict | None = None) -> Any:
        """Call and return the value now (a callback given to `sorted`, `map`, library code, ...)."""
        result = self.call(self.frames, func, args, kwargs or {})
        if result is PUSHED:
            frame = self.frames.pop()
            result = self.run_nested([frame])
        return result

    def convert(self, func: Any, args: tuple, kwargs: dict) -> Any:
        """The `recording.converter` hook: msx library code calling back into user code (autodiff, Cells)."""
        try:
            return self.call_value(func, tuple(args), dict(kwargs))
        except GraphBreak as brk:
            raise brk.within(describe_callable(func), None) from None

    def inline(self, frames: list[Frame], fn: types.FunctionType, args: tuple, kwargs: dict,
               override: Any = UNBOUND) -> Any:
        if len(frames) >= (limit := call_depth_limit()):
            raise GraphBreak(f"calls nest deeper than {limit} levels ({fn.__qualname__}; set_context("
                             f"max_call_depth) sets the limit, up to {MAX_DEPTH}): a recursion msx "
                             f"does not unroll", "make the recursion depth a small Python constant, or write it as a "
                             "loop")
        lp = bind_arguments(fn, args, kwargs)
        code = fn.__code__
        fn_source = self.sources.get(id(fn))
        if fn_source is not None:   # defaults can be changed (or mutated) between calls: read them as sources
            self._source_defaults(fn, fn_source, lp, len(args), kwargs)
        slot = code.co_argcount + code.co_kwonlyargcount
        for flag in (0x04, 0x08):  # the *args tuple and **kwargs dict are new objects of this call
            if code.co_flags & flag:
                self.new_local(lp[slot])
                slot += 1
        frame = new_frame(fn, lp)
        if frame.info.is_generator:
            if fn.__code__.co_flags & 0x380:   # coroutine / async generator
                raise GraphBreak(f"{fn.__qualname__} is async code", "call async code outside the jitted function")
            frame.gen_items = []
            try:
                return self.new_local(self.run_nested([frame]))
            except GraphBreak as brk:
                raise brk.within(f"generator {fn.__qualname__}", frame.loc()) from None
        frame.override = override
        if frames:   # a plain call stays in its caller's Cell scope
            frame.scope, frame.scope_cell = frames[-1].scope, frames[-1].scope_cell
        frames.append(frame)
        return PUSHED

    def _source_defaults(self, fn: types.FunctionType, source: Source, lp: list, n_args: int, kwargs: dict) -> None:
        code = fn.__code__
        names, n_pos = code.co_varnames, code.co_argcount
        defaults = fn.__defaults__ or ()
        first = n_pos - len(defaults)
        for i in range(max(n_args, first), n_pos):
            if names[i] not in kwargs:
                lp[i] = self.wrap(lp[i], self.src(Item(self.src(Attr(source, "__defaults__")), i - first)))
        for i in range(n_pos, n_pos + code.co_kwonlyargcount):
            if names[i] not in kwargs and names[i] in (fn.__kwdefaults__ or {}):
                lp[i] = self.wrap(lp[i], self.src(Item(self.src(Attr(source, "__kwdefaults__")), names[i])))

    def call_cell(self, frames: list[Frame], cell: Any, args: tuple, kwargs: dict) -> Any:
        """`cell(*args)`: MindSpore's Cell.__call__ (compute dtype cast), then `construct`, inlined."""
        call = type_lookup(type(cell), "__call__")
        if call is not Cell.__call__:
            return self.call(frames, call, (cell,) + args, kwargs)
        if callable(getattr(type(cell), "bprop", None)) or cell.__dict__.get("_recompute", False) or \
                getattr(type(cell), "runs_as_jax", lambda c: False)(cell):   # a PipelineCell over several stages
            # one node, differentiated by the Cell's bprop or rematerialised (recompute): msx.nn._backward
            return self._run_library(cell, args, kwargs)
        if cell.__dict__.get("_hooks") is not None:   # forward hooks (Cell.shard's too) run as in Cell.__call__
            return self.library_call(cell, args, kwargs)
        dtype = self.use(self.load_attr(cell, "_compute_dtype"))
        if dtype is not None:
            args = tuple(self._run_library(_cast_float, (a, dtype), {}) for a in args)
        construct = type_lookup(type(cell), "construct")
        if _is_jit_function(construct):
            construct = construct.fn
        if type(construct) is not types.FunctionType:
            return self.library_call(cell, args, kwargs)
        pushed = self.inline(frames, construct, (cell,) + args, kwargs)
        frame = frames[-1]
        frame.scope, frame.scope_cell = _cell_path(frame.scope, frame.scope_cell, cell), cell
        return pushed

    def instantiate(self, frames: list[Frame], cls: type, args: tuple, kwargs: dict) -> Any:
        init = type_lookup(cls, "__init__")
        user_init = type(init) is types.FunctionType and is_user_code(init.__code__)
        plain = (type(cls) is type and cls.__new__ is object.__new__ and not _is_cell_class(cls)
                 and not issubclass(cls, (BaseException, tuple)) and "__slots__" not in vars(cls))
        if plain and (user_init or (init is object.__init__ and _is_user_class(cls))):
            obj = self.new_local(object.__new__(cls))
            if init is object.__init__:
                if args or kwargs:
                    raise TypeError(f"{cls.__name__}() takes no arguments")
                return obj
            return self.inline(frames, init, (obj,) + args, kwargs, override=obj)
        if issubclass(cls, BaseException) or (issubclass(cls, tuple) and hasattr(cls, "_fields")):
            return self._run_library(cls, args, kwargs)   # an exception or a namedtuple: plain data
        return self.library_call(cls, args, kwargs)

    def library_call(self, func: Any, args: tuple, kwargs: dict) -> Any:
        """A call into code that is not interpreted: run it now if that is the same as running it every call
        (the one call policy, `policy.judge`); anything else is a graph break."""
        verdict = judge(self, func, args, kwargs)
        if verdict.kind == RUN:
            return self._run_library(func, args, kwargs)
        if verdict.kind == METHOD:
            return self._builtin_method(verdict.func, verdict.self_, verdict.args, kwargs)
        if verdict.kind == VALUE:
            raise value_needed(verdict.what)
        raise GraphBreak(verdict.reason, verdict.suggestion)

    def _builtin_method(self, func: Any, self_: Any, args: tuple, kwargs: dict) -> Any:
        kind = type(self_)
        name = func.__name__
        if not (kind is list and name in ("append", "extend")):
            self.materialize(self_)
        if mutates(self_, name):
            if id(self_) not in self.local_ids:
                raise mutation(f"{kind.__name__}.{name}()", self_, self.sources.get(id(self_)))
            if kind is list and name == "extend" and len(args) == 1 and not kwargs:
                self_.extend(self.items_of(args[0]))   # elements of a carried-over iterator come in guarded
                return None
            return self._apply(func, args, kwargs)   # a container the function made: its elements stay as they are
        if isinstance(self_, dict) and name in ("items", "values", "keys", "get") and id(self_) in self.sources:
            return self._sourced_dict_method(self_, name, args)
        if isinstance(self_, PURE_SELF_TYPES):
            self.use_deep(self_)
            return self._run_library(func, args, kwargs)
        if isinstance(self_, type) and self_ in PURE_SELF_TYPES:   # `dict.fromkeys`, `int.from_bytes`: constructors
            return self._run_library(func, args, kwargs)
        module = callable_module(func)
        if is_pure_module(module) and not self.has_dynamic(args):
            return self._run_library(func, args, kwargs)
        raise GraphBreak(f"{describe_callable(func)} is a method msx cannot run at capture time",
                         "call it outside the jitted function")

    def _sourced_dict_method(self, d: dict, name: str, args: tuple) -> Any:
        source = self.sources[id(d)]
        if name == "keys":
            return self.new_local(list(d))
        if name == "get":
            key = self.use(args[0])
            if key in d:
                return self.wrap(d[key], self.src(Item(source, key))) if type(key) in (int, str) else d[key]
            return args[1] if len(args) > 1 else None
        values = [self.wrap(v, self.src(Item(source, k))) if type(k) in (int, str) else v for k, v in d.items()]
        if name == "values":
            return self.new_local(values)
        return self.new_local([self.new_local((k, v)) for k, v in zip(d, values)])

    # ------------------------------------------------------------ the HandlerContext of the capture rules
    def is_user_function(self, fn: types.FunctionType) -> bool:
        return is_user_code(fn.__code__)

    def super_args(self) -> tuple[type, Any]:
        f = self.frames[-1]
        names = f.info.names
        if "__class__" not in names or not f.info.code.co_argcount:
            raise RuntimeError("super(): no arguments")
        first = f.lp[0]
        if type(first) is types.CellType:   # `self` captured by a closure
            first = first.cell_contents
        return f.lp[names.index("__class__")].cell_contents, first

    def print_piece(self, v: Any) -> list:
        return [v] if isinstance(v, Tensor) and self.is_dynamic(v) else [str(v)]

    def refuse(self, reason: str, suggestion: str) -> GraphBreak:
        """What bytecode capture cannot do is a graph break: Python runs it between two graphs."""
        return GraphBreak(reason, suggestion)

    def run_library(self, func: Any, args: tuple, kwargs: dict) -> Any:
        return self._run_library(func, args, kwargs)

    def run_now(self, func: Any, args: tuple, kwargs: dict) -> Any:
        return self._apply(func, args, kwargs)

    def _run_library(self, func: Any, args: tuple, kwargs: dict) -> Any:
        args = tuple(self.use_deep(a) for a in args)
        kwargs = {k: self.use_deep(v) for k, v in kwargs.items()}
        return self._apply(func, args, kwargs)

    def _apply(self, func: Any, args: tuple, kwargs: dict) -> Any:
        """Run a library call now; undo what it recorded if it turns out to need Python (a break)."""
        mark = self.builder.checkpoint()
        log: list = []
        tensor_mod._WRITE_LOGS.append(log)
        try:
            result = func(*args, **kwargs)
        except GraphBreak as brk:
            self._undo(mark, log)
            raise brk.within(describe_callable(func), None) from None
        except CONCRETE_ERRORS as exc:
            self._undo(mark, log)
            raise value_break(exc, describe_callable(func)) from None
        except BaseException:
            self._undo(mark, log)
            raise
        finally:
            tensor_mod._WRITE_LOGS.pop()
        if tensor_mod._WRITE_LOGS:
            tensor_mod._WRITE_LOGS[-1].extend(log)
        return self._adopt_result(result)

    def _undo(self, mark: tuple, log: list) -> None:
        self.builder.rollback(mark)
        for obj, old in reversed(log):
            obj._data = old

    def _adopt_result(self, result: Any, depth: int = 0) -> Any:
        """A library call's result: containers in it are new (the function's own), not the caller's."""
        if id(result) in self.sources or id(result) in self.local_ids or depth > 8:
            return result
        if type(result) in (list, dict, set) or (isinstance(result, tuple) and not is_immutable_constant(result)):
            self.new_local(result)
            for x in (result.values() if isinstance(result, dict) else result):
                self._adopt_result(x, depth + 1)
        return result
