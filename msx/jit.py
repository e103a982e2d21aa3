"""`msx.jit`: capture -> optimise -> build -> run, with a cache keyed on the input signature.

The stages are public objects (ARCHITECTURE rule 7)::

    jf = msx.jit(step, capture_mode="trace")
    graph = jf.capture(x, y)          # the captured Graph (no side effects)
    lowered = jf.lower(x, y)          # .graph after passes, .as_text() = StableHLO
    compiled = lowered.compile()      # runnable: compiled(x, y)

Calling `jf(x, y)` composes the same stages and caches the result per
signature (pytree structure, shapes, dtypes, static Python values, Cell
identity and training flag). Every recompilation records why.
"""
from __future__ import annotations

import functools
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Generic, ParamSpec, TypeVar, overload

import jax

from . import hostevents
from .backends import get_backend
from .capture.builder import Captured
from .capture import CAPTURE_CHECKS, CAPTURE_MODES, CAPTURE_RUNNERS, NOT_RUN
from .capture.explain import ExplainReport
from .errors import CaptureError, CaptureFallback, ContextError
from .ir.graph import Graph
from .nn import cell_config
from .nn.cell import Cell
from .ops.primitive import recording
from .eager import tape as eager_tape, tensor_hooks
from .dynamic import NOT_HANDLED, DynamicShapes, DynamicSpec, spec_of
from .runtime.cache import MISS, EntryCache
from .runtime.entries import Cache
from .runtime.compiled import EAGER, INLINE, UNCHECKED, Compiled, Lowered
from .runtime.compile_pipeline import Pipeline, check_backend_options
from .runtime.signature import Signature, describe_change, is_leaf
from .parallel import spmd
from .parallel.context import get_parallel_mode as context_parallel_mode
from .tensor import PARAMETER_LOCK, Parameter, Tensor

CAPTURE_MODE_NAMES = ("ast", "bytecode", "trace")
JIT_LEVELS = ("O0", "O1")
_OPTIONS: tuple[str, ...] = ("disable_passes",)


@dataclass(frozen=True)
class JitConfig:
    capture_mode: str = "ast"
    jit_level: str = "O0"
    dynamic: int = 0
    fullgraph: bool = False
    backend: str | None = None
    disable_passes: tuple[str, ...] = ()
    backend_options: tuple = ()  # (name, value) pairs of the options meant for the backend (BuildConfig.options)


def _validate(capture_mode, jit_level, dynamic, fullgraph, backend, options) -> JitConfig:
    if capture_mode not in CAPTURE_MODE_NAMES:
        raise ValueError(f"jit: capture_mode={capture_mode!r} is not valid; choose one of {list(CAPTURE_MODE_NAMES)}")
    if capture_mode not in CAPTURE_MODES:
        raise NotImplementedError(
            f"jit: capture_mode={capture_mode!r} is not implemented in this msx version yet; "
            f"available: {sorted(CAPTURE_MODES)}")
    if capture_mode in CAPTURE_CHECKS:
        CAPTURE_CHECKS[capture_mode]()  # the mode can work here (bytecode: a supported Python version)
    if jit_level not in JIT_LEVELS:
        raise ValueError(f"jit: jit_level={jit_level!r} is not valid; choose one of {list(JIT_LEVELS)}")
    if dynamic not in (0, 1):
        raise ValueError(f"jit: dynamic={dynamic!r} is not valid; choose 0 or 1")
    if not isinstance(fullgraph, bool):
        raise ValueError(f"jit: fullgraph must be True or False, got {fullgraph!r}")
    if backend is not None and not isinstance(backend, str):
        raise ValueError(f"jit: backend must be a backend name (str), got {type(backend).__name__}")
    if backend is not None and backend != "ms_backend":
        get_backend(backend)  # an unknown name or an absent device fails now, listing the available backends
    backend_options = {k: v for k, v in options.items() if k not in _OPTIONS}
    if backend_options:
        check_backend_options(get_backend(backend), backend_options, _OPTIONS)
    disable = options.get("disable_passes", ())
    disable = (disable,) if isinstance(disable, str) else disable
    if not isinstance(disable, (list, tuple)) or not all(isinstance(n, str) for n in disable):
        raise ValueError(f"jit: disable_passes must be a pass name or a list of them, got {disable!r}; "
                         f"see msx.passes.list_passes()")
    return JitConfig(capture_mode, jit_level, dynamic, fullgraph, backend, tuple(disable),
                     tuple(sorted(backend_options.items())))


_P = ParamSpec("_P")
_R = TypeVar("_R")


