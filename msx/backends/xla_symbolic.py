"""Shape-polymorphic builds for the XLA backends: StableHLO emitted once, one XLA compile per concrete shape.

A graph whose inputs have symbolic dims (`f32[s0,784]`) is lowered once with
jax's symbolic shapes into a `jax.export.Exported` (shape-polymorphic
StableHLO). XLA needs concrete shapes, so `run` compiles that module for each
new concrete input shape and caches the executable; only the XLA compile is
paid per shape — capture, passes and emission are not repeated.
"""
from __future__ import annotations

from typing import Any, Callable

import jax

from ..ir.graph import Graph
from ..ir.interpret import to_struct
from ..ir.symbolic import is_symbolic
from .base import BuildConfig


def has_symbolic_inputs(graph: Graph) -> bool:
    return any(is_symbolic(v.abstract.shape) for v in graph.inputs)


class PolymorphicExecutable:
    """The exported module plus its per-shape XLA executables; `on_compile(shapes)` hears of each compile."""

    def __init__(self, exported: jax.export.Exported, donate: tuple, device: Any) -> None:
        self.exported, self.donate, self.device = exported, donate, device
        self.executables: dict[tuple, Any] = {}
        self.on_compile: Callable[[tuple], None] | None = None

    @property
    def compiles(self) -> int:
        return len(self.executables)

    def executable(self, inputs: tuple) -> Any:
        key = tuple(tuple(x.shape) for x in inputs[0])
        compiled = self.executables.get(key)
        if compiled is None:
            compiled = jax.jit(self.exported.call, donate_argnums=self.donate).lower(*inputs).compile()
            self.executables[key] = compiled
            if self.on_compile is not None:
                self.on_compile(key)
        return compiled

    def as_text(self) -> str:
        return self.exported.mlir_module()


def build_polymorphic(function: Callable, graph: Graph, config: BuildConfig, device: Any) -> PolymorphicExecutable:
    """Export `function(inputs, ro_params, rw_params)` with the graph's symbolic input shapes."""
    rw = set(config.rw_params)
    args = ([to_struct(v.abstract) for v in graph.inputs],
            [to_struct(v.abstract) for i, v in enumerate(graph.params) if i not in rw],
            [to_struct(graph.params[i].abstract) for i in config.rw_params])
    platform = {"gpu": "cuda"}.get(device.platform, device.platform)
    exported = jax.export.export(jax.jit(function), platforms=[platform])(*args)
    donate = (2,) if config.donate and config.rw_params else ()
    return PolymorphicExecutable(exported, donate, device)
