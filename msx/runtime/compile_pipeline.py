"""The one compile pipeline of a jitted function: capture -> passes -> lower -> compile -> cache entry.

`Pipeline` holds what every cache of one jitted function shares — the function, its name, its jit options and
its counters (`Stats`) — and runs the stages after capture: the pass pipeline of the jit level for the
backend (`run_pipeline`), the stage dumps of `set_context(save_graphs=...)`, the build. `JitFunction`, the
bytecode runner (its cache of guarded pieces), `msx.dynamic` (shape families) and `msx.stages` (a graph you
hold) all call it, so a graph is optimised, dumped and counted the same way whichever path made it; none
of them calls into `jit` or writes another's counters.
"""
from __future__ import annotations

import os
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from .. import context
from ..backends import BackendBase, BuildConfig, get_backend
from ..capture.builder import Captured
from ..capture.modes import CAPTURE_MODES
from ..errors import VizUnavailableError
from ..ir.graph import Graph
from ..passes import pass_views
from ..passes.manager import Optimised, optimise
from .compiled import Compiled, Lowered, save_stage
from .signature import Signature


@dataclass
class Stats:
    """What a jitted function's caches did, as `cache_info()` reports it."""
    captures: int = 0
    compiles: int = 0
    hits: int = 0
    pass_runs: int = 0      # pass-pipeline runs
    xla_compiles: int = 0   # backend compiles, one per concrete shape of a symbolic graph too
    log: list = field(default_factory=list)                # (what ran: capture | xla_compile | static, why)
    recompile_reasons: list = field(default_factory=list)


# `msx.viz.save_stage`, handed over by msx.viz at its import: viz sits above the runtime (it captures through
# jit), so the runtime takes the writer as a registration instead of importing it (ARCHITECTURE rule 10)
_GRAPH_VIEW: list = []


def register_graph_view(save_stage_view: Callable) -> None:
    """Called once by `msx.viz`: the writer of `save_graphs=3`'s Model Explorer graphs."""
    _GRAPH_VIEW[:] = [save_stage_view]


def _save_graph_view(text_dump: str | None, stage: str, graph: Graph) -> None:
    """`set_context(save_graphs=3)`: also write the stage as a Model Explorer graph beside its text dump
    (`0003_step_captured.ir` -> `0003_step_captured.json`; docs/viz.md)."""
    if context.get_context("save_graphs") != 3 or text_dump is None or not _GRAPH_VIEW:
        return
    try:
        _GRAPH_VIEW[0](os.path.dirname(text_dump), os.path.splitext(os.path.basename(text_dump))[0], graph, stage)
    except VizUnavailableError as exc:
        warnings.warn(f"msx.jit: save_graphs=3 writes Model Explorer graphs, which needs msx[viz]: {exc}",
                      stacklevel=5)


def check_backend_options(backend: BackendBase, options: dict, own: Iterable[str] = ()) -> None:
    """Options that are not jit's own (`own`) belong to the backend (e.g. the simulated Ascend's precision_mode)."""
    unknown = sorted(set(options) - set(backend.options))
    if unknown:
        raise ValueError(f"jit: unknown option(s) {unknown}; valid options: {list(own) + list(backend.options)} "
                         f"(backend {backend.name!r})")
    backend.check_options(options)


def run_pipeline(graph: Graph, backend: BackendBase, jit_level: str, *, keep: tuple = (),
                 disable_passes: Iterable[str] | None = None, donate: bool = True, fullgraph: bool = False,
                 options: dict | None = None) -> tuple[Optimised, BuildConfig]:
    """The optimise stage and the build configuration its result implies — one place for `jit` (a captured
    graph, `keep`: its guard values) and `optimize` (a graph you hold): the Parameters the optimised graph
    writes are `rw_params` (donated when `donate`), the kept values its `extra_outputs`."""
    result = optimise(graph, jit_level, keep, backend, disable_passes)
    written = {name for name, _ in result.graph.updates}
    rw = tuple(i for i, v in enumerate(result.graph.params) if v.name in written)
    config = BuildConfig(rw_params=rw, donate=donate, extra_outputs=tuple(result.keep), jit_level=jit_level,
                         fullgraph=fullgraph, options=dict(options or {}))
    return result, config


