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

from ..errors import MsxError, OpError, OpTypeError
from ..recording import recording  # noqa: F401  (re-exported: capture's hooks, read by ops as primitive.recording)
from ..tensor import Tensor
from .api import Api, MindIR, declare
from .apply_prim import _aval, apply, describe, known_value  # noqa: F401  (re-exported: the ops import apply from here)
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
    # `abstract(*inputs, **attrs) -> ShapeDtypeStruct(s)`: the outputs' shapes and dtypes from the inputs' alone,
    # for an op whose impl is far dearer to trace than its types are to know (the optimizer update traces optax
    # over every parameter). `abstract_eval` and an abstract capture (ast's) use it instead of tracing `impl`.
    abstract: Callable[..., Any] | None = field(default=None, repr=False)

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
            if self.abstract is not None:
                return self.abstract(*in_avals, **attrs)
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
              mindir: "str | MindIR | None" = None, internal: str = "",
              abstract: Callable[..., Any] | None = None) -> Callable[[Callable], Primitive]:
    """Decorator: declare and register a primitive whose jax implementation is the function.

    `api` gives its MindSpore surface (functional/class/Tensor/mint names and signature), see `api.Api`;
    `mindir`: its MindIR call form, `MindIR(ms_name, args)` or just MindSpore's name when the call takes
    only the op's tensor inputs (see `api.MindIR`); `internal`: why it has no public view (who calls it);
    `abstract`: its outputs' types without tracing the impl (see `Primitive.abstract`).
    A device's traits of the op (the simulated Ascend's `keep_fp32`, `view`, `vector_kernel`) are not part of
    the declaration: they sit in that device's own tables (`msx/backends/ascend_sim/traits.py`).
    """
    form = MindIR(mindir) if isinstance(mindir, str) else mindir

    def make(impl: Callable) -> Primitive:
        return register(Primitive(name, impl, tuple(attrs), category, multiple_results, differentiable,
                                  check, (impl.__doc__ or "").strip(), api if isinstance(api, tuple) else (api,),
                                  values, internal=internal, mindir=form, abstract=abstract))

    return make


def lookup(name: str) -> "Primitive | HigherOrderPrimitive | None":
    """The declaration of op `name`, first-order (`REGISTRY`) or higher-order (`HIGHER_ORDER`); None if neither."""
    return REGISTRY.get(name) or HIGHER_ORDER.get(name)


def get_primitive(name: str) -> Primitive:
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown primitive {name!r}") from None


