"""`JitFunction.explain(*args)`: what one call did, in words — graphs, breaks, guards, recompilations.

One report for every capture mode, built from the cache entries the call went through — each a
`msx.runtime.entries.CacheEntry`, whatever the mode: bytecode's each piece (a call with graph breaks goes
through several), ast's and trace's the one entry of the call's signature.

Each graph break is reported with its reason, the user's line underlined and
a concrete suggestion ("use ops.where ... instead of an `if` on a tensor"),
not an internal name. Guards are listed per cache entry with the line that
made each one, and recompilations with the guard that failed and its old and
new values.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..ir.graph import Graph

if TYPE_CHECKING:  # (a name for annotations: the bytecode package imports this module)
    from .bytecode.breaks import BreakInfo


@dataclass
class ExplainedEntry:
    """One cache entry the call went through."""

    where: str                 # "start of step", "after the graph break at prog.py:14 in step"
    graph: Graph | None        # None: no ops between two breaks, or the part runs eagerly
    guards: list[str]          # each guard, with the line that made it
    brk: BreakInfo | None      # the break that ends this part (None: it returns)
    eager_reason: str | None   # why this part runs eagerly (None: it is compiled)
    runs: int = 1              # times in a row the call went through it (a loop whose body has a break)

    @classmethod
    def of(cls, entry: Any) -> "ExplainedEntry":
        """A cache entry (`msx.runtime.entries.CacheEntry`, any mode's) in explain()'s words."""
        return cls(entry.where, entry.graph, entry.guard_lines(), entry.brk, entry.eager_reason)


class ExplainReport:
    """Printable; also `graph_count`, `graphs`, `breaks`, `entries`, `recompiles`, `result`."""

    def __init__(self, name: str, mode: str, visited: list, recompiles: list[str], n_before: int,
                 result: Any) -> None:
        """`visited`: the cache entries the call went through, in order (`CacheEntry`s); `recompiles`: the
        function's recompile reasons so far, the first `n_before` of them from before this call."""
        self.name, self.mode = name, mode
        self.result = result
        self.entries: list[ExplainedEntry] = []
        previous = None
        for entry in visited:
            if entry is previous:
                self.entries[-1].runs += 1
                continue
            previous = entry
            self.entries.append(ExplainedEntry.of(entry))
        self.recompiles = list(recompiles)
        self.new_recompiles = self.recompiles[n_before:]

    @property
    def graphs(self) -> list[Graph]:
        return [e.graph for e in self.entries if e.graph is not None]

    @property
    def graph_count(self) -> int:
        return len(self.graphs)

    @property
    def breaks(self) -> list[BreakInfo]:
        return [e.brk for e in self.entries if e.brk is not None]

    @property
    def break_count(self) -> int:
        return len(self.breaks)

    def __str__(self) -> str:
        eager = sum(e.eager_reason is not None for e in self.entries)
        lines = [f"msx.jit explain: {self.name} (capture_mode={self.mode!r})",
                 f"  {self.graph_count} graph(s), {self.break_count} graph break(s)"
                 + (f", {eager} part(s) run eagerly" if eager else ""), ""]
        k = 0
        for e in self.entries:
            if e.eager_reason is not None:
                lines.append(f"  runs eagerly from {e.where}: {e.eager_reason}")
            elif e.graph is not None:
                k += 1
                ops = Counter(n.op for n in e.graph.nodes)
                shown = ", ".join(f"{op} x{n}" if n > 1 else op for op, n in ops.most_common(8))
                more = "" if len(ops) <= 8 else ", ..."
                inputs = ", ".join(f"{v.name} {v.abstract}" for v in e.graph.inputs) or "none"
                lines.append(f"  graph {k} ({e.where}): {len(e.graph.nodes)} op(s): {shown}{more}; inputs: {inputs}")
            else:
                lines.append(f"  no ops ({e.where})")
            if e.runs > 1:
                lines.append(f"     (this part and the break after it ran {e.runs} times in a row: a loop)")
            if e.brk is not None:
                at = f" at {e.brk.at.short()}" if e.brk.at is not None else ""
                lines.append(f"  -- graph break{at}: the next instruction runs in Python")
                lines.append(e.brk.render("       "))
        lines += ["", "  guards (checked on every call before the graph runs):"]
        for e in self.entries:
            lines.append(f"    entry at {e.where} ({len(e.guards)} guard(s))")
            lines.extend(f"      {g}" for g in e.guards)
        lines += ["", f"  recompilations of {self.name} so far: {len(self.recompiles)}"]
        lines.extend(f"    {r}" for r in self.recompiles)
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<ExplainReport {self.name}: {self.graph_count} graph(s), {self.break_count} break(s)>"
