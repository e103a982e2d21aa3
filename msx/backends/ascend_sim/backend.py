"""`AscendSim`: run Ascend-targeted code on a machine with no Ascend chip and see what it would do there.

A simulation, and named so everywhere: it applies Ascend's precision rules
and supported-op table to the graph, estimates time and memory with a cost
model, refuses what the chip cannot run, and executes the result on XLA CPU.
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar

import numpy as np

from ...context import get_context
from ...errors import BackendError
from ...ir.graph import Const, Graph, Node
from ...ir.printer import value_names
from ...ir.verifier import verify
from ..base import BackendBase, BuildConfig
from ..xla import XlaBackend, XlaExecutable
from .cost import CostModel
from .memory import MemoryModel
from .precision import PRECISION_MODES, Rewritten, apply_precision, check_precision_mode
from .report import AscendSpec, ProfileReport
from .support import AICPU, runs_as_kernel, unit_of

DEFAULT_PRECISION_MODE = "force_fp16"


@dataclass
class AscendExecutable:
    """A graph built for the simulated Ascend: the XLA CPU executable of the rewritten graph and its report."""

    xla: XlaExecutable
    report: ProfileReport
    graph: Graph  # after the precision rewrite
    checks_argument_types: ClassVar[bool] = True  # its XLA executable does


class AscendSim(BackendBase):
    """A simulated Ascend NPU (Cube/Vector precision rules, supported-op table, cost and memory model).

    `precision_mode`: "force_fp16", "force_bf16", "allow_mix_precision",
    "allow_mix_precision_bf16" or "must_keep_origin_dtype"; None follows
    `set_context(ascend_config={"precision_mode": ...})` when a graph is built (default "force_fp16").
    `jit(..., precision_mode=...)` overrides it per function. The keyword
    arguments describe the chip (`AscendSpec`: peak_tflops, fp32_tflops,
    hbm_gb, hbm_gbps, launch_us, aicpu_gbps, aicpu_launch_us, chip).
    After each run, `last_report` is the `ProfileReport` of the graph that ran.
    """

    options = ("precision_mode",)

    def __init__(self, precision_mode: str | None = None, *, name: str | None = None, **spec: Any) -> None:
        if precision_mode is not None:
            check_precision_mode(precision_mode)
        known = {f.name for f in fields(AscendSpec)}
        unknown = sorted(set(spec) - known)
        if unknown:
            raise TypeError(f"AscendSim: unknown argument(s) {unknown}; the chip is described by {sorted(known)}")
        for key, value in spec.items():
            if key == "chip" and not isinstance(value, str):
                raise ValueError(f"AscendSim: chip must be a str, got {value!r}")
            if key != "chip" and (isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0):
                raise ValueError(f"AscendSim: {key} must be a positive number, got {value!r}")
        self.name = name
        self.precision_mode = precision_mode
        self.spec = AscendSpec(**spec)
        self.last_report: ProfileReport | None = None
        self._cpu = XlaBackend("cpu")

    def check_options(self, options: dict) -> None:
        if "precision_mode" in options:
            check_precision_mode(options["precision_mode"])

    def resolve_precision_mode(self, options: dict) -> str:
        """The jit option, else this backend's own mode, else the context's `ascend_config`, else "force_fp16"."""
        mode = options.get("precision_mode") or self.precision_mode
        return mode or get_context("ascend_config").get("precision_mode", DEFAULT_PRECISION_MODE)

    @property
    def _what(self) -> str:
        return f"backend {self.name!r} ({self.spec.chip}, simulated)"

    def build(self, graph: Graph, config: BuildConfig) -> AscendExecutable:
        mode = self.resolve_precision_mode(config.options)
        _refuse_float64(graph, self._what)
        if config.fullgraph:
            _refuse_fallbacks(graph, self._what)
        rewritten = apply_precision(graph, PRECISION_MODES[mode])
        verify(rewritten.graph, infer=False)
        memory = MemoryModel(rewritten.storage, rewritten.free, _names(graph, rewritten))
        peak, at = memory.peak(rewritten.graph, donated=config.rw_params if config.donate else (),
                               keep=config.extra_outputs, capacity=self.spec.capacity_bytes, what=self._what)
        rows = CostModel(self.spec, rewritten.storage, rewritten.free).rows(rewritten.graph)
        report = ProfileReport(graph.name, mode, self.spec, rows, peak, at)
        return AscendExecutable(self._cpu.build(rewritten.graph, config), report, rewritten.graph)

    def place(self, array: Any) -> Any:
        return self._cpu.place(array)

    def run(self, handle: AscendExecutable, inputs: tuple) -> tuple:
        handle.report.runs += 1
        self.last_report = handle.report
        return self._cpu.run(handle.xla, inputs)

    def as_text(self, handle: AscendExecutable) -> str:
        return (f"// {handle.report.device}, precision_mode={handle.report.precision_mode!r}: "
                f"the StableHLO the simulation runs\n{handle.xla.as_text()}")

    def __repr__(self) -> str:
        mode = self.precision_mode or "from context"
        return f"<backend {self.name}: {self.spec.chip}, simulated on XLA CPU, precision_mode={mode}>"


def _names(graph: Graph, rewritten: Rewritten) -> dict[int, str]:
    """Values named as in the user's graph; a rounded copy as `%x:f16`."""
    names = value_names(graph)
    for new, old in rewritten.origin.items():
        if old in names:
            names[new] = f"{names[old]}:{_SHORT[rewritten.storage[new]]}"
    return names


_SHORT = {"float16": "f16", "bfloat16": "bf16"}


# ---------------------------------------------------------------- what the chip refuses
def _values(graph: Graph):
    """(value, the node that makes it or None, what it is) for every value of `graph` and its subgraphs."""
    names = value_names(graph)
    for v in graph.inputs:
        yield v, None, f"input {names[v.id]}"
    for v in graph.params:
        yield v, None, f"parameter {names[v.id]}"
    for node in graph.nodes:
        for v in node.outputs:
            yield v, node, f"{names[v.id]} = {node.op}"
        for x in node.inputs:
            if isinstance(x, Const) and isinstance(x.value, np.ndarray):
                yield x, node, f"a constant operand of {node.op}"
        for sub in node.subgraphs.values():
            yield from _values(sub)


def _refuse_float64(graph: Graph, what: str) -> None:
    for value, node, described in _values(graph):
        if value.abstract.dtype == "float64":
            raise BackendError(f"{what}: float64 is not supported (Ascend has no float64 kernels): {described} "
                               f"is {value.abstract}; cast to float32 first (x.astype(ms.float32))",
                               loc=node.loc if node is not None else None)


def _primitive_nodes(graph: Graph):
    for node in graph.nodes:
        if runs_as_kernel(node.op):
            yield node
        for sub in node.subgraphs.values():
            yield from _primitive_nodes(sub)


def _refuse_fallbacks(graph: Graph, what: str) -> None:
    fallbacks: list[Node] = [n for n in _primitive_nodes(graph) if unit_of(n) == AICPU]
    if fallbacks:
        node = fallbacks[0]
        types = ", ".join(str(x.abstract) for x in node.inputs if not isinstance(x, Const))
        others = f" (and {len(fallbacks) - 1} more)" if len(fallbacks) > 1 else ""
        raise BackendError(f"{what}: {node.op}({types}) has no AI Core kernel and would run on the AICPU{others}; "
                           f"fullgraph=True forbids fallbacks (with fullgraph=False it runs on the AICPU and the "
                           f"profile report marks it)", loc=node.loc)
