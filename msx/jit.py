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
import itertools
import os
import warnings
from dataclasses import dataclass
from typing import Any, Callable

import jax
import numpy as np

from . import context
from .backends import BackendBase, BuildConfig, get_backend
from .capture.builder import Captured
from .capture import CAPTURE_CHECKS, CAPTURE_MODES, CAPTURE_RUNNERS, NOT_RUN
from .errors import BackendError, CaptureError, CaptureFallback, MsxError
from .ir.graph import Const, Graph
from .ops.primitive import recording
from .dynamic import NOT_HANDLED, DynamicShapes, DynamicSpec, spec_of
from .passes import optimise, pass_views
from .tensor import Tensor

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
    if dynamic == 1 and capture_mode == "bytecode":
        raise ValueError("jit: dynamic=1 works with capture_mode 'ast' or 'trace' (bytecode capture keeps its own "
                         "per-shape cache of guarded graphs)")
    if not isinstance(fullgraph, bool):
        raise ValueError(f"jit: fullgraph must be True or False, got {fullgraph!r}")
    if backend is not None and not isinstance(backend, str):
        raise ValueError(f"jit: backend must be a backend name (str), got {type(backend).__name__}")
    if backend is not None and backend != "ms_backend":
        get_backend(backend)  # an unknown name or an absent device fails now, listing the available backends
    backend_options = {k: v for k, v in options.items() if k not in _OPTIONS}
    if backend_options:
        _check_backend_options(get_backend(backend), backend_options)
    disable = options.get("disable_passes", ())
    disable = (disable,) if isinstance(disable, str) else disable
    if not isinstance(disable, (list, tuple)) or not all(isinstance(n, str) for n in disable):
        raise ValueError(f"jit: disable_passes must be a pass name or a list of them, got {disable!r}; "
                         f"see msx.passes.list_passes()")
    return JitConfig(capture_mode, jit_level, dynamic, fullgraph, backend, tuple(disable),
                     tuple(sorted(backend_options.items())))


def _check_backend_options(backend: BackendBase, options: dict) -> None:
    """Options that are not jit's own belong to the backend (e.g. the simulated Ascend's precision_mode)."""
    unknown = sorted(set(options) - set(backend.options))
    if unknown:
        raise ValueError(f"jit: unknown option(s) {unknown}; valid options: {list(_OPTIONS) + list(backend.options)} "
                         f"(backend {backend.name!r})")
    backend.check_options(options)


def jit(function: Callable | None = None, *, capture_mode: str = "ast", jit_level: str = "O0", dynamic: int = 0,
        fullgraph: bool = False, backend: str | None = None, **options) -> Any:
    """Compile a function, a Cell instance or a `construct` method (`@jit`, `@jit(...)`, `jit(fn, ...)`)."""
    config = _validate(capture_mode, jit_level, dynamic, fullgraph, backend, options)

    def wrap(fn: Callable) -> "JitFunction":
        return JitFunction(fn, config)

    return wrap if function is None else wrap(function)


# ---------------------------------------------------------------- signatures
_Cell: type | None = None


def _is_leaf(x) -> bool:
    global _Cell
    if _Cell is None:
        from .nn.cell import Cell as _Cell
    return isinstance(x, (Tensor, _Cell))


def _leaf_key(x):
    if isinstance(x, Tensor):
        return x._data.shape, x._data.dtype
    if _is_leaf(x):  # a Cell: identity and training flag
        return "cell", id(x), x.training
    try:
        hash(x)
        return type(x), x
    except TypeError:
        return "id", id(x)


class Signature:
    """The cache key of one call plus its Tensor leaves.

    The common call — only Tensor positional arguments — skips pytree flattening.
    """

    __slots__ = ("key", "tensors", "args", "kwargs")

    def __init__(self, args: tuple, kwargs: dict, cell) -> None:
        training = cell.training if cell is not None else None
        if not kwargs and all(type(a) is Tensor for a in args):
            self.args, self.kwargs, self.tensors = args, kwargs, list(args)
            self.key = (len(args), tuple((a._data.shape, a._data.dtype) for a in args), training, _aliasing(args))
            return
        leaves, treedef = jax.tree_util.tree_flatten((args, kwargs), is_leaf=_is_leaf)
        if any(isinstance(x, (np.ndarray, jax.Array)) for x in leaves):
            leaves = [Tensor(x) if isinstance(x, (np.ndarray, jax.Array)) else x for x in leaves]
            args, kwargs = jax.tree_util.tree_unflatten(treedef, leaves)
        self.args, self.kwargs = args, kwargs
        self.tensors = [x for x in leaves if isinstance(x, Tensor)]
        self.key = (treedef, tuple(_leaf_key(x) for x in leaves), training, _aliasing(self.tensors))

    def has_tracer(self) -> bool:
        return any(isinstance(t._data, jax.core.Tracer) for t in self.tensors)


