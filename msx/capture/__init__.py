"""Capture modes: each finds the graph of a function its own way, all through the one GraphBuilder.

A capture mode is a function `capture(fn, args, kwargs, name, config) -> (Captured, result)`.
`result` is the function's value when capturing ran it (trace mode runs it
eagerly) or `NOT_RUN` when it did not (source and bytecode capture); jit then
runs the compiled graph for that first call. A capture mode that cannot
capture a call raises `CaptureFallback` (run this signature eagerly, with a
warning) when `config.fullgraph` is False, or a `CaptureError` when it is True.
"""
from __future__ import annotations

from typing import Any, Callable

NOT_RUN = object()

CAPTURE_MODES: dict[str, Callable[..., tuple[Any, Any]]] = {}
CAPTURE_RUNNERS: dict[str, Callable[[Any], Any]] = {}
CAPTURE_CHECKS: dict[str, Callable[[], None]] = {}


def register_capture_mode(name: str, capture: Callable[..., tuple[Any, Any]],
                          runner: Callable[[Any], Any] | None = None, check: Callable[[], None] | None = None) -> None:
    """`runner(jit_function)` (optional): for a mode that keeps its own cache (guards, graph breaks), the object
    whose `runner(args, kwargs)` runs each call; `check()` (optional): raises when the mode cannot work here
    (`jit()` calls it)."""
    CAPTURE_MODES[name] = capture
    if runner is not None:
        CAPTURE_RUNNERS[name] = runner
    if check is not None:
        CAPTURE_CHECKS[name] = check


def _trace(fn, args, kwargs, name, config):
    from .trace import capture_trace

    return capture_trace(fn, args, kwargs, name)


def _ast(fn, args, kwargs, name, config):
    from .ast_capture import capture_ast

    return capture_ast(fn, args, kwargs, name, config)


def _bytecode(fn, args, kwargs, name, config):
    from .bytecode import capture_bytecode

    return capture_bytecode(fn, args, kwargs, name, config)


def _bytecode_runner(jit_function):
    from .bytecode import make_runner

    return make_runner(jit_function)


def _bytecode_check():
    from .bytecode import check_python

    check_python()


register_capture_mode("trace", _trace)
register_capture_mode("ast", _ast)
register_capture_mode("bytecode", _bytecode, runner=_bytecode_runner, check=_bytecode_check)
