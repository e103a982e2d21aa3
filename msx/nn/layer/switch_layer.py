"""A cell container indexed by a tensor: MindSpore's `switch_layer` (`self.layers[i](x)` with `i` a Tensor).

MindSpore's GRAPH_MODE compiles `cell_list[index](*args)` with a scalar int32 `index` Tensor into one
switch over the cells, and raises IndexError at run time for an index outside `[-n, n)`; its PyNative
mode refuses a Tensor index (TypeError). msx runs the program the same way in both: eagerly the index's
value picks the cell; under capture (every mode) the call becomes one `Case` node whose branches are the
cells' captured calls, so a new index value never recompiles, and the graph checks the index's range on
every run (IndexError as eagerly) wherever that check can be a graph output.
"""
from __future__ import annotations

from typing import Any, Sequence

import jax
import numpy as np

from ...capture.builder import GraphBuilder, Guard, close_subgraphs, current_builder
from ...errors import CaptureError, user_loc
from ...ir.control import CASE
from ...ops import functional as F
from ...ops.primitive import recording
from ...tensor import Tensor
from ..cell import Cell


def cell_at(cells: Sequence[Cell], index: Tensor, owner: str) -> "Cell | SwitchedCells":
    """The cell `cells[index]` for a scalar integer Tensor `index`: the cell itself when no graph is being
    captured, else a `SwitchedCells` whose call builds the switch."""
    if index.size != 1 or not np.issubdtype(np.dtype(index._data.dtype), np.integer):
        raise TypeError(f"{owner}: a Tensor index must be one integer (MindSpore's switch_layer takes a scalar "
                        f"int32 Tensor), got shape {tuple(index.shape)} dtype {index.dtype}")
    n = len(cells)
    if n == 0:
        raise IndexError(f"{owner}: cannot index an empty container")
    if current_builder() is None:
        k = int(index.asnumpy().reshape(()))
        _in_range(k, n, owner)
        return cells[k % n]
    return SwitchedCells(list(cells), index, owner)


class SwitchedCells:
    """`cells[index]` under capture, `index` a graph value: calling it makes one `Case` node."""

    def __init__(self, cells: list[Cell], index: Tensor, owner: str) -> None:
        self.cells, self.index, self.owner = cells, index, owner

    def __repr__(self) -> str:
        return f"{self.owner}[<tensor index>] of {len(self.cells)} cells"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        outer = current_builder()
        if outer is None:  # the capture ended (a call after it): run as eagerly
            return cell_at(self.cells, self.index, self.owner)(*args, **kwargs)
        n = len(self.cells)
        index = _normalised(self.index, n)
        _check_range(outer, self.index, n, self.owner)
        branches, outs = [], []
        for k, cell in enumerate(self.cells):
            builder = GraphBuilder(f"{self.owner}_case{k}", outer)
            with builder.active():
                converter = recording.converter  # source capture: the cell's construct from its source
                out = cell(*args, **kwargs) if converter is None else converter(cell, args, kwargs)
                leaves, tree = jax.tree_util.tree_flatten(out, is_leaf=lambda t: isinstance(t, Tensor))
                if not all(isinstance(x, Tensor) for x in leaves):
                    raise CaptureError(f"{self.owner}[index]: cell {k} ({type(cell).__name__}) returned "
                                       f"{type(out).__name__} holding non-Tensor values; a cell chosen by a tensor "
                                       f"index must return Tensors", loc=user_loc())
                builder.set_outputs(leaves)
            captured = builder.finish()
            if captured.updated:
                captured.restore()
                names = ", ".join(getattr(p, "name", "?") for p in captured.updated)
                raise CaptureError(f"{self.owner}[index]: cell {k} ({type(cell).__name__}) writes state ({names}) "
                                   f"when called; a cell chosen by a tensor index may not, under jit (eagerly it "
                                   f"may: the index picks one cell)", loc=user_loc())
            branches.append(builder)
            outs.append((tree, leaves))
        _same_outputs(outs, self.cells, self.owner)
        extra = close_subgraphs(branches, [[] for _ in branches])
        k = _capture_value(self.index, n)
        results = [Tensor._from(t._data) for t in outs[k][1]]
        outer.add_node(CASE.make(outer.operand(index), extra, [b.graph for b in branches]), results)
        return jax.tree_util.tree_unflatten(outs[0][0], results)


