"""The pass manager: which passes run for a jit level and backend, in what order, each followed by the verifier.

The pipeline, in stages:

- `frontend`: the built-in passes of the jit level (O0: `dce` only, keeping
  the captured structure; O1: `inline`, `constant_fold`, `simplify`, `cse`,
  `dce`), then user passes registered for this backend at stage "frontend";
- `backend`: user passes registered at stage "backend", then the backend's own
  (`backend.passes()`);
- `fusion` (O1): `fuse_elementwise`, last, so every other pass sees single ops.

Every pass runs on the graph and all its subgraphs. After each pass that
changed the graph (and after every user or backend pass) the verifier runs;
a broken rewrite raises a `PassError` naming the pass and the node. Passes in
the `disable_passes` jit option or context key are skipped.

`backend` is a backend object (anything with `name` and `passes()`) or a name
resolved through the directory `msx.backends` registers: this layer never
imports backends.
"""
from __future__ import annotations

import difflib
import re
import time
from dataclasses import dataclass, replace
from typing import Any

from .. import context, hostevents
from ..errors import MsxError, PassError, VerifyError
from ..ir.graph import Graph
from ..ir.verifier import verify
from .base import Pass, apply_everywhere, as_pass, check_interface
from .cse import CommonSubexpressionElimination
from .dce import DeadCodeElimination
from .constant_folding import ConstantFolding
from .fusion import ElementwiseFusion
from .inline import Inline
from .registry import all_registered, registered_passes, reserve_builtin_names, resolve_backend
from .simplify import AlgebraicSimplification

BUILTIN: dict[str, Pass] = {p.name: p for p in (Inline(), ConstantFolding(), AlgebraicSimplification(),
                                                   CommonSubexpressionElimination(), DeadCodeElimination(),
                                                   ElementwiseFusion())}
BUILTIN_NAMES = frozenset(BUILTIN)
reserve_builtin_names(BUILTIN_NAMES)
FRONTEND = {"O0": ("dce",), "O1": ("inline", "constant_fold", "simplify", "cse", "dce")}
FUSION = {"O0": (), "O1": ("fuse_elementwise",)}

@dataclass(eq=False)
class PassRecord:
    """One pass run: `before`/`after` are the whole graph around it (`after is before` when unchanged)."""

    index: int
    name: str
    stage: str
    seconds: float
    before: Graph
    after: Graph

    @property
    def changed(self) -> bool:
        return self.after is not self.before

    def diff(self) -> str:
        """A unified diff of the printed graphs (empty when the pass changed nothing)."""
        if not self.changed:
            return ""
        return "".join(difflib.unified_diff(str(self.before).splitlines(True), str(self.after).splitlines(True),
                                            f"before {self.name}", f"after {self.name}"))

    def __repr__(self) -> str:
        return (f"PassRecord({self.index}: {self.stage}/{self.name}, "
                f"{'changed' if self.changed else 'unchanged'}, {self.seconds * 1e3:.2f} ms)")


@dataclass(eq=False)
class Optimised:
    """The result of the pipeline: the graph, the kept values (guards) in it, and what each pass did."""

    graph: Graph
    keep: tuple
    records: list[PassRecord]


def _backend_passes(backend: Any) -> list[Pass]:
    return [as_pass(p) for p in backend.passes()]


def pipeline(jit_level: str = "O0", backend: Any = None) -> list[tuple[str, Pass]]:
    """(stage, pass) in run order for a jit level and backend (None: the default backend)."""
    if jit_level not in FRONTEND:
        raise ValueError(f"jit_level={jit_level!r} is not valid; choose one of {list(FRONTEND)}")
    b = resolve_backend(backend)
    steps = [("frontend", BUILTIN[name]) for name in FRONTEND[jit_level]]
    steps += [("frontend", p) for p in registered_passes(b, "frontend")]
    steps += [("backend", p) for p in registered_passes(b, "backend")]
    steps += [("backend", p) for p in _backend_passes(b)]
    steps += [("fusion", BUILTIN[name]) for name in FUSION[jit_level]]
    return steps


