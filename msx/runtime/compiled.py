"""The compiled stages of a jitted function: `Lowered` (a graph after passes, bound to a backend) and
`Compiled` (its executable plus the bindings that run it).

`Compiled.run` is the one hot path every capture mode shares: it checks the
Parameters the graph binds (shape, dtype, `requires_grad`), donates only the
buffers no one else can reach, runs the executable, re-checks trace-mode value
guards, and writes the updated Parameters back.
"""
from __future__ import annotations

import itertools
import operator
import os
import sys
from typing import Any, Callable

import jax
import numpy as np

from .. import context, versions
from ..backends import BackendBase, BuildConfig
from ..capture.builder import Captured
from ..eager import tape as eager_tape, tensor_hooks
from ..errors import BackendError, CaptureError, MsxError
from ..ir.graph import Const, Graph
from ..tensor import PARAMETER_LOCK, Tensor
from . import hot_call
from .outcomes import EAGER, INLINE, UNCHECKED  # noqa: F401  (jit and the caches read them here too)
from .signature import Signature, describe_change
_save_counter = itertools.count()


def save_stage(name: str, stage: str, text: str, ext: str | None = None) -> str | None:
    """`set_context(save_graphs=...)`: write a stage's text as `NNNN_<name>_<stage>.<ext>`; returns the path."""
    if not context.get_context("save_graphs"):
        return None
    folder = context.get_context("save_graphs_path")
    os.makedirs(folder, exist_ok=True)
    ext = ext or ("mlir" if stage == "stablehlo" else "ir")
    path = os.path.join(folder, f"{next(_save_counter):04d}_{name}_{stage}.{ext}")
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)
    return path


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
            save_stage(self.name, "stablehlo", compiled.as_text())
        return compiled

    def __str__(self) -> str:
        return str(self.graph)


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
        before = {id(p): old for p, old in zip(captured.updated, captured.old_values)}
        self.param_avals = [(a.shape, a.dtype) for a in  # as the graph reads them, before a trace run's writes
                            (before.get(id(p), p._data) for p in captured.params)]
        self.params = captured.params
        self.grad_flags = [p.requires_grad for p in captured.params]
        self.epoch = versions.EPOCH[0]
        # the backward hooks on the Parameters when the graph was captured: it holds their ops (a call whose
        # inputs have hooks runs in Python: `jit`); while hooks exist, every call compares them (epoch -1)
        self.hook_marks = tensor_hooks.marks(self.params)
        if tensor_hooks.any_registered():
            self.epoch = -1
        self.donates = bool(config.donate and self.rw)
        by_name = {v.name: captured.params[i] for i, v in enumerate(graph.params)}
        self.updated = [by_name[name] for name, _ in graph.updates]
        self.guards = captured.guards
        self.state = captured.state      # the Python state the capture read (checked before `run`)
        self.out_tree = captured.out_tree
        self.one_leaf = captured.out_tree == jax.tree_util.tree_structure(0)  # the result is one Tensor
        slots, k = [], 0
        for o in graph.outputs:
            if isinstance(o, Const):
                slots.append(Tensor(o.value) if isinstance(o.value, np.ndarray) else o.value)
            else:
                slots.append(_SLOT)
                k += 1
        self.slots = slots if any(s is not _SLOT for s in slots) else None
        self.input_writes = captured.input_writes
        self.failure = ""
        # XLA executables refuse arguments of another shape or dtype (and jax tracers) before running, so the
        # per-call Parameter check is theirs; other backends get it here
        self.backend_checks = bool(getattr(handle, "checks_argument_types", False))

    def as_text(self) -> str:
        return self.backend.as_text(self.handle)

    def _stale_parameter(self) -> str | None:
        """Why a bound Parameter no longer fits the graph (shape or dtype; "" for a jax tracer), or None."""
        for p, (shape, dtype) in zip(self.params, self.param_avals):
            data = p._data
            if isinstance(data, jax.core.Tracer):
                return ""
            if data.shape != shape or data.dtype != dtype:
                return (f"parameter {p.name}: {np.dtype(dtype).name}{shape} -> "
                        f"{np.dtype(data.dtype).name}{tuple(data.shape)}")
        return None

    def __str__(self) -> str:
        return f"Compiled({self.lowered.graph.name} on backend {self.backend.name!r})"

    def __call__(self, *args, **kwargs):
        sig = Signature(args, kwargs, None)
        if sig.key[:2] != self.key[:2]:
            raise ValueError(f"Compiled({self.lowered.name}) was built for another signature: "
                             f"{describe_change(self.lowered.signature, sig)}")
        out = self.run(sig)
        if out is INLINE:
            raise CaptureError(f"Compiled({self.lowered.name}) cannot run this call: {self.failure}")
        return out

    def run(self, sig: Signature):
        """Run on the call's Tensors; `INLINE` when a guard or a Parameter says the graph is stale.

        A graph that binds Parameters runs under `PARAMETER_LOCK`, so that a training step and an evaluation
        of the same network in two threads never see each other's half-written (or donated) state; a
        graph with no Parameters runs lock-free.
        """
        if not self.params:
            return self._run(sig.tensors, False)
        with PARAMETER_LOCK:
            return self._run(sig.tensors, False)

    def hot_call(self, n: int, training: Any) -> Callable[[tuple, Any], Any]:
        """A call of `n` Tensors, none twice, with the Cell's training flag `training`: what `EntryCache.hot`
        runs for a call like the last hit, with no signature built. It returns `UNCHECKED` for any call
        the checked path must see (another argument count, kind or aliasing, a changed training flag or
        Python state), and otherwise `_run(tensors, unchecked=True)` under the lock.

        The common graph (no trace-mode value guards, no constant outputs, no input written in place) on a
        backend with a `direct` call gets all of that in one function generated for the entry
        (`hot_call.generate`): it calls the executable itself, which compares shapes, dtypes and placement in
        C++, and returns `UNCHECKED` (nothing ran) whenever the general path has something to say — an eager
        tape recording, host events traced, a `requires_grad` or Cell change (`versions.EPOCH`), a Parameter
        holding a tracer, a refused argument.
        """
        state = self.state

        def plain(tensors: tuple, cell: Any) -> bool:
            if len(tensors) != n or (cell is not None and cell.training is not training):
                return False
            for t in tensors:
                if type(t) is not Tensor:
                    return False
            return (n < 2 or len(set(map(id, tensors))) == n) and state.holds()

        direct = None if (self.guards or self.slots is not None or self.input_writes) else \
            self.backend.direct(self.handle)
        if direct is None:
            def general(tensors: tuple, cell: Any) -> Any:
                if not plain(tensors, cell):
                    return UNCHECKED
                if not self.params:
                    return self._run(tensors, True)
                with PARAMETER_LOCK:
                    return self._run(tensors, True)
            return general
        return hot_call.generate(n=n, training=training, direct=direct, entry=self, state=state, ro=self.ro,
                                 rw=self.rw, updated=self.updated, donates=self.donates, own_donated=_own_donated,
                                 lock=PARAMETER_LOCK, run_error=lambda exc: self.backend.run_error(self.handle, exc),
                                 one_leaf=self.one_leaf, out_tree=self.out_tree, unchecked=UNCHECKED)

    def _run(self, tensors, unchecked: bool):
        """`run` on these Tensors, under the caller's lock. `unchecked`: nobody compared their shapes and
        dtypes with the signature (`EntryCache.hot`): the executable does (`backend_checks`: it refuses
        another shape or dtype with a TypeError before running anything), and a refusal returns `UNCHECKED`
        for the caller to take the checked path, which says why."""
        if not self.backend_checks:
            failure = self._stale_parameter()
            if failure is not None:
                self.failure = failure
                return INLINE
        if versions.EPOCH[0] != self.epoch:  # a Parameter's requires_grad, a Cell or a Tensor's hooks changed
            for p, flag in zip(self.params, self.grad_flags):
                if p.requires_grad != flag:
                    self.failure = f"parameter {p.name}: requires_grad {flag} -> {p.requires_grad}"
                    return INLINE
            if tensor_hooks.marks(self.params) != self.hook_marks:
                self.failure = "the backward hooks (Tensor.register_hook) of a Parameter changed"
                return INLINE
            if not tensor_hooks.any_registered():  # while hooks exist, each call compares its Tensors' hooks
                self.epoch = versions.EPOCH[0]
        if self.donates and not _own_donated(self.rw):  # under a jax transform of the user's: Python runs it
            self.failure = ""
            return INLINE
        try:
            outs, updates, extras = self.backend.run(self.handle, (list(map(_DATA, tensors)), list(map(_DATA, self.ro)),
                                                                   list(map(_DATA, self.rw))))
        except TypeError:  # the executable refused an argument before running: say which Parameter changed
            if unchecked:
                return UNCHECKED
            failure = self._stale_parameter() if self.backend_checks else None
            if failure is None:
                raise
            self.failure = failure
            return INLINE
        if extras:
            for guard, value in zip(self.guards, extras):
                if not np.array_equal(np.asarray(value), guard.value):
                    if guard.error is not None:  # a check: the eager call raises here, before any write
                        raise guard.error()
                    self.failure = (f"guard {guard.describe()}: was {_short(guard.value)} at capture, "
                                    f"now {_short(np.asarray(value))}")
                    return INLINE
        for p, u in zip(self.updated, updates):
            p._data = u
        results = list(map(_WRAP, outs))
        if self.slots is not None:
            it = iter(results)
            results = [next(it) if s is _SLOT else s for s in self.slots]
        if self.input_writes:  # the graph wrote these inputs in place: so do we, as an eager call would
            n = len(self.input_writes)
            for i, new in zip(self.input_writes, results[-n:]):
                tensors[i]._data = (new if isinstance(new, Tensor) else Tensor(new))._data
            results = results[:-n]
        if self.one_leaf:
            return results[0]
        return jax.tree_util.tree_unflatten(self.out_tree, results)


def _own_donated(rw: list) -> bool:
    """Make every buffer the graph donates (the written Parameters') one that only its Parameter holds: a
    buffer someone else still holds (`value()`, `set_data(t)`, `clone()`) is copied, not donated, so no user
    tensor is ever deleted. False: a Parameter holds a jax tracer (a jax transform of the user's is running).
    The copy is `device_put`'s buffer copy: `Array.copy()` compiles a program per shape (EfficientNet-B0's
    step: 70 compiles, 1.3 s, on a call after `Compiled` kept the capture's arrays)."""
    for p in rw:
        data = p._data
        if isinstance(data, jax.core.Tracer):
            return False
        if sys.getrefcount(data) > _OWNED_ONLY_LOCAL:
            p._data = jax.device_put(data, may_alias=False)
        del data
    return True


_DATA = operator.attrgetter("_data")
_WRAP = Tensor._from
_OWNED_ONLY_LOCAL = 3  # sys.getrefcount of an array only its Parameter holds, seen through a local name:
# the Parameter's slot, the local and the call's argument
_SLOT = object()


def _short(v: np.ndarray) -> str:
    return repr(v.item()) if v.size == 1 else f"array{v.shape}"