def _aliasing(tensors) -> tuple | None:
    """Which Tensor arguments are the same object (a graph traced with f(x, x) must not serve f(a, b))."""
    ids = [id(t) for t in tensors]
    if len(set(ids)) == len(ids):
        return None
    return tuple(ids.index(i) for i in ids)


def _full_key(sig: Signature) -> tuple:
    leaves, treedef = jax.tree_util.tree_flatten((sig.args, sig.kwargs), is_leaf=_is_leaf)
    return treedef, tuple(_leaf_key(x) for x in leaves), sig.key[2], sig.key[3]


def _describe_change(old_sig: Signature, new_sig: Signature) -> str:
    """Why `new_sig` missed the cache entry made for `old_sig`, in words."""
    old, new = _full_key(old_sig), _full_key(new_sig)
    if old[0] != new[0]:
        return f"argument structure changed: {old[0]} -> {new[0]}"
    if old[3] != new[3]:
        return f"argument aliasing changed: {old[3]} -> {new[3]} (the same Tensor passed in several places)"
    if old[2] != new[2]:
        return f"training flag: {old[2]} -> {new[2]}"
    paths = [jax.tree_util.keystr(p) for p, _ in
             jax.tree_util.tree_flatten_with_path((new_sig.args, new_sig.kwargs), is_leaf=_is_leaf)[0]]
    reasons = []
    for path, a, b in zip(paths, old[1], new[1]):
        if a == b:
            continue
        where = _readable_path(path)
        if isinstance(a[0], tuple) and isinstance(b[0], tuple):
            if a[0] != b[0]:
                reasons.append(f"{where}: shape {a[0]} -> {b[0]}")
            if a[1] != b[1]:
                reasons.append(f"{where}: dtype {np.dtype(a[1]).name} -> {np.dtype(b[1]).name}")
        elif a[0] == "cell" and b[0] == "cell" and a[1] == b[1]:
            reasons.append(f"{where}: training flag {a[2]} -> {b[2]}")
        else:
            reasons.append(f"{where}: {_show(a)} -> {_show(b)}")
    return "; ".join(reasons) or "new signature"


def _readable_path(path: str) -> str:
    # "[0][1]" (args, position 1) -> "arg 1"; "[1]['lr']" -> "kwarg 'lr'"
    if path.startswith("[0]["):
        rest = path[4:]
        idx, _, tail = rest.partition("]")
        return f"arg {idx}{tail}"
    if path.startswith("[1]["):
        return f"kwarg {path[4:].split(']')[0]}{path[4:].partition(']')[2]}"
    return path


def _show(k) -> str:
    if isinstance(k[0], tuple):
        return f"Tensor{k[0]} {np.dtype(k[1]).name}"
    if k[0] == "id":
        return f"object id {k[1]}"
    if k[0] == "cell":
        return f"Cell id {k[1]}"
    return repr(k[1])


# ---------------------------------------------------------------- stages
_save_counter = itertools.count()


def _save_stage(name: str, stage: str, text: str, ext: str | None = None) -> None:
    if not context.get_context("save_graphs"):
        return
    folder = context.get_context("save_graphs_path")
    os.makedirs(folder, exist_ok=True)
    ext = ext or ("mlir" if stage == "stablehlo" else "ir")
    path = os.path.join(folder, f"{next(_save_counter):04d}_{name}_{stage}.{ext}")
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


