"""Containers: `SequentialCell` (runs its cells in order), `CellList` (holds cells, runs nothing) and
`CellDict` (holds cells by name)."""
from __future__ import annotations

from collections import OrderedDict
from typing import Any, Iterable, Iterator

from ... import versions
from ...tensor import Tensor
from ..cell import Cell
from .switch_layer import cell_at


class _Container(Cell):
    """Position-indexed sub-Cells; keys are '0', '1', ... unless given by an OrderedDict."""

    def _put(self, key: str, cell: Cell, prefix: str = "") -> None:
        """Store `cell` under `key`, keeping the order of an existing key and prefixing its parameter names."""
        if not isinstance(cell, Cell):
            raise TypeError(f"{type(self).__name__}: items must be Cells, got {type(cell).__name__} for item {key!r}")
        if self._auto_prefix:
            cell.update_parameters_name(prefix + key + ".")
        self._cells[key] = cell
        versions.touch()

    def _keys(self) -> list[str]:
        return list(self._cells.keys())

    def _position(self, index: int) -> int:
        n = len(self._cells)
        if not isinstance(index, int) or not -n <= index < n:
            raise IndexError(f"{type(self).__name__}: index {index!r} is out of range for {n} cells")
        return index % n

    def __getitem__(self, index: int | slice):
        keys = self._keys()
        if isinstance(index, slice):
            out = type(self)()
            for key in keys[index]:
                out._cells[key] = self._cells[key]  # shared cells keep their parameter names
            return out
        if isinstance(index, Tensor):  # MindSpore's switch_layer
            return cell_at([self._cells[k] for k in keys], index, type(self).__name__)
        return self._cells[keys[self._position(index)]]

    def __setitem__(self, index: int, cell: Cell) -> None:
        self._put(self._keys()[self._position(index)], cell)

    def __delitem__(self, index: int | slice) -> None:
        keys = self._keys()
        for key in (keys[index] if isinstance(index, slice) else [keys[self._position(index)]]):
            del self._cells[key]
        versions.touch()

    def __len__(self) -> int:
        return len(self._cells)

    def __iter__(self) -> Iterator[Cell]:
        return iter(list(self._cells.values()))

    def append(self, cell: Cell) -> "_Container":
        """Add `cell` at the end; its parameters are named as MindSpore names them (`_appended_prefix`)."""
        self._put(str(len(self._cells)), cell, _appended_prefix(self._cells))
        return self


def _appended_prefix(cells: dict) -> str:
    """The prefix MindSpore 2.10 gives the parameters of a cell appended to a container (its
    `_get_prefix_and_index`): read off the first parameter name of the cells already there, where the
    container's key appears in it. A container that was an attribute before it was filled keeps no owner
    prefix, and one filled by appending inside another appended container repeats the outer path
    (mindcv's RegNet: `0.blocks.1.blocks.0.proj.weight`); msx names them the same, so checkpoints match."""
    firsts = []
    for key, cell in cells.items():
        name = next((p.name for _, p in cell.parameters_and_names()), None)
        if name is not None:
            firsts.append((key, name))
            if len(firsts) == 2:
                break
    if not firsts:
        return ""
    (first_key, first_name), second = firsts[0], firsts[1] if len(firsts) > 1 else None
    parts, prefix = first_name.split("."), ""
    for i, part in enumerate(parts):
        if part == first_key:
            prefix = ".".join(parts[:i]) + "." if i else ""
            if second is not None and second[1].split(".")[i:i + 1] == [second[0]]:
                break
    return prefix


class SequentialCell(_Container):
    """`SequentialCell(c1, c2, ...)`, `SequentialCell([c1, c2])` or `SequentialCell(OrderedDict(name=cell))`:
    `construct(x)` feeds each cell's output to the next."""

    def __init__(self, *args) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], dict):
            for name, cell in args[0].items():
                self._put(str(name), cell)
            return
        cells = args[0] if len(args) == 1 and isinstance(args[0], (list, tuple)) else args
        for i, cell in enumerate(cells):
            self._put(str(i), cell)

    def construct(self, input_data: Any) -> Any:
        for cell in self._cells.values():
            input_data = cell(input_data)
        return input_data


class CellList(_Container):
    """A list of Cells whose parameters belong to the owner (MindSpore's `nn.CellList`)."""

    def __init__(self, args: Iterable[Cell] | None = None) -> None:
        super().__init__()
        self.extend(args or ())

    def extend(self, cells: Iterable[Cell]) -> "CellList":
        if isinstance(cells, Cell) and not isinstance(cells, _Container):
            raise TypeError("CellList.extend: expected an iterable of Cells, got a single Cell")
        prefix = _appended_prefix(self._cells)  # read once, before the first new cell (as MindSpore does)
        for cell in cells:
            self._put(str(len(self._cells)), cell, prefix)
        return self

    def insert(self, index: int, cell: Cell) -> None:
        """Insert before `index` (like list.insert); the cells keep their keys' order as '0', '1', ..."""
        items = list(self._cells.values())
        n = len(items)
        index = max(0, min(n, index + n if index < 0 else index))
        self._cells.clear()
        for i, old in enumerate(items[:index] + [None] + items[index:]):
            if old is None:
                self._put(str(i), cell)
            else:
                self._cells[str(i)] = old


class CellDict(Cell):
    """An ordered dict of sub-Cells, registered under their keys."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__()
        if args:
            self.update(args[0])
        if kwargs:
            self.update(kwargs)

    def __getitem__(self, key: str) -> Cell:
        return self._cells[key]

    def __setitem__(self, key: str, cell: Cell) -> None:
        if not isinstance(cell, Cell):
            raise TypeError(f"CellDict: values must be Cells, got {type(cell).__name__} for {key!r}")
        self.insert_child_to_cell(key, cell)

    def __delitem__(self, key: str) -> None:
        del self._cells[key]

    def __len__(self) -> int:
        return len(self._cells)

    def __iter__(self):
        return iter(self._cells)

    def __contains__(self, key: str) -> bool:
        return key in self._cells

    def clear(self) -> None:
        self._cells.clear()

    def pop(self, key: str) -> Cell:
        return self._cells.pop(key)

    def keys(self):
        return self._cells.keys()

    def values(self):
        return self._cells.values()

    def items(self):
        return self._cells.items()

    def update(self, cells) -> None:
        items = cells.items() if isinstance(cells, (dict, OrderedDict, CellDict)) else cells
        for key, cell in items:
            self[key] = cell

    def construct(self, *inputs):
        raise NotImplementedError("CellDict is a container; call its Cells")
