"""Turning a recorded trace into msx's tables: time per msx node, per stage, eager vs compiled, memory.

XLA op executions (`op_events.read_op_events`) are mapped to the msx graph each
module was built from (`msx.backends.xla.BUILT`) and, through the HLO
metadata, to msx nodes (`hlo.HloMap`); a fused XLA op's time is shared among
its msx nodes by their work. Host events (`msx.hostevents`) give the stage
times: passes, XLA compile, graph runs, eager primitive dispatch (and
capture, where the jit runtime reports it).
"""
from __future__ import annotations

import csv
import gzip
import io
import json
import os
from dataclasses import asdict, dataclass, field
from typing import Any, Callable

from ..atomic import write_atomic
from ..backends.xla import BUILT, module_name
from ..ir.graph import Graph, Node
from ..viz.overlays import Overlay
from .hlo import HloMap, Site
from .op_events import OpEvent

STAGE_KINDS = {"msx.capture": "capture", "msx.passes": "passes", "msx.compile": "XLA compile",
               "msx.run": "graph run (host)", "msx.eager": "eager ops (host)"}
UNATTRIBUTED = "(XLA, no msx node)"
RUNTIME = "(XLA runtime, between ops)"


@dataclass
class NodeTime:
    """One row of the per-node table: an msx node of a compiled graph and the time XLA spent on it."""

    graph: str          # the compiled graph's name
    path: str           # "Grad#0/body/Dense#0": node index path through subgraphs
    op: str
    scope: str          # the Cell path
    where: str          # the user's file:line
    calls: int          # executions of its graph while profiling
    total_us: float
    forward_us: float
    backward_us: float  # the node's share of the gradient computation (XLA ops transposed from it)
    share: float        # of the measured time of all compiled graphs
    node: Node | None = field(default=None, repr=False, compare=False)

    @property
    def mean_us(self) -> float:
        return self.total_us / self.calls if self.calls else 0.0


def _module_maps() -> dict[str, list[tuple[Any, HloMap | None]]]:
    maps: dict[str, list] = {}
    for ref in BUILT:
        handle = ref()
        if handle is not None and handle.graph is not None:
            maps.setdefault(f"jit_{module_name(handle.graph)}", []).append([handle, None])
    return maps


def _hlo_map(entry: list) -> HloMap:
    if entry[1] is None:
        entry[1] = HloMap(entry[0].compiled.as_text(), entry[0].graph)
    return entry[1]


def _pick(entries: list, op: str) -> list:
    """The executable a trace event of `op` belongs to (graphs can share a name: the newest holding `op`)."""
    for entry in reversed(entries):
        if op in _hlo_map(entry).instructions:
            return entry
    return entries[-1]


@dataclass
class ProfileResult:
    """What `Profiler.analyse()` found: `rows` (per msx node, longest first), `stages`, `summary`, files written."""

    rows: list[NodeTime]
    stages: dict[str, float]          # stage -> seconds
    summary: dict[str, Any]
    eager_ops: dict[str, tuple[int, float]]   # primitive -> (calls, host seconds)
    files: dict[str, str] = field(default_factory=dict)
    graphs: dict[str, Graph] = field(default_factory=dict, repr=False)

    def top(self, k: int = 10) -> list[NodeTime]:
        return self.rows[:k]

    def as_dicts(self) -> list[dict]:
        """The per-node table as records (e.g. `pandas.DataFrame(result.as_dicts())`)."""
        out = []
        for r in self.rows:
            d = asdict(r)
            d.pop("node")
            d["mean_us"] = r.mean_us
            out.append(d)
        return out

    def graph(self, name: str | None = None) -> Graph:
        """The compiled graph the rows of `name` (default: the graph with the most time) refer to."""
        if not self.graphs:
            raise KeyError("no compiled msx graph ran while profiling")
        if name is None:
            totals: dict[str, float] = {}
            for r in self.rows:
                totals[r.graph] = totals.get(r.graph, 0.0) + r.total_us
            name = max(totals, key=totals.get) if totals else next(iter(self.graphs))
        return self.graphs[name]

    def overlay(self, name: str | None = None):
        """Measured time per node of `graph(name)` as a graph-view overlay (`msx.viz.save(result.graph(), ...)`)."""
        graph = self.graph(name)
        values: dict[Node, float] = {}
        for r in self.rows:
            if r.graph == graph.name and r.node is not None:
                values[r.node] = values.get(r.node, 0.0) + r.total_us
        return Overlay("measured time (us)", values)

    def table(self, k: int | None = None) -> str:
        head = ("node", "op", "cell", "where", "calls", "total us", "mean us", "fwd us", "bwd us", "share")
        rows = [(f"{r.graph}:{r.path}" if r.node is not None else f"{r.graph}: {r.path or UNATTRIBUTED}", r.op, r.scope, r.where, r.calls,
                 f"{r.total_us:.1f}", f"{r.mean_us:.1f}", f"{r.forward_us:.1f}", f"{r.backward_us:.1f}",
                 f"{100 * r.share:.1f}%") for r in self.rows[:k]]
        widths = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
        lines = ["  ".join(str(x).ljust(w) for x, w in zip(row, widths)).rstrip() for row in [head, *rows]]
        lines.insert(1, "  ".join("-" * w for w in widths))
        return "\n".join(lines)

    def __str__(self) -> str:
        s = self.summary
        stages = ", ".join(f"{k} {v * 1e3:.2f} ms" for k, v in self.stages.items())
        memory = s.get("peak_device_memory_bytes")
        mem = f"{memory} bytes" if memory is not None else \
            f"not reported ({s.get('memory_note', 'recorded with profile_memory=True')})"
        return (f"msx profile: {s['graph_runs']} compiled-graph runs, {s['compiled_us']:.1f} us in compiled graphs "
                f"({s['graph_span_us']:.1f} us from first to last op of each run), {s['eager_xla_us']:.1f} us in "
                f"eager XLA ops\nstages: {stages or 'none recorded'}\npeak device memory: {mem}\n{self.table(20)}")