class Lowered:
    """A captured graph after passes, bound to a backend; `.compile()` builds it.

    `pass_records`: what each pass did (`msx.passes.PassRecord`: name, stage, time, before/after, `.diff()`).
    """

    def __init__(self, captured: Captured, graph: Graph, backend: BackendBase, config: BuildConfig,
                 signature: Signature, name: str, pass_records: list | None = None) -> None:
        self.captured, self.graph, self.backend, self.config = captured, graph, backend, config
        self.signature, self.name = signature, name
        self.pass_records = pass_records or []

    def as_text(self) -> str:
        """The backend's text for this graph: StableHLO for the XLA backends."""
        lower = getattr(self.backend, "lower", None)
        if lower is not None:
            return lower(self.graph, self.config).as_text()
        return self.backend.as_text(self.backend.build(self.graph, self.config))

    def compile(self) -> "Compiled":
        try:
            handle = self.backend.build(self.graph, self.config)
        except MsxError:
            raise
        except Exception as exc:
            raise BackendError(f"backend {self.backend.name!r} failed to build graph {self.graph.name}: {exc}") from exc
        compiled = Compiled(self, handle)
        if context.get_context("save_graphs"):
            _save_stage(self.name, "stablehlo", compiled.as_text())
        return compiled

    def __str__(self) -> str:
        return str(self.graph)


_INLINE = object()  # run() could not use the executable: call the Python function instead
_EAGER = object()   # cache marker: this signature could not be captured and runs eagerly


class Compiled:
    """A built executable plus the bindings to run it: Parameters in, updates written back."""

    def __init__(self, lowered: Lowered, handle: Any) -> None:
        self.lowered, self.handle = lowered, handle
        captured, graph, config = lowered.captured, lowered.graph, lowered.config
        rw = set(config.rw_params)
        self.key = lowered.signature.key
        self.backend = lowered.backend
        for p in captured.params:  # Parameters live on the backend's device from now on
            p._data = self.backend.place(p._data)
        self.ro = [p for i, p in enumerate(captured.params) if i not in rw]
        self.rw = [captured.params[i] for i in config.rw_params]
        self.param_avals = [(p._data.shape, p._data.dtype) for p in captured.params]
        self.params = captured.params
        by_name = {v.name: captured.params[i] for i, v in enumerate(graph.params)}
        self.updated = [by_name[name] for name, _ in graph.updates]
        self.guards = captured.guards
        self.out_tree = captured.out_tree
        slots, k = [], 0
        for o in graph.outputs:
            if isinstance(o, Const):
                slots.append(Tensor(o.value) if isinstance(o.value, np.ndarray) else o.value)
            else:
                slots.append(_SLOT)
                k += 1
        self.slots = slots if any(s is not _SLOT for s in slots) else None
        self.failure = ""

    def as_text(self) -> str:
        return self.backend.as_text(self.handle)

    def __str__(self) -> str:
        return f"Compiled({self.lowered.graph.name} on backend {self.backend.name!r})"

    def __call__(self, *args, **kwargs):
        sig = Signature(args, kwargs, None)
        if sig.key[:2] != self.key[:2]:
            raise ValueError(f"Compiled({self.lowered.name}) was built for another signature: "
                             f"{_describe_change(self.lowered.signature, sig)}")
        out = self.run(sig)
        if out is _INLINE:
            raise CaptureError(f"Compiled({self.lowered.name}) cannot run this call: {self.failure}")
        return out

    def run(self, sig: Signature):
        """Run on the call's Tensors; `_INLINE` when a guard or a Parameter's shape says the graph is stale."""
        ro = [p._data for p in self.ro]
        rw = [p._data for p in self.rw]
        for p, (shape, dtype) in zip(self.params, self.param_avals):
            data = p._data
            if isinstance(data, jax.core.Tracer):
                self.failure = ""
                return _INLINE
            if data.shape != shape or data.dtype != dtype:
                self.failure = (f"parameter {p.name}: {np.dtype(dtype).name}{shape} -> "
                                f"{np.dtype(data.dtype).name}{tuple(data.shape)}")
                return _INLINE
        outs, updates, extras = self.backend.run(self.handle, ([t._data for t in sig.tensors], ro, rw))
        for guard, value in zip(self.guards, extras):
            if not np.array_equal(np.asarray(value), guard.value):
                self.failure = (f"guard {guard.describe()}: was {_short(guard.value)} at capture, "
                                f"now {_short(np.asarray(value))}")
                return _INLINE
        for p, u in zip(self.updated, updates):
            p._data = u
        tensors = [Tensor._from(o) for o in outs]
        if self.slots is not None:
            it = iter(tensors)
            tensors = [next(it) if s is _SLOT else s for s in self.slots]
        return jax.tree_util.tree_unflatten(self.out_tree, tensors)


