"""What the interpreter knows about a value: static (known at compile time) or a tensor of the graph."""
from __future__ import annotations

import functools
from typing import Any

import jax
import numpy as np

from ...errors import SourceLoc
from ...tensor import Parameter, Tensor
from ..builder import Guard, current_builder
from .failures import Unsupported


class Undefined:
    """A name that only some paths of tensor-dependent control flow assign; reading it is unsupported."""

    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason


class MaybeUnbound:
    """A name that an `if` on a tensor assigns on one path only (as Python allows): `value` is what the name
    holds when the path taken assigned it, `defined` a bool graph value saying whether it did.

    Reading it at the function's top level makes the graph check `defined` on every run (a `Guard` with an
    `error`): the graph serves both paths, and a run down the path that never assigned the name raises
    Python's own UnboundLocalError, as the eager call does. Read inside tensor-dependent control flow (a
    branch or a loop body, where the check would not be a graph output) it is unsupported."""

    __slots__ = ("name", "value", "defined", "loc")

    def __init__(self, name: str, value: Any, defined: Tensor, loc: SourceLoc | None) -> None:
        self.name, self.value, self.defined, self.loc = name, value, defined, loc

    @property
    def reason(self) -> str:
        line = self.loc.line if self.loc is not None else "?"
        return (f"`{self.name}` is assigned on only one path of the `if` on a tensor at line {line} and read "
                f"inside tensor-dependent control flow; assign it on both paths (or before the `if`)")

    def read(self) -> Any:
        """The value, with the graph made to check on every run that the path taken assigned it."""
        builder = current_builder()
        if builder is None or builder.parent is not None:
            raise Unsupported(self.reason)
        message = f"cannot access local variable '{self.name}' where it is not associated with a value"
        line = self.loc.line if self.loc is not None else "?"
        builder.guards.append(Guard(builder.operand(self.defined), np.array(True),
                                    f"`{self.name}` is assigned (UnboundLocalError otherwise)", self.loc,
                                    error=functools.partial(UnboundLocalError, message)))
        return self.value


class _Zeros:
    """Stands, on a path that never assigned a name, for a tensor leaf of the value the other path gives: the
    graph needs some value there, and the check on reading it (`MaybeUnbound`) makes sure none is ever used."""

    __slots__ = ()


ZEROS = _Zeros()


class DeferredString:
    """An f-string holding tensors: its text is only known at run time, so only `print` may take it."""

    __slots__ = ("pieces",)

    def __init__(self, pieces: list) -> None:
        self.pieces = pieces  # str or Tensor, concatenated without separators


def is_dynamic(x: Any) -> bool:
    """True for a tensor whose value is only known when the graph runs (a graph value or a Parameter)."""
    return isinstance(x, Tensor) and (isinstance(x, Parameter) or isinstance(x._data, jax.core.Tracer))


_SCALAR_KEYS = (str, int, float, bool, bytes, type(None))


def flatten(value: Any) -> tuple[list, Any]:
    """(leaves, structure): lists, tuples (named too) and dicts are structure, in their own order; anything else
    (a Tensor, a number, a Cell, ...) is a leaf. Structures compare with `==` without touching the leaves."""
    leaves: list = []

    def walk(v: Any) -> Any:
        kind = type(v)
        if kind is list or kind is tuple:
            return kind, tuple(walk(x) for x in v)
        if isinstance(v, tuple) and hasattr(v, "_fields"):
            return kind, tuple(walk(x) for x in v)
        if kind is dict:
            keys = tuple((type(k), k if isinstance(k, _SCALAR_KEYS) else id(k)) for k in v)
            return dict, keys, tuple(v), tuple(walk(x) for x in v.values())
        leaves.append(v)
        return None

    structure = walk(value)
    return leaves, _Structure(structure)


class _Structure:
    """A flattened value's shape of containers; equal when the containers (and dict keys) are the same."""

    __slots__ = ("tree",)

    def __init__(self, tree: Any) -> None:
        self.tree = tree

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, _Structure) and _same_tree(self.tree, other.tree)

    def __ne__(self, other: Any) -> bool:
        return not self == other


def _same_tree(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if a[0] is not b[0]:
        return False
    if a[0] is dict:
        return a[1] == b[1] and all(_same_tree(x, y) for x, y in zip(a[3], b[3]))
    return len(a[1]) == len(b[1]) and all(_same_tree(x, y) for x, y in zip(a[1], b[1]))


def unflatten(structure: "_Structure", leaves: list) -> Any:
    it = iter(leaves)

    def build(node: Any) -> Any:
        if node is None:
            return next(it)
        kind = node[0]
        if kind is dict:
            return {k: build(child) for k, child in zip(node[2], node[3])}
        items = [build(child) for child in node[1]]
        if kind is list:
            return items
        return kind(*items) if kind is not tuple else tuple(items)

    return build(structure.tree)


def static_equal(a: Any, b: Any) -> bool:
    """Whether two compile-time values are the same (never calls a Tensor operator)."""
    if a is b:
        return True
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        if not (isinstance(a, Tensor) and isinstance(b, Tensor)) or is_dynamic(a) or is_dynamic(b):
            return False
        x, y = np.asarray(a._data), np.asarray(b._data)
        return x.dtype == y.dtype and x.shape == y.shape and bool(np.array_equal(x, y))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype == b.dtype
                and a.shape == b.shape and bool(np.array_equal(a, b)))
    if type(a) is not type(b):
        return False
    if isinstance(a, (bool, int, float, complex, str, bytes, type(None), np.generic, slice, range)):
        return bool(a == b)
    return False


def is_number(x: Any) -> bool:
    return isinstance(x, (bool, int, float, np.bool_, np.integer, np.floating)) and not isinstance(x, Tensor)


def number_dtype(*values: Any) -> np.dtype:
    """MindSpore's dtype for Python numbers that become a tensor: the widest of bool, int64 and float32."""
    kinds = {"b" if isinstance(x, (bool, np.bool_)) else "i" if isinstance(x, (int, np.integer)) else "f"
             for x in values}
    return np.dtype(np.float32 if "f" in kinds else np.int64 if "i" in kinds else np.bool_)
