"""One capture: interpret from a starting point to the function's return or to the next graph break.

The result, a `Piece`, is what a cache entry is made of: the graph (built by
the one GraphBuilder), the guards it assumed, the sources of its inputs, and
how to continue — rebuild the return value, or rebuild the frames and run the
breaking instruction in Python. Capturing runs the function's ops once on the
call's values (they record the graph); Parameters written while capturing
get their old values back, since the graph's updates carry the writes.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import jax

from ...errors import MsxError
from ...tensor import Tensor
from ..builder import Captured, GraphBuilder
from ..failures import raised_at_capture
from ..outputs import as_returned
from ..session import capture_session
from .breaks import STAGE, BreakInfo, GraphBreak, Unsupported
from ...runtime.guards import Guard
from .reconstruct import FrameR, Recipe, RecipeBuilder
from .frame_sources import Source
from .recording_vm import SymbolicVM
from .vm import Frame

@dataclass
class ReturnExit:
    """The piece ends with the function's return value."""

    recipe: Recipe


@dataclass
class BreakExit:
    """The piece ends at a graph break: the frames to rebuild, and why."""

    frames: list[FrameR]
    info: BreakInfo


@dataclass
class Piece:
    """What one capture produced."""

    captured: Captured
    guards: list[Guard]
    inputs: list[Source]
    values: list[Source]
    exit: ReturnExit | BreakExit
    input_tensors: list = field(default_factory=list)

    @property
    def has_graph(self) -> bool:
        g = self.captured.graph
        return bool(g.nodes or g.updates)


class CaptureFailed(Exception):
    """Capture cannot go on (`Unsupported`); `guards` are what it had assumed up to there."""

    def __init__(self, reason: str, loc, guards: list[Guard]) -> None:
        super().__init__(reason)
        self.reason, self.loc, self.guards = reason, loc, guards


def capture_piece(name: str, fn: Any, args: tuple | None, kwargs: dict | None,
                  env: list[Frame] | None = None, fresh: dict | None = None, as_function: bool = False) -> Piece:
    """Capture from the start of `fn(*args, **kwargs)`, or from the resumed frames `env` after a break.

    `as_function`: the graph returns the flattened return value, with `out_tree` its structure (what
    `msx.jit`'s `Compiled` expects from the stage calls `jf.capture`/`jf.lower`).
    """
    builder = GraphBuilder(name)
    builder.runs_effects = False
    builder.capture_values = "unread"
    builder.guards_allowed = False   # a tensor's value in Python is a graph break, never a silent constant
    vm = SymbolicVM(builder)
    try:
        with capture_session(vm.convert), builder.active():   # writes undone after: the graph's updates carry them
            frames = vm.root_frames(fn, args, kwargs) if env is None else vm.resume_frames(env, fresh or {})
            outcome = vm.capture(frames)
            if not isinstance(outcome, GraphBreak):   # lazy iterables come back as MindSpore's tuples and lists
                outcome.value = as_returned(outcome.value, vm.items_of, vm.new_local, vm.is_tuple_like)
            vm.finish_iterators()
            recipes = RecipeBuilder(vm)
            if isinstance(outcome, GraphBreak):
                info = BreakInfo(outcome.reason, outcome.suggestion, outcome.loc, frames[-1].loc(),
                                 tuple(outcome.inner))
                exit_: ReturnExit | BreakExit = BreakExit([recipes.frame(f) for f in frames], info)
            else:
                exit_ = ReturnExit(recipes.recipe(outcome.value))
            outputs = recipes.outputs
            out_tree = jax.tree_util.tree_structure([0] * len(outputs))
            if as_function and type(exit_) is ReturnExit:
                value = vm.use_deep(outcome.value)
                outputs, out_tree = jax.tree_util.tree_flatten(value, is_leaf=lambda x: isinstance(x, Tensor))
            builder.set_outputs(outputs)
    except Unsupported as exc:
        raise CaptureFailed(exc.reason, exc.loc, vm.guards) from None
    except MsxError as exc:
        raise raised_at_capture(exc, STAGE)
    captured = builder.finish()
    captured.out_tree = out_tree
    return Piece(captured, vm.guards, vm.input_sources, recipes.values, exit_, vm.input_tensors)
