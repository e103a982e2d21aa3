"""Recipes: how a cache entry rebuilds Python values after its graph ran.

At the end of a captured piece (a `return`, or a graph break) the
interpreter's values are described once as recipes: a tensor the graph
computed is output k of the graph; a value from outside is fetched again from
its source; a list, dict, closure or object the function created is rebuilt
fresh, element by element; a constant is kept. On every call the entry runs
its graph and builds the return value (or the resumed frames) from the
recipes — no interpretation. Objects built fresh are recorded in `fresh`: at
the next piece they are the function's own (it may change them), unlike
objects from outside.
"""
from __future__ import annotations

import types
from typing import Any

import jax

from ...ir.graph import Const
from ...tensor import Parameter, Tensor
from .breaks import Unsupported
from .frame_sources import Source
from ...runtime.list_iterator import ListIterator
from .stack_values import NULL, UNBOUND, Box, is_immutable_constant
from .vm import Frame

ENTRY_CODE = None   # the code of symbolic._entry (set there: the bottom frame of every capture)


class BuildContext:
    """One rebuild: the graph's outputs, the fetched source values, and what has been built so far."""

    __slots__ = ("outs", "vals", "memo", "fresh", "inherited")

    def __init__(self, outs: list, vals: list, inherited: dict | None = None) -> None:
        self.outs, self.vals = outs, vals
        self.inherited = inherited or {}   # the objects the function had made before this piece
        self.memo: dict[int, Any] = {}
        self.fresh: dict[int, Any] = {}   # id -> object (held, so that the id stays this object's)

    def made(self, obj: Any) -> Any:
        self.fresh[id(obj)] = obj
        return obj


class Recipe:
    __slots__ = ()

    def build(self, c: BuildContext) -> Any:
        raise NotImplementedError


class ConstR(Recipe):
    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def build(self, c):
        return self.value


class OutR(Recipe):
    __slots__ = ("k",)

    def __init__(self, k: int) -> None:
        self.k = k

    def build(self, c):
        return c.outs[self.k]


class ValR(Recipe):
    __slots__ = ("k",)

    def __init__(self, k: int) -> None:
        self.k = k

    def build(self, c):
        return c.vals[self.k]


class TensorConstR(Recipe):
    """A tensor the graph holds as a constant: a new Tensor object on every call (its array is immutable)."""

    __slots__ = ("array",)

    def __init__(self, array: Any) -> None:
        self.array = array

    def build(self, c):
        return Tensor._from(self.array)


class TupleR(Recipe):
    __slots__ = ("cls", "items")

    def __init__(self, cls: type, items: list) -> None:
        self.cls, self.items = cls, items

    def build(self, c):
        values = [r.build(c) for r in self.items]
        return c.made(self.cls(*values) if hasattr(self.cls, "_fields") else self.cls(values))


class _Mutable(Recipe):
    """Built once per rebuild (aliases stay aliases, cycles close)."""

    __slots__ = ("slot",)

    def __init__(self, slot: int) -> None:
        self.slot = slot

    def build(self, c):
        obj = c.memo.get(self.slot)
        if obj is None:
            obj = c.memo[self.slot] = c.made(self.empty())
            self.fill(obj, c)
        return obj


class ListR(_Mutable):
    """A list; `prefix`: a list carried in from the previous piece whose old elements this piece never read."""

    __slots__ = ("items", "prefix")

    def empty(self):
        return []

    def fill(self, obj, c):
        if self.prefix is not None:
            old = self.prefix.build(c)
            for x in old:
                if c.inherited.get(id(x), c) is x:
                    c.made(x)
            obj.extend(old)
        obj.extend(r.build(c) for r in self.items)


class DictR(_Mutable):
    __slots__ = ("cls", "keys", "values")

    def empty(self):
        return self.cls()

    def fill(self, obj, c):
        for k, v in zip(self.keys, self.values):
            obj[k.build(c)] = v.build(c)


class SetR(_Mutable):
    __slots__ = ("items",)

    def empty(self):
        return set()

    def fill(self, obj, c):
        obj.update(r.build(c) for r in self.items)


class IterR(_Mutable):
    """A loop's iterator: the elements still to come, plus (for one carried in from the previous piece) the
    rest of that one after what this piece consumed."""

    __slots__ = ("items", "tail", "skip")

    def empty(self):
        return ListIterator([])

    def fill(self, obj, c):
        obj.items.extend(r.build(c) for r in self.items)
        if self.tail is not None:
            prev = self.tail.build(c)
            obj.items.extend(prev.items[prev.index + self.skip:])


class CellR(_Mutable):
    __slots__ = ("contents",)

    def empty(self):
        return types.CellType()

    def fill(self, obj, c):
        if self.contents is not None:
            obj.cell_contents = self.contents.build(c)


