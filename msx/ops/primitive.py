"""The one primitive registry (ARCHITECTURE rule 1).

A `Primitive` is plain data plus one function: its MindSpore name, the names of
its static attributes, its jax implementation and, optionally, a `check` that
explains bad inputs in words. Its shape/dtype rule is derived from the jax
implementation (`jax.eval_shape`), so it can never disagree with what runs.
Eager execution (`apply`), capture, emission, pattern matching, serialization
and backend support tables all read the same entry in `REGISTRY`.

The declaration and its hooks. An op is declared once, and every concern that
must understand it reads that declaration, never a string case of its own:

- a first-order `Primitive` (`@primitive(...)`): `impl` is its meaning; its
  shape rule (`abstract_eval`), eager dispatch (`apply`) and lowering (the
  interpreter calls `impl`) follow from it; `attrs` are the only static
  attributes its nodes may carry (the verifier holds nodes to them);
  `category` and `differentiable` feed the fusion pass and cost model.
- a `HigherOrderPrimitive` (`msx.ops.higher_order`): ops over subgraphs
  (`Grad`, `Cond`, `While`, `Scan`, `Call`, `Fused`, `Case`). The kind is plain
  data (subgraph names, attrs, input layout); its hooks live in per-concern
  rule tables (`make`, `lower`, `abstract_eval`, `cost`, `memory`), jax's
  `cond_p`/`scan_p` pattern, filled beside each declaration in
  `msx/ir/control.py` (the declarations sit above `ir`, whose `Graph` they
  build). Adding one is one declaration there plus its test.

`lookup(name)` answers "is this an op, and which?" for both kinds; a concern
asked about an op it has no rule for raises (`MissingRuleError`), it never
guesses a default.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Callable

import jax
import numpy as np

from .. import hostevents
from ..eager import dispatch as _dispatch, lazy as _lazy, tape as _tape
from ..errors import MsxError, OpError, OpIndexError, OpTypeError, user_loc
from ..sizes import oom_error
from .api import Api, MindIR, declare
from ..tensor import Tensor, _wrap
from .higher_order import HIGHER_ORDER, HigherOrderPrimitive  # noqa: F401  (the higher-order kind)

REGISTRY: dict[str, "Primitive"] = {}


class Category(StrEnum):
    """What kind of computation a primitive is; passes and backends read it (a str: `cat == "shape"` holds)."""

    ELEMENTWISE = "elementwise"
    REDUCE = "reduce"
    MATMUL = "matmul"
    CONV = "conv"
    SHAPE = "shape"
    RANDOM = "random"
    LOSS = "loss"
    STATE = "state"
    COMM = "comm"
    CUSTOM = "custom"
    OTHER = "other"


@dataclass(frozen=True, eq=False)
class Primitive:
    """One op: `impl(*arrays, **attrs)` is its meaning; everything else is derived."""

    name: str
    impl: Callable[..., Any]
    attrs: tuple[str, ...] = ()  # the static keyword arguments it takes; ("*",): any (a user's custom op)
    category: str = "other"  # elementwise | reduce | matmul | conv | shape | random | loss | state | other
    multiple_results: bool = False
    differentiable: bool = True
    check: Callable[..., str | None] | None = field(default=None, repr=False)
    doc: str = ""
    api: tuple = field(default=(), repr=False)  # `api.Api` entries: the op's public MindSpore names
    # `values(*arrays, **attrs) -> str | None`: why the inputs' *values* are out of range (an index past the end,
    # a class label >= C). Run before `impl` wherever the values are concrete (eager, and the call being captured),
    # never inside a compiled graph; see docs/errors.md for what jit does there.
    values: Callable[..., str | None] | None = field(default=None, repr=False)
    # why it has no public view of its own (no `api`, no `expose(prim=...)` wrapper): who calls it instead
    internal: str = ""
    # `api.MindIR`: its plain MindIR call form (None: no MindIR form, or one written by hand in msx/mindir)
    mindir: Any = field(default=None, repr=False)

    subgraphs = ()  # a first-order op has no subgraphs (a class attribute, as `HigherOrderPrimitive` has a field)

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "category", Category(self.category))
        except ValueError:
            raise ValueError(f"primitive {self.name!r}: category={self.category!r} is not one of "
                             f"{[c.value for c in Category]}") from None

    def __call__(self, *inputs, **attrs):
        return apply(self, inputs, attrs)

    def abstract_eval(self, in_avals: list, attrs: dict) -> Any:
        """Output `jax.ShapeDtypeStruct`(s) for input avals (arrays, ShapeDtypeStructs or Python scalars)."""
        try:
            return jax.eval_shape(lambda *xs: self.impl(*xs, **attrs), *in_avals)
        except MsxError:
            raise  # the op's own check already explained it
        except Exception as exc:  # jax raises TypeError/ValueError/IndexError for bad shapes
            raise self.error(in_avals, attrs, exc) from None

    def error(self, inputs, attrs: dict, cause: BaseException | None = None) -> OpError:
        """A clear error naming this op, its inputs' shapes/dtypes and the reason."""
        reason = _not_numbers(inputs)
        if reason is None and self.check is not None:
            try:
                reason = self.check(*[_aval(x) for x in inputs], **attrs)
            except Exception:  # a check must never hide the original error
                reason = None
        if reason is None and cause is not None:
            reason = _plain(cause, inputs)
        got = ", ".join(describe(x) for x in inputs)
        shown_attrs = "".join(f", {k}={v!r}" for k, v in attrs.items())
        cls = OpTypeError if isinstance(cause, TypeError) and "dtype" in str(reason) else OpError
        return cls(f"{self.name}: {reason}; got ({got}{shown_attrs})")