_SLOT = object()


def _short(v: np.ndarray) -> str:
    return repr(v.item()) if v.size == 1 else f"array{v.shape}"


# ---------------------------------------------------------------- the decorator's object
class JitFunction:
    """A function compiled on first call per signature; the stage calls expose each step."""

    def __init__(self, fn: Callable, config: JitConfig) -> None:
        from .nn.cell import Cell

        self.fn = fn
        self.config = config
        self.cell = fn if isinstance(fn, Cell) else None
        self.__name__ = type(fn).__name__ if self.cell is not None else getattr(fn, "__name__", "fn")
        if self.cell is None:
            functools.update_wrapper(self, fn)
        self._cache: dict[Any, Compiled] = {}
        self._last: Signature | None = None
        self.recompile_reasons: list[str] = []
        self.captures = 0
        self.compiles = 0
        self.hits = 0
        self.pass_runs = 0       # pass-pipeline runs
        self.xla_compiles = 0    # backend compiles, one per concrete shape of a symbolic graph too
        self.log: list[tuple[str, str]] = []  # (what ran: capture | xla_compile | static, why)
        self._dynamic = None     # msx.dynamic.DynamicShapes under dynamic=1 or enable_dynamic
        self._warned = False
        runner = CAPTURE_RUNNERS.get(config.capture_mode)
        self._runner = runner(self) if runner is not None else None  # a mode with its own cache (bytecode)
        spec = spec_of(fn)
        if spec is not None or config.dynamic:
            self.set_dynamic_spec(spec)

    def __get__(self, obj, objtype=None):
        """`@jit` on a method (e.g. `construct`): bind `self` like a function would."""
        if obj is None:
            return self
        return functools.partial(self.__call__, obj)

    # ------------------------------------------------------------ calling
    def __call__(self, *args, **kwargs):
        if recording.recorder is not None:  # inside another capture: inline
            converter = recording.converter
            return self.fn(*args, **kwargs) if converter is None else converter(self.fn, args, kwargs)
        if self._runner is not None:  # guards and graph breaks: the capture mode runs the call
            return self._runner(args, kwargs)
        sig = Signature(args, kwargs, self.cell)
        if sig.has_tracer():
            return self.fn(*sig.args, **sig.kwargs)  # under a jax transform (msx.grad of a jitted fn)
        compiled = self._cache.get(sig.key)
        if compiled is _EAGER:
            return self.fn(*sig.args, **sig.kwargs)
        if compiled is not None:
            out = compiled.run(sig)
            if out is not _INLINE:
                self.hits += 1
                return out
            if not compiled.failure:
                return self.fn(*sig.args, **sig.kwargs)
            reason = compiled.failure
        else:
            reason = _describe_change(self._last, sig) if self._last is not None else None
            if self._dynamic is not None:
                out = self._dynamic.call(sig, reason)
                if out is not NOT_HANDLED:
                    return out
        return self._compile_and_run(sig, reason)

    def set_dynamic_spec(self, spec: DynamicSpec | None) -> None:
        """Use shape families for new shapes: declared by `enable_dynamic` (`spec`) or found (dynamic=1)."""
        if self._runner is not None:
            raise ValueError(f"jit: dynamic shapes need capture_mode 'ast' or 'trace', {self.__name__} uses "
                             f"{self.config.capture_mode!r}")
        self._dynamic = DynamicShapes(self, spec)

    def _compile_and_run(self, sig: Signature, reason: str | None):
        try:
            captured, result = self._capture(sig)
        except CaptureFallback as exc:
            self._cache[sig.key] = _EAGER
            warnings.warn(f"msx.jit: {self.__name__} runs eagerly for this signature: {exc}", stacklevel=3)
            return self.fn(*sig.args, **sig.kwargs)
        if captured.unguarded and result is not NOT_RUN:
            # the traced run was eager and is right; a graph could not re-check these decisions, so never reuse it
            self._cache[sig.key] = _EAGER
            warnings.warn(f"msx.jit: {self.__name__} runs eagerly for this signature: its result depends on "
                          f"{'; '.join(captured.unguarded)}, which trace capture cannot guard; use "
                          f"capture_mode='ast' to make it graph control flow", stacklevel=3)
            return result
        self.log.append(("capture", reason or "first call"))
        lowered = self._lower(captured, sig)
        compiled = lowered.compile()
        self._cache[sig.key] = compiled
        self.compiles += 1
        self.xla_compiles += 1
        self.log.append(("xla_compile", f"static shapes {[list(t._data.shape) for t in sig.tensors]}"))
        if reason is not None:
            self._note_recompile(reason)
        self._last = sig
        if result is not NOT_RUN and not compiled.backend.reproduces_eager:
            captured.restore()  # the capture run's answer is eager's, not this backend's: undo its writes, run it
            result = NOT_RUN
        if result is NOT_RUN:
            result = compiled.run(sig)
            if result is _INLINE:
                raise CaptureError(f"{self.__name__}: the graph just compiled cannot run this call: {compiled.failure}")
        return result

    def _note_recompile(self, reason: str) -> None:
        self.recompile_reasons.append(reason)
        limit = context.get_context("recompile_warn_limit")
        if len(self.recompile_reasons) >= limit and not self._warned:
            self._warned = True
            shown = "\n  ".join(self.recompile_reasons[-limit:])
            warnings.warn(f"msx.jit: {self.__name__} was recompiled {len(self.recompile_reasons)} times; reasons:\n  "
                          f"{shown}", stacklevel=3)

    # ------------------------------------------------------------ stages
    def _capture(self, sig: Signature) -> tuple[Captured, Any]:
        self.captures += 1
        return CAPTURE_MODES[self.config.capture_mode](self.fn, sig.args, sig.kwargs, self.__name__, self.config)

    def _lower(self, captured: Captured, sig: Signature) -> Lowered:
        keep = tuple(g.var for g in captured.guards)
        _save_stage(self.__name__, "captured", str(captured.graph))
        backend = get_backend(self.config.backend)
        self.pass_runs += 1
        result = optimise(captured.graph, self.config.jit_level, keep, backend, self.config.disable_passes)
        graph, keep = result.graph, result.keep
        if context.get_context("save_graphs"):
            for stage, ext, text in pass_views(result.records):
                _save_stage(self.__name__, stage, text, ext)
        _save_stage(self.__name__, "optimised", str(graph))
        written = {name for name, _ in graph.updates}
        rw = tuple(i for i, v in enumerate(graph.params) if v.name in written)
        options = dict(self.config.backend_options)
        if options:
            _check_backend_options(backend, options)  # "ms_backend" resolves now, by device_target
        config = BuildConfig(rw_params=rw, donate=not captured.guards, extra_outputs=keep,
                             jit_level=self.config.jit_level, fullgraph=self.config.fullgraph, options=options)
        return Lowered(captured, graph, backend, config, sig, self.__name__, result.records)

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
        return self._lower(captured, sig)

    def explain(self, *args, **kwargs):
        """Run this call and report what jit did: graphs, graph breaks (reason, line, suggestion), the guards of
        each cache entry, recompilations (capture_mode="bytecode")."""
        if self._runner is None:
            raise ValueError(f"jit: explain() reports graph breaks and guards of capture_mode='bytecode'; "
                             f"{self.__name__} uses capture_mode={self.config.capture_mode!r}")
        return self._runner.explain(args, kwargs)

    def cache_info(self) -> dict:
        entries = len(self._cache) if self._runner is None else self._runner.entry_count()
        return {"captures": self.captures, "compiles": self.compiles, "hits": self.hits,
                "entries": entries, "recompile_reasons": list(self.recompile_reasons),
                "pass_runs": self.pass_runs, "xla_compiles": self.xla_compiles, "log": list(self.log),
                "shape_families": len(self._dynamic.families) if self._dynamic is not None else 0}

    def __repr__(self) -> str:
        return f"<msx.jit {self.__name__} capture_mode={self.config.capture_mode!r} entries={len(self._cache)}>"


__all__ = ["jit", "JitFunction", "Lowered", "Compiled", "Signature"]