class ObjectR(_Mutable):
    __slots__ = ("cls", "attrs")

    def empty(self):
        return object.__new__(self.cls)

    def fill(self, obj, c):
        for k, r in self.attrs.items():
            obj.__dict__[k] = r.build(c)


class FunctionR(Recipe):
    __slots__ = ("slot", "fn", "defaults", "kwdefaults", "closure")

    def __init__(self, slot: int, fn: types.FunctionType, defaults, kwdefaults, closure) -> None:
        self.slot, self.fn = slot, fn
        self.defaults, self.kwdefaults, self.closure = defaults, kwdefaults, closure

    def build(self, c):
        done = c.memo.get(self.slot)
        if done is not None:
            return done
        closure = tuple(r.build(c) for r in self.closure) if self.closure is not None else None
        done = c.memo.get(self.slot)   # building the closure may have built this function (a recursive closure)
        if done is not None:
            return done
        fn = self.fn
        new = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__,
                                 self.defaults.build(c) if self.defaults is not None else None, closure)
        new.__qualname__ = fn.__qualname__
        new.__kwdefaults__ = self.kwdefaults.build(c) if self.kwdefaults is not None else None
        new.__annotations__ = fn.__annotations__
        c.memo[self.slot] = c.made(new)
        return new


class MethodR(Recipe):
    __slots__ = ("func", "self_")

    def __init__(self, func: Recipe, self_: Recipe) -> None:
        self.func, self.self_ = func, self_

    def build(self, c):
        return c.made(types.MethodType(self.func.build(c), self.self_.build(c)))


class BoundR(Recipe):
    """A builtin method bound to a rebuilt object (`losses.append`)."""

    __slots__ = ("obj", "name")

    def __init__(self, obj: Recipe, name: str) -> None:
        self.obj, self.name = obj, name

    def build(self, c):
        return getattr(self.obj.build(c), self.name)


class FrameR(Recipe):
    """An interpreter frame to resume (after a graph break)."""

    __slots__ = ("info", "globals", "builtins", "lp", "stack", "ip", "kw_names", "override")

    def __init__(self, f: Frame, lp: list, stack: list, override: Recipe | None) -> None:
        self.info, self.globals, self.builtins = f.info, f.globals, f.builtins
        self.lp, self.stack, self.ip, self.kw_names, self.override = lp, stack, f.ip, f.kw_names, override

    def build(self, c):
        f = Frame(self.info, self.globals, self.builtins, [r.build(c) for r in self.lp],
                  [r.build(c) for r in self.stack], self.ip)
        f.kw_names = self.kw_names
        if self.override is not None:
            f.override = self.override.build(c)
        return f


def _closes_over(fn: types.FunctionType, local_ids: set, depth: int = 0) -> bool:
    """Whether a function's closure holds (or wraps a function that holds) what the function made."""
    for cell in fn.__closure__ or ():
        try:
            value = cell.cell_contents
        except ValueError:
            continue
        if id(value) in local_ids or id(cell) in local_ids:
            return True
        if type(value) is types.FunctionType and depth < 4 and _closes_over(value, local_ids, depth + 1):
            return True
    return False