@overload
def jit(function: Callable[_P, _R], *, capture_mode: str = "ast", jit_level: str = "O0", dynamic: int = 0,
        fullgraph: bool = False, backend: str | None = None, **options: Any) -> JitFunction[_P, _R]: ...


@overload
def jit(function: None = None, *, capture_mode: str = "ast", jit_level: str = "O0", dynamic: int = 0,
        fullgraph: bool = False, backend: str | None = None,
        **options: Any) -> Callable[[Callable[_P, _R]], JitFunction[_P, _R]]: ...


def jit(function: Callable | None = None, *, capture_mode: str = "ast", jit_level: str = "O0", dynamic: int = 0,
        fullgraph: bool = False, backend: str | None = None, **options: Any) -> Any:
    """Compile a function, a Cell instance or a `construct` method (`@jit`, `@jit(...)`, `jit(fn, ...)`).

    Typed (the overloads above) so a type checker keeps the function's own signature through `@jit`."""
    config = _validate(capture_mode, jit_level, dynamic, fullgraph, backend, options)

    def wrap(fn: Callable) -> JitFunction:
        return JitFunction(fn, config)

    return wrap if function is None else wrap(function)


def _global_view(sig: Signature, capture_mode: str) -> tuple[tuple, dict]:
    """The call's arguments as the global view sees them in a multi-process SEMI_AUTO/AUTO_PARALLEL job: each
    Tensor input stands for the processes' slices stacked on axis 0 (`spmd.global_shape`), so the graph is
    captured with the global batch (shape-only stand-ins: ast capture reads only shapes and dtypes). The runtime
    still keys and calls the graph with the process's own Tensors; the backend's layout makes them global."""
    if capture_mode != "ast":
        raise ContextError(f"msx.jit: a multi-process {context_parallel_mode()} step is captured with the global "
                           f"batch's shapes, which needs capture_mode='ast' (got {capture_mode!r})")
    stand_ins: dict[int, Tensor] = {}

    def stand_in(x: Any) -> Any:   # (the index: which of the step's inputs, for a per-input dataset_strategy)
        if not isinstance(x, Tensor) or isinstance(x, Parameter):
            return x
        if id(x) not in stand_ins:
            shape = spmd.global_shape(x.shape, len(stand_ins))
            stand_ins[id(x)] = Tensor._from(jax.ShapeDtypeStruct(shape, x._data.dtype))
        return stand_ins[id(x)]

    leaves, treedef = jax.tree_util.tree_flatten((sig.args, sig.kwargs), is_leaf=is_leaf)
    return jax.tree_util.tree_unflatten(treedef, [stand_in(x) for x in leaves])


