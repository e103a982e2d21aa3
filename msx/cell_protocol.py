"""What the layers below `nn` know of a Cell (ARCHITECTURE rule 12): the Cell protocol.

`msx.nn.Cell` derives from `CellProtocol`, so `isinstance(x, CellProtocol)` is the marker a layer below nn
tests (the call signature keys a Cell argument by identity and training flag; capture modes treat one as
state, not data) without importing nn. A Cell offers, and those layers use only:

- `training` — the flag `set_train` sets; part of a cache key;
- `parameters_and_names()` / `get_parameters()` — the Parameters it owns, its sub-Cells' included;
- `cells_and_names()` and `_cells` — its sub-Cells, by attribute name;
- a state version: every change to a Cell's attributes, sub-Cells, Parameters or training flag moves
  `msx.versions.EPOCH`, so a cache entry re-checks the Cells it read only after something changed.

The class adds no state and no behaviour (empty `__slots__`): it is a nominal marker, an `isinstance` test
costing one type check on the per-call path, where a `typing.Protocol` check would inspect attributes.
"""
from __future__ import annotations


class CellProtocol:
    """The base of `msx.nn.Cell`: the marker the layers below nn test for a Cell."""

    __slots__ = ()
    training: bool


def is_cell(x: object) -> bool:
    """`x` is a Cell instance (of `msx.nn.Cell` or a subclass)."""
    return isinstance(x, CellProtocol)
