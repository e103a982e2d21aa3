"""The cache of a bytecode-jitted function: graphs keyed by guards, joined by Python glue.

A `Point` is a place where compiled code can start: the start of the function,
or just after a graph break (a position in the interpreter's frames). Each
point's entries are one key of the runner's `msx.runtime.entries.EntryTable`; an entry is this mode's
kind of the one `CacheEntry` (guards, a compiled graph or an eager reason — what explain() and the
recompile reasons read in every mode) holding one captured piece: its generated guard check, its compiled
graph (built by the function's `msx.runtime.compile_pipeline.Pipeline`, the one pipeline every jit cache
calls: passes -> `Lowered.compile` -> `Compiled.run`), and how it continues. A call walks the
chain: find the entry whose guards hold, run its graph, then either rebuild the
return value or rebuild the frames, run the breaking instruction in Python and
go on at the next point. No bytecode is interpreted on a hit. `hot`, as the signature cache's, is the
call like the last hit at the start: the entry's guards, then its graph's generated call (`msx.jit` tries
it before anything else).

A miss captures again and says why, naming the failed guard, its old and new
value and the line that made it. After `set_context(recompile_warn_limit=N)`
recompiles of one function, msx warns with the reasons and stops compiling:
calls that match no entry run eagerly from that point on.
"""
from __future__ import annotations

import warnings
from typing import Any

import jax
import numpy as np

from ... import context
from ...errors import CaptureError
from ...tensor import PARAMETER_LOCK, Tensor
from ..failures import cannot_capture
from .breaks import STAGE, fullgraph_error
from .capture import BreakExit, CaptureFailed, Piece, capture_piece
from ...runtime.entries import CacheEntry, EntryTable
from ...runtime.guards import Guard, compile_check
from ...runtime.outcomes import INLINE, UNCHECKED
from ...runtime.signature import Signature, is_leaf
from .reconstruct import BuildContext, OutR
from .vm import VM


class ResumeEnv(list):
    """The frames a piece rebuilt, to continue from after a break; `fresh`: objects the function made."""

    __slots__ = ("fresh",)


class Point:
    """Where compiled code can start; `where` says it in words; `entries`: its (live) list in the table."""

    __slots__ = ("key", "where", "entries")

    def __init__(self, key: Any, where: str, table: EntryTable) -> None:
        self.key, self.where = key, where
        self.entries: list[Entry] = table.list_for(key)


class _Inputs:
    """What `Compiled.run` reads from a call: its Tensors."""

    __slots__ = ("tensors",)


class Entry(CacheEntry):
    """A bytecode cache entry: guards (compiled into `check`), a graph (or none), and what comes after it
    (`piece`: its exit returns or breaks; None: the entry runs eagerly from its point)."""

    __slots__ = ("check", "piece", "point", "_inputs", "_output", "_hot")

    def __init__(self, point: Point, guards: list[Guard], piece: Piece | None, compiled: Any,
                 eager_reason: str | None = None) -> None:
        super().__init__(point.where, guards, compiled, eager_reason)
        self.point, self.piece = point, piece
        inputs = piece.inputs if piece is not None else []
        values = piece.values if piece is not None else []
        self.check = compile_check(guards, inputs, values)
        self._inputs = _Inputs()
        exit_ = piece.exit if piece is not None else None
        recipe = getattr(exit_, "recipe", None)
        self._output = recipe.k if type(recipe) is OutR else None   # the common `return tensor`: no rebuild
        # the guards checked the call's Tensors: the graph's generated hot call runs them (None: `Compiled.run`)
        self._hot = compiled.hot_call(len(inputs), None) if compiled is not None and compiled.backend_checks \
            else None

    @property
    def brk(self) -> Any:
        return getattr(self.piece.exit, "info", None) if self.piece is not None else None

    def why_not(self, call: Any) -> str | None:
        return super().why_not(call) or "a guard's source could not be read"

    def run(self, fetched: tuple, env: Any, runner: "BytecodeRunner") -> Any:
        if self.piece is None:   # runs eagerly from this point
            if type(env) is tuple:
                return runner.fn(*env[0], **env[1])
            return VM().run(list(env))
        tensors, vals = fetched
        outs: Any = ()
        if self.compiled is not None:
            outs = UNCHECKED if self._hot is None else self._hot(tensors, None)
            if outs is UNCHECKED or outs is INLINE:
                self._inputs.tensors = tensors
                outs = self.compiled.run(self._inputs)
                if outs is INLINE:
                    raise _Stale(self.compiled.failure)
            if self._output is not None:
                return outs[self._output]
        c = BuildContext(outs, vals, getattr(env, "fresh", None))
        exit_ = self.piece.exit
        if type(exit_) is not BreakExit:
            return exit_.recipe.build(c)
        frames = ResumeEnv(r.build(c) for r in exit_.frames)
        frames.fresh = c.fresh
        done = VM().step(frames)   # the Python glue: the instruction that broke the graph
        if done is not None:
            return done.value
        return frames


