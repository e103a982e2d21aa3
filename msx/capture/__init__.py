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
* **For an interpreting mode: the one table and the one policy.** Builtins it
  runs itself are the capture rules of `handlers` (one per builtin, for every
  such mode), given the mode's `HandlerContext`; a call it does not interpret
  gets `policy.judge`'s verdict, and the mode acts on it (a graph break, a
  fallback, or running it at compile time).

Guards (what a cache entry assumed) are `msx.runtime.guards`, one class per kind.
"""
from __future__ import annotations

from .modes import (CAPTURE_CHECKS, CAPTURE_MODES, CAPTURE_RUNNERS, NOT_RUN,  # noqa: F401  (the package's names)
                    register_capture_mode)


# The modes load at first use: `capture.builder` and `capture.session`, which layers below nn import, live
# in this package, and every import of them runs this file; the modes stand on nn (docs/architecture.md).
def _trace(fn, args, kwargs, name, config):
    from .trace import capture_trace  # at first use: see above

    return capture_trace(fn, args, kwargs, name)


def _ast(fn, args, kwargs, name, config):
    from .ast_capture import capture_ast  # at first use: see above

    return capture_ast(fn, args, kwargs, name, config)


def _bytecode(fn, args, kwargs, name, config):
    from .bytecode import capture_bytecode  # at first use: see above

    return capture_bytecode(fn, args, kwargs, name, config)


def _bytecode_runner(pipeline):
    from .bytecode import make_runner  # at first use: see above

    return make_runner(pipeline)


def _bytecode_check():
    from .bytecode import check_python  # at first use: see above

    check_python()


register_capture_mode("trace", _trace)
register_capture_mode("ast", _ast)
register_capture_mode("bytecode", _bytecode, runner=_bytecode_runner, check=_bytecode_check)
