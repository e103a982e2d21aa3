"""The Python state a capture read, and the checks that keep a graph from outliving it (ARCHITECTURE rule 9).

A graph bakes in every Python value its capture read: a global scale, a closure variable, `self.k`, which
sub-Cell `self.act` is, whether `self.training` is set, a Tensor used as a constant. Capture modes report
those reads here while they run (`PythonReads`); `finish()` turns them into a `StateGuards`, which each call
checks before the graph may run:

* values read through a path (a global, a closure cell, an attribute of an object that existed before the
  capture, a default argument) become guards of `msx.runtime.guards`, compiled into one generated check
  function — scalars by value and sign, Tensors by identity and data, containers by their shallow contents,
  everything else by identity;
* every Cell the capture reached (and its sub-Cells) is remembered with a snapshot of its state (training
  flag, sub-Cells, Parameters, plain attributes); since every such change moves `msx.versions.EPOCH`, a
  call compares the snapshots only when the epoch moved since the entry last looked.

(Parameters' shapes, dtypes and `requires_grad` are checked by `Compiled.run`, for every capture mode.)

A miss names what changed (`net.drop.training: True -> False`), which jit reports as the recompile reason.
"""
from __future__ import annotations

import types
from typing import Any, Callable

from .. import versions
from ..tensor import Parameter, Tensor
from .guards import (SCALARS, ContentsGuard, EqualsGuard, Guard, IdGuard, Snapshot, ValueGuard, compile_check,
                     same_value)
from .value_sources import Attr, CellContents, Item, Pinned, Source

_IGNORED_CELL_ATTRS = frozenset({"_params", "_cells", "_jit_cache"})


def guard_for(source: Source, value: Any) -> list[Guard]:
    """The guards that pin `value` as read from `source`."""
    if type(value) in SCALARS:
        return [EqualsGuard(source, value, origin_note="a Python value the capture read")]
    if isinstance(value, Parameter):
        return [IdGuard(source, value, origin_note="a Parameter the capture read")]
    if type(value) is types.MethodType:  # a bound method is a new object on every read: its function is what counts
        return [IdGuard(Attr(source, "__func__"), value.__func__, origin_note="a method the capture read")]
    if isinstance(value, Tensor):
        return [ValueGuard(source, value, extra=(value._data,), origin_note="a Tensor the capture read")]
    if type(value) in (list, tuple, dict):
        return [IdGuard(source, value, origin_note="a container the capture read"),
                ContentsGuard(source, Snapshot(value), origin_note="a container the capture read")]
    return [IdGuard(source, value, origin_note="an object the capture read")]


class CellState:
    """A Cell's state as a graph depends on it: its training flag, sub-Cells, Parameters and plain attributes."""

    __slots__ = ("cell", "path", "items")

    def __init__(self, cell: Any, path: str) -> None:
        self.cell, self.path = cell, path
        self.items = _cell_items(cell)

    def change(self) -> str | None:
        """What changed since the snapshot, in words (None: nothing)."""
        now = _cell_items(self.cell)
        if now == self.items:
            return None
        old, new = dict(self.items), dict(now)
        for name in list(old) + [n for n in new if n not in old]:
            a, b = old.get(name, _ABSENT), new.get(name, _ABSENT)
            if a != b:
                return f"{self.path}.{name} changed {_show(a)} -> {_show(b)}"
        return f"{self.path} changed"


class _Item:
    """One attribute value of a Cell snapshot: equal when it is the same value (scalars by value and sign)."""

    __slots__ = ("value", "data")

    def __init__(self, value: Any) -> None:
        self.value = value
        self.data = value._data if isinstance(value, Tensor) and not isinstance(value, Parameter) else None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _Item):
            return NotImplemented
        if other.value is self.value:
            return other.data is self.data
        if type(other.value) is tuple and type(self.value) is tuple:  # hook tables: the same hooks, in order
            return len(other.value) == len(self.value) and all(a is b for a, b in zip(other.value, self.value))
        return same_value(other.value, self.value)

    __hash__ = None  # type: ignore[assignment]