def _union(intervals: list[tuple[int, int]]) -> int:
    """The time covered by at least one of `intervals` (ns)."""
    covered, end = 0, None
    for a, b in sorted(intervals):
        if end is None or a > end:
            covered, end = covered + (b - a), b
        elif b > end:
            covered, end = covered + (b - end), b
    return covered


def analyse_events(events: list[OpEvent], host: list[tuple[str, str, int, int]], memory: dict) -> ProfileResult:
    """The tables for one recording: `events` from the trace, `host` from `msx.hostevents`."""
    maps = _module_maps()
    per_site: dict[tuple[str, Site], list[float]] = {}   # -> [total, forward, backward]
    runs: dict[str, set[int]] = {}
    spans: dict[tuple[str, int], list[int]] = {}
    graphs: dict[str, Graph] = {}
    busy: dict[tuple[str, int], int] = {}
    intervals: dict[tuple[str, int], list[tuple[int, int]]] = {}
    compiled_ns = eager_ns = 0.0
    for e in events:
        entries = maps.get(e.module)
        if not entries:
            eager_ns += e.self_ns
            continue
        entry = _pick(entries, e.op)
        graph = entry[0].graph
        graphs[graph.name] = graph
        runs.setdefault(graph.name, set()).add(e.run_id)
        span = spans.setdefault((graph.name, e.run_id), [e.start_ns, e.start_ns])
        span[0], span[1] = min(span[0], e.start_ns), max(span[1], e.start_ns + e.dur_ns)
        compiled_ns += e.self_ns
        busy[(graph.name, e.run_id)] = busy.get((graph.name, e.run_id), 0) + e.self_ns
        intervals.setdefault((graph.name, e.run_id), []).append((e.start_ns, e.start_ns + e.dur_ns))
        for site, fraction in _hlo_map(entry).shares(e.op):
            acc = per_site.setdefault((graph.name, site), [0.0, 0.0, 0.0])
            acc[0] += e.self_ns * fraction
            acc[2 if site.backward else 1] += e.self_ns * fraction
    overlap_ns = 0
    for key, (first, last) in spans.items():   # time inside a run when no XLA op was running
        acc = per_site.setdefault((key[0], Site(None, RUNTIME, False)), [0.0, 0.0, 0.0])
        covered = _union(intervals[key])
        acc[0] += (last - first) - covered
        overlap_ns += max(busy[key] - covered, 0)  # XLA ran ops of this run at the same time
    merged: dict[tuple[str, int | None, str], NodeTime] = {}
    for (gname, site), (total, fwd, bwd) in per_site.items():
        key = (gname, id(site.node) if site.node is not None else None, site.path)
        row = merged.get(key)
        if row is None:
            node = site.node
            loc = node.loc if node is not None else None
            row = NodeTime(gname, site.path, node.op if node else "", node.scope if node else "",
                           f"{loc.file}:{loc.line}" if loc else "", len(runs[gname]), 0.0, 0.0, 0.0, 0.0, node)
            merged[key] = row
        row.total_us += total / 1e3
        row.forward_us += fwd / 1e3
        row.backward_us += bwd / 1e3
    rows = sorted(merged.values(), key=lambda r: -r.total_us)
    step_us = sum(r.total_us for r in rows)   # = the runs' device time (first op start to last op end) + overlap
    for r in rows:
        r.share = r.total_us / step_us if step_us else 0.0
    stages: dict[str, float] = {}
    eager_ops: dict[str, tuple[int, float]] = {}
    for kind, name, start, end in host:
        label = STAGE_KINDS.get(kind)
        if label is not None:
            stages[label] = stages.get(label, 0.0) + (end - start) / 1e9
        if kind == "msx.eager":
            calls, seconds = eager_ops.get(name, (0, 0.0))
            eager_ops[name] = (calls + 1, seconds + (end - start) / 1e9)
    summary = {"graph_runs": sum(len(v) for v in runs.values()), "compiled_us": compiled_ns / 1e3,
               "graph_span_us": sum(b - a for a, b in spans.values()) / 1e3, "overlap_us": overlap_ns / 1e3,
               "eager_xla_us": eager_ns / 1e3,
               "runs_per_graph": {k: len(v) for k, v in runs.items()}, **memory}
    return ProfileResult(rows, stages, summary, eager_ops, graphs=graphs)


