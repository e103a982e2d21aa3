"""ast capture's `HandlerContext`: what the builtins' capture rules (`capture/handlers.py`, one rule for every
mode) read and call through when the ast interpreter runs them.

ast capture's values are the values (Python values, and Tensors whose data is an abstract jax value), so
most of this is the identity; what it adds is that callbacks are interpreted (`interp.call`), containers a
rule makes belong to the function (`mark_local`), attribute reads are guarded like `obj.name` is, and what
the mode cannot capture is `Unsupported` (ast has no graph break: it falls back as a whole).
"""
from __future__ import annotations

import itertools
import types
from typing import Any

from ...tensor import Tensor
from .failures import Unsupported
from .source import function_source
from .values import DeferredString, is_dynamic

_EXHAUSTED = object()
_NESTING = 32
_MAX_ITEMS = 1 << 20   # what a rule reads of an iterator without a length


class AstContext:
    """The `HandlerContext` of one `Interpreter` (see the module docstring)."""

    EXHAUSTED = _EXHAUSTED

    def __init__(self, interp: Any) -> None:
        self.interp = interp
        self.tuple_ids: set[int] = set()

    def use(self, v: Any) -> Any:
        return v

    use_type = use_deep = materialize = use

    def has_dynamic(self, v: Any, depth: int = 0) -> bool:
        if is_dynamic(v):
            return True
        if depth > _NESTING:
            return False
        if type(v) in (list, tuple, set, frozenset) or isinstance(v, tuple):
            return any(self.has_dynamic(x, depth + 1) for x in v)
        if type(v) is dict:
            return any(self.has_dynamic(x, depth + 1) for x in v.values())
        return False

    def items_of(self, v: Any) -> list:
        if isinstance(v, DeferredString):
            raise self.refuse("iterating over an f-string that holds tensors", "")
        if hasattr(type(v), "__len__"):
            return list(v)
        items = list(itertools.islice(v, _MAX_ITEMS + 1))   # an iterator may never end (`itertools.count()`)
        if len(items) > _MAX_ITEMS:
            raise self.refuse(f"a {type(v).__name__} iterator with more than {_MAX_ITEMS} items given to a "
                              f"builtin cannot be read at compile time (it may never end)",
                              "give the builtin a list or a range")
        return items

    def get_iter(self, v: Any) -> Any:
        return iter(v)

    def next_item(self, it: Any) -> Any:
        return next(it, _EXHAUSTED)

    def new_local(self, obj: Any) -> Any:
        return self.interp.mark_local(obj)

    def tuple_like(self, it: Any) -> Any:
        self.tuple_ids.add(id(it))
        return it

    def is_tuple_like(self, it: Any) -> bool:
        """For `outputs.as_returned`: a returned map/zip/enumerate is a tuple, as in MindSpore's graph mode."""
        return id(it) in self.tuple_ids

    def truth(self, v: Any) -> bool:
        if is_dynamic(v):
            raise self.refuse("filter() on a tensor's truth needs its value, which is only known when the graph "
                              "runs", "select with ops.masked_select or ops.where instead")
        return self.interp.truth(v, "a truth test")

    def call_value(self, fn: Any, args: tuple, kwargs: dict | None = None) -> Any:
        return self.interp.call(fn, tuple(args), dict(kwargs or {}))

    def library_call(self, fn: Any, args: tuple, kwargs: dict) -> Any:
        return self.interp._call_library(fn, args, kwargs)

    def run_now(self, fn: Any, args: tuple, kwargs: dict) -> Any:
        return fn(*args, **kwargs)

    run_library = run_now

    def load_attr(self, obj: Any, name: str) -> Any:
        return self.interp.load_attr(obj, name)

    def store_attr(self, obj: Any, name: str, value: Any) -> None:
        self.interp.set_attr(obj, name, value)

    def is_user_function(self, fn: types.FunctionType) -> bool:
        return function_source(fn) is not None

    def super_args(self) -> tuple[type, Any]:
        scope = self.interp.frame.scope
        try:
            cls = scope.load("__class__")
        except NameError:
            raise RuntimeError("super(): __class__ cell not found") from None
        first = next(iter(scope.vars.values()), None) if scope.vars else None
        if first is None:
            raise RuntimeError("super(): no arguments")
        return cls, first

    def print_piece(self, v: Any) -> list:
        if isinstance(v, DeferredString):   # an f-string holding tensors: printed where it stands
            return list(v.pieces)
        return [v] if isinstance(v, Tensor) and is_dynamic(v) else [str(v)]

    def refuse(self, reason: str, suggestion: str) -> Unsupported:
        """What ast capture cannot do is unsupported: the function falls back (ast has no graph break)."""
        return self.interp.unsupported(f"{reason}; {suggestion}" if suggestion else reason)
