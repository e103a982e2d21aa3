"""Node-data overlays: numbers (or labels) per IR node, shown by Model Explorer as colours and stats.

An `Overlay` holds values keyed by IR `Node` objects; `Overlay.node_data`
turns it into Model Explorer's node data (`ModelNodeData`, the JSON its
"node data" panel loads) once the graph is converted, so the same overlay
works for `msx.viz.save` files and for `msx.viz.show`. Group nodes (Cell
layers) show Model Explorer's aggregates (sum/avg/min/max) of their nodes.

The factories compute overlays from msx's own models and measurements:

- `ascend_cost(graph, metric)`: the simulated Ascend's cost model per node
  (estimated time, Cube FLOPs, bytes moved, or the unit that runs it);
- `ascend_memory(graph, metric)`: its memory model per node (bytes live while
  the node runs, bytes freed after it, or whose buffer its outputs reuse);
- `pass_diff(before, after)`: what a pass removed (on `before`) and added
  (on `after`);
- `hlo_ops(compiled, metric)`: how XLA's optimised HLO computes each node
  (the number of HLO instructions, or their names), from the instructions'
  `op_name` metadata;
- per-node measured time comes from `msx.Profiler` (`profile_time`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator

from ..errors import VizError
from ..ir.control import FUSED
from ..ir.graph import Graph, Node
from ..profiler.hlo import node_instructions
from ..backends.ascend_sim.backend import AscendSim, _names
from ..backends.ascend_sim.precision import PRECISION_MODES, apply_precision
from ..backends.ascend_sim.cost import CostModel
from ..backends.ascend_sim.memory import MemoryModel

WHITE_TO_RED = [{"stop": 0, "bgColor": "#ffffff"}, {"stop": 0.5, "bgColor": "#ffcc80"}, {"stop": 1, "bgColor": "#e53935"}]
UNIT_COLORS = {"Cube": "#ef9a9a", "Vector": "#90caf9", "AICPU": "#ffe082", "view": "#eeeeee"}
DIFF_COLORS = {"added": "#a5d6a7", "removed": "#ef9a9a", "changed inside": "#fff59d", "kept": "#ffffff"}


@dataclass
class Overlay:
    """Per-node values for one Model Explorer node-data layer. `values`: IR node -> number (or str label)."""

    name: str
    values: dict[Node, float | str] = field(default_factory=dict)
    colors: dict[str, str] = field(default_factory=dict)  # for str values: label -> background colour

    def __post_init__(self) -> None:
        bad = [v for v in self.values.values() if isinstance(v, bool) or not isinstance(v, (int, float, str))]
        if bad:
            raise VizError(f"overlay {self.name!r}: values must be numbers or str labels, got {bad[0]!r}")

    def node_data(self, converted: Any) -> Any:
        """This overlay as Model Explorer's `ModelNodeData` for the graphs of `converted` (msx.viz.explorer_graph)."""
        from ._me import node_data_builder as ndb  # optional dependency msx[viz]: Model Explorer loads on first use

        per_graph: dict[str, dict] = {g.id: {} for g in converted.graphs}
        for node, value in self.values.items():
            where = converted.node_ids.get(id(node))
            if where is None or converted.nodes.get(id(node)) is not node:
                continue  # a node of another graph (e.g. the rewritten copy a backend made)
            gid, nid = where
            color = self.colors.get(value) if isinstance(value, str) else None
            per_graph[gid][nid] = ndb.NodeDataResult(value=value, bgColor=color)
        numeric = not self.colors
        graphs = {gid: ndb.GraphNodeData(results=results, name=self.name,
                                         gradient=[ndb.GradientItem(**g) for g in WHITE_TO_RED] if numeric else [],
                                         showExpandedSummaryOnGroupNode=not numeric)
                  for gid, results in per_graph.items() if results}
        return ndb.ModelNodeData(graphsData=graphs)

    def __repr__(self) -> str:
        return f"Overlay({self.name!r}, {len(self.values)} nodes)"


