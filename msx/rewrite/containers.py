"""Which Cells rewrite opens up: containers (`nn.SequentialCell`) become CellContainer nodes with one node
per cell, user networks with their own `construct` become Tree nodes; msx's own layers stay CallCell nodes."""
from __future__ import annotations

from .. import nn as _nn
from .. import ops as _ops
from ..nn.cell import Cell
from ..nn.layer.container import SequentialCell


def is_container(cell: object) -> bool:
    """True for the containers MindSpore's rewrite opens (SequentialCell)."""
    return isinstance(cell, SequentialCell)


def is_subtree(cell: object) -> bool:
    """True for a Cell rewrite parses into its own SymbolTree: any Cell but msx's (and MindSpore's) own layers
    and ops, found by class name in `msx.nn` / `msx.ops` as MindSpore finds them in its namespaces."""
    if not isinstance(cell, Cell):
        return False
    name = type(cell).__name__
    for namespace in (_nn, _ops):
        known = getattr(namespace, name, None)
        if isinstance(known, type) and isinstance(cell, known):
            return False
    return True
