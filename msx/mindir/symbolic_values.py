"""The symbolic values MindIR conversion computes with (`msx.mindir.to_graph`): references to graphs,
partial applications, `Switch` results, tail calls, run-time choices between outcomes and lazily computed
outputs, beside Vars and numpy constants."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..ir.graph import Abstract, Var


@dataclass(frozen=True)
class GraphRef:
    name: str


@dataclass(frozen=True)
class PartialValue:
    fn: Any
    args: tuple


@dataclass(frozen=True)
class SwitchValue:
    pred: Any
    on_true: Any
    on_false: Any


@dataclass(frozen=True)
class SwitchLayerValue:
    """`switch_layer(index, (graph0, graph1, ...))`: MindSpore's choice of one of several graphs by a tensor."""

    index: Any
    branches: tuple


@dataclass(frozen=True)
class TailCall:
    """A call of the header of a loop being read (`target`), reached from inside that loop: MindSpore's
    `continue`, and the back edge at the end of a loop body. The loop's header is not run again; the
    converter turns the arguments into the loop's next state."""

    target: str
    args: tuple


@dataclass(frozen=True)
class Choice:
    """One of several outcomes of different kinds, picked at run time by the int32 tensor `tag` (its index in
    `alts`): a tensor `if` whose branches end differently — one `break`s out of a loop (MindSpore runs the code
    after the loop inside that branch and returns its value), the other calls the loop header again."""

    tag: Any
    alts: tuple
    origin: str = ""  # the node whose tensor `if` or loop made the choice, for error messages


class Lazy:
    """A value computed only if something uses it (LayerNorm's mean and rstd outputs)."""

    def __init__(self, thunk: Callable[[], tuple], index: int, cache: dict) -> None:
        self.thunk, self.index, self.cache = thunk, index, cache

    def force(self):
        if "values" not in self.cache:
            self.cache["values"] = self.thunk()
        return self.cache["values"][self.index]


def force(x):
    return x.force() if isinstance(x, Lazy) else x


def is_tensor(x) -> bool:
    return isinstance(x, (Var, np.ndarray))


def abstract_of(x) -> Abstract:
    if isinstance(x, Var):
        return x.abstract
    arr = np.asarray(x)
    return Abstract(tuple(arr.shape), arr.dtype.name)


def as_array(x) -> np.ndarray:
    """A Python scalar as the array MindSpore would make of it (int64, float32, bool)."""
    if isinstance(x, bool):
        return np.asarray(x)
    if isinstance(x, int):
        return np.asarray(x, np.int64)
    return np.asarray(x, np.float32)