class _Stale(Exception):
    """A Parameter changed shape or dtype since the graph was compiled (no message: it holds a jax tracer)."""


class BytecodeRunner:
    """The bytecode capture mode's cache for one jitted function (see the module docstring): `pipeline`, the
    function's `msx.runtime.compile_pipeline.Pipeline`, builds its graphs and holds the counters it adds to."""

    shape_families = False  # (`entries.Cache`: its guards key graphs on shapes; a new shape is a new entry)

    def __init__(self, pipeline) -> None:
        self.pipeline = pipeline
        self.fn, self.name, self.config = pipeline.fn, pipeline.name, pipeline.config
        self.table = EntryTable(newest_first=False)  # point key -> its entries, tried in the order captured
        self.root = Point(None, f"the start of {self.name}", self.table)
        self.points: dict[Any, Point] = {}
        self.recompiles = pipeline.stats.recompile_reasons  # ("at <where>: <why>": the pipeline's, shared)
        self._warned: set = set()
        self._limit_warned = False
        self._eager: dict[Any, Entry] = {}
        self.events: list | None = None             # set while `explain` records a call
        self._last: Entry | None = None             # the root entry of the last hit, when it returns a graph output
        # `hot(args, cell)`: a call like the last hit — `_last`'s guards, then its graph's generated call —
        # or `UNCHECKED` (the call takes the walk: an argument the guards refuse, e.g. a numpy array to
        # convert); None: no entry is hot. `msx.jit` runs it before anything else, as the signature cache's.
        self.hot: Any = None

    # ------------------------------------------------------------ calling
    def _elect(self, entry: Entry) -> None:
        """Make `entry` (a root entry that returns one of its graph's outputs) the hot one."""
        if entry is self._last:
            return
        self._last = entry
        check, hot, k = entry.check, entry._hot, entry._output

        def call(args: tuple, cell: Any) -> Any:
            fetched = check((args, {}))
            if type(fetched) is tuple:
                out = hot(fetched[0], None)
                if out is not UNCHECKED and out is not INLINE:
                    return out[k]
            return UNCHECKED

        self.hot = call

    def __call__(self, args: tuple, kwargs: dict) -> Any:
        if kwargs or not all(type(a) in _PLAIN_ARGS for a in args):
            args, kwargs = _arrays_as_tensors(args, kwargs)
        point: Point = self.root
        env: Any = (args, kwargs)
        while True:
            fetched = None
            for entry in point.entries:
                fetched = entry.check(env)
                if type(fetched) is tuple:
                    if point is self.root:
                        self.pipeline.note_hit()
                        if entry._hot is not None and entry._output is not None and self.events is None:
                            self._elect(entry)
                    break
            else:
                entry, fetched = self._miss(point, env)
                if entry is None:
                    return fetched   # ran eagerly (under a jax transform)
            if self.events is not None:
                self.events.append(entry)
            try:
                out = entry.run(fetched, env, self)
            except _Stale as stale:
                if not str(stale):   # Parameters hold jax tracers (autodiff of this function): run it eagerly
                    return self.fn(*env[0], **env[1]) if type(env) is tuple else VM().run(list(env))
                point.entries.remove(entry)
                if entry is self._last:
                    self._last = self.hot = None
                self._record(point, str(stale))
                continue
            if type(out) is not ResumeEnv:
                return out
            point = self._point(out, entry.piece.exit.info)
            env = out

    def _point(self, frames: ResumeEnv, brk) -> Point:
        key = tuple((f.info.code, f.ip, len(f.stack)) for f in frames)
        point = self.points.get(key)
        if point is None:
            top = frames[-1]
            at = brk.at.short() if brk.at is not None else "?"
            where = f"the graph break at {at} in {top.info.qualname} (resuming at line {top.info.loc(top.ip).line})"
            point = self.points[key] = Point(key, where, self.table)
        return point

    def _miss(self, point: Point, env: Any) -> tuple[Entry | None, Any]:
        if point is self.root and _has_tracer(env):
            return None, self.fn(*env[0], **env[1])   # under a jax transform (msx.grad of a jitted function)
        why = point.where
        if point.entries:
            reason = point.entries[-1].why_not(env)
            self._record(point, reason)
            if len(self.recompiles) >= context.get_context("recompile_warn_limit"):
                return self._eager_entry(point), ([], [])
            why = f"{point.where}: {reason}"
        self.pipeline.note_capture(why)
        try:
            with PARAMETER_LOCK:  # a capture reads every Parameter: never while another thread has them swapped
                if type(env) is tuple:
                    piece = capture_piece(self.name, self.fn, env[0], env[1])
                else:
                    line = env[-1].info.loc(env[-1].ip).line
                    piece = capture_piece(f"{self.name}_from_line{line}", None, None, None, list(env), env.fresh)
        except CaptureFailed as exc:
            if self.config.fullgraph:
                raise cannot_capture(exc.reason, exc.loc, self.config, STAGE) from None
            entry = Entry(point, exc.guards, None, None, exc.reason)
            point.entries.append(entry)
            self._warn_eager(point, exc.reason, exc.loc)
            return entry, entry.check(env)
        if self.config.fullgraph and type(piece.exit) is BreakExit:
            raise fullgraph_error(piece.exit.info)
        compiled = None
        if piece.has_graph:
            compiled = self.pipeline.compile(piece.captured, Signature(tuple(piece.input_tensors), {}, None),
                                             f"graph {piece.captured.graph.name} at {point.where}")
            piece.captured.release_run_state()  # nothing restores a symbolic capture's (unwritten) values
        entry = Entry(point, piece.guards, piece, compiled)
        point.entries.append(entry)
        fetched = entry.check(env)
        if type(fetched) is not tuple:
            raise CaptureError(f"internal: the guards of the entry just captured do not hold for its own call "
                               f"(guard {fetched}: {entry.why_not(env)})", stage=STAGE)
        return entry, fetched

    def _eager_entry(self, point: Point) -> Entry:
        """The recompile limit is reached: calls that match no entry here run eagerly from this point."""
        if self._eager.get(point.key) is None:
            self._eager[point.key] = Entry(point, [], None, None, "the recompile limit is reached "
                                           "(set_context(recompile_warn_limit=...))")
        return self._eager[point.key]

    def _record(self, point: Point, reason: str) -> None:
        self.pipeline.note_recompile(f"at {point.where}: {reason}", warn=False)  # (warned below, with what follows)
        limit = context.get_context("recompile_warn_limit")
        if len(self.recompiles) >= limit and not self._limit_warned:
            self._limit_warned = True
            shown = "\n  ".join(self.recompiles[-limit:])
            warnings.warn(f"msx.jit: {self.name} was recompiled {len(self.recompiles)} times (limit "
                          f"recompile_warn_limit={limit}); calls that match no cached entry now run eagerly. "
                          f"Reasons:\n  {shown}", stacklevel=4)

    def _warn_eager(self, point: Point, reason: str, loc) -> None:
        key = (point.key, reason)
        if key in self._warned:
            return
        self._warned.add(key)
        where = f" ({loc.short()})" if loc is not None else ""
        warnings.warn(f"msx.jit: {self.name} runs eagerly from {point.where} for calls like this one: "
                      f"{reason}{where}", stacklevel=4)

    # ------------------------------------------------------------ inspection
    def __len__(self) -> int:
        return len(self.table)

    def explained_call(self, call: Any, args: tuple, kwargs: dict, cell: Any) -> tuple[Any, list]:
        """Run `call()` (the jitted call); (its result, the entries it went through, in order). No entry is
        hot meanwhile, so the call walks its points and each entry it runs is seen."""
        self.events, self.hot, self._last = [], None, None
        try:
            result = call()
        finally:
            events, self.events = self.events, None
        return result, events


_PLAIN_ARGS = (Tensor, int, float, bool, str, type(None))


def _arrays_as_tensors(args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """numpy and jax arrays among the arguments become Tensors, as msx.jit's other modes do."""
    leaves, treedef = jax.tree_util.tree_flatten((args, kwargs), is_leaf=is_leaf)
    if not any(isinstance(x, (np.ndarray, jax.Array)) for x in leaves):
        return args, kwargs
    leaves = [Tensor(x) if isinstance(x, (np.ndarray, jax.Array)) else x for x in leaves]
    return jax.tree_util.tree_unflatten(treedef, leaves)


def _has_tracer(env: tuple) -> bool:
    leaves = jax.tree_util.tree_leaves(env, is_leaf=lambda x: isinstance(x, Tensor))
    return any(isinstance(x, Tensor) and isinstance(x._data, jax.core.Tracer) for x in leaves)

