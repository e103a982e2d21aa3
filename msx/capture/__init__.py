"""Capture modes: each finds the graph of a function its own way, all through the one GraphBuilder.

What a capture mode must provide
--------------------------------
* **An entry point** `capture(fn, args, kwargs, name, config) -> (Captured, result)`,
  registered with `register_capture_mode`. `result` is the function's value
  when capturing ran it (trace mode runs it eagerly) or `NOT_RUN` when it did
  not (ast and bytecode capture); jit then runs the compiled graph for that
  first call. Optional: a `runner` (a mode with its own cache: guards, graph
  breaks) and a `check` (refuse early where the mode cannot work).
* **The one recorder.** Every op goes through `msx.ops.primitive.apply` into a
  `builder.GraphBuilder` (`with builder.active():`); a mode never builds nodes
  itself. Cell paths come from `recording.scope` (Cell.__call__ sets it for
  library Cells; an interpreting mode sets it per frame, as bytecode does).
* **The session** (`session.capture_session(converter)`): the converter hook
  through which library code calls back into user code (Cells, autodiff), the
  recursion limit, and the write log — Tensor writes made while capturing are
  undone afterwards; the graph's updates carry them. Autodiff and dynamic
  shapes use the same `write_log`/`swapped_parameters`.
* **One failure family** (`failures`): `Unsupported` for "the graph cannot
  hold this"; `cannot_capture(reason, loc, config, stage)` turns it into a
  `CaptureFallback` (run this signature eagerly, one warning) when
  `config.fullgraph` is False, or a `CaptureError` when it is True; jax's
  concretization errors are `CONCRETE_ERRORS`; nesting stops at
  `MAX_CALL_DEPTH`; a nested `msx.jit` function (`is_jit_function`) is inlined.
  Errors of the user's code keep their type and gain the user's line — the
  innermost *user* frame, never an msx layer's.
* **The same answers as eager**: the returned value through
  `outputs.as_returned` (lazy iterables become MindSpore's tuples/lists),
  `ms.Tensor(<constants>)` a constant, a Cell with `bprop` run as a library
  call (`Cell.run_construct` records it through `msx.nn._backward` as one node
  differentiated by the bprop) instead of inlining its `construct`.

Guards (what a cache entry assumed) are `msx.runtime.guards`, one class per kind.
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
