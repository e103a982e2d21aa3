"""Capture's hooks into eager execution: the recorder every op reports to while a capture runs.

It lives in the bottom layer because both `tensor` (Parameter writes, Tensor
copies, concrete reads) and `ops` (every primitive call) report to it, and a
capture mode (a higher layer) installs the recorder — the registry-entry way
a lower layer reaches a higher one (ARCHITECTURE rule 10).
"""
from __future__ import annotations

import contextlib
import threading
from typing import Any, Iterator


class _Recording(threading.local):
    """Hooks for capture: when `recorder` is set, every `apply` is reported to it; when `converter` is set
    (source capture), library code calling back into user code (a Cell's `construct`, a differentiated
    function) calls `converter(fn, args, kwargs)` instead of `fn(*args, **kwargs)`, so the user code is captured
    from its source too. Per thread: ops run by another thread (a dataset's prefetch thread) are not captured.

    A recorder implements `record(prim, inputs, attrs, result)`, `on_rebind(obj, new)`, `on_alias(obj, src)`,
    `on_concrete(t, what)`, `on_cell(cell)` (a Cell was called: its state is guarded) `uses(t)` and `grad_hook(t, hook)`; see
    `msx.capture.builder.GraphBuilder`."""

    recorder: Any = None
    converter: Any = None
    scope: str = ""        # the Cell path recorded ops get as `Node.scope` (maintained by `Cell.__call__`)
    scope_cell: Any = None  # the innermost Cell being captured, to name its children by attribute
    recompute: bool = False  # a call of an op marked by `Primitive.recompute()` is recording: its nodes carry it
    recompute_cell: int = 0  # >0 while a recomputed Cell's forward runs (everything in it is recomputed)


recording = _Recording()


@contextlib.contextmanager
def not_recording() -> Iterator[None]:
    """Ops run inside a node's implementation or inside jax's backward pass (a bprop) are not the captured
    program's: nothing records them (the recorder and the converter are off for the block)."""
    previous = recording.recorder, recording.converter
    recording.recorder = recording.converter = None
    try:
        yield
    finally:
        recording.recorder, recording.converter = previous
