"""Dynamic shapes for `msx.jit`: `Symbol`, `enable_dynamic`, and shape families of symbolic dims.

A *family* is one captured and optimised graph whose inputs have symbolic
dims (`f32[s0,784]`); every call whose shapes fit it (same structure, dtypes
and ranks, equal static dims, equal values for dims sharing a symbol, declared
constraints met) runs it, paying only an XLA compile per new concrete shape.

- `jit(dynamic=1)`: the first call compiles static; when a later call changes
  dims, the changed dims become symbols (dims that changed from the same value
  to the same value share one symbol) and the function is captured once more.
- `enable_dynamic(x=Tensor(shape=[None, 784], dtype=...))`: the symbolic dims
  are declared up front, so the first call already captures symbolically.
  `None` dims with equal sizes at capture share a symbol; the same `Symbol`
  object in two places always does. `shape=None` (dynamic rank): one family
  per rank, every dim symbolic.
"""
from __future__ import annotations


import inspect
from dataclasses import dataclass
from typing import Any, Callable

import jax

from . import dtype as mstype
from .backends import get_backend
from .capture.builder import Captured
from .capture.session import write_log
from .capture.trace import input_names, is_input
from .ir.symbolic import Dim, SymbolicShapeError, jax_shape
from .tensor import PARAMETER_LOCK, Tensor
from .dynamic_spec import DynamicSpec, Position, Symbol, make_spec  # noqa: F401  (re-exported: msx.Symbol)
from .runtime.signature import is_leaf as _is_leaf
from .errors import BackendError, MsxError
from .runtime.cache import EntryCache
from .runtime.compiled import INLINE as _INLINE
from .runtime.compile_pipeline import Pipeline


# ---------------------------------------------------------------- enable_dynamic
def enable_dynamic(**kwargs) -> Callable:
    """Declare dynamic dims of a jitted function's Tensor arguments before its first call.

    Use above or below `@msx.jit`, or on a Cell's `construct`::

        @msx.enable_dynamic(x=msx.Tensor(shape=[None, 784], dtype=msx.float32))
        @msx.jit
        def forward(x): ...
    """
    spec = make_spec(kwargs)

    def decorate(fn):
        if getattr(type(fn), "__msx_jit__", False):  # already a msx.jit function
            fn.set_dynamic_spec(spec)
            return fn
        fn.__msx_dynamic__ = spec  # read by jit() when it wraps this function (or Cell.construct)
        return fn

    return decorate


def spec_of(fn: Any) -> DynamicSpec | None:
    """The `enable_dynamic` declaration on a function, or on a Cell's construct."""
    spec = getattr(fn, "__msx_dynamic__", None)
    if spec is None:
        spec = getattr(getattr(type(fn), "construct", None), "__msx_dynamic__", None)
    return spec


def argument_names(fn: Any, args: tuple, kwargs: dict) -> list[str]:
    """Names of the call's Tensor leaves (`x`, `batch.0`); a Cell's are its construct's parameter names."""
    target = getattr(fn, "construct", fn)
    try:
        inspect.signature(target)
    except (TypeError, ValueError):
        target = fn
    return input_names(target, args, kwargs)


# ---------------------------------------------------------------- families
def masked_key(key: tuple, dims) -> tuple:
    """A signature key with the symbolic dims (positions in `dims`) blanked out."""
    entries, t = [], 0
    for e in key[1]:
        if isinstance(e[0], tuple):
            entries.append((tuple(None if (t, a) in dims else d for a, d in enumerate(e[0])), e[1]))
            t += 1
        else:
            entries.append(e)
    return key[0], tuple(entries), key[2]


def shape_changes(old, new) -> set[Position] | None:
    """The dims that differ between two calls whose only difference is dims (else None)."""
    if len(old.tensors) != len(new.tensors):
        return None
    changed = set()
    for i, (a, b) in enumerate(zip(old.tensors, new.tensors)):
        sa, sb = a._data.shape, b._data.shape
        if len(sa) != len(sb):
            return None
        changed |= {(i, k) for k, (x, y) in enumerate(zip(sa, sb)) if x != y}
    if not changed or masked_key(old.key, changed) != masked_key(new.key, changed):
        return None
    return changed


def group_symbols(positions, by: Callable[[Position], Any]) -> dict[Position, str]:
    """Symbol names `s0, s1, ...`: positions whose `by` value agrees share one (their dims are taken as equal)."""
    names: dict[Any, str] = {}
    return {p: names.setdefault(by(p), f"s{len(names)}") for p in sorted(positions)}