def list_passes(jit_level: str = "O0", backend: Any = None) -> list[tuple[str, str]]:
    """(stage, name) of every pass of the pipeline, in run order."""
    return [(stage, p.name) for stage, p in pipeline(jit_level, backend)]


def _disabled(extra, backend: Any) -> set[str]:
    names = set(context.get_context("disable_passes")) | set(extra or ())
    known = BUILTIN_NAMES | {r.pass_.name for r in all_registered()} | {p.name for p in _backend_passes(backend)}
    unknown = sorted(names - known)
    if unknown:
        raise PassError(f"disable_passes: unknown pass name(s) {unknown}; known passes: {sorted(known)}")
    return names


def _run_one(p: Pass, stage: str, graph: Graph) -> Graph:
    try:
        out = apply_everywhere(p, graph)
    except PassError:
        raise
    except MsxError as exc:
        raise PassError(f"pass {p.name!r} ({stage}) failed: {exc.message}", loc=exc.loc) from exc
    except Exception as exc:  # a user pass's bug: name the pass, keep the cause chained
        raise PassError(f"pass {p.name!r} ({stage}) failed on graph {graph.name}: {type(exc).__name__}: {exc}") \
            from exc
    if not isinstance(out, Graph):
        raise PassError(f"pass {p.name!r} ({stage}) returned {type(out).__name__}, expected a Graph")
    return out


def optimise(graph: Graph, jit_level: str = "O0", keep: tuple = (), backend: Any = None,
             disabled=None) -> Optimised:
    """Run the pipeline of `jit_level` for `backend` over `graph`.

    `keep`: values the caller needs besides the outputs (guard values); they
    stay live and are returned (possibly renamed by rewrites) in `.keep`.
    `disabled`: pass names to skip, on top of the `disable_passes` context key.
    """
    with hostevents.span("msx.passes", graph.name):  # the profiler's "passes" stage
        return _optimise(graph, jit_level, keep, backend, disabled)


def _optimise(graph: Graph, jit_level: str, keep: tuple, backend: Any, disabled) -> Optimised:
    b = resolve_backend(backend)
    steps = pipeline(jit_level, b)
    skip = _disabled(disabled, b)
    mode = context.get_context("verify_passes")
    n = len(graph.outputs)
    work = replace(graph, outputs=list(graph.outputs) + list(keep)) if keep else graph

    def shown(g: Graph) -> Graph:
        return replace(g, outputs=g.outputs[:n]) if keep else g

    records: list[PassRecord] = []
    verified = False
    for index, (stage, p) in enumerate(steps):
        if p.name in skip:
            continue
        start = time.perf_counter()
        out = _run_one(p, stage, work)
        seconds = time.perf_counter() - start
        if out is not work or p.name not in BUILTIN_NAMES:
            check_interface(p, work, out, f"graph {work.name}")
            if mode != "off":
                try:
                    verify(out, infer=mode == "full")
                except VerifyError as exc:
                    raise PassError(f"pass {p.name!r} ({stage}) broke the graph: {exc.message}", loc=exc.loc) \
                        from None
                verified = True
        before = shown(work)
        records.append(PassRecord(index, p.name, stage, seconds, before, shown(out) if out is not work else before))
        work = out
    if not verified and mode != "off":
        verify(work, infer=mode == "full")
    return Optimised(shown(work), tuple(work.outputs[n:]), records)


def pass_views(records: list[PassRecord]) -> list[tuple[str, str, str]]:
    """(stage tag, file extension, text) of the before/after graphs and diff of each pass that changed the graph."""
    views = []
    for r in records:
        if r.changed:
            tag = f"pass{r.index:02d}_{re.sub(r'[^A-Za-z0-9_.-]+', '_', r.name)}"
            views += [(tag + "_before", "ir", str(r.before)), (tag + "_after", "ir", str(r.after)),
                      (tag, "diff", r.diff())]
    return views
