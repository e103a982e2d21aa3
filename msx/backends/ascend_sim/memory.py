"""The memory model: liveness-based peak device memory, checked against the chip's capacity.

Walking the nodes in order, a value occupies device memory from the node that
makes it to its last use; graph inputs and read-only Parameters stay resident
throughout, Parameters the graph writes are freed after their last read when
their buffers are donated, and results stay to the end. Views (and the casts
that only model float16 storage) share their input's buffer. A higher-order
node adds its own transient memory while it runs, by its rule in
`MEMORY_RULES` (this model's table keyed by the primitive, filled below): a `Grad` keeps every value its body
computes for the backward pass (no rematerialisation), `Call`, `Cond`,
`While` and `Scan` the peak of their bodies; a fused node keeps its
intermediates on chip.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import jax.numpy as jnp

from ...errors import BackendError
from ...ir.control import CALL, CASE, COND, FUSED, GRAD, GRAD_HOOK, SCAN, VMAP, WHILE
from ...ir.graph import Graph, Node, Var
from ...ir.printer import value_names
from ...ops.rule_tables import RuleTable, by_impl
from .report import format_size
from .support import VIEW, runs_as_kernel, unit_of

# `(node, model) -> bytes` of working memory while a higher-order node runs; a rule asks the model
# `body_peak(graph)` (a subgraph's peak, its inputs held outside) and `kept(graph)` (bytes of every value it computes)
# (an op with a jax impl is one kernel: no working memory beyond its inputs and outputs, derived)
MEMORY_RULES = RuleTable("memory", "msx/backends/ascend_sim/memory.py",
                         derived=by_impl(lambda node, model: 0))


class DeviceOutOfMemoryError(BackendError, MemoryError):
    """The simulated device would run out of memory: names the value being allocated and the sizes."""


@dataclass(frozen=True)
class MemoryStep:
    """One node's line of the memory model: bytes live while it runs (inputs, its new buffers, its body's working
    set), what it allocates, what is freed after it (last uses), and the buffers its outputs reuse (views)."""

    node: Node
    live_bytes: int
    allocated: int
    transient: int
    freed: int
    reuses: list[str]


class MemoryModel:
    def __init__(self, storage: dict[int, str], free: set[int], names: dict[int, str] | None = None) -> None:
        self.storage, self.free, self.names = storage, free, names or {}

    def size(self, v: Var) -> int:
        return math.prod(v.abstract.shape) * jnp.dtype(self.storage.get(v.id, v.abstract.dtype)).itemsize

    def aliases(self, node: Node) -> bool:
        """Whether the node's output is its first input's buffer (a view, or a storage-only cast)."""
        if id(node) in self.free:
            return True
        return runs_as_kernel(node.op) and unit_of(node) == VIEW and bool(node.inputs) and isinstance(node.inputs[0], Var)

    def peak(self, graph: Graph, *, resident: bool = True, donated: tuple[int, ...] = (), keep: tuple = (),
             capacity: int | None = None, what: str = "", timeline: list | None = None) -> tuple[int, str]:
        """(peak bytes, where) for `graph`; `resident=False` leaves out its inputs (an enclosing graph holds them).

        With `capacity`, raise `DeviceOutOfMemoryError` at the first node that would exceed it. A `timeline`
        list receives one `MemoryStep` per node (what the graph view's memory overlay shows).
        """
        buffer: dict[int, int] = {}      # value id -> id of the value owning its buffer
        owner: dict[int, Var] = {}       # owner id -> the value that owns the buffer
        for v in graph.inputs + graph.params:
            buffer[v.id], owner[v.id] = v.id, v
        for node in graph.nodes:
            for v in node.outputs:
                if self.aliases(node):
                    buffer[v.id] = buffer[node.inputs[0].id]
                else:
                    buffer[v.id], owner[v.id] = v.id, v
        end = len(graph.nodes)
        last: dict[int, int] = {}
        for i, node in enumerate(graph.nodes):
            for x in node.inputs:
                if isinstance(x, Var):
                    last[buffer[x.id]] = i
        for x in list(graph.outputs) + [x for _, x in graph.updates] + list(keep):
            if isinstance(x, Var):
                last[buffer[x.id]] = end
        donated_ids = {graph.params[i].id for i in donated}
        live: dict[int, int] = {}
        if resident:
            for v in graph.inputs + graph.params:
                live[v.id] = self.size(v)
                if v.id not in donated_ids:
                    last[v.id] = end
        peak, where = sum(live.values()), "the inputs"
        names = {**value_names(graph), **self.names}
        for i, node in enumerate(graph.nodes):
            new = [v for v in node.outputs if buffer[v.id] == v.id]
            alloc = sum(self.size(v) for v in new)
            work = self.transient(node)
            total = sum(live.values()) + alloc + work
            if total > peak:
                peak, where = total, _describe(node, names)
            if capacity is not None and total > capacity:
                raise self._oom(node, new, work, live, owner, total, capacity, names, what)
            for v in new:
                live[v.id] = self.size(v)
            dead = [o for o in live if last.get(o, i) <= i]
            if timeline is not None:
                reused = [names.get(buffer[v.id], "%?") for v in node.outputs if buffer[v.id] != v.id]
                timeline.append(MemoryStep(node, total, alloc, work, sum(live[o] for o in dead), reused))
            for o in dead:
                del live[o]
        return peak, where

    def transient(self, node: Node) -> int:
        """Working memory of a node while it runs: its op's `memory` rule (none for an op with a jax impl)."""
        if id(node) in self.free:
            return 0
        return MEMORY_RULES.rule_for(node.op)(node, self)  # an op with no rule is an error, never 0 bytes

    # ------------------------------------------------------------ what higher-order `memory` rules ask
    def body_peak(self, graph: Graph) -> int:
        """Peak of a subgraph whose inputs the enclosing graph holds."""
        return self.peak(graph, resident=False)[0]

    def kept(self, graph: Graph) -> int:
        """Bytes of every (non-view) value `graph` and its subgraphs compute."""
        return sum(self.size(v) for inner in _walk_defs(graph) if not self.aliases(inner) for v in inner.outputs)

    def _oom(self, node: Node, new: list[Var], work: int, live: dict[int, int], owner: dict[int, Var], total: int,
             capacity: int, names: dict[int, str], what: str) -> DeviceOutOfMemoryError:
        largest = sorted(live, key=lambda k: -live[k])[:3]
        shown = ", ".join(f"{names.get(k, '%?')} {owner[k].abstract} ({format_size(live[k])})" for k in largest)
        alloc = sum(self.size(v) for v in new)
        if new and alloc >= work:
            v = max(new, key=self.size)
            making = f"allocating {names.get(v.id, '%?')} = {node.op}(...) : {v.abstract} ({format_size(alloc)})"
        else:
            making = f"running {node.op}, which needs {format_size(work)} for the values its body keeps"
        return DeviceOutOfMemoryError(
            f"{what}: out of device memory {making} while {format_size(sum(live.values()))} are live: "
            f"{format_size(total)} needed > capacity {format_size(capacity)}. Largest live values: {shown or 'none'}. "
            f"Use smaller inputs, precision_mode='allow_mix_precision' (float16 activations) or a larger hbm_gb",
            loc=node.loc)


def _walk_defs(graph: Graph):
    """Every node of `graph` and of its subgraphs (each value is defined exactly once among them)."""
    for node in graph.nodes:
        yield node
        for sub in node.subgraphs.values():
            yield from _walk_defs(sub)


def _describe(node: Node, names: dict[int, str]) -> str:
    shown = [names.get(v.id, "%?") for v in node.outputs[:3]]
    outs = ", ".join(shown) + (f", ... ({len(node.outputs)} outputs)" if len(node.outputs) > 3 else "") or "()"
    where = f" at {node.loc.short()}" if node.loc is not None else ""
    return f"{outs} = {node.op}{where}"


# ---------------------------------------------------------------- the higher-order ops' memory rules
@MEMORY_RULES.register(GRAD)
def _grad_memory(node: Node, model: MemoryModel) -> int:
    return model.kept(node.subgraphs["body"])  # everything the forward computes is kept for the backward pass


@MEMORY_RULES.register(FUSED)
def _fused_memory(node: Node, model: MemoryModel) -> int:
    return 0  # one kernel: its intermediates stay on chip


@MEMORY_RULES.register(CALL, COND, WHILE, SCAN, CASE, GRAD_HOOK)
def _largest_peak(node: Node, model: MemoryModel) -> int:
    return max(model.body_peak(g) for g in node.subgraphs.values())


@MEMORY_RULES.register(VMAP)
def _vmap_memory(node: Node, model: MemoryModel) -> int:
    return node.attrs["axis_size"] * model.body_peak(node.subgraphs["body"])  # every example's values at once