@dataclass
class Family:
    """One symbolic capture: the blanked key it serves, its symbols by position, their constraints."""

    key: tuple
    dims: dict[Position, str]
    compiled: Any
    sample: Any  # the Signature it was captured for

    def matches(self, sig) -> bool:
        if masked_key(sig.key, self.dims) != self.key:
            return False
        values: dict[str, int] = {}
        for (t, a), sym in self.dims.items():
            v = sig.tensors[t]._data.shape[a]
            if values.setdefault(sym, v) != v:
                return False
        return True

    def describe(self, names: list[str]) -> str:
        return ", ".join(f"{names[t] if t < len(names) else f'tensor {t}'} dim {a} -> {s}"
                         for (t, a), s in sorted(self.dims.items()))


def symbolic_arguments(sig, dims: dict[Position, str]) -> tuple[tuple, dict]:
    """The call's (args, kwargs) with each Tensor that has symbolic dims replaced by an abstract one."""
    leaves, treedef = jax.tree_util.tree_flatten((sig.args, sig.kwargs), is_leaf=_is_leaf)
    t = 0
    for i, leaf in enumerate(leaves):
        if is_input(leaf):
            shape = tuple(Dim(dims[(t, a)]) if (t, a) in dims else d for a, d in enumerate(leaf._data.shape))
            leaves[i] = Tensor._from(jax.ShapeDtypeStruct(jax_shape(shape), leaf._data.dtype))
            t += 1
    return jax.tree_util.tree_unflatten(treedef, leaves)


def capture_symbolic(pipeline, sig, dims: dict[Position, str]) -> Captured:
    """Capture the pipeline's function with the dims in `dims` symbolic (its capture stage; source capture runs
    abstractly, trace runs under eval_shape)."""
    args, kwargs = symbolic_arguments(sig, dims)
    if pipeline.config.capture_mode != "trace":
        captured, _ = pipeline.capture(args, kwargs)
        return captured
    box: list[Captured] = []

    def run(*arrays):
        rebuilt = iter(arrays)
        leaves, treedef = jax.tree_util.tree_flatten((args, kwargs), is_leaf=lambda x: isinstance(x, Tensor))
        call = jax.tree_util.tree_unflatten(treedef, [Tensor._from(next(rebuilt)) if is_input(x) else x
                                                      for x in leaves])
        captured, _ = pipeline.capture(call[0], call[1])
        captured.restore()  # the abstract run wrote tracers into Parameters
        box.append(captured)

    tensors = [x for x in jax.tree_util.tree_leaves((args, kwargs), is_leaf=lambda x: isinstance(x, Tensor))
               if is_input(x)]
    with write_log("always"):  # also when capture fails part-way: no Parameter may keep a tracer
        jax.eval_shape(run, *[t._data for t in tensors])
    return box[0]


# ---------------------------------------------------------------- the jitted function's dynamic-shape state
NOT_HANDLED = object()  # this call is not for a shape family: jit compiles it for its static shapes


