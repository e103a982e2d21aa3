"""The backend interface: `build(graph, config) -> handle`, `run(handle, inputs) -> outputs`."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..ir.graph import Graph


@dataclass(frozen=True)
class BuildConfig:
    """What the runtime asks of a build.

    `rw_params`: indices into `graph.params` of the Parameters the graph writes
    (their buffers are donated when `donate`); `extra_outputs`: values the
    runtime needs besides the graph's outputs (guard values).
    """

    rw_params: tuple[int, ...] = ()
    donate: bool = True
    extra_outputs: tuple = ()
    jit_level: str = "O0"
    options: dict = field(default_factory=dict)


class BackendBase:
    """Subclass and implement `build` and `run`; register with `register_custom_backend`.

    The runtime calls `run(handle, (inputs, read_only_params, written_params))`
    and expects `(outputs, parameter updates, extra outputs)` back, each a list
    of arrays in graph order.
    """

    name = "base"

    def build(self, graph: Graph, config: BuildConfig) -> Any:
        raise NotImplementedError(f"backend {self.name!r} does not implement build()")

    def run(self, handle: Any, inputs: tuple) -> tuple:
        raise NotImplementedError(f"backend {self.name!r} does not implement run()")

    def as_text(self, handle: Any) -> str:
        """The backend's own text for a built graph (StableHLO for XLA)."""
        return f"<{self.name} executable>"

    def __repr__(self) -> str:
        return f"<backend {self.name}>"
