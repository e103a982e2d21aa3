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

import operator
import types
from typing import Any

from ...errors import SOURCE_FRAMES
from ...ops.primitive import recording
from ...runtime.guards import Guard
from ...runtime.list_iterator import ListIterator
from ...tensor import Tensor
from . import reconstruct
from .breaks import GraphBreak, Unsupported, mutation, value_break
from .calls import CallPolicy
from .kinds import (_CMP_DUNDERS, _CMP_REFLECT, _DICT_VIEWS, _DUNDERS, _LIBRARY_CONSTANTS, _RDUNDERS, _UNARY_DUNDERS,
                    CONCRETE_ERRORS, MAX_STEPS, MAX_UNROLL, EnvListIterator, _entry, _is_cell_instance,
                    _is_container_cell, _note_line, _user_frame)
from .resume import Resume
from .frame_sources import Attr, BuiltinVar, CellContents, CellMember, GlobalVar, Item, IterNext, Pinned, Source
from .tracking import Tracking
from .stack_values import Box, is_immutable_constant, is_user_code
from .vm import (_ACTIVE, BINARY_OPS, COMPARE_OPS, EXHAUSTED, UNARY_OPS, VM, Frame, UnsupportedInstruction,
                 _dispatch_table, current_loc, type_lookup)


class SymbolicVM(Tracking, Resume, CallPolicy, VM):
    """Interprets bytecode into `builder`; see the module docstring."""

    def __init__(self, builder) -> None:
        super().__init__()
        self.builder = builder
        self.guards: list[Guard] = []
        self._guard_keys: set = set()
        self.sources: dict[int, Source] = {}
        self.local_ids: set[int] = set()
        self.tuple_ids: set[int] = set()     # materialised map/zip/enumerate iterators (kept alive by local_ids)
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

    def loc(self):
        return self.frames[-1].loc() if self.frames else None

    def catchable(self, exc: BaseException) -> bool:
        return not isinstance(exc, (GraphBreak, Unsupported, UnsupportedInstruction) + CONCRETE_ERRORS)

    # ------------------------------------------------------------ values from outside: sources and guards

    # ------------------------------------------------------------ capture driver

    def capture(self, frames: list[Frame]):
        """Interpret until the bottom frame returns (its value) or an instruction breaks the graph (the
        GraphBreak, with `frames` as they were before that instruction)."""
        self.frames = frames
        dispatch = self.DISPATCH
        _ACTIVE.append(self)
        scope = recording.scope, recording.scope_cell
        try:
            while True:
                f = frames[-1]
                self.steps += 1
                if self.steps > MAX_STEPS:
                    raise Unsupported(f"capture interpreted more than {MAX_STEPS} instructions (a Python loop "
                                      f"unrolled that long?)", f.loc())
                ins = f.info.instrs[f.ip]
                if f.scope is not recording.scope:   # ops recorded now carry the Cell path of this frame
                    recording.scope, recording.scope_cell = f.scope, f.scope_cell
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
            recording.scope, recording.scope_cell = scope
            _ACTIVE.pop()

    def unwind(self, frames: list[Frame], base: int, exc: BaseException) -> None:
        if frames:
            _note_line(exc, _user_frame(frames))   # the user's line that raised, before frames are popped
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
        if _is_cell_instance(obj) and name in obj.__dict__.get("_params", ()) and isinstance(value, Tensor):
            # a Cell's Parameter: `self.weight = w * 2` writes it (set_data), as in MindSpore's graph mode; the
            # write is recorded like set_data's, so the graph goes on (ast capture does the same)
            setattr(obj, name, self.use(value))
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