# ---------------------------------------------------------------- the simulated Ascend's models
COST_METRICS = {"time": ("time_us", "Ascend est. time (us)"), "flops": ("flops", "Ascend Cube FLOPs"),
                "bytes": ("bytes", "Ascend bytes moved"), "unit": ("unit", "Ascend unit")}


def _simulation(graph: Graph, precision_mode: str | None, spec: dict | None):
    sim = AscendSim(precision_mode, **(spec or {}))
    mode = sim.resolve_precision_mode({})
    return sim, apply_precision(graph, PRECISION_MODES[mode])


def _pairs(original: Graph, rewritten: Graph, inserted: set[int]) -> Iterator[tuple[Node, list[Node]]]:
    """(original node, the rewritten nodes that carry out its work): the precision rewrite keeps the order and only
    inserts Casts, which count towards the node that reads them."""
    pending: list[Node] = []
    nodes = iter(original.nodes)
    for new in rewritten.nodes:
        if new.outputs and new.outputs[0].id in inserted:
            pending.append(new)
            continue
        yield next(nodes), pending + [new]
        pending = []


def ascend_cost(graph: Graph, metric: str = "time", precision_mode: str | None = None,
                spec: dict | None = None) -> Overlay:
    """The simulated Ascend's cost model per node: `metric` "time" (us), "flops", "bytes" or "unit".

    A higher-order node costs what its body does (a `Grad` forward and backward); nodes inside subgraphs get
    their own rows, so a body's graph is coloured too. Casts the precision rewrite inserts count towards the
    node that reads them. `precision_mode` defaults to the context's `ascend_config` (as the backend does).
    """
    if metric not in COST_METRICS:
        raise VizError(f"ascend_cost: metric must be one of {sorted(COST_METRICS)}, got {metric!r}")
    field_name, title = COST_METRICS[metric]
    sim, rewritten = _simulation(graph, precision_mode, spec)
    model = CostModel(sim.spec, rewritten.storage, rewritten.free)
    inserted = set(rewritten.origin)
    overlay = Overlay(title, colors=UNIT_COLORS if metric == "unit" else {})

    def visit(original: Graph, new_graph: Graph) -> None:
        for node, carriers in _pairs(original, new_graph, inserted):
            rows = [r for c in carriers for r in model.node_rows(c, "")]
            if metric == "unit":  # the unit of its own kernel(s), not of the casts before it
                own = model.node_rows(carriers[-1], "")
                time_by: dict[str, float] = {}
                for r in own:
                    if r.kernels:
                        time_by[r.unit] = time_by.get(r.unit, 0.0) + r.time_us
                overlay.values[node] = max(time_by, key=time_by.get) if time_by else "view"
            else:
                overlay.values[node] = float(sum(getattr(r, field_name) for r in rows))
            if node.op != FUSED.name:
                for key, sub in node.subgraphs.items():
                    visit(sub, carriers[-1].subgraphs[key])

    visit(graph, rewritten.graph)
    return overlay


MEMORY_METRICS = {"live": "Ascend live bytes", "freed": "Ascend bytes freed after", "reuse": "Ascend buffer reuse"}


def ascend_memory(graph: Graph, metric: str = "live", precision_mode: str | None = None,
                  spec: dict | None = None) -> Overlay:
    """The simulated Ascend's memory model per node of `graph` (its top level; a body's working set is its node's).

    `metric`: "live" (bytes live while the node runs — the peak is the reddest node), "freed" (bytes whose last
    use it is), or "reuse" (a label: "new buffer", or "reuses %x" when its output is a view of another buffer).
    """
    if metric not in MEMORY_METRICS:
        raise VizError(f"ascend_memory: metric must be one of {sorted(MEMORY_METRICS)}, got {metric!r}")
    _, rewritten = _simulation(graph, precision_mode, spec)
    steps: list = []
    MemoryModel(rewritten.storage, rewritten.free, _names(graph, rewritten)).peak(rewritten.graph, timeline=steps)
    by_node = {id(s.node): s for s in steps}
    overlay = Overlay(MEMORY_METRICS[metric], colors={"new buffer": "#ffcc80", "reuses a buffer": "#a5d6a7",
                                                      "no buffer": "#ffffff"} if metric == "reuse" else {})
    for node, carriers in _pairs(graph, rewritten.graph, set(rewritten.origin)):
        step = by_node[id(carriers[-1])]
        if metric == "live":
            overlay.values[node] = float(max(by_node[id(c)].live_bytes for c in carriers))
        elif metric == "freed":
            overlay.values[node] = float(sum(by_node[id(c)].freed for c in carriers))
        else:
            overlay.values[node] = ("reuses a buffer" if step.reuses else
                                    "new buffer" if step.allocated else "no buffer")
    return overlay


