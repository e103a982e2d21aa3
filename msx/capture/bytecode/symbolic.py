"""The symbolic interpreter: runs bytecode once while recording its tensor ops into a graph.

It executes the same instructions as `vm.VM`, on the call's real values, with
a `GraphBuilder` recording every msx op. What makes it symbolic is what it
*tracks*:

* where each value came from (`sources`), so every assumption becomes a
  guard on that source, installed when the captured code first depends on
  it (a scalar argument only guarded when used, a Cell only by identity
  when its attributes are read, ...);
* which tensors the graph computes (`is_dynamic`): their values exist only
  when the graph runs, so Python may not look at them;
* which containers and objects the function created itself (`local_ids`):
  changing those is part of the program; changing anything else is a side
  effect the caller can see.

User functions, methods, Cells (`construct`), comprehensions and generators
are inlined frame by frame. msx ops and pure functions run now. Everything
else raises `GraphBreak` before it changes anything: the capture loop puts
the frames back as they were before the instruction and stops, so the
instruction can run in Python and capture resume after it.
"""
from __future__ import annotations

import builtins
import functools
import operator
import sys
import types
from typing import Any

import jax
import numpy as np

from ... import tensor as tensor_mod
from ...errors import SOURCE_FRAMES, CaptureError, MsxError
from ...ir.graph import Const
from ...ops.primitive import recording
from ...tensor import Parameter, Tensor
from ..builder import GraphBuilder
from . import reconstruct
from .breaks import STAGE, GraphBreak, Unsupported, mutation, value_break, value_needed
from ...runtime.guards import ALIAS, EQUALS, ID, ITER_ATLEAST, ITER_LEFT, KEYS, LEN, TENSOR, TYPE, ARRAY, Guard
from .instructions import code_info
from .policy import (MSX_SIDE_EFFECTS, MUTATING_METHODS, PURE_BUILTINS, PURE_SELF_TYPES, SIDE_EFFECT_BUILTINS,
                     VALUE_BUILTINS, VALUE_METHODS, callable_module, describe_callable, is_pure_module)
from .specials import SPECIAL
from .sources import (Attr, BuiltinVar, CellContents, CellMember, EnvArgs, EnvKwargs, FrameOverride, FrameSlot,
                      FrameStack, GlobalVar, IterNext, Item, Pinned, Source)
from ...runtime.iterators import ListIterator
from .values import NULL, SCALAR_TYPES, UNBOUND, Box, is_immutable_constant, is_msx_object, is_user_code, is_user_file
from .vm import (_ACTIVE, BINARY_OPS, COMPARE_OPS, EXHAUSTED, PUSHED, UNARY_OPS, VM, Frame, UnsupportedInstruction,
                 _dispatch_table, bind_arguments, builtins_of, current_loc, new_frame, type_lookup)

MAX_DEPTH = 64            # inlined calls deeper than this are taken for recursion and run in Python
MAX_STEPS = 2_000_000     # instructions interpreted for one graph (a loop unrolled longer than this is refused)
MAX_UNROLL = 100_000      # elements of one sequence unrolled at capture time
CONCRETE_ERRORS = (CaptureError, jax.errors.ConcretizationTypeError, jax.errors.TracerArrayConversionError,
                   jax.errors.TracerIntegerConversionError, jax.errors.TracerBoolConversionError,
                   jax.errors.UnexpectedTracerError)
_CALLABLES = (types.FunctionType, types.BuiltinFunctionType, types.ModuleType, type, types.MethodDescriptorType,
              types.WrapperDescriptorType, types.MethodWrapperType, types.ClassMethodDescriptorType,
              functools.partial, np.ufunc)


def _entry(fn, args, kwargs):
    """The bottom frame of every capture: the call itself, so binding arguments is ordinary interpretation."""
    return fn(*args, **kwargs)


class EnvListIterator(ListIterator):
    """An iterator carried across a graph break: its elements are read (and guarded) as they are consumed."""

    __slots__ = ("source", "exhausted")

    def __init__(self, items: list, source: Source) -> None:
        super().__init__(items)
        self.source = source
        self.exhausted = False