def write_outputs(result: ProfileResult, folder: str, events: list[OpEvent], metadata: dict) -> None:
    """`msx_node_table.csv`, `msx_profile.json` and `msx_trace.json.gz` (a Chrome/Perfetto trace whose XLA op
    events are named after the msx nodes they compute) in `folder`, atomically."""
    os.makedirs(folder, exist_ok=True)
    buf = io.StringIO()
    records = result.as_dicts()
    writer = csv.DictWriter(buf, fieldnames=list(records[0]) if records else ["graph", "path"])
    writer.writeheader()
    writer.writerows(records)
    table = os.path.join(folder, "msx_node_table.csv")
    write_atomic(table, [buf.getvalue().encode()])
    summary = os.path.join(folder, "msx_profile.json")
    write_atomic(summary, [json.dumps({"summary": result.summary, "stages_s": result.stages,
                                       "eager_ops": {k: {"calls": c, "host_s": s} for k, (c, s) in
                                                     result.eager_ops.items()},
                                       "metadata": metadata, "nodes": records}, indent=1, default=str).encode()])
    trace = os.path.join(folder, "msx_trace.json.gz")
    write_atomic(trace, [gzip.compress(json.dumps({"traceEvents": _trace_events(events)}).encode())])
    result.files.update({"table": table, "summary": summary, "trace": trace})


def _msx_sites(maps: dict, module: str, op: str) -> tuple[Graph, list[tuple[Site, float]]] | None:
    """The msx graph and node shares an XLA op (`op` in HLO module `module`) computes; None if msx built neither."""
    entries = maps.get(module)
    if not entries:
        return None
    entry = _pick(entries, op)
    shares = [(s, f) for s, f in _hlo_map(entry).shares(op) if s.node is not None]
    return (entry[0].graph, shares) if shares else None


def _node_names(shares: list[tuple[Site, float]]) -> str:
    """"Dense + ReLU (bwd)": the msx ops an XLA op fuses, four at most."""
    return " + ".join(f"{s.node.op}{' (bwd)' if s.backward else ''}" for s, _ in shares[:4]) + \
        (" + ..." if len(shares) > 4 else "")


def xprof_namer() -> Callable[[str, str], tuple[str, str] | None]:
    """Names for `xplane.name_xla_ops`: an XLA op's display name (the msx ops it fuses, their Cells, XLA's own
    name) and its framework op `"<Cell path>/<node path>:<op>"` after the node with the largest share of its work."""
    maps = _module_maps()

    def namer(module: str, op: str) -> tuple[str, str] | None:
        found = _msx_sites(maps, module, op)
        if found is None:
            return None
        graph, shares = found
        cells = ", ".join(sorted({s.node.scope for s, _ in shares if s.node.scope}))
        display = f"{_node_names(shares)}{f' [{cells}]' if cells else ''} ({op})"
        main = max(shares, key=lambda sf: sf[1])[0]
        name = "/".join(p for p in (main.node.scope or graph.name, main.path.replace("#", "_")) if p)
        return display, f"{name}{'/backward' if main.backward else ''}:{main.node.op}"   # XProf's op names have no '#'

    return namer


def _trace_events(events: list[OpEvent]) -> list[dict]:
    maps = _module_maps()
    threads: dict[str, int] = {}
    out = []
    for e in events:
        tid = threads.setdefault(e.thread, len(threads) + 1)
        args: dict[str, Any] = {"hlo_module": e.module, "hlo_op": e.op, "run_id": e.run_id}
        name = e.op
        found = _msx_sites(maps, e.module, e.op)
        if found is not None:
            graph, shares = found
            name = _node_names(shares)
            args["msx_nodes"] = [f"{graph.name}:{s.path}" for s, _ in shares]
            args["cells"] = sorted({s.node.scope for s, _ in shares if s.node.scope})
            args["source"] = sorted({f"{s.node.loc.file}:{s.node.loc.line}" for s, _ in shares if s.node.loc})
        out.append({"name": name, "ph": "X", "ts": e.start_ns / 1e3, "dur": e.self_ns / 1e3, "pid": 1, "tid": tid,
                    "args": args})
    out += [{"name": "thread_name", "ph": "M", "pid": 1, "tid": tid, "args": {"name": thread}}
            for thread, tid in threads.items()]
    return out
