"""XLA backends: emit StableHLO by lowering the graph with jax, compile it, run it."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jax

from ..errors import BackendError
from ..ir.graph import Const, Graph
from ..ir.interpret import evaluate, to_struct
from .base import BackendBase, BuildConfig


def graph_function(graph: Graph, config: BuildConfig):
    """A jax function `(inputs, ro_params, rw_params) -> (outputs, updates, extras)` for the graph.

    Constant outputs are left to the runtime (they need not cross the device).
    """
    rw = set(config.rw_params)
    ro_index = [i for i in range(len(graph.params)) if i not in rw]
    rw_index = list(config.rw_params)
    var_outputs = [i for i, o in enumerate(graph.outputs) if not isinstance(o, Const)]
    probe = Graph(graph.name, graph.inputs, graph.params, graph.nodes,
                  [graph.outputs[i] for i in var_outputs] + list(config.extra_outputs), graph.updates)

    def fn(inputs, ro_params, rw_params):
        params = [None] * len(graph.params)
        for i, a in zip(ro_index, ro_params):
            params[i] = a
        for i, a in zip(rw_index, rw_params):
            params[i] = a
        outs, updates = evaluate(probe, inputs, params)
        n = len(var_outputs)
        return outs[:n], updates, outs[n:]

    return fn


@dataclass
class XlaExecutable:
    lowered: Any
    compiled: Any

    def as_text(self) -> str:
        return self.lowered.as_text()


class XlaBackend(BackendBase):
    """XLA on one jax platform ("cpu", "gpu" or "tpu")."""

    def __init__(self, platform: str) -> None:
        self.name = platform
        self.platform = platform

    def device(self):
        try:
            return jax.devices(self.platform)[0]
        except RuntimeError:
            return None

    def lower(self, graph: Graph, config: BuildConfig):
        """Emit StableHLO: jax lowers the graph's evaluation (a `jax.stages.Lowered`)."""
        device = self.device()
        if device is None:
            raise BackendError(f"backend {self.name!r}: no {self.platform} device on this machine "
                               f"(jax sees: {sorted({d.platform for d in jax.devices()})})")
        fn = graph_function(graph, config)
        rw = set(config.rw_params)
        structs = ([to_struct(v.abstract) for v in graph.inputs],
                   [to_struct(v.abstract) for i, v in enumerate(graph.params) if i not in rw],
                   [to_struct(graph.params[i].abstract) for i in config.rw_params])
        jitted = jax.jit(fn, donate_argnums=(2,) if config.donate and config.rw_params else ())
        return jitted.lower(*structs)

    def build(self, graph: Graph, config: BuildConfig) -> XlaExecutable:
        lowered = self.lower(graph, config)
        return XlaExecutable(lowered, lowered.compile())

    def run(self, handle: XlaExecutable, inputs: tuple) -> tuple:
        return handle.compiled(*inputs)

    def as_text(self, handle: XlaExecutable) -> str:
        return handle.as_text()