_NUMERIC = (bool, int, float, complex, np.number, np.ndarray, jax.Array, jax.ShapeDtypeStruct, Tensor, type(None))


def _not_numbers(inputs) -> str | None:
    """Why an input is not something an op computes with (a str, a dict, ...), or None."""
    for i, x in enumerate(inputs):
        if not isinstance(x, _NUMERIC) and not (isinstance(x, (tuple, list)) and all(isinstance(v, _NUMERIC) for v in x)):
            return f"input {i} is a {type(x).__name__} ({x!r:.40}); this op takes Tensors and numbers"
    return None


def _plain(cause: BaseException, inputs) -> str:
    """The reason for jax's error in msx's words: jax's own wording talks about its internals."""
    first = str(cause).split("\n")[0]
    for internal in ("jax.", "jnp.", "lax.", "XLA", "abstract array", "Traced<", "jaxpr"):
        if internal in first:
            return f"the inputs cannot be combined ({type(cause).__name__})"
    return first


def describe(x) -> str:
    """`float32(2, 5)` for arrays and tensors, the repr for Python values."""
    a = _aval(x)
    if hasattr(a, "shape") and hasattr(a, "dtype"):
        return f"{np.dtype(a.dtype).name}{tuple(a.shape)}"
    return repr(x)


def _aval(x):
    return x._data if isinstance(x, Tensor) else x


def range_error(prim: Primitive, inputs, attrs: dict, reason: str) -> OpIndexError:
    """The error for inputs whose values `prim.values` refused."""
    got = ", ".join(describe(x) for x in inputs)
    err = OpIndexError(f"{prim.name}: {reason}; got ({got})")
    if recording.recorder is not None:
        err.stage = "capture"
    return err


def _known_values(inputs: tuple, arrays: list) -> list:
    """The arrays whose values a range rule may read: eagerly all of them; while capturing, only constants (a
    graph value is known only when the compiled graph runs, with other values than the call being captured)."""
    rec = recording.recorder
    if rec is None:
        return arrays
    return [jax.ShapeDtypeStruct(np.shape(a), getattr(a, "dtype", None)) if _graph_value(rec, x) else a
            for x, a in zip(inputs, arrays)]


def known_value(t):
    """`t`'s array when a range rule may read it (see `_known_values`), else only its shape and dtype: for layers
    and functions that check values in their own name (`Embedding`, `index_select`)."""
    return _known_values((t,), [t._data if isinstance(t, Tensor) else t])[0]


def _graph_value(rec, x) -> bool:
    """`x` is bound to a graph Var (an input, a Parameter, an op's result), not to a constant."""
    bound = rec.lookup(x) if isinstance(x, Tensor) and hasattr(rec, "lookup") else None
    return bound is not None and not hasattr(bound, "value")


def register(prim: Primitive) -> Primitive:
    """Add `prim` to the registry and its public views (`prim.api`) to `api.SURFACE`."""
    if prim.name in REGISTRY:
        raise ValueError(f"primitive {prim.name!r} is already registered")
    REGISTRY[prim.name] = prim
    declare(prim, prim.api)
    return prim


