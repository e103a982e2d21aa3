"""The one primitive kind and its one registry (ARCHITECTURE rule 1), jax-style.

A `Primitive` is plain data: its MindSpore name, the names of its static
attributes, its meaning and, optionally, a `check` that explains bad inputs in
words. Every op, first-order or over subgraphs, is one entry in `REGISTRY`;
eager execution (`apply`), capture, emission, pattern matching,
serialization and backend support tables all read that entry.

- a first-order op (`@primitive(...)`): `impl` (a jax function) is its
  meaning; its shape rule (`abstract_eval`, `jax.eval_shape` of `impl`),
  eager dispatch (`apply`) and lowering (the interpreter calls `impl`) follow
  from it; `attrs` are the only static attributes its nodes may carry (the
  verifier holds nodes to them); `category` and `differentiable` feed the
  fusion pass and cost model.
- an op over subgraphs (`declare_higher_order(...)`: `Grad`, `Cond`, `While`,
  `Scan`, `Call`, `Fused`, `Case`, ...): a `Primitive` whose `subgraphs` names
  its subgraphs, with its static `attrs`, its input/output `layout` in words
  and `make`, the one constructor of its nodes. It has no `impl`: as jax's
  `cond_p`/`scan_p`, what it means to each concern is that concern's rule,
  declared beside the op (`msx/ir/control.py`, above `ir`, whose `Graph` it
  builds) or by the consumer.

The rules live in per-consumer tables (`msx.ops.rule_tables.RuleTable`, keyed by the
primitive, jax's `mlir.register_lowering` shape): lowering and abstract
evaluation in `msx.ir.interpret`, the data flow into subgraphs in
`msx.ir.gradient_path`, cost and memory in `msx/backends/ascend_sim`, MindIR
writing in `msx.mindir.writer`. A consumer asked about an op it has no rule
for raises `MissingRuleError` naming the op and the concern; it never guesses
a default.
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

REGISTRY: dict[str, "Primitive"] = {}


class MissingRuleError(MsxError, NotImplementedError):
    """A concern has no rule for an op (a declaration or a consumer's table left one out)."""


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
    """One op: `impl(*arrays, **attrs)` is a first-order op's meaning, everything else is derived from it; an op
    over subgraphs has named `subgraphs` instead, and its meaning is its rules in the consumers' tables."""

    name: str
    impl: Callable[..., Any] | None
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
    # an op over subgraphs (`declare_higher_order`): its subgraphs' names in order, a name ending in `*`
    # (`"branch*"`) standing for any number >= 1 of them, numbered from 0; empty for a first-order op
    subgraphs: tuple[str, ...] = ()
    layout: str = ""  # an op over subgraphs: its inputs, subgraphs and outputs in words
    # an op over subgraphs: `constructor(*parts) -> Node`, the one way producers build its nodes (see `make`)
    constructor: Callable[..., Any] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "category", Category(self.category))
        except ValueError:
            raise ValueError(f"primitive {self.name!r}: category={self.category!r} is not one of "
                             f"{[c.value for c in Category]}") from None

    def __call__(self, *inputs, **attrs):
        if self.impl is None:
            raise OpError(f"{self.name} is an op over subgraphs ({', '.join(self.subgraphs)}): it has no eager "
                          f"form; build its node with {self.name}.make(...) (msx/ir/control.py)")
        return apply(self, inputs, attrs)

    def make(self, *args: Any, **kwargs: Any):
        """A new node of this op from its parts (the layout is the constructor's job, not the producer's)."""
        if self.constructor is None:
            raise MissingRuleError(f"op {self.name!r} has no 'make' rule: only an op over subgraphs has a node "
                                   f"constructor (declare_higher_order(..., make=...))")
        return self.constructor(*args, **kwargs)

    def subgraph_problem(self, keys) -> str | None:
        """Why node subgraphs `keys` do not fit this op (a first-order op has none), or None."""
        keys = list(keys)
        if not self.subgraphs:
            return f"{self.name} is not a higher-order op but has subgraphs {keys}" if keys else None
        if len(self.subgraphs) == 1 and self.subgraphs[0].endswith("*"):
            stem = self.subgraphs[0][:-1]
            if not keys or keys != [f"{stem}{i}" for i in range(len(keys))]:
                return f"expects subgraphs {stem}0, {stem}1, ... (at least one), got {keys}"
            return None
        if keys != list(self.subgraphs):
            return f"expects subgraphs {list(self.subgraphs)}, got {keys}"
        return None

    def abstract_eval(self, in_avals: list, attrs: dict) -> Any:
        """Output `jax.ShapeDtypeStruct`(s) for input avals (arrays, ShapeDtypeStructs or Python scalars)."""
        if self.impl is None and self.abstract is None:
            raise MissingRuleError(f"op {self.name!r} has no jax shape rule: an op over subgraphs is typed from "
                                   f"its node by its 'abstract_eval' rule (msx.ir.interpret.infer_node)")
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


def declare_higher_order(name: str, *, subgraphs: tuple[str, ...], make: Callable[..., Any],
                         attrs: tuple[str, ...] = (), layout: str = "", doc: str = "") -> Primitive:
    """Declare and register an op over subgraphs: its subgraphs, static attrs, layout in words and `make`, the
    constructor of its nodes (it may name the returned primitive: it runs only once the declaration is done).
    Its other rules go into the consumers' tables (`LOWERINGS.register(prim)` ...), beside it or in the consumer.
    """
    if not subgraphs:
        raise ValueError(f"higher-order op {name!r}: an op over subgraphs names at least one")
    return register(Primitive(name, None, tuple(attrs), Category.OTHER, multiple_results=True, doc=doc,
                              internal="an op over subgraphs: producers build its nodes with its make "
                                       "constructor (msx/ir/control.py), it has no eager form",
                              subgraphs=tuple(subgraphs), layout=layout, constructor=make))


def get_primitive(name: str) -> Primitive:
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown primitive {name!r}") from None