# ---------------------------------------------------------------- the decorator's object
class JitFunction(Generic[_P, _R]):
    """A function compiled on first call per signature; the stage calls expose each step (generic in the
    function's parameters and result, so a type checker sees `train_step(x, y)` as the function's call)."""

    __msx_jit__ = True  # how capture modes recognise a jitted function to inline (they never import jit)

    def __init__(self, fn: Callable, config: JitConfig) -> None:
        self.fn = fn
        self.config = config
        self.cell = fn if isinstance(fn, Cell) else None
        self.__name__ = type(fn).__name__ if self.cell is not None else getattr(fn, "__name__", "fn")
        if self.cell is None:
            functools.update_wrapper(self, fn)
        self._last: Signature | None = None
        # the stages after capture and the counters, shared with the bytecode runner and msx.dynamic
        self.pipeline = Pipeline(fn, self.__name__, config, _OPTIONS)
        self.stats = self.pipeline.stats
        self._dynamic = None     # msx.dynamic.DynamicShapes under dynamic=1 or enable_dynamic
        # the function's cache: the signature cache (ast, trace), or the kind a mode registers (bytecode: guarded
        # pieces per resume point). Both hold `msx.runtime.entries.CacheEntry`s and offer `hot` (a call like
        # the last hit), `explained_call` (explain's entries) and `len` (`entries.Cache`); `_serve` runs a
        # call `hot` did not take
        runner = CAPTURE_RUNNERS.get(config.capture_mode)
        self.entries: Cache = runner(self.pipeline) if runner is not None else \
            EntryCache(f"the start of {self.__name__}")
        self._serve: Callable[[tuple, dict], Any] = self.entries if runner is not None else self._checked_call
        spec = spec_of(fn)
        if spec is not None or (config.dynamic and self.entries.shape_families):
            self.set_dynamic_spec(spec)
        elif config.dynamic:  # bytecode: its guards key graphs on shapes, so a new batch size is a new entry
            self.pipeline.note_static("dynamic=1 with capture_mode='bytecode': one guarded graph per shape")

    # the counters `cache_info()` reports (the pipeline's: every cache of this function adds to them)
    captures = property(lambda self: self.stats.captures)
    compiles = property(lambda self: self.stats.compiles)
    hits = property(lambda self: self.stats.hits)
    pass_runs = property(lambda self: self.stats.pass_runs)
    xla_compiles = property(lambda self: self.stats.xla_compiles)
    log = property(lambda self: self.stats.log)
    recompile_reasons = property(lambda self: self.stats.recompile_reasons)

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        """`@jit` on a method (e.g. `construct`): bind `self` like a function would."""
        if obj is None:
            return self
        return functools.partial(self.__call__, obj)

    # ------------------------------------------------------------ calling
    def __call__(self, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        hot = self.entries.hot
        if hot is not None and not kwargs and recording.recorder is None:
            out = hot(args, self.cell)  # a call like the last hit: no signature to build
            if out is not UNCHECKED and out is not INLINE:
                self.pipeline.note_hit()
                return out
        if recording.recorder is not None:  # inside another capture: inline
            converter = recording.converter
            return self.fn(*args, **kwargs) if converter is None else converter(self.fn, args, kwargs)
        if tensor_hooks.any_registered() and tensor_hooks.marks(_tensor_leaves(args, kwargs)):
            return self.fn(*args, **kwargs)  # an input has backward hooks: a gradient of it runs them in Python
        return self._serve(args, kwargs)

    def _checked_call(self, args: tuple, kwargs: dict) -> Any:
        """A call of the signature cache that its hot call did not take: look the signature up, or compile."""
        sig = Signature(args, kwargs, self.cell)
        if sig.has_tracer():
            return self.fn(*sig.args, **sig.kwargs)  # under a jax transform (msx.grad of a jitted fn)
        out, reason = self.entries.lookup(sig)
        if out is EAGER:
            return self.fn(*sig.args, **sig.kwargs)
        if out is not MISS:
            self.pipeline.note_hit()
            return out
        if reason is None:  # a signature never seen
            reason = describe_change(self._last, sig) if self._last is not None else None
            if self._dynamic is not None:
                out = self._dynamic.call(sig, reason, self._last)
                if out is not NOT_HANDLED:
                    return out
        return self._compile_and_run(sig, reason)

    def set_dynamic_spec(self, spec: DynamicSpec | None) -> None:
        """Use shape families for new shapes: declared by `enable_dynamic` (`spec`) or found (dynamic=1)."""
        if not self.entries.shape_families:  # (`entries.Cache`: the signature cache's, not bytecode's)
            raise ValueError(f"jit: dynamic shapes need capture_mode 'ast' or 'trace', {self.__name__} uses "
                             f"{self.config.capture_mode!r}")
        self._dynamic = DynamicShapes(self.pipeline, self.entries, spec)  # (adds its shapes to this cache)

    def _compile_and_run(self, sig: Signature, reason: str | None):
        try:
            captured, result = self._capture(sig, reason or "first call")
        except CaptureFallback as exc:
            if spmd.global_batch():  # eagerly each process would train on its slice alone: never silently
                raise ContextError(f"msx.jit: {self.__name__} cannot run eagerly in a multi-process "
                                   f"{context_parallel_mode()} job (its step is in global view): {exc}") from None
            self.entries.run_eagerly(sig.key)
            warnings.warn(f"msx.jit: {self.__name__} runs eagerly for this signature: {exc}", stacklevel=4)
            return self.fn(*sig.args, **sig.kwargs)
        if captured.unguarded and result is not NOT_RUN:
            # the traced run was eager and is right; a graph could not re-check these decisions, so never reuse it
            self.entries.run_eagerly(sig.key)
            warnings.warn(f"msx.jit: {self.__name__} runs eagerly for this signature: its result depends on "
                          f"{'; '.join(captured.unguarded)}, which trace capture cannot guard; use "
                          f"capture_mode='ast' to make it graph control flow", stacklevel=4)
            return result
        compiled = self.pipeline.compile(captured, sig, f"static shapes {[list(t._data.shape) for t in sig.tensors]}")
        self.entries.add(sig, compiled)
        if reason is not None:
            self.pipeline.note_recompile(reason)
        self._last = sig
        if result is not NOT_RUN and (not compiled.backend.reproduces_eager or eager_tape.active()):
            # (under the eager autograd tape the capture run's answer is off the tape: the graph's call is a node)
            captured.restore()  # the capture run's answer is eager's, not this backend's: undo its writes, run it
            result = NOT_RUN
        captured.release_run_state()
        if result is NOT_RUN:
            result = compiled.run(sig)
            if result is INLINE:
                raise CaptureError(f"{self.__name__}: the graph just compiled cannot run this call: {compiled.failure}")
        return result

    # ------------------------------------------------------------ stages
    def _capture(self, sig: Signature, why: str | None = None) -> tuple[Captured, Any]:
        """Capture the call (`why`: for the log; None: a stage call, counted only)."""
        self.pipeline.note_capture(why)
        with PARAMETER_LOCK, hostevents.span("msx.capture", self.__name__):  # a capture reads every Parameter: never while another thread has them swapped out
            args, kwargs = _global_view(sig, self.config.capture_mode) if spmd.global_batch() else \
                (sig.args, sig.kwargs)
            captured, result = self.pipeline.capture(args, kwargs)
            if (captured.guards or captured.unguarded) and self.config.capture_mode == "trace":
                return self._as_graph_control_flow(captured, result, args, kwargs)
            return captured, result

    def _as_graph_control_flow(self, traced: Captured, result: Any, args: tuple, kwargs: dict) -> tuple[Captured, Any]:
        """Trace met a decision on a tensor's value: capture the function from its source (ast) instead.

        A traced graph can only re-check such a decision by reading the value on the host on every call (a
        guard), or cannot at all inside a differentiated function; ast capture makes it graph control flow,
        with no host read. The traced run's writes to Parameters and inputs are undone first, as the graph
        runs this call. Where ast cannot capture the function (no source, an unsupported construct, a value
        it needs on the host too), the traced capture stands, writes and guards included."""
        decisions = [g.describe() for g in traced.guards] + list(traced.unguarded)
        kept = [(p, p._data) for p in traced.updated] + [(t, t._data) for t, _ in traced.written_inputs]
        traced.restore()
        try:
            captured, _ = self.pipeline.capture(args, kwargs, mode="ast")
        except Exception:  # the traced run succeeded, so this is ast's limit, not the user's error
            captured = None
        if captured is None or any(g.error is None for g in captured.guards) or captured.unguarded:
            for t, data in kept:
                t._data = data
            return traced, result
        self.pipeline.note_static(f"trace met a value decision ({'; '.join(decisions)}): captured from source "
                                  f"(ast) so it is graph control flow, with no host read per call")
        return captured, NOT_RUN

    def capture(self, *args, **kwargs) -> Graph:
        """The captured Graph for these arguments; Parameters written while capturing are restored."""
        return self.captured(*args, **kwargs).graph

    def captured(self, *args, **kwargs) -> Captured:
        """Like `capture`, with what binds the graph: the Parameter objects behind `graph.params` and the guards."""
        captured, _ = self._capture(Signature(args, kwargs, self.cell))
        captured.restore()
        return captured

    def lower(self, *args, **kwargs) -> Lowered:
        """Capture (without side effects) and run the passes; `.as_text()` gives StableHLO."""
        sig = Signature(args, kwargs, self.cell)
        captured, _ = self._capture(sig)
        captured.restore()
        return self.pipeline.lower(captured, sig)

    def explain(self, *args, **kwargs) -> ExplainReport:
        """Run this call and report what jit did: graphs, graph breaks (reason, line, suggestion), the guards of
        each cache entry, recompilations — in every capture mode (ast and trace have one entry, no breaks):
        the cache says which entries the call went through, and every entry describes itself the same way."""
        n_before = len(self.recompile_reasons)
        result, visited = self.entries.explained_call(lambda: self(*args, **kwargs), args, kwargs, self.cell)
        return ExplainReport(self.__name__, self.config.capture_mode, visited, self.recompile_reasons, n_before,
                             result)

    def cache_info(self) -> dict:
        return {"captures": self.captures, "compiles": self.compiles, "hits": self.hits,
                "entries": len(self.entries), "recompile_reasons": list(self.recompile_reasons),
                "pass_runs": self.pass_runs, "xla_compiles": self.xla_compiles, "log": list(self.log),
                "shape_families": len(self._dynamic.families) if self._dynamic is not None else 0}

    def __repr__(self) -> str:
        return f"<msx.jit {self.__name__} capture_mode={self.config.capture_mode!r} entries={len(self.entries)}>"


__all__ = ["jit", "JitFunction", "Lowered", "Compiled", "Signature"]


cell_config.register_jit(jit)  # GRAPH_MODE Cells and Cell.compile compile through jit


def _tensor_leaves(args: tuple, kwargs: dict) -> list:
    return jax.tree_util.tree_leaves((args, kwargs), is_leaf=lambda x: isinstance(x, Tensor))
