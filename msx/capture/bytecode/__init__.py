"""`capture_mode="bytecode"`: capture by interpreting CPython bytecode symbolically (MindSpore's bytecode
mode, PyTorch's Dynamo).

* `vm` — a 3.11 bytecode interpreter over explicit frames (runs the Python glue);
* `frames` — interpreter frames as data, CPython's argument binding;
* `symbolic` — the same instructions, recording ops into the one GraphBuilder,
  with its concerns in mixins: `tracking` (where values came from — `sources` —
  and what was assumed — `guards`), `calls` (the call policy: inline, run now,
  or break; tables in `policy`) and `resume` (adopting the frames after a break);
  `kinds` holds the helpers they share;
* `capture` — one capture, from the start or from after a graph break, into a `Piece`;
* `reconstruct` — rebuilding return values and frames from a graph's outputs;
* `runtime` — the cache: guarded entries, graph breaks joined by Python glue,
  recompile reasons and limit; `explain` — the report of one call.
"""
from __future__ import annotations

import sys
from typing import Any, Callable

from ...errors import CaptureFallback
from ..modes import NOT_RUN
from ..failures import cannot_capture
from .breaks import STAGE, fullgraph_error
from .instructions import SUPPORTED_VERSIONS, python_supported
from .capture import BreakExit, CaptureFailed, capture_piece
from .runtime import BytecodeRunner


def check_python() -> None:
    """capture_mode="bytecode" interprets CPython 3.11 bytecode: refuse other interpreters, clearly."""
    if not python_supported():
        have = ".".join(map(str, sys.version_info[:3]))
        want = ", ".join(f"{a}.{b}" for a, b in SUPPORTED_VERSIONS)
        raise ValueError(f"jit: capture_mode='bytecode' interprets CPython {want} bytecode, but this is Python "
                         f"{have} (MindSpore's bytecode mode also stops before 3.12); use capture_mode='ast' "
                         f"(or 'trace') on this Python")


def capture_bytecode(fn: Callable, args: tuple, kwargs: dict, name: str, config: Any):
    """The stage API (`jf.capture`, `jf.lower`): the whole call as one graph, or why it cannot be one."""
    try:
        piece = capture_piece(name, fn, args, kwargs, as_function=True)
    except CaptureFailed as exc:
        raise cannot_capture(exc.reason, exc.loc, config, STAGE) from None
    if type(piece.exit) is BreakExit:
        info = piece.exit.info
        if getattr(config, "fullgraph", False):
            raise fullgraph_error(info)
        raise CaptureFallback(f"the function has a graph break ({info.reason}); calling it runs several graphs "
                              f"joined by Python — see jf.explain(*args)", stage=STAGE, loc=info.loc)
    return piece.captured, NOT_RUN


def make_runner(pipeline) -> Any:
    return BytecodeRunner(pipeline)


__all__ = ["check_python", "capture_bytecode", "make_runner"]
