"""How a capture fails, for every capture mode: one exception for "the graph cannot hold this", one table of
jax's errors that mean "this needed a value only known when the graph runs", one depth limit, one policy for
turning a failure into a fallback or an error.

`Unsupported` becomes a fallback to eager execution (`fullgraph=False`, with
one warning) or a `CaptureError` (`fullgraph=True`); both name the stage
(`capture: ast`, `capture: bytecode`) and the user's line. An error of the
user's code itself (a shape error, a failed `assert`) is raised as eagerly.
"""
from __future__ import annotations

from typing import Any

import jax

from ..errors import CaptureError, CaptureFallback, MsxError, SourceLoc
from .user_code import raising_user_loc
from .. import context

AST_STAGE = "capture: ast"
BYTECODE_STAGE = "capture: bytecode"
MAX_CALL_DEPTH = 64   # interpreted calls nested deeper than this are taken for unbounded recursion


def call_depth_limit() -> int:
    """How deep interpreted calls may nest: `set_context(max_call_depth=N)`, at most `MAX_CALL_DEPTH` (each
    interpreted call costs many Python frames, so deeper would overflow the interpreter's own stack;
    MindSpore's default of 1000 therefore means 64 here)."""
    return min(context.get_context("max_call_depth"), MAX_CALL_DEPTH)

# jax's errors for a traced value used where Python needs a concrete one
CONCRETE_ERRORS = (jax.errors.ConcretizationTypeError, jax.errors.TracerArrayConversionError,
                   jax.errors.TracerIntegerConversionError, jax.errors.TracerBoolConversionError,
                   jax.errors.UnexpectedTracerError)


class Unsupported(Exception):
    """Something the graph cannot hold, with the reason in plain words and where it is."""

    def __init__(self, reason: str, loc: SourceLoc | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.loc = loc


def cannot_capture(reason: str, loc: SourceLoc | None, config: Any, stage: str) -> CaptureError:
    """`fullgraph=True`: an error; otherwise the fallback jit turns into one warning and an eager run."""
    if getattr(config, "fullgraph", False):
        return CaptureError(f"{reason} (fullgraph=True: the whole function must be one graph; with "
                            f"fullgraph=False it would run eagerly instead)", stage=stage, loc=loc)
    return CaptureFallback(reason, stage=stage, loc=loc)


def raised_at_capture(exc: MsxError, stage: str) -> MsxError:
    """An msx error raised while a graph was being captured, as the user sees it: its stage is the capture's
    (a layer's or an op's check raises with the default `run`, or a generic `capture`) and it shows the user's
    line (the innermost user frame of its traceback when the raiser named none). Other stages (a gradient's,
    a file's) are kept."""
    if exc.stage in ("run", "capture"):
        exc.stage = stage
    if exc.loc is None:
        exc.loc = raising_user_loc(exc.__traceback__)
    return exc


def is_jit_function(x: Any) -> bool:
    """An `msx.jit` function (its class carries `__msx_jit__`; capture never imports jit)."""
    return getattr(type(x), "__msx_jit__", False)