def _normalised(index: Tensor, n: int) -> Tensor:
    """`index` with a negative value counted from the end, as Python indexes a list."""
    i = F.reshape(index, ())
    return F.select(i < 0, i + n, i)


def _in_range(k: int, n: int, owner: str) -> None:
    """A known index outside [-n, n) raises IndexError, as a Python list does."""
    if not -n <= k < n:
        raise IndexError(f"{owner}: index {k} is out of range for {n} cells")


def _check_range(outer: GraphBuilder, index: Tensor, n: int, owner: str) -> None:
    """Make the graph raise IndexError, as the eager call does, for an index outside [-n, n): a check on the
    root graph, which must be able to see the index and must run this call whenever it runs."""
    if not outer.knows(index):  # a constant Tensor: its value is known now
        _in_range(int(np.asarray(index._data).reshape(())), n, owner)
        return
    root, chain = outer, [outer]
    while root.parent is not None:
        root = root.parent
        chain.append(root)
    in_branch = any(not b.runs_always for b in chain[:-1])
    if not in_branch and not root.knows(index) and root.guards_allowed:
        # trace capture, the index computed inside a differentiated function: no check can reach the root, so
        # this call's eager answer stands and the signature runs in Python (jit tries source capture first)
        k = _concrete_index(index)
        if k is not None:
            _in_range(k, n, owner)
        loc = user_loc()
        root.unguarded.append(f"{owner}[index] with a tensor index{f' at {loc.short()}' if loc else ''} computed "
                              f"inside a differentiated function")
        return
    if in_branch or not root.knows(index):
        raise CaptureError(f"{owner}[index] with a tensor index inside tensor-dependent control flow, or with an "
                           f"index computed inside a differentiated function, cannot be range-checked by the graph; "
                           f"compute the index before (and outside) them", loc=user_loc())
    message = f"{owner}: a tensor index is out of range for {n} cells (valid: -{n} to {n - 1})"
    with root.active():
        i = index.reshape(())
        ok = (i >= -n) & (i < n)
    root.guards.append(Guard(root.operand(ok), np.array(True), f"{owner}[index] in range", user_loc(),
                             error=lambda: IndexError(message)))


def _concrete_index(index: Tensor) -> int | None:
    """The index's value where capture has one (trace runs eagerly), else None."""
    try:
        return int(np.asarray(index._data).reshape(()))
    except (TypeError, jax.errors.ConcretizationTypeError):
        return None


def _capture_value(index: Tensor, n: int) -> int:
    """The branch whose outputs stand for the node's during capture (the index's value where it has one)."""
    k = _concrete_index(index)
    if k is None:
        return 0
    return min(max(k + n if k < 0 else k, 0), n - 1)


def _same_outputs(outs: list, cells: list[Cell], owner: str) -> None:
    """Every cell must return the same structure of Tensors with the same shapes and dtypes."""
    tree0, leaves0 = outs[0]
    sig0 = [(tuple(t.shape), str(t.dtype)) for t in leaves0]
    for k, (tree, leaves) in enumerate(outs[1:], 1):
        sig = [(tuple(t.shape), str(t.dtype)) for t in leaves]
        if tree != tree0 or sig != sig0:
            raise CaptureError(f"{owner}[index]: the cells chosen by a tensor index must return the same structure, "
                               f"shapes and dtypes; cell 0 ({type(cells[0]).__name__}) returns {sig0}, cell {k} "
                               f"({type(cells[k]).__name__}) returns {sig}", loc=user_loc())