# ---------------------------------------------------------------- passes
def _signature(node: Node) -> tuple:
    loc = node.loc
    return (node.op, node.scope, (loc.file, loc.line, loc.col) if loc else None,
            tuple(str(v.abstract) for v in node.outputs), tuple(sorted((k, repr(v)) for k, v in node.attrs.items())))


def pass_diff(before: Graph, after: Graph) -> tuple[Overlay, Overlay]:
    """(overlay on `before`: "removed"/"kept"/"changed inside", overlay on `after`: "added"/"kept"/"changed
    inside") for one pass run (`PassRecord.before/after`). Nodes match, in order, when op, attributes, Cell
    path, source line and result types agree; matched nodes' subgraphs are compared the same way."""
    removed, added = Overlay("pass: removed", colors=DIFF_COLORS), Overlay("pass: added", colors=DIFF_COLORS)
    _diff(before, after, removed, added)
    return removed, added


def _diff(before: Graph, after: Graph, removed: Overlay, added: Overlay) -> bool:
    """Marks both graphs; True when anything differs."""
    waiting: dict[tuple, list[Node]] = {}
    for node in after.nodes:
        waiting.setdefault(_signature(node), []).append(node)
    pairs = []
    for node in before.nodes:
        match = waiting.get(_signature(node))
        if match:
            pairs.append((node, match.pop(0)))
        else:
            removed.values[node] = "removed"
    matched = {id(m) for _, m in pairs}
    for node in after.nodes:
        if id(node) not in matched:
            added.values[node] = "added"
    changed = len(pairs) != len(before.nodes) or len(pairs) != len(after.nodes)
    for old, new in pairs:
        inside = old.subgraphs.keys() != new.subgraphs.keys()
        for key in old.subgraphs.keys() & new.subgraphs.keys():
            inside |= _diff(old.subgraphs[key], new.subgraphs[key], removed, added)
        removed.values[old] = added.values[new] = "changed inside" if inside else "kept"
        changed |= inside
    return changed



# ---------------------------------------------------------------- XLA's optimised HLO, mapped back to nodes
HLO_METRICS = {"count": "HLO instructions", "ops": "HLO ops", "work": "HLO work (elements)"}


def hlo_ops(compiled: Any, metric: str = "count") -> Overlay:
    """Which instructions of XLA's optimised HLO compute each node of `compiled.lowered.graph` (`compiled` from
    `jf.lower(*args).compile()`): their number (`"count"`), their names (`"ops"`, e.g. "dot.3, add.7 (fusion)"),
    or their work (`"work"`: output elements, times the contracted size of a dot/convolution). Instructions
    inside XLA fusions count for the nodes they came from. Show it on `compiled.lowered.graph`."""
    if metric not in HLO_METRICS:
        raise VizError(f"hlo_ops: metric must be one of {sorted(HLO_METRICS)}, got {metric!r}")
    if not hasattr(compiled, "lowered") or not hasattr(compiled, "as_text"):
        raise VizError(f"hlo_ops: expected a compiled stage (jf.lower(*args).compile()), got {type(compiled).__name__}")
    values: dict[Node, float | str] = {}
    for node, insts in node_instructions(compiled).items():
        if metric == "count":
            values[node] = len(insts)
        elif metric == "work":
            values[node] = float(sum(i.weight for i in insts))
        else:
            names = [i.name for i in insts]
            values[node] = ", ".join(names[:6]) + (f" (+{len(names) - 6})" if len(names) > 6 else "")
    overlay = Overlay(HLO_METRICS[metric], values)
    if metric == "ops":
        overlay.colors = {v: "#e3f2fd" for v in values.values()}
    return overlay