_ABSENT = _Item(object())


def _cell_items(cell: Any) -> list[tuple[str, _Item]]:
    d = cell.__dict__
    items = [(name, _Item(v)) for name, v in d["_params"].items()]
    items += [(name, _Item(v)) for name, v in d["_cells"].items()]
    items += [(name, _Item(v)) for name, v in d.items() if name not in _IGNORED_CELL_ATTRS]
    hooks = d.get("_hooks")
    if hooks is not None:  # registered hooks live in tables inside one object: compare their contents
        items.append(("hooks", _Item(tuple(h for table in vars(hooks).values() for h in table.values()))))
    return items


def _show(item: _Item) -> str:
    if item is _ABSENT:
        return "<absent>"
    v = item.value
    if type(v) in SCALARS:
        return repr(v)
    name = type(v).__name__
    return f"{name} object" if not isinstance(v, Tensor) else f"{name}{tuple(v.shape)}"


class StateGuards:
    """The checks one cache entry makes before its graph may run (see the module docstring)."""

    __slots__ = ("guards", "check", "cells", "epoch")

    def __init__(self, guards: list[Guard], cells: list[CellState]) -> None:
        self.guards = guards
        self.check: Callable | None = compile_check(guards, [], [], "state_check") if guards else None
        self.cells = cells
        self.epoch = versions.EPOCH[0]

    def holds(self) -> bool:
        if self.check is not None and type(self.check(None)) is not tuple:
            return False
        if versions.EPOCH[0] != self.epoch:
            if self.change() is not None:
                return False
            self.epoch = versions.EPOCH[0]
        return True

    def change(self) -> str | None:
        """Why the entry no longer holds, in words (None: it holds)."""
        for g in self.guards:
            failure = g.failure(None)
            if failure is not None:
                return failure
        for state in self.cells:
            change = state.change()
            if change is not None:
                return change
        return None

    def __len__(self) -> int:
        return len(self.guards) + len(self.cells)


NO_STATE = StateGuards([], [])


class PythonReads:
    """Collects, while a capture runs, the Python values it read and the Cells it reached."""

    def __init__(self) -> None:
        self._values: dict[Source, Any] = {}
        self._cells: dict[int, tuple[Any, str]] = {}

    def read(self, source: Source, value: Any) -> None:
        if source not in self._values:
            self._values[source] = value

    def items(self) -> list[tuple[Source, Any]]:
        return list(self._values.items())

    def values(self) -> list[Any]:
        return list(self._values.values())

    def cell(self, cell: Any, path: str | None = None) -> None:
        if id(cell) not in self._cells:
            self._cells[id(cell)] = (cell, path or type(cell).__name__)

    def reached_cells(self) -> list[tuple[Any, str]]:
        """Every Cell reached and its sub-Cells, with their paths."""
        found: dict[int, tuple[Any, str]] = {}
        for cell, path in self._cells.values():
            for sub_path, sub in cell.cells_and_names(name_prefix=path):
                found.setdefault(id(sub), (sub, sub_path))
        return list(found.values())

    def read_function(self, fn: types.FunctionType, name: str) -> None:
        """A user function the capture ran: its closure variables and default arguments are state too."""
        code = fn.__code__
        for var, cell in zip(code.co_freevars, fn.__closure__ or ()):
            try:
                value = cell.cell_contents
            except ValueError:
                continue
            self.read(CellContents(Pinned(cell, f"{name}'s closure"), var), value)
        defaults = Attr(Pinned(fn, name), "__defaults__")
        for i, value in enumerate(fn.__defaults__ or ()):
            if type(value) in (list, dict):  # a mutable default argument mutated between calls
                self.read(Item(defaults, i), value)

    def finish(self) -> StateGuards:
        guards = [g for source, value in self._values.items() for g in guard_for(source, value)]
        cells = [CellState(cell, path) for cell, path in self.reached_cells()]
        if not guards and not cells:
            return NO_STATE
        return StateGuards(guards, cells)


__all__ = ["PythonReads", "StateGuards", "CellState", "guard_for", "NO_STATE"]
