"""`msx.ops.composite` (`from mindspore.ops import composite as C`): higher-order helpers.

`MultitypeFuncGraph` dispatches on the argument types (MindSpore's type names: "Tensor", "Number",
"Tuple", "List", "String", "Bool", "None", "Function", "Dictionary", "RowTensor", or classes); `HyperMap` and
`Map` apply a function elementwise over tuples and lists (`HyperMap` also into nested ones). In msx they are plain Python, so
they work eagerly and in every capture mode. `GradOperation` is `msx.autograd`'s (a higher layer; `msx/__init__.py`
adds it here).
"""
from __future__ import absolute_import, annotations  # noqa: F401  (MindSpore's composite exports absolute_import)

from typing import Any, Callable

from ..sparse_tensor import RowTensorInner
from ..tensor import Tensor
from ..unavailable import refuse
from .clip import clip_by_global_norm  # noqa: F401
from . import functional as _F
from .functional import (batch_dot, clip_by_value, count_nonzero, cummin, dot, gamma, laplace, matmul, mm,  # noqa: F401
                         multinomial, normal, ones_like, poisson, repeat_elements, repeat_interleave, sequence_mask,
                         tensor_dot, uniform, vecdot, zeros_like)


def _type_matches(spec, value) -> bool:
    if isinstance(spec, type):
        return isinstance(value, spec)
    name = str(spec)
    if name == "Tensor":
        return isinstance(value, Tensor)
    if name == "Number":
        return isinstance(value, (int, float)) and not isinstance(value, bool) or isinstance(value, bool)
    if name == "Bool":
        return isinstance(value, bool)
    if name == "Tuple":
        return isinstance(value, tuple)
    if name == "List":
        return isinstance(value, list)
    if name == "String":
        return isinstance(value, str)
    if name == "None":
        return value is None
    if name == "Function":
        return callable(value) and not isinstance(value, Tensor)
    if name == "Dictionary":
        return isinstance(value, dict)
    if name == "RowTensor":
        return isinstance(value, RowTensorInner)  # MindSpore's C++ RowTensor type: both classes
    raise ValueError(f"MultitypeFuncGraph: unknown type name {name!r}")


class MultitypeFuncGraph:
    """A function with one implementation per argument-type signature, picked at call time."""

    def __init__(self, name: str, read_value: bool = False, doc_url: str = "") -> None:
        self.name = name
        self.entries: list[tuple[tuple, Callable]] = []

    def register(self, *type_names) -> Callable:
        def add(fn: Callable) -> Callable:
            self.entries.append((type_names, fn))
            return fn

        return add

    def __call__(self, *args):
        for types, fn in self.entries:
            if len(types) == len(args) and all(_type_matches(t, a) for t, a in zip(types, args)):
                return fn(*args)
        got = ", ".join(type(a).__name__ for a in args)
        raise TypeError(f"MultitypeFuncGraph {self.name!r}: no implementation registered for ({got})")


def _map(fn: Callable, seqs: tuple, nested: bool, reverse: bool = False) -> Any:
    first = seqs[0]
    if isinstance(first, (tuple, list)):
        if any(not isinstance(s, (tuple, list)) or len(s) != len(first) for s in seqs):
            raise ValueError("HyperMap/Map: the sequences must all be tuples/lists of the same length")
        parts = list(zip(*seqs))
        order = range(len(parts) - 1, -1, -1) if reverse else range(len(parts))  # `reverse`: call order only
        items: list = [None] * len(parts)
        for i in order:
            items[i] = _map(fn, parts[i], nested, reverse) if nested else fn(*parts[i])
        return type(first)(items)
    return fn(*seqs)


