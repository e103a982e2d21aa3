"""The backend interface: `build(graph, config) -> handle`, `run(handle, inputs) -> outputs`."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Any

from ..ir.graph import Const, Graph, Operand


@dataclass(frozen=True)
class BuildConfig:
    """What the runtime asks of a build.

    `rw_params`: indices into `graph.params` of the Parameters the graph writes
    (their buffers are donated when `donate`); `extra_outputs`: values the
    runtime needs besides the graph's outputs (guard values); `fullgraph`: the
    user's `jit(fullgraph=...)` (a backend that would fall back for part of the
    graph must refuse instead); `options`: `jit`'s extra keyword options.
    """

    rw_params: tuple[int, ...] = ()
    donate: bool = True
    extra_outputs: tuple = ()
    jit_level: str = "O0"
    fullgraph: bool = False
    options: dict = field(default_factory=dict)

    def merge_params(self, graph: Graph, ro_params, rw_params) -> list:
        """The read-only and written Parameter arrays `run` receives, back in `graph.params` order."""
        rw = set(self.rw_params)
        merged: list = [None] * len(graph.params)
        for i, a in zip([i for i in range(len(graph.params)) if i not in rw], ro_params):
            merged[i] = a
        for i, a in zip(self.rw_params, rw_params):
            merged[i] = a
        return merged

    def result_values(self, graph: Graph) -> tuple[list[Operand], list[Operand], list[Operand]]:
        """The graph values `run` must return: (outputs that are not constants, updates, extras)."""
        return ([o for o in graph.outputs if not isinstance(o, Const)], [v for _, v in graph.updates],
                list(self.extra_outputs))


class BackendBase:
    """Subclass and implement `build` and `run`; register with `register_custom_backend`.

    The runtime calls `run(handle, (inputs, read_only_params, written_params))`
    and expects `(outputs, parameter updates, extra outputs)` back, each a list
    of arrays in graph order (`BuildConfig.merge_params` and
    `BuildConfig.result_values` say which values those are). Constant outputs
    are filled in by the runtime, so `outputs` leaves them out.

    Every call of a jitted function runs on the backend, the first one too
    (unless `reproduces_eager`: then a trace-mode first call may keep the
    eager result it computed while capturing).

    Optional: `passes()` (graph -> graph passes for the backend stage),
    `options` (names of `jit(**options)` this backend accepts) with
    `check_options`, `available()` (False where this machine lacks the device),
    `place(array)` (move a Parameter's array to the backend's device),
    `direct(handle)` with `run_error` (the runtime's hot path calls the executable itself).
    """

    name = "base"
    options: tuple[str, ...] = ()
    reproduces_eager = False  # True: results equal eager execution's, so jit may keep a trace run's eager answer
    supports_symbolic = False  # True: build() accepts graphs with symbolic input dims (dynamic shapes)

    def build(self, graph: Graph, config: BuildConfig) -> Any:
        raise NotImplementedError(f"backend {self.name!r} does not implement build()")

    def run(self, handle: Any, inputs: tuple) -> tuple:
        raise NotImplementedError(f"backend {self.name!r} does not implement run()")

    def direct(self, handle: Any) -> Callable[..., tuple] | None:
        """A callable that does what `run(handle, inputs)` does, called as `call(*inputs)`, for the runtime's
        hot path (a call like the last hit), or None: always `run`.

        The contract: it is only called while no eager tape records and no host events are traced; it
        refuses an argument of another shape, dtype or device, or a jax tracer, with a TypeError or
        ValueError before running anything (nothing donated: the runtime then takes the checked path);
        any other failure is a RuntimeError that `run_error` turns into what `run` would have raised.
        """
        return None

    def run_error(self, handle: Any, exc: RuntimeError) -> BaseException:
        """The error `run` raises for `exc`, raised by a `direct` call of `handle`."""
        return exc

    def passes(self) -> list:
        """Backend-stage passes (Graph -> Graph) the pass manager runs before `build`."""
        return []

    def place(self, array: Any) -> Any:
        """`array` on this backend's device; the runtime places a graph's Parameters with it once, at build."""
        return array

    def available(self) -> bool:
        """Whether this machine can run the backend (its device is present)."""
        return True

    def check_options(self, options: dict) -> None:
        """Raise ValueError for a bad value of one of `self.options` (jit has already checked the names)."""

    def as_text(self, handle: Any) -> str:
        """The backend's own text for a built graph (StableHLO for XLA)."""
        return f"<{self.name} executable>"

    def __repr__(self) -> str:
        return f"<backend {self.name}>"