class SymbolicVM(VM):
    """Interprets bytecode into `builder`; see the module docstring."""

    def __init__(self, builder) -> None:
        super().__init__()
        self.builder = builder
        self.guards: list[Guard] = []
        self._guard_keys: set = set()
        self.sources: dict[int, Source] = {}
        self.local_ids: set[int] = set()
        self.input_sources: list[Source] = []
        self.input_tensors: list[Tensor] = []
        self._input_names: set[str] = set()
        self._realized: set[int] = set()
        self._src_cache: dict[Source, Source] = {}
        self._keep: list = []          # objects whose ids are keys above stay alive
        self.env_iters: list[EnvListIterator] = []
        self.lazy_lists: dict[int, tuple] = {}   # carried-over lists whose old elements were not read (yet)
        self.steps = 0
        self._advanced: list[tuple] = []   # (iterator, position, exhausted) before this instruction moved it
        self.origin = "the call's arguments"   # what guards installed before the first instruction are about

    # ------------------------------------------------------------ bookkeeping
    def src(self, source: Source) -> Source:
        """The one instance of an equal source (labels and guards attach to it)."""
        return self._src_cache.setdefault(source, source)

    def loc(self):
        return self.frames[-1].loc() if self.frames else None

    def guard(self, kind: str, source: Source, expected: Any = None, *, other: Source | None = None,
              extra: tuple = ()) -> None:
        key = (kind, source, other)
        if key in self._guard_keys:
            return
        self._guard_keys.add(key)
        self.guards.append(Guard(kind, source, expected, self.loc(), other, extra, self.origin))

    def new_local(self, obj: Any) -> Any:
        self.local_ids.add(id(obj))
        self._keep.append(obj)
        return obj

    def catchable(self, exc: BaseException) -> bool:
        return not isinstance(exc, (GraphBreak, Unsupported, UnsupportedInstruction) + CONCRETE_ERRORS)

    # ------------------------------------------------------------ values from outside: sources and guards
    def wrap(self, value: Any, source: Source) -> Any:
        """`value`, read from `source`: a Box for a scalar, else the object, with the guards its kind needs."""
        t = type(value)
        if t in SCALAR_TYPES:
            return Box(value, source)
        known = self.sources.get(id(value))
        if known is not None:
            if known != source:
                if _identity_kind(value):
                    self.guard(ID, source, value)
                elif not is_immutable_constant(value):
                    self.guard(ALIAS, source, other=known)
            return value
        if isinstance(value, Tensor):
            if isinstance(value, Parameter):
                self.guard(ID, source, value)
            else:
                self._add_input(value, source)
                return value
        elif isinstance(value, np.ndarray):
            self.guard(ARRAY, source, value.copy())
            return value
        elif is_immutable_constant(value):
            self.guard(EQUALS, source, value)
            return value
        elif t in (list, tuple) or isinstance(value, tuple):
            self.guard(LEN, source, (t, len(value)))
        elif isinstance(value, dict):
            self.guard(KEYS, source, (t, tuple(value)))
        elif t is types.MethodType:
            self.wrap(value.__func__, self.src(Attr(source, "__func__")))
            self.wrap(value.__self__, self.src(Attr(source, "__self__")))
            self.guard(TYPE, source, t)
        elif _identity_kind(value):
            self.guard(ID, source, value)
        else:
            self.guard(TYPE, source, t)
        self.sources[id(value)] = source
        self._keep.append(value)
        return value

    def _add_input(self, t: Tensor, source: Source) -> None:
        if t._data is None:
            raise Unsupported(f"{source.describe()} is a placeholder Tensor with no data", self.loc())
        if isinstance(t._data, jax.core.Tracer):
            raise Unsupported(f"{source.describe()} is a Tensor computed under a jax transform outside this function",
                              self.loc())
        name = source.name_hint()
        if not name.isidentifier():
            name = "in"
        base, k = name, 1
        while name in self._input_names:
            name, k = f"{base}_{k}", k + 1
        self._input_names.add(name)
        self.builder.add_input(t, name)
        self.sources[id(t)] = source
        self._keep.append(t)
        self.input_sources.append(source)
        self.input_tensors.append(t)
        self.guard(TENSOR, source, None, extra=(type(t), tuple(t._data.shape), t._data.dtype))

    def use(self, v: Any) -> Any:
        """The value of `v` for a computation: a Box's scalar, now guarded to equal what it is."""
        if type(v) is Box:
            self.guard(EQUALS, v.source, v.value)
            return v.value
        return v

    def use_type(self, v: Any) -> Any:
        """Like `use`, when only the value's type matters (`isinstance`, `x is None`)."""
        if type(v) is Box:
            self.guard(TYPE, v.source, type(v.value))
            return v.value
        return v

    def use_deep(self, v: Any, depth: int = 0) -> Any:
        """`v` fit to hand to library code: no Boxes inside, every tensor and scalar from outside guarded."""
        t = type(v)
        if t is list:
            self.materialize(v)
        if t is Box:
            return self.use(v)
        if depth > 32 or not (t in (list, tuple, dict, set) or isinstance(v, (tuple, ListIterator))):
            return v
        if t is EnvListIterator:   # its elements are read (and guarded) as they are taken
            return self.new_local(ListIterator([self.use_deep(x, depth + 1) for x in self.items_of(v)]))
        if id(v) in self.local_ids:
            if t is list:
                for i, x in enumerate(v):
                    y = self.use_deep(x, depth + 1)
                    if y is not x:
                        v[i] = y
            elif t is dict:
                for k, x in v.items():
                    y = self.use_deep(x, depth + 1)
                    if y is not x:
                        v[k] = y
            elif isinstance(v, tuple):
                items = [self.use_deep(x, depth + 1) for x in v]
                if any(a is not b for a, b in zip(items, v)):
                    v = self.new_local(t(*items) if hasattr(t, "_fields") else t(items))
            elif isinstance(v, ListIterator):
                v.items[v.index:] = [self.use_deep(x, depth + 1) for x in v.items[v.index:]]
            return v
        source = self.sources.get(id(v))
        if source is not None and id(v) not in self._realized:
            self._realized.add(id(v))
            pairs = v.items() if isinstance(v, dict) else enumerate(v) if not isinstance(v, set) else ()
            for k, x in pairs:
                if type(k) in (int, str):
                    self.use_deep(self.wrap(x, self.src(Item(source, k))), depth + 1)
        return v

    def is_dynamic(self, t: Tensor) -> bool:
        """A tensor whose value is only known when the graph runs (not a constant of the graph)."""
        if isinstance(t, Parameter) or isinstance(t._data, jax.core.Tracer) or id(t) in self.sources:
            return True
        active = recording.recorder if isinstance(recording.recorder, GraphBuilder) else self.builder
        value = active.lookup(t)   # inside a Grad body: the body's builder
        return value is not None and not isinstance(value, Const)

    def has_dynamic(self, v: Any, depth: int = 0) -> bool:
        if isinstance(v, Tensor):
            return self.is_dynamic(v)
        if type(v) is list:
            self.materialize(v)
        if depth > 8:
            return False
        if type(v) is EnvListIterator:   # elements from before the break: tensors there are graph inputs
            return any(isinstance(x, Tensor) for x in v.items[v.index:])
        if isinstance(v, (list, tuple, set, ListIterator)):
            items = v.items[v.index:] if isinstance(v, ListIterator) else v
            return any(self.has_dynamic(x, depth + 1) for x in items)
        if isinstance(v, dict):
            return any(self.has_dynamic(x, depth + 1) for x in v.values())
        return False

    # ------------------------------------------------------------ capture driver
    def root_frames(self, fn: Any, args: tuple, kwargs: dict) -> list[Frame]:
        """The frames to start from: `_entry(fn, args, kwargs)`, with every tensor argument a graph input."""
        args_src, kwargs_src = self.src(EnvArgs()), self.src(EnvKwargs())
        self.guard(LEN, args_src, (tuple, len(args)))
        self.guard(KEYS, kwargs_src, (dict, tuple(kwargs)))
        fn_src = self.src(Pinned(fn, "self" if _is_cell_instance(fn) else getattr(fn, "__qualname__", "fn")))
        for obj, source in ((args, args_src), (kwargs, kwargs_src), (fn, fn_src)):
            self.sources[id(obj)] = source
            self._keep.append(obj)
        if type(fn) is types.MethodType:   # jit(obj.method): obj's attributes are read through the method
            self.wrap(fn.__self__, self.src(Attr(fn_src, "__self__")))
            self.wrap(fn.__func__, self.src(Attr(fn_src, "__func__")))
        elif type(fn) is functools.partial:
            self._walk_argument(fn.args, self.src(Attr(fn_src, "args")))
        self._label_arguments(fn, args, kwargs, args_src, kwargs_src)
        for i, a in enumerate(args):   # tensor leaves in the order msx.jit's Signature lists them
            self._walk_argument(a, self.src(Item(args_src, i)))
        for k in sorted(kwargs):
            self._walk_argument(kwargs[k], self.src(Item(kwargs_src, k)))
        entry = _entry
        lp = [fn, args, kwargs]
        return [Frame(code_info(entry.__code__), entry.__globals__, builtins_of(entry.__globals__), lp)]

    def _label_arguments(self, fn, args, kwargs, args_src, kwargs_src) -> None:
        from ...nn.cell import Cell

        target = type(fn).construct if isinstance(fn, Cell) else fn
        code = getattr(getattr(target, "__func__", target), "__code__", None)
        if code is None:
            return
        names = code.co_varnames[:code.co_argcount]
        if isinstance(fn, Cell) or isinstance(target, types.MethodType):
            names = names[1:]
        for i in range(min(len(args), len(names))):
            self.src(Item(args_src, i)).label = names[i]
        for k in kwargs:
            self.src(Item(kwargs_src, k)).label = k

    def _walk_argument(self, value: Any, source: Source) -> None:
        t = type(value)
        if isinstance(value, Tensor):
            self.wrap(value, source)
        elif t in (list, tuple) or (isinstance(value, tuple) and hasattr(t, "_fields")):
            self.wrap(value, source)
            for i, x in enumerate(value):
                self._walk_argument(x, self.src(Item(source, i)))
        elif t is dict:
            self.wrap(value, source)
            for k in _sorted_keys(value):
                if type(k) in (int, str):
                    self._walk_argument(value[k], self.src(Item(source, k)))

    def resume_frames(self, env: list[Frame], fresh: dict[int, Any]) -> list[Frame]:
        """Frames to continue from after a graph break; `fresh` are the ids of objects the function made."""
        memo: dict[int, Any] = {}
        frames = []
        self.origin = "the values live at the graph break"
        for fi, ef in enumerate(env):
            where = f"in {ef.info.qualname}, at the graph break"
            names = ef.info.names
            lp = [self._adopt(v, self.src(FrameSlot(fi, i, names[i], where)), fresh, memo)
                  for i, v in enumerate(ef.lp)]
            glue = ef.info.instrs[ef.ip - 1] if ef.ip else None   # a call the glue just made: its result is on top
            result = fi == len(env) - 1 and glue is not None and glue.opname.startswith("CALL")
            top = len(ef.stack) - 1 if result else -1
            text = _span_text(ef.info.loc(ef.ip - 1)) if result else None
            stack = [self._adopt(v, self.src(FrameStack(fi, j, where, text if j == top else None)), fresh, memo)
                     for j, v in enumerate(ef.stack)]
            f = Frame(ef.info, ef.globals, ef.builtins, lp, stack, ef.ip)
            f.kw_names = ef.kw_names
            if ef.override is not UNBOUND:
                f.override = self._adopt(ef.override, self.src(FrameOverride(fi, where)), fresh, memo)
            frames.append(f)
        return frames

    def _adopt(self, v: Any, source: Source, fresh: dict[int, Any], memo: dict[int, Any]) -> Any:
        """A value of a resumed frame: things the function made are copied (sourced item by item), the rest
        is wrapped like any value from outside."""
        if v is NULL or v is UNBOUND:
            return v
        if fresh.get(id(v), NULL) is not v:
            return self.wrap(v, source)
        if id(v) in memo:
            return memo[id(v)]
        t = type(v)
        if t is list:   # its elements are only looked at (and guarded) if the code reads them: see `materialize`
            out = memo[id(v)] = self.new_local([])
            self.lazy_lists[id(out)] = (source, v, fresh, memo)
        elif isinstance(v, tuple):
            self.guard(LEN, source, (t, len(v)))
            items = [self._adopt(x, self.src(Item(source, i)), fresh, memo) for i, x in enumerate(v)]
            out = memo[id(v)] = self.new_local(t(*items) if hasattr(t, "_fields") else t(items))
        elif isinstance(v, dict):
            self.guard(KEYS, source, (t, tuple(v)))
            out = memo[id(v)] = self.new_local(t())
            for k, x in v.items():
                out[k] = self._adopt(x, self.src(Item(source, k)), fresh, memo) if type(k) in (int, str) else x
        elif t is set:
            self.guard(EQUALS, source, frozenset(v)) if all(is_immutable_constant(x) for x in v) else None
            out = memo[id(v)] = self.new_local(set(v))
        elif isinstance(v, ListIterator):
            if isinstance(source, FrameStack):
                source.label = "the iterator of a loop"
            self.guard(TYPE, source, ListIterator)
            out = memo[id(v)] = self.new_local(EnvListIterator(list(v.items[v.index:]), source))
            self.env_iters.append(out)
        elif _is_cell(v):
            out = memo[id(v)] = self.new_local(types.CellType())
            try:
                contents = v.cell_contents
            except ValueError:
                return out
            out.cell_contents = self._adopt(contents, self.src(CellContents(source, "cell")), fresh, memo)
        elif t is types.FunctionType:
            self.guard(ID, self.src(Attr(source, "__code__")), v.__code__)
            closure = tuple(self._adopt(c, self.src(Item(self.src(Attr(source, "__closure__")), i)), fresh, memo)
                            for i, c in enumerate(v.__closure__ or ()))
            out = types.FunctionType(v.__code__, v.__globals__, v.__name__, v.__defaults__, closure or None)
            out.__qualname__, out.__kwdefaults__ = v.__qualname__, v.__kwdefaults__
            out = memo[id(v)] = self.new_local(out)
        elif t is types.MethodType:
            func = self._adopt(v.__func__, self.src(Attr(source, "__func__")), fresh, memo)
            self_ = self._adopt(v.__self__, self.src(Attr(source, "__self__")), fresh, memo)
            out = memo[id(v)] = self.new_local(types.MethodType(func, self_))
        else:  # an object of a user class the function created
            self.guard(TYPE, source, t)
            out = memo[id(v)] = self.new_local(object.__new__(t))
            for k, x in vars(v).items():
                out.__dict__[k] = self._adopt(x, self.src(Attr(source, k)), fresh, memo)
        return out

    def materialize(self, obj: Any) -> Any:
        """A list carried across a break, about to be read: its old elements come in now (guarded). Until then
        it holds only what this piece appended, so `losses.append(float(loss))` in a loop with a break does not
        make one cache entry per length."""
        lazy = self.lazy_lists.pop(id(obj), None) if type(obj) is list else None
        if lazy is not None:
            source, old, fresh, memo = lazy
            self.guard(LEN, source, (list, len(old)))
            obj[:0] = [self._adopt(x, self.src(Item(source, i)), fresh, memo) for i, x in enumerate(old)]
        return obj

    def finish_iterators(self) -> None:
        """Guard how many elements each carried-over iterator must have left (not its position: a loop with a
        break in its body then reuses one entry for every iteration)."""
        for it in self.env_iters:
            self.guard(ITER_LEFT if it.exhausted else ITER_ATLEAST, it.source, it.index)

    def capture(self, frames: list[Frame]):
        """Interpret until the bottom frame returns (its value) or an instruction breaks the graph (the
        GraphBreak, with `frames` as they were before that instruction)."""
        self.frames = frames
        dispatch = self.DISPATCH
        _ACTIVE.append(self)
        try:
            while True:
                f = frames[-1]
                self.steps += 1
                if self.steps > MAX_STEPS:
                    raise Unsupported(f"capture interpreted more than {MAX_STEPS} instructions (a Python loop "
                                      f"unrolled that long?)", f.loc())
                ins = f.info.instrs[f.ip]
                saved, kw_names, depth = f.stack[:], f.kw_names, len(frames)
                self._advanced.clear()
                f.ci = f.ip
                f.ip += 1
                try:
                    done = dispatch[ins.opname](self, frames, f, ins)
                except (GraphBreak,) + CONCRETE_ERRORS as exc:
                    brk = exc if isinstance(exc, GraphBreak) else value_break(exc)
                    for it, index, exhausted in reversed(self._advanced):   # Python runs the instruction again
                        it.index = index
                        if exhausted is not None:
                            it.exhausted = exhausted
                    del frames[depth:]
                    f.stack[:] = saved
                    f.kw_names = kw_names
                    f.ip = f.ci
                    if brk.loc is None:
                        brk.loc = f.loc()
                    return brk
                except UnsupportedInstruction as exc:
                    raise Unsupported(str(exc), f.loc()) from None
                except Exception as exc:
                    if not self.catchable(exc):
                        raise
                    self.unwind(frames, 0, exc)
                    continue
                if done is not None:
                    if not frames:
                        return done
                    frames[-1].stack.append(done.value)
        finally:
            _ACTIVE.pop()

    def unwind(self, frames: list[Frame], base: int, exc: BaseException) -> None:
        if frames:
            _note_line(exc, frames[-1])   # the line that raised, before frames are popped
        super().unwind(frames, base, exc)

    def run(self, frames: list[Frame], base: int = 0) -> Any:
        try:
            return super().run(frames, base)
        except GraphBreak as brk:
            if brk.loc is None and frames:
                brk.loc = frames[-1].loc()   # the innermost line that could not be captured
            raise

    def run_nested(self, frames: list[Frame]) -> Any:
        """Run frames to completion inside one instruction (a callback, a generator): a break in there breaks
        the instruction that started them."""
        outer = self.frames
        try:
            return self.run(frames)
        except UnsupportedInstruction as exc:
            raise GraphBreak(f"{frames[0].info.qualname} uses {exc.opname}, which msx's interpreter does not run",
                             "it runs in Python; move it out of the jitted function to keep one graph") from None
        finally:
            self.frames = outer

    # ------------------------------------------------------------ calls
    def call(self, frames: list[Frame], func: Any, args: tuple, kwargs: dict) -> Any:
        func = self.use(func)
        special = SPECIAL.get(id(func))
        if special is not None and special[0] is func:
            return special[1](self, frames, args, kwargs)
        ftype = type(func)
        if ftype is types.FunctionType:
            if is_user_code(func.__code__) or id(func) in self.local_ids:  # user code, or made by interpreted code
                return self.inline(frames, func, args, kwargs)
            return self.library_call(func, args, kwargs)
        if ftype is types.MethodType:
            return self.call(frames, func.__func__, (func.__self__,) + args, kwargs)
        if ftype is functools.partial:
            return self.call(frames, func.func, func.args + args, {**func.keywords, **kwargs})
        if _is_jit_function(func):
            return self.call(frames, func.fn, args, kwargs)
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
        if len(frames) >= MAX_DEPTH:
            raise GraphBreak(f"calls nest deeper than {MAX_DEPTH} levels ({fn.__qualname__}): a recursion msx "
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
        from ...nn.cell import Cell, _cast_float

        call = type_lookup(type(cell), "__call__")
        if call is not Cell.__call__:
            return self.call(frames, call, (cell,) + args, kwargs)
        dtype = self.use(self.load_attr(cell, "_compute_dtype"))
        if dtype is not None:
            args = tuple(self._run_library(_cast_float, (a, dtype), {}) for a in args)
        construct = type_lookup(type(cell), "construct")
        if _is_jit_function(construct):
            construct = construct.fn
        if type(construct) is not types.FunctionType or callable(type_lookup(type(cell), "bprop")):
            return self.library_call(cell, args, kwargs)  # a bprop Cell: msx.nn._backward records one node
        return self.inline(frames, construct, (cell,) + args, kwargs)

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
        """A call into code that is not interpreted: run it now if that is the same as running it every call."""
        name = VALUE_METHODS.get(func) if _hashable(func) else None
        if name is not None and args and self.has_dynamic(args[0]):
            raise value_needed(name)
        if _hashable(func) and func in SIDE_EFFECT_BUILTINS:
            if func is builtins.print:
                if self.has_dynamic(args) or self.has_dynamic(kwargs):
                    raise GraphBreak("print() of a tensor needs its value, which is only known when the graph runs",
                                     "use ops.Print(...) to print from inside the graph, or print outside the "
                                     "jitted function")
                raise GraphBreak("print() is a Python side effect that must happen on every call",
                                 "it runs in Python between two graphs; use ops.Print(...) to keep one graph")
            raise GraphBreak(f"{SIDE_EFFECT_BUILTINS[func]} has effects outside the graph",
                             "call it outside the jitted function")
        if _hashable(func) and func in VALUE_BUILTINS and (self.has_dynamic(args) or self.has_dynamic(kwargs)):
            raise value_needed(VALUE_BUILTINS[func])
        if (_hashable(func) and func in PURE_BUILTINS) or (isinstance(func, type) and issubclass(func, BaseException)):
            return self._run_library(func, args, kwargs)
        self_ = getattr(func, "__self__", None)
        if isinstance(func, types.BuiltinMethodType) and self_ is not None and not isinstance(self_, types.ModuleType):
            return self._builtin_method(func, self_, args, kwargs)
        if type(func) is types.MethodDescriptorType and args:   # `list.append` + self, as LOAD_METHOD pushes them
            self_ = self.use(args[0])
            if isinstance(self_, func.__objclass__):
                return self._builtin_method(getattr(self_, func.__name__), self_, args[1:], kwargs)
        if is_msx_object(func):
            if getattr(func, "__name__", "") in MSX_SIDE_EFFECTS:
                raise GraphBreak(f"{describe_callable(func)} reads or writes files or global settings",
                                 "call it outside the jitted function")
            return self._run_library(func, args, kwargs)
        module = callable_module(func)
        if is_pure_module(module):
            if self.has_dynamic(args) or self.has_dynamic(kwargs):
                raise GraphBreak(f"{describe_callable(func)} is given a tensor, but {module.split('.')[0]} cannot "
                                 f"compute on values that only exist when the graph runs",
                                 "use the msx.ops equivalent so it becomes part of the graph (e.g. ops.sum for "
                                 "numpy.sum), or convert outside the jitted function")
            return self._run_library(func, args, kwargs)
        raise GraphBreak(f"{describe_callable(func)} is neither an msx op nor a function msx knows to be pure: "
                         f"run once at capture time its effects (I/O, randomness, state) would be lost, so it runs "
                         f"in Python on every call",
                         "if it only computes a constant, compute it outside the jitted function and pass the "
                         "result in; use msx.ops for tensor math")

    def _builtin_method(self, func: Any, self_: Any, args: tuple, kwargs: dict) -> Any:
        kind = type(self_)
        name = func.__name__
        if not (kind is list and name in ("append", "extend")):
            self.materialize(self_)
        mutating = next((names for base, names in MUTATING_METHODS.items() if isinstance(self_, base)), ())
        if name in mutating:
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

    # ------------------------------------------------------------ names and attributes
    def load_global(self, f: Frame, name: str) -> Any:
        gsrc = self.src(Pinned(f.globals, f"globals of {f.globals.get('__name__', '?')}"))
        if name in f.globals:
            value = f.globals[name]
            if not is_user_code(f.info.code) and isinstance(value, _LIBRARY_CONSTANTS):
                return value   # msx's own functions, classes and modules: not guarded (msx does not rebind them)
            return self.wrap(value, self.src(GlobalVar(gsrc, name)))
        if name in f.builtins:
            return self.wrap(f.builtins[name], self.src(BuiltinVar(f.globals, f.builtins, name)))
        raise NameError(f"name {name!r} is not defined")

    def store_global(self, f: Frame, name: str, value: Any) -> None:
        raise GraphBreak(f"assigning the global {name} is a Python side effect",
                         "return the value instead of storing it in a global; it runs in Python on every call")

    def delete_global(self, f: Frame, name: str) -> None:
        self.store_global(f, name, None)

    def load_deref(self, f: Frame, index: int) -> Any:
        cell = f.lp[index]
        if id(cell) in self.local_ids:
            return super().load_deref(f, index)
        value = super().load_deref(f, index)
        source = self.sources.get(id(cell)) or self.src(Pinned(cell, f"closure cell {f.info.names[index]}"))
        return self.wrap(value, self.src(CellContents(source, f.info.names[index])))

    def store_deref(self, f: Frame, index: int, value: Any) -> None:
        if id(f.lp[index]) not in self.local_ids:
            raise GraphBreak(f"assigning {f.info.names[index]!r}, a variable of an enclosing function outside the "
                             f"jitted one (nonlocal), is a Python side effect",
                             "return the value instead; it runs in Python on every call")
        super().store_deref(f, index, value)

    def load_attr(self, obj: Any, name: str) -> Any:
        obj = self.use(obj)
        if isinstance(obj, Tensor):
            if name == "_data" and self.is_dynamic(obj):
                raise GraphBreak("reading Tensor._data (the jax array inside a tensor) needs the tensor's value",
                                 "use msx.ops on the Tensor itself")
            return self._apply(getattr, (obj, name), {})
        attr = type_lookup(type(obj), name)
        if type(attr) is property and type(attr.fget) is types.FunctionType and is_user_code(attr.fget.__code__):
            return self.inline(self.frames, attr.fget, (obj,), {})
        value = self._apply(getattr, (obj, name), {})
        source = self.sources.get(id(obj))
        if source is None:
            return value
        if _is_cell_instance(obj) and attr is None and name not in obj.__dict__:
            table = "_params" if name in obj._params else "_cells" if name in obj._cells else None
            if table is not None:
                return self.wrap(value, self.src(CellMember(source, table, name)))
        if isinstance(value, (types.MethodType, types.BuiltinMethodType)) and getattr(value, "__self__", None) is obj \
                and attr is not None:
            return value  # a method of a guarded object, found on its (guarded) type: a new bound method each time
        return self.wrap(value, self.src(Attr(source, name)))

    def load_method(self, obj: Any, name: str) -> tuple[Any, Any]:
        obj = self.use(obj)
        return super().load_method(obj, name)

    def store_attr(self, obj: Any, name: str, value: Any) -> None:
        obj = self.use(obj)
        if id(obj) in self.local_ids:
            if _is_cell_instance(obj) or isinstance(obj, Tensor):
                value = self.use_deep(value)
            setattr(obj, name, value)
            return
        raise mutation(f"setting .{name}", obj, self.sources.get(id(obj)))

    def delete_attr(self, obj: Any, name: str) -> None:
        obj = self.use(obj)
        if id(obj) in self.local_ids:
            delattr(obj, name)
            return
        raise mutation(f"deleting .{name}", obj, self.sources.get(id(obj)))

    def import_name(self, f: Frame, name: str, fromlist: Any, level: int) -> Any:
        return super().import_name(f, name, self.use(fromlist), self.use(level))

    def make_function(self, f: Frame, code, defaults, kwdefaults, annotations, closure) -> Any:
        return super().make_function(f, code, self.use_deep(defaults), self.use_deep(kwdefaults), annotations, closure)

    # ------------------------------------------------------------ containers and items
    def subscr(self, obj: Any, key: Any) -> Any:
        obj, key = self.materialize(self.use(obj)), self.use_deep(key)
        if isinstance(obj, Tensor):
            return self._apply(operator.getitem, (obj, key), {})
        source = self.sources.get(id(obj))
        if source is not None:
            if isinstance(obj, (list, tuple, dict)) and type(key) in (int, str):
                return self.wrap(obj[key], self.src(Item(source, key)))
            if isinstance(obj, (list, tuple)) and type(key) is slice:
                idx = range(len(obj))[key]
                items = [self.wrap(obj[i], self.src(Item(source, i))) for i in idx]
                return self.new_local(items if isinstance(obj, list) else tuple(items))
            if _is_container_cell(obj) and type(key) is int:
                keys = list(self.wrap(obj._cells, self.src(Attr(source, "_cells"))))
                member = keys[obj._position(key)]
                return self.wrap(obj._cells[member], self.src(CellMember(source, "_cells", member)))
        getitem = type_lookup(type(obj), "__getitem__")
        if type(getitem) is types.FunctionType and is_user_code(getitem.__code__):
            return self.inline(self.frames, getitem, (obj, key), {})
        if source is not None or not (id(obj) in self.local_ids or is_immutable_constant(obj)):
            self.use_deep(obj)
        return self._apply(operator.getitem, (obj, key), {})

    def store_subscr(self, obj: Any, key: Any, value: Any) -> None:
        obj, key = self.materialize(self.use(obj)), self.use_deep(key)
        if isinstance(obj, Tensor):
            self._apply(operator.setitem, (obj, key, self.use_deep(value)), {})
            return
        if id(obj) in self.local_ids:
            obj[key] = value
            return
        raise mutation("item assignment", obj, self.sources.get(id(obj)))

    def delete_subscr(self, obj: Any, key: Any) -> None:
        obj, key = self.materialize(self.use(obj)), self.use_deep(key)
        if id(obj) in self.local_ids:
            del obj[key]
            return
        raise mutation("item deletion", obj, self.sources.get(id(obj)))

    def hashable(self, v: Any) -> Any:
        return self.use(v)

    def op_BUILD_SLICE(self, frames, f, ins):
        parts = [self.use(f.stack.pop()) for _ in range(ins.arg)][::-1]
        f.stack.append(slice(*parts))

    def op_LIST_TO_TUPLE(self, frames, f, ins):
        f.stack.append(self.new_local(tuple(f.stack.pop())))

    def op_BEFORE_WITH(self, frames, f, ins):
        manager = self.use(f.stack[-1])
        enter, exit_ = type_lookup(type(manager), "__enter__"), type_lookup(type(manager), "__exit__")
        if not (type(enter) is types.FunctionType and is_user_code(enter.__code__)
                and type(exit_) is types.FunctionType):
            raise GraphBreak(f"a `with` block of a {type(manager).__name__} (a library context manager): its "
                             f"__enter__/__exit__ run in Python",
                             "move the `with` out of the jitted function if it need not run on every call")
        f.stack.pop()
        f.stack.append(self.new_local(types.MethodType(exit_, manager)))
        self.inline(frames, enter, (manager,), {})

    def items_of(self, v: Any) -> list:
        it = self.get_iter(v)
        out = []
        while True:
            x = self.next_item(it)
            if x is EXHAUSTED:
                return out
            out.append(x)

    def mapping_items(self, v: Any) -> list:
        v = self.use(v)
        if isinstance(v, dict):
            source = self.sources.get(id(v))
            if source is None:
                return list(v.items())
            return [(k, self.wrap(x, self.src(Item(source, k))) if type(k) in (int, str) else x)
                    for k, x in v.items()]
        raise GraphBreak(f"unpacking a {type(v).__name__} with ** (not a dict)", "pass a dict")

    def get_iter(self, v: Any) -> Any:
        v = self.materialize(self.use(v))
        if isinstance(v, ListIterator):
            return v
        if isinstance(v, Tensor):
            if not v.shape:
                raise TypeError("iteration over a 0-d tensor")
            return self.new_local(ListIterator([self._apply(operator.getitem, (v, i), {}) for i in range(v.shape[0])]))
        source = self.sources.get(id(v))
        if source is not None:
            if isinstance(v, (list, tuple)):
                return self.new_local(ListIterator([self.wrap(x, self.src(Item(source, i))) for i, x in enumerate(v)]))
            if isinstance(v, dict):
                return self.new_local(ListIterator(list(v)))
            if _is_container_cell(v):
                cells = self.wrap(v._cells, self.src(Attr(source, "_cells")))
                return self.new_local(ListIterator([self.wrap(c, self.src(CellMember(source, "_cells", k)))
                                                    for k, c in cells.items()]))
        if isinstance(v, (list, tuple, dict, set, frozenset, str, bytes, range) + _DICT_VIEWS):
            if len(v) > MAX_UNROLL:
                raise GraphBreak(f"a loop over {len(v)} elements is longer than msx unrolls at capture time "
                                 f"({MAX_UNROLL})", "use a tensor op over the whole sequence instead of a loop")
            if source is not None:
                self.use_deep(v)
            return self.new_local(ListIterator(list(v)))
        if _is_container_cell(v):
            return self.new_local(ListIterator(list(v)))
        raise GraphBreak(f"iterating over a {type(v).__name__}, which msx cannot unroll at capture time",
                         "iterate over a list, tuple, dict, range or tensor (build the list outside the jitted "
                         "function if needed)")

    def next_item(self, it: Any) -> Any:
        if isinstance(it, ListIterator):
            self._advanced.append((it, it.index, getattr(it, "exhausted", None)))
        if type(it) is EnvListIterator:
            if it.index >= len(it.items):
                it.exhausted = True
                return EXHAUSTED
            it.index += 1
            return self.wrap(it.items[it.index - 1], self.src(IterNext(it.source, it.index - 1)))
        if isinstance(it, ListIterator):
            return super().next_item(it)
        raise GraphBreak(f"advancing a {type(it).__name__} (an iterator msx did not create) runs Python code",
                         "iterate over a list, tuple, dict, range or tensor")

    # ------------------------------------------------------------ operators
    def truth(self, v: Any) -> bool:
        v = self.materialize(self.use(v))
        if isinstance(v, Tensor):
            if self.is_dynamic(v):
                raise GraphBreak("this branch depends on a tensor's value, which is only known when the graph runs",
                                 "use ops.where / ops.select to choose between tensors, or decide the branch from a "
                                 "Python value (an argument or attribute); capture_mode='ast' captures such "
                                 "branches as graph control flow")
            return bool(v)
        if isinstance(v, (list, tuple, dict, set, str, int, float, bool, type(None))):
            return bool(v)
        return bool(self._apply(operator.truth, (v,), {}))

    def is_none(self, v: Any) -> bool:
        return self.use_type(v) is None

    def is_op(self, a: Any, b: Any) -> bool:
        if type(a) is Box and (b is None or type(b) is bool):
            return self.use_type(a) is b if b is None else self.use(a) is b
        if type(b) is Box and (a is None or type(a) is bool):
            return a is (self.use_type(b) if a is None else self.use(b))
        return self.use(a) is self.use(b)

    def binary(self, op: int, a: Any, b: Any) -> Any:
        a, b = self.materialize(self.use(a)), self.materialize(self.use(b))
        if op >= 13 and type(a) in (list, dict, set) and id(a) not in self.local_ids:
            raise mutation(f"`{a!r:.20} {BINARY_OPS[op].__name__}`", a, self.sources.get(id(a)))
        if op >= 13 and type(a) is list:
            a += self.items_of(b)  # a local list: keep its elements as they are
            return a
        user = self._user_dunder(a, b, _DUNDERS[op], _RDUNDERS.get(op))
        if user is not None:
            return user
        if type(a) in (list, tuple) and type(b) in (list, tuple):
            return self.new_local(BINARY_OPS[op](a, b))
        return self._apply(BINARY_OPS[op], (self.use_deep(a), self.use_deep(b)), {})

    def unary(self, opname: str, v: Any) -> Any:
        v = self.use(v)
        user = self._user_dunder(v, None, _UNARY_DUNDERS[opname], None)
        return user if user is not None else self._apply(UNARY_OPS[opname], (v,), {})

    def compare(self, op: str, a: Any, b: Any) -> Any:
        a, b = self.use_deep(a), self.use_deep(b)
        user = self._user_dunder(a, b, _CMP_DUNDERS[op], _CMP_REFLECT[op])
        return user if user is not None else self._apply(COMPARE_OPS[op], (a, b), {})

    def contains(self, item: Any, container: Any) -> bool:
        item, container = self.use_deep(item), self.use_deep(container)
        return self._apply(operator.contains, (container, item), {})

    def _user_dunder(self, a: Any, b: Any, name: str, reflected: str | None) -> Any:
        for obj, other, dunder in ((a, b, name), (b, a, reflected)):
            if dunder is None or obj is None or type(obj).__module__ == "builtins":
                continue
            fn = type_lookup(type(obj), dunder)
            if type(fn) is types.FunctionType and is_user_code(fn.__code__):
                return self.inline(self.frames, fn, (obj,) if other is None and reflected is None else (obj, other), {})
        return None

    def format_value(self, v: Any, conversion: int, spec: str) -> str:
        v = self.use(v)
        if self.has_dynamic(v):
            raise GraphBreak("formatting a tensor into a string needs its value, which is only known when the graph "
                             "runs", "use ops.Print(...) to print tensors from inside the graph, or format outside "
                             "the jitted function")
        return super().format_value(self.use_deep(v), conversion, self.use(spec))

    def build_string(self, parts: list) -> str:
        return "".join(self.use(p) for p in parts)


SymbolicVM.DISPATCH = _dispatch_table(SymbolicVM)
reconstruct.ENTRY_CODE = _entry.__code__
SOURCE_FRAMES[SymbolicVM.capture.__code__] = current_loc

_LIBRARY_CONSTANTS = (types.FunctionType, types.BuiltinFunctionType, types.ModuleType, type)
_DICT_VIEWS = (type({}.keys()), type({}.values()), type({}.items()))
_DUNDERS = ["__add__", "__and__", "__floordiv__", "__lshift__", "__matmul__", "__mul__", "__mod__", "__or__", "__pow__",
            "__rshift__", "__sub__", "__truediv__", "__xor__"]
_DUNDERS += ["__i" + d[2:] for d in _DUNDERS]
_RDUNDERS = {i: "__r" + d[2:] for i, d in enumerate(_DUNDERS[:13])}
_UNARY_DUNDERS = {"UNARY_NEGATIVE": "__neg__", "UNARY_POSITIVE": "__pos__", "UNARY_INVERT": "__invert__"}
_CMP_DUNDERS = {"<": "__lt__", "<=": "__le__", "==": "__eq__", "!=": "__ne__", ">": "__gt__", ">=": "__ge__"}
_CMP_REFLECT = {"<": "__gt__", "<=": "__ge__", "==": "__eq__", "!=": "__ne__", ">": "__lt__", ">=": "__le__"}


# ---------------------------------------------------------------- helpers
def _hashable(x: Any) -> bool:
    try:
        hash(x)
        return True
    except TypeError:
        return False


def _is_cell(x: Any) -> bool:
    return type(x) is types.CellType


def _identity_kind(x: Any) -> bool:
    """Objects a guard checks by identity: functions, modules, classes, Cells, Parameters, jax arrays."""
    return (isinstance(x, _CALLABLES) or _is_cell(x) or isinstance(x, Parameter) or _is_cell_instance(x)
            or type(x).__module__.startswith(("jax", "jaxlib")))


def _cell_class() -> type:
    from ...nn.cell import Cell

    return Cell


def _is_cell_instance(x: Any) -> bool:
    return isinstance(x, _cell_class())


def _is_user_class(cls: type) -> bool:
    """A class defined in user code (one of its functions is, or its module's file is)."""
    for value in vars(cls).values():
        fn = getattr(value, "__func__", value)
        if type(fn) is types.FunctionType:
            return is_user_code(fn.__code__)
    module = sys.modules.get(cls.__module__)
    filename = getattr(module, "__file__", None)
    return filename is None or is_user_file(filename)


def _is_cell_class(cls: type) -> bool:
    return issubclass(cls, _cell_class())


def _is_container_cell(x: Any) -> bool:
    from ...nn.layers.container import _Container

    return isinstance(x, _Container)


def _is_jit_function(x: Any) -> bool:
    return getattr(type(x), "__msx_jit__", False)  # msx.jit's JitFunction (capture never imports jit)


def _sorted_keys(d: dict) -> list:
    try:
        return sorted(d)
    except TypeError:
        return list(d)


def _span_text(loc) -> str | None:
    """The source text a location underlines (`float(z.mean())`), or None."""
    import linecache

    line = linecache.getline(loc.file, loc.line)
    if not line or loc.end_col is None:
        return None
    return line[loc.col:loc.end_col].strip() or None


def _note_line(exc: BaseException, f: Frame) -> None:
    """An error of the user's code, raised while capturing: it keeps its type (and is what eager execution
    raises) and gains `stage` and `loc`, the user's line, also shown in a note (a traceback would show the
    interpreter)."""
    if isinstance(exc, MsxError):
        if exc.stage == "capture":
            exc.stage = STAGE
        if exc.loc is None:
            exc.loc = f.loc()
        return
    if getattr(exc, "loc", None) is not None:
        return
    try:
        exc.loc = f.loc()
        exc.stage = STAGE
        exc.add_note(f"[{STAGE}] raised while msx captured {f.info.qualname}:\n{exc.loc.render()}")
    except (AttributeError, TypeError):   # an exception type without a __dict__
        pass