def primitive(name: str, *, attrs: tuple[str, ...] = (), category: str = "other",
              multiple_results: bool = False, differentiable: bool = True,
              check: Callable[..., str | None] | None = None,
              api: Api | tuple[Api, ...] = (), values: Callable[..., str | None] | None = None,
              mindir: "str | MindIR | None" = None, internal: str = "") -> Callable[[Callable], Primitive]:
    """Decorator: declare and register a primitive whose jax implementation is the function.

    `api` gives its MindSpore surface (functional/class/Tensor/mint names and signature), see `api.Api`;
    `mindir`: its MindIR call form, `MindIR(ms_name, args)` or just MindSpore's name when the call takes
    only the op's tensor inputs (see `api.MindIR`); `internal`: why it has no public view (who calls it).
    A device's traits of the op (the simulated Ascend's `keep_fp32`, `view`, `vector_kernel`) are not part of
    the declaration: they sit in that device's own tables (`msx/backends/ascend_sim/traits.py`).
    """
    form = MindIR(mindir) if isinstance(mindir, str) else mindir

    def make(impl: Callable) -> Primitive:
        return register(Primitive(name, impl, tuple(attrs), category, multiple_results, differentiable,
                                  check, (impl.__doc__ or "").strip(), api if isinstance(api, tuple) else (api,),
                                  values, internal=internal, mindir=form))

    return make


def lookup(name: str) -> "Primitive | HigherOrderPrimitive | None":
    """The declaration of op `name`, first-order (`REGISTRY`) or higher-order (`HIGHER_ORDER`); None if neither."""
    return REGISTRY.get(name) or HIGHER_ORDER.get(name)


def get_primitive(name: str) -> Primitive:
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown primitive {name!r}") from None


# ----------------------------------------------------------------- eager dispatch
from ..recording import recording  # noqa: E402,F401  (capture's hooks live below tensor)
_NO_ATTRS: dict = {}


def apply(prim: Primitive, inputs: tuple, attrs: dict = _NO_ATTRS):
    """Run `prim` now on `inputs` (Tensors or Python scalars) and return Tensor(s).

    The hot path is one jax call plus wrapping; input validation costs nothing
    unless jax rejects the inputs, in which case `prim.error` explains why.
    While `msx.Profiler` runs, each eager call is an "msx.eager" host event.
    """
    if hostevents.ACTIVE and recording.recorder is None:
        with hostevents.span("msx.eager", prim.name):
            return _apply(prim, inputs, attrs)
    return _apply(prim, inputs, attrs)


def _apply(prim: Primitive, inputs: tuple, attrs: dict):
    if _lazy.ENABLED[0] and recording.recorder is None and _tape.STATE.tape is None and not hostevents.ACTIVE:
        out = _lazy.defer(prim, inputs, attrs)  # a compiled op's pending result (forward replay), or None
        if out is not None:
            return out
    arrays = [x._data if isinstance(x, Tensor) else x for x in inputs]
    if prim.values is not None:
        reason = prim.values(*_known_values(inputs, arrays), **attrs)
        if reason is not None:
            raise range_error(prim, inputs, attrs, reason)
    recorder = recording.recorder
    try:  # eager: one cached executable per primitive (msx.eager.dispatch); a capture traces the impl
        if recorder is not None and prim.name in _dispatch.EAGER_ONLY and not getattr(recorder, "runs_effects", True):
            out = ()  # (a capture whose graph then runs this call too, bytecode's: printing now would print twice)
        else:
            out = prim.impl(*arrays, **attrs) if recorder is not None else _dispatch.run(prim, arrays, attrs)
    except (TypeError, ValueError, IndexError) as exc:
        if isinstance(exc, MsxError):
            if recording.recorder is not None and exc.stage == "run":
                exc.stage = "capture"
            raise
        err = prim.error(inputs, attrs, exc)
        err.loc = user_loc()
        if recording.recorder is not None:
            err.stage = "capture"
        raise err from None
    except RuntimeError as exc:  # XLA's RESOURCE_EXHAUSTED: out of memory
        err = oom_error(prim.name, exc, lambda: ", ".join(describe(x) for x in inputs))
        if err is None:
            raise
        raise err from None
    result = tuple(_wrap(o) for o in out) if prim.multiple_results else _wrap(out)
    if recorder is not None:
        recorder.record(prim, inputs, attrs, result)
    else:
        tape = _tape.STATE.tape
        if tape is not None:  # eager autograd: a tape node (msx.eager.tape)
            tape.record(prim, arrays, attrs, result)
    return result