class HyperMap:
    """`HyperMap(fn)(*seqs)` or `HyperMap()(fn, *seqs)`: `fn` over the leaves of (nested) tuples/lists;
    `reverse=True` calls `fn` from the last element to the first (MindSpore's, for side effects)."""

    def __init__(self, ops: Callable | None = None, reverse: bool = False, reduce_output: bool = False) -> None:
        self.ops, self.reverse, self.reduce_output = ops, reverse, reduce_output

    def __call__(self, *args):
        fn, seqs = (self.ops, args) if self.ops is not None else (args[0], args[1:])
        out = _map(fn, seqs, nested=True, reverse=self.reverse)
        return _reduce_output(out) if self.reduce_output else out


class Map(HyperMap):
    """Like `HyperMap`, one level deep."""

    def __call__(self, *args):
        fn, seqs = (self.ops, args) if self.ops is not None else (args[0], args[1:])
        out = _map(fn, seqs, nested=False, reverse=self.reverse)
        return _reduce_output(out) if self.reduce_output else out


def constexpr(fn: Callable | None = None, get_instance: bool = True, name: str | None = None,
              reuse_result: bool = True, check: bool = True) -> Callable:
    """MindSpore's `ops.constexpr`: mark a function of constants as compile-time. In msx every capture mode
    already evaluates Python code on Python values at compile time, so the function is returned as it is
    (`@constexpr` and `@constexpr(...)` both work)."""
    if fn is None:
        return lambda f: f
    return fn


def add_flags(fn: Callable | None = None, **flags) -> Callable:
    """MindSpore's `add_flags`: attach compile flags to a function (msx records them in `_mindspore_flags`)."""
    def add(f: Callable) -> Callable:
        f._mindspore_flags = {**getattr(f, "_mindspore_flags", {}), **flags}
        return f

    return add if fn is None else add(fn)


def tail(seq):
    """The tuple without its first element (MindSpore's graph-mode `tail`)."""
    return tuple(seq)[1:]


def zip_operation(*seqs):
    """`zip` of the sequences as a tuple of tuples (MindSpore's graph-mode `zip_operation`)."""
    return tuple(zip(*seqs))


def _augassign(op: Callable, name: str) -> Callable:
    def f(x, y):
        return op(x, y)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"`x {name}= y` as MindSpore's composite `augassign_{name}` spells it."
    return f


augassign_add, augassign_sub, augassign_mul = _augassign(_F.add, "add"), _augassign(_F.sub, "sub"), _augassign(
    _F.mul, "mul")
augassign_div, augassign_floordiv, augassign_mod = _augassign(_F.div, "div"), _augassign(
    _F.floor_divide, "floordiv"), _augassign(_F.remainder, "mod")


def _reduce_output(out):
    """MindSpore's reduce_output: all(...) of the boolean results."""
    flat = list(out) if isinstance(out, (tuple, list)) else [out]
    return all(bool(x) for x in flat)


hyper_add = HyperMap(_F.add)  # `add` over the leaves of (nested) tuples/lists

# the compiler's own helpers of mindspore.ops.composite: they exist so that imports work (msx.unavailable)
REFUSED_NAMES = refuse(globals(), "mindspore.ops.composite", {
    ("an internal of MindSpore's graph compiler (iteration and environment helpers)",
     "write the Python loop or attribute access inside msx.jit"): "env_get iter_converter ms_hasnext ms_next",
    ("an internal of MindSpore's graph compiler", "recompute a block with Cell.recompute() or msx.recompute"): (
        "recompute_block"),
})

__all__ = [  # noqa: F822  (GradOperation: added by msx/__init__.py)
           "GradOperation", "HyperMap", "Map", "MultitypeFuncGraph", "add_flags", "augassign_add", "augassign_div",
           "augassign_floordiv", "augassign_mod", "augassign_mul", "augassign_sub", "batch_dot", "clip_by_global_norm",
           "clip_by_value", "constexpr", "count_nonzero", "cummin", "dot", "gamma", "hyper_add", "laplace", "matmul",
           "mm", "multinomial", "normal", "ones_like", "poisson", "repeat_elements", "repeat_interleave",
           "sequence_mask", "tail", "tensor_dot", "uniform", "vecdot", "zeros_like", "zip_operation", *REFUSED_NAMES]
