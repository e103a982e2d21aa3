"""msx's host-side profiler events: named spans (capture, passes, XLA compile, run, eager ops) while profiling.

Lower layers (ops, passes, backends) call `span("msx.passes", name)`; with no
profiler running `ACTIVE` is False and `span` returns one shared no-op
context, so an inactive profiler costs one global read. While `msx.Profiler`
runs, each span is a `jax.profiler.TraceAnnotation` (it shows in the
Perfetto / TensorBoard trace) and is also kept in `EVENTS` as
(kind, name, start_ns, end_ns) for the profiler's per-stage table.

jax dispatches asynchronously: a step whose result the user drops is still
running when the profiler stops, and its XLA ops would fall outside the trace
(the documented `for ...: step(x)` loop then gives an empty table). While
profiling, every compiled run's outputs are held in `PENDING` so that the
profiler can wait for them before it stops the trace.
"""
from __future__ import annotations

import contextlib
import time
from typing import Iterator
import jax

ACTIVE = False
EVENTS: list[tuple[str, str, int, int]] = []
PENDING: list = []   # outputs of runs dispatched while profiling, waited for when the trace stops
_NOTHING = contextlib.nullcontext()


@contextlib.contextmanager
def _recorded(kind: str, name: str) -> Iterator[None]:
    start = time.perf_counter_ns()
    try:
        with jax.profiler.TraceAnnotation(f"{kind}:{name}"):
            yield
    finally:
        EVENTS.append((kind, name, start, time.perf_counter_ns()))


def span(kind: str, name: str = ""):
    """A context that records `kind` ("msx.passes", ...) for `name` while profiling, and does nothing otherwise."""
    return _recorded(kind, name) if ACTIVE else _NOTHING


def mark(kind: str, name: str = "") -> None:
    """An instant event (a cache hit, a graph break) while profiling."""
    if ACTIVE:
        now = time.perf_counter_ns()
        EVENTS.append((kind, name, now, now))


def hold(outputs):
    """Keep a run's outputs (jax arrays, or a tuple of them) until the profiler waits for them; returns them."""
    if ACTIVE:
        PENDING.append(outputs)
    return outputs


def wait_for_pending() -> None:
    """Block until every run dispatched while profiling has finished, then forget them."""
    pending = PENDING[:]
    PENDING.clear()
    jax.block_until_ready(pending)
