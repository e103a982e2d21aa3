"""What the symbolic interpreter tracks about values from outside: their sources, the guards they
need, which tensors are graph inputs, and which objects the function created itself (`SymbolicVM` mixin)."""
from __future__ import annotations

import functools
import types
from typing import Any

import jax
import numpy as np

from ...cell_protocol import CellProtocol
from ...ir.graph import Const
from ...ops.primitive import recording
from ...runtime.guards import ALIAS, ARRAY, DISTINCT, EQUALS, ID, KEYS, LEN, TENSOR, TYPE, make_guard
from ...runtime.list_iterator import ListIterator
from ...tensor import Parameter, Tensor
from ..builder import GraphBuilder
from .breaks import Unsupported
from .instructions import code_info
from .kinds import EnvListIterator, _entry, _identity_kind, _is_cell_instance, _sorted_keys, is_bound_builtin
from .frame_sources import Attr, EnvArgs, EnvKwargs, Item, Pinned, Source
from .stack_values import SCALAR_TYPES, Box, is_immutable_constant
from .vm import Frame, builtins_of


class Tracking:
    """See the module docstring."""

    def src(self, source: Source) -> Source:
        """The one instance of an equal source (labels and guards attach to it)."""
        return self._src_cache.setdefault(source, source)

    def guard(self, kind: str, source: Source, expected: Any = None, *, other: Source | None = None,
              extra: tuple = ()) -> None:
        key = (kind, source, other)
        if key in self._guard_keys:
            return
        self._guard_keys.add(key)
        self.guards.append(make_guard(kind, source, expected, self.loc(), other, extra, self.origin))

    def tuple_like(self, it: Any) -> Any:
        """`it` materialises a `map`/`zip`/`enumerate`: returned from the function it is a tuple (MindSpore's)."""
        self.tuple_ids.add(id(it))
        return it

    def is_tuple_like(self, it: Any) -> bool:
        return id(it) in self.tuple_ids

    def new_local(self, obj: Any) -> Any:
        self.local_ids.add(id(obj))
        self._keep.append(obj)
        return obj

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
        elif is_bound_builtin(value):   # the same method of the same object: its type, `__self__` and name
            self.guard(TYPE, source, t)
            self.wrap(value.__self__, self.src(Attr(source, "__self__")))
            self.guard(EQUALS, self.src(Attr(source, "__name__")), value.__name__)
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
        data = t._data  # first: a deferred eager result (msx.eager.lazy) runs and becomes a plain Tensor
        self.guard(TENSOR, source, None, extra=(type(t), tuple(data.shape), data.dtype))
        for other, other_source in zip(self.input_tensors[:-1], self.input_sources[:-1]):
            # two inputs that could be one Tensor on a later call (same type, shape and dtype) must stay two
            if type(other) is type(t) and other._data.shape == data.shape and other._data.dtype == data.dtype:
                self.guard(DISTINCT, source, other=other_source)

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
        root = Frame(code_info(entry.__code__), entry.__globals__, builtins_of(entry.__globals__), lp)
        root.scope, root.scope_cell = recording.scope, recording.scope_cell   # a capture inside a Cell's scope
        return [root]

    def _label_arguments(self, fn, args, kwargs, args_src, kwargs_src) -> None:
        target = type(fn).construct if isinstance(fn, CellProtocol) else fn
        code = getattr(getattr(target, "__func__", target), "__code__", None)
        if code is None:
            return
        names = code.co_varnames[:code.co_argcount]
        if isinstance(fn, CellProtocol) or isinstance(target, types.MethodType):
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
