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


def register_capture_mode(name: str, capture: Callable[..., tuple[Any, Any]]) -> None:
    CAPTURE_MODES[name] = capture


def _trace(fn, args, kwargs, name, config):
    from .trace import capture_trace

    return capture_trace(fn, args, kwargs, name)


register_capture_mode("trace", _trace)