class RecipeBuilder:
    """Describes the interpreter's values as recipes; collects the graph outputs and source values needed."""

    def __init__(self, vm) -> None:
        self.vm = vm
        self.outputs: list[Tensor] = []          # tensors the graph must return, in output order
        self._out_index: dict[int, int] = {}     # graph Var id -> output index
        self.values: list[Source] = []           # sources the entry fetches for rebuilding
        self._val_index: dict[Source, int] = {}
        self._memo: dict[int, Recipe] = {}
        self._slots = 0

    def _val(self, source: Source) -> ValR:
        k = self._val_index.get(source)
        if k is None:
            k = self._val_index[source] = len(self.values)
            self.values.append(source)
        return ValR(k)

    def _slot(self) -> int:
        self._slots += 1
        return self._slots

    def frame(self, f: Frame) -> FrameR:
        override = self.recipe(f.override) if f.override is not UNBOUND else None
        if f.info.code is ENTRY_CODE:   # the bottom frame only waits for the call's value: its locals are dead
            lp = [ConstR(UNBOUND)] * len(f.lp)
        else:
            lp = [self.recipe(v) for v in f.lp]
        return FrameR(f, lp, [self.recipe(v) for v in f.stack], override)

    def recipe(self, v: Any) -> Recipe:
        if v is NULL or v is UNBOUND or v is None:
            return ConstR(v)
        if type(v) is Box:
            return self._val(v.source)
        vm = self.vm
        if isinstance(v, Tensor):
            return self._tensor(v)
        known = self._memo.get(id(v))
        if known is not None:
            return known
        source = vm.sources.get(id(v))
        if source is not None:
            return self._val(source)
        if id(v) in vm.local_ids or isinstance(v, (tuple, list, dict, set)) and not is_immutable_constant(v):
            return self._local(v)   # made by the function (or by a library call for it): rebuilt every call
        if type(v) is types.MethodType:
            r = self._memo[id(v)] = MethodR(self.recipe(v.__func__), self.recipe(v.__self__))
            return r
        if type(v) is types.BuiltinMethodType and not isinstance(v.__self__, types.ModuleType):
            r = self._memo[id(v)] = BoundR(self.recipe(v.__self__), v.__name__)
            return r
        if type(v) is types.FunctionType and _closes_over(v, vm.local_ids):
            raise Unsupported(f"{v.__qualname__}, made at capture time by a library call from something the "
                              f"function made, cannot be carried across a graph break", vm.loc())
        if is_immutable_constant(v) or not (isinstance(v, types.GeneratorType) or hasattr(type(v), "__next__")):
            return ConstR(v)   # a constant, or an object reached through guarded ones (a Cell, a function)
        raise Unsupported(f"a {type(v).__name__} that msx cannot rebuild on the next call (it was neither made by "
                          f"the function nor read from a guarded place)", vm.loc())

    def _tensor(self, t: Tensor) -> Recipe:
        vm = self.vm
        if isinstance(t, Parameter):
            return ConstR(t)
        source = vm.sources.get(id(t))
        if source is not None:
            return self._val(source)
        if isinstance(t._data, jax.core.Tracer):
            raise Unsupported("a tensor computed under a jax transform (inside grad) escapes it", vm.loc())
        operand = vm.builder.operand(t)
        if isinstance(operand, Const):
            return TensorConstR(t._data)
        k = self._out_index.get(operand.id)
        if k is None:
            k = self._out_index[operand.id] = len(self.outputs)
            self.outputs.append(t)
        return OutR(k)

    def _local(self, v: Any) -> Recipe:
        t = type(v)
        memo = self._memo
        if isinstance(v, tuple):
            items = [self.recipe(x) for x in v]
            if all(type(r) is ConstR for r in items):
                r = ConstR(t(*[r.value for r in items]) if hasattr(t, "_fields") else t(r.value for r in items))
            else:
                r = TupleR(t, items)
            memo[id(v)] = r
            return r
        if t is list:
            r = memo[id(v)] = ListR(self._slot())
            lazy = self.vm.lazy_lists.get(id(v))
            r.prefix = self._val(lazy[0]) if lazy is not None else None
            r.items = [self.recipe(x) for x in v]
            return r
        if isinstance(v, dict):
            r = memo[id(v)] = DictR(self._slot())
            r.cls = t
            r.keys = [self.recipe(k) for k in v]
            r.values = [self.recipe(x) for x in v.values()]
            return r
        if t is set:
            r = memo[id(v)] = SetR(self._slot())
            r.items = [self.recipe(x) for x in v]
            return r
        if isinstance(v, ListIterator):
            r = memo[id(v)] = IterR(self._slot())
            r.items = [self.recipe(x) for x in v.items[v.index:]]
            r.tail, r.skip = None, 0
            source = getattr(v, "source", None)
            if source is not None:   # carried in: the elements it was not asked for are still in the old one
                r.items = []
                r.tail, r.skip = self._val(source), v.index
            return r
        if t is types.CellType:
            r = memo[id(v)] = CellR(self._slot())
            try:
                r.contents = self.recipe(v.cell_contents)
            except ValueError:
                r.contents = None
            return r
        if t is types.FunctionType:
            r = memo[id(v)] = FunctionR(self._slot(), v, None, None, None)
            r.defaults = self.recipe(v.__defaults__) if v.__defaults__ is not None else None
            r.kwdefaults = self.recipe(v.__kwdefaults__) if v.__kwdefaults__ is not None else None
            r.closure = [self.recipe(c) for c in v.__closure__] if v.__closure__ is not None else None
            return r
        if t is types.MethodType:
            r = memo[id(v)] = MethodR(self.recipe(v.__func__), self.recipe(v.__self__))
            return r
        if hasattr(v, "__dict__") and t.__new__ is object.__new__ and not hasattr(t, "__slots__"):
            r = memo[id(v)] = ObjectR(self._slot())
            r.cls = t
            r.attrs = {k: self.recipe(x) for k, x in vars(v).items()}
            return r
        raise Unsupported(f"a {t.__name__} made inside the function cannot be carried across a graph break or "
                          f"returned from a graph", self.vm.loc())
