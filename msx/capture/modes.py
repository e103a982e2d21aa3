"""The table of capture modes (`jit(capture_mode=...)`): what each mode registers, and `NOT_RUN`.

A leaf of the capture package: the modes (ast, bytecode, trace) import it to name `NOT_RUN`, and the package
registers them in it, so no mode imports the package that loads it.
"""
from __future__ import annotations

from typing import Any, Callable

NOT_RUN = object()

CAPTURE_MODES: dict[str, Callable[..., tuple[Any, Any]]] = {}
CAPTURE_RUNNERS: dict[str, Callable[[Any], Any]] = {}
CAPTURE_CHECKS: dict[str, Callable[[], None]] = {}


def register_capture_mode(name: str, capture: Callable[..., tuple[Any, Any]],
                          runner: Callable[[Any], Any] | None = None, check: Callable[[], None] | None = None) -> None:
    """`runner(pipeline)` (optional, given the function's `msx.runtime.compile_pipeline.Pipeline`): for a mode that keeps
    its own cache (guards, graph breaks), the object whose `runner(args, kwargs)` runs each call, an
    `msx.runtime.entries.Cache` (`hot`, `explained_call`, `len`, `table`, `shape_families`); `check()` (optional): raises when the mode cannot work here
    (`jit()` calls it)."""
    CAPTURE_MODES[name] = capture
    if runner is not None:
        CAPTURE_RUNNERS[name] = runner
    if check is not None:
        CAPTURE_CHECKS[name] = check
