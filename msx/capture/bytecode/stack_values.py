"""The values the interpreter keeps on its stacks, beside ordinary Python objects.

Most values are the real objects (a Cell, a list, a Tensor whose value is
being recorded into the graph). Three are the interpreter's own:

* `NULL` and `UNBOUND`: CPython's empty stack slot and unassigned local.
* `Box`: a Python scalar read from somewhere the caller can change (an
  argument, a global, a Cell attribute, a value carried across a graph
  break). The scalar's value is only *guarded* when the captured code uses it,
  so an argument that is only passed through (or printed after a break) does
  not cause a recompilation whenever it changes.
* `ListIterator`: iteration over a sequence known at capture time, as a plain
  list plus a position, so a loop interrupted by a graph break can be carried
  across it and resumed.
"""
from __future__ import annotations

import types
from typing import Any

import numpy as np

from ... import dtype as mstype
from ..user_code import is_user_file


class _Sentinel:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


NULL = _Sentinel("NULL")
UNBOUND = _Sentinel("UNBOUND")


class Box:
    """A Python scalar from a source outside the function; guarded when used (see module docstring)."""

    __slots__ = ("value", "source")

    def __init__(self, value: Any, source: Any) -> None:
        self.value = value
        self.source = source

    def __repr__(self) -> str:
        return f"Box({self.value!r} from {self.source.describe()})"


SCALAR_TYPES = (bool, int, float, complex, str, bytes, type(None))
IMMUTABLE_TYPES = SCALAR_TYPES + (type(Ellipsis), type(NotImplemented), range, slice, np.dtype, np.generic,
                                  mstype.Type, types.CodeType)


def is_immutable_constant(x: Any) -> bool:
    """Values that can be kept by reference in a cache entry: they cannot change between calls."""
    if isinstance(x, IMMUTABLE_TYPES):
        return True
    if type(x) in (tuple, frozenset):
        return all(is_immutable_constant(v) for v in x)
    return False


def is_user_code(code: types.CodeType) -> bool:
    """Code the user wrote (a script, a test, a notebook cell, `exec`): interpreted; msx and libraries run as is."""
    return is_user_file(code.co_filename)