class DynamicShapes:
    """Finds or makes the shape family for a call of a jitted function (jit(dynamic=1) or enable_dynamic).

    Given what it needs, never the `JitFunction`: the function's `Pipeline` (`pipeline`: its function, name,
    options; it builds the families and holds the counters and log) and its cache (`entries`), to which each
    concrete shape a family ran is added as an exact hit."""

    def __init__(self, pipeline: Pipeline, entries: EntryCache, spec: DynamicSpec | None) -> None:
        self.pipeline, self.entries, self.spec = pipeline, entries, spec
        self.families: list[Family] = []
        self.failed: str | None = None  # dynamic=1 gave up on symbolic capture (why): static from then on

    def call(self, sig, reason: str | None, last) -> Any:
        """Run `sig` on a shape family (found, or made now), or `NOT_HANDLED`; `last`: the Signature the function
        last compiled statically (dynamic=1 makes the dims that changed since it symbolic), or None."""
        names = argument_names(self.pipeline.fn, sig.args, sig.kwargs)
        declared = self.spec.positions(self.pipeline.name, names, sig.tensors)[0] if self.spec is not None else None
        for family in self.families:
            if family.matches(sig) and family.compiled.state.holds():
                return self._run(family, sig)
        dims = self._plan(sig, declared, last)
        if dims is None:
            return NOT_HANDLED
        family = self._build(sig, dims, reason, names)
        return NOT_HANDLED if family is None else self._run(family, sig)

    # ------------------------------------------------------------ which dims become symbols
    def _plan(self, sig, declared: dict | None, last) -> dict[Position, str] | None:
        if declared is not None:
            shapes = [t._data.shape for t in sig.tensors]

            def by(p, apart=False):
                s = declared[p]
                return ("symbol", id(s)) if s is not None else ("none", p if apart else shapes[p[0]][p[1]])

            dims = group_symbols(declared, by)
            if any(f.key == masked_key(sig.key, dims) and f.dims == dims for f in self.families):
                dims = group_symbols(declared, lambda p: by(p, apart=True))  # equal-sized dims turned out unequal
            return dims
        if self.failed is not None or last is None:
            return None
        changed = shape_changes(last, sig)
        if changed is None:
            return None
        for family in self.families:  # dims already symbolic for this structure stay symbolic
            both = changed | set(family.dims)
            if masked_key(family.sample.key, both) == masked_key(sig.key, both):
                changed = both
        old = [t._data.shape for t in last.tensors]
        new = [t._data.shape for t in sig.tensors]
        return group_symbols(changed, lambda p: (old[p[0]][p[1]], new[p[0]][p[1]]))

    # ------------------------------------------------------------ capture, passes, polymorphic build
    def _build(self, sig, dims: dict[Position, str], reason: str | None, names: list[str]) -> Family | None:
        pipeline = self.pipeline
        family = Family(masked_key(sig.key, dims), dims, None, sig)
        what = family.describe(names)
        if self.spec is not None and any(s is None for s, _ in self.spec.args.values()):
            what += " (dynamic rank: one capture per rank)"
        backend = get_backend(pipeline.config.backend)
        if not getattr(backend, "supports_symbolic", False):  # before any pass reads symbolic shapes
            message = (f"backend {backend.name!r} cannot build graphs with symbolic dims ({what}); "
                       f"use an XLA backend, or static shapes")
            if self.spec is not None:
                raise BackendError(f"enable_dynamic: {message}")
            self.failed = message
            pipeline.note_static(f"dynamic=1: {message}; compiling per shape from now on")
            return None
        pipeline.note_capture(f"symbolic dims: {what}")
        if reason is not None:
            pipeline.note_recompile(f"{reason}; capturing with symbolic dims: {what}")
        try:
            with PARAMETER_LOCK:  # a capture reads every Parameter (see JitFunction._capture)
                captured = capture_symbolic(pipeline, sig, dims)
        except Exception as exc:  # noqa: BLE001 - code computing with shapes (int(x.shape[0]), `for row in x`)
            why = f"{type(exc).__name__}: {str(getattr(exc, 'message', exc)).splitlines()[0]}"
            if self.spec is not None:
                raise SymbolicShapeError(f"enable_dynamic: {pipeline.name} cannot be captured with symbolic dims "
                                         f"({what}): {why}", stage="capture") from None
            self.failed = why
            pipeline.note_static(f"dynamic=1: symbolic capture failed, compiling per shape from now on: {why}")
            return None
        family.compiled = pipeline.compile_symbolic(captured, sig)  # (counts each new concrete shape's compile)
        self.families.insert(0, family)
        return family

    def _run(self, family: Family, sig) -> Any:
        out = family.compiled.run(sig)
        if out is _INLINE:
            return NOT_HANDLED
        self.entries.add(sig, family.compiled)  # this concrete shape is an exact cache hit from now on
        return out


def symbolic_inputs(inputs: tuple, where: str) -> tuple:
    """Placeholder Tensors (`Tensor(shape=[None, 16], dtype=...)`) as abstract Tensors with symbolic dims.

    `None` dims get fresh symbols `s0, s1, ...`; one `Symbol` object is one symbol wherever it appears.
    """
    names: dict[Any, str] = {}
    out = []
    for i, x in enumerate(inputs):
        if not (isinstance(x, Tensor) and x._data is None):
            out.append(x)
            continue
        if x.shape is None:
            raise ValueError(f"{where}: input {i} has dynamic rank (shape=None); give its rank, e.g. "
                             f"Tensor(shape=[None, 16], dtype=...)")
        shape = tuple(Dim(names.setdefault(id(d) if isinstance(d, Symbol) else (i, a), f"s{len(names)}"))
                      if d is None or isinstance(d, Symbol) else d for a, d in enumerate(x.shape))
        out.append(Tensor._from(jax.ShapeDtypeStruct(jax_shape(shape), mstype.to_np(x.dtype))))
    return tuple(out)
