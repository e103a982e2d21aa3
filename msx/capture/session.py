"""The context every capture runs in, and the two pieces of it that autodiff and dynamic shapes share.

A capture runs the user's function once, abstractly (ast: inside
`jax.eval_shape`) or on the call's values (bytecode), and everything it
touches must be as it was afterwards — the graph's updates carry the effects:

* `capture_session(converter)`: the converter hook installed (library code
  calling back into user code is interpreted), a recursion limit deep enough
  for an interpreter, and every Tensor write undone on exit;
* `write_log(undo)`: the log of Tensor writes (`Tensor._rebind` appends
  `(obj, old array)` to the innermost log), undone always, on error, or never;
* `swapped_parameters(params, arrays)`: Parameters holding other arrays (jax
  values of a differentiated or abstract call) for the block, then their own.
"""
from __future__ import annotations

import contextlib
import sys
from typing import Any, Callable, Iterator, Sequence

from .. import tensor as tensor_mod
from ..ops.primitive import recording
from ..recording import not_recording  # noqa: F401  (the session's part that autodiff and bprops use)

RECURSION_LIMIT = 8000   # interpreting user code takes many Python frames per user call


def undo_writes(log: list) -> None:
    """Give every Tensor in `log` its array from before its first logged write."""
    for obj, old in reversed(log):
        obj._data = old


@contextlib.contextmanager
def write_log(undo: str = "always") -> Iterator[list]:
    """Log the Tensor writes made inside the block; undo them "always", "on_error" or "never"."""
    log: list = []
    tensor_mod._WRITE_LOGS.append(log)
    try:
        yield log
    except BaseException:
        if undo == "on_error":
            undo_writes(log)   # a failed call leaves nothing behind (no tracer may leak out)
        raise
    finally:
        tensor_mod._WRITE_LOGS.pop()
        if undo == "always":
            undo_writes(log)


@contextlib.contextmanager
def swapped_parameters(params: Sequence[Any], arrays: Sequence[Any]) -> Iterator[None]:
    """`params` hold `arrays` inside the block and their own arrays again after it (also on error)."""
    saved = [p._data for p in params]
    try:
        for p, a in zip(params, arrays):
            p._data = a
        yield
    finally:
        for p, a in zip(params, saved):
            p._data = a


@contextlib.contextmanager
def capture_session(converter: Callable | None) -> Iterator[list]:
    """One capture: `converter` as `recording.converter`, a deep recursion limit, writes undone on exit
    (the graph's updates carry them). Yields the write log."""
    previous, limit = recording.converter, sys.getrecursionlimit()
    recording.converter = converter
    sys.setrecursionlimit(max(limit, RECURSION_LIMIT))
    try:
        with write_log("always") as log:
            yield log
    finally:
        recording.converter = previous
        sys.setrecursionlimit(limit)