class Pipeline:
    """The stages of one jitted function (`config`: its `JitConfig`) — capture, passes, lowering, compile — and
    its counters."""

    def __init__(self, fn: Callable, name: str, config: Any, own_options: tuple[str, ...] = ()) -> None:
        self.fn, self.name, self.config = fn, name, config
        self.own_options = own_options
        self.stats = Stats()
        self._warned = False

    def capture(self, args: tuple, kwargs: dict, mode: str | None = None) -> tuple[Captured, Any]:
        """The first stage: capture the function on the call's (or stand-ins') arguments in `mode` (None: the
        configured one), as (the captured graph, the call's result or `NOT_RUN`). The caller notes the capture
        (`note_capture`, with its reason) and holds what the capture must hold (the Parameter lock)."""
        return CAPTURE_MODES[mode or self.config.capture_mode](self.fn, args, kwargs, self.name, self.config)

    def lower(self, captured: Captured, sig: Signature) -> Lowered:
        """Dump the captured graph, run the passes of the jit level for the backend, dump the result: a `Lowered`."""
        keep = tuple(g.var for g in captured.guards)
        _save_graph_view(save_stage(self.name, "captured", str(captured.graph)), "captured", captured.graph)
        backend = get_backend(self.config.backend)
        options = dict(self.config.backend_options)
        if options:
            check_backend_options(backend, options, self.own_options)  # "ms_backend" resolves now, by device_target
        self.stats.pass_runs += 1
        result, config = run_pipeline(captured.graph, backend, self.config.jit_level, keep=keep,
                                      disable_passes=self.config.disable_passes, donate=not captured.guards,
                                      fullgraph=self.config.fullgraph, options=options)
        graph = result.graph
        if context.get_context("save_graphs"):
            for stage, ext, text in pass_views(result.records):
                save_stage(self.name, stage, text, ext)
        _save_graph_view(save_stage(self.name, "optimised", str(graph)), "optimised", graph)
        return Lowered(captured, graph, backend, config, sig, self.name, result.records)

    def compile(self, captured: Captured, sig: Signature, why: str) -> Compiled:
        """Lower and build a captured graph: the executable a new cache entry runs (`why`: for the log)."""
        compiled = self.lower(captured, sig).compile()
        self.stats.compiles += 1
        self.note_xla_compile(why)
        return compiled

    def compile_symbolic(self, captured: Captured, sig: Signature) -> Compiled:
        """Lower and build a graph with symbolic dims (a shape family of `msx.dynamic`): one compile now; the
        backend compiles it once per new concrete shape as calls first run it, each counted and logged then."""
        compiled = self.lower(captured, sig).compile()
        self.stats.compiles += 1
        name = compiled.lowered.graph.name
        compiled.handle.on_compile = lambda shapes: self.note_xla_compile(
            f"new concrete shape {[list(s) for s in shapes]} for symbolic graph {name}")
        return compiled

    def note_xla_compile(self, why: str) -> None:
        """The backend compiled an executable (`why`: its static shapes, or a symbolic graph's new shape)."""
        self.stats.xla_compiles += 1
        self.stats.log.append(("xla_compile", why))

    def note_static(self, why: str) -> None:
        """The function compiles per static shape, or from another capture, instead of what was asked (`why`)."""
        self.stats.log.append(("static", why))

    def note_recompile(self, reason: str, warn: bool = True) -> None:
        """A new graph replaced or joined the cached ones for `reason`; past `recompile_warn_limit`, say so once
        (`warn=False`: the caller says it, as the bytecode runner does with what it does next)."""
        reasons = self.stats.recompile_reasons
        reasons.append(reason)
        limit = context.get_context("recompile_warn_limit")
        if warn and len(reasons) >= limit and not self._warned:
            self._warned = True
            shown = "\n  ".join(reasons[-limit:])
            warnings.warn(f"msx.jit: {self.name} was recompiled {len(reasons)} times; reasons:\n  {shown}",
                          stacklevel=5)

    def note_capture(self, why: str | None) -> None:
        """A capture is about to run (`why`: the first call, or the change that made the cache miss; None: a
        stage call such as `jit(f).lower(x)`, counted but not logged)."""
        self.stats.captures += 1
        if why is not None:
            self.stats.log.append(("capture", why))

    def note_hit(self) -> None:
        """A call ran a cached entry."""
        self.stats.hits += 1
