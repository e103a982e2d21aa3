"""The one primitive registry (ARCHITECTURE rule 1).

A `Primitive` is plain data plus one function: its MindSpore name, the names of
its static attributes, its jax implementation and, optionally, a `check` that
explains bad inputs in words. Its shape/dtype rule is derived from the jax
implementation (`jax.eval_shape`), so it can never disagree with what runs.
Eager execution (`apply`), capture, emission, pattern matching, serialization
and backend support tables all read the same entry in `REGISTRY`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Callable

import jax
import numpy as np

from .. import hostevents
from ..errors import OpError, OpTypeError, user_loc
from .api import Api, declare
from ..tensor import Tensor, _wrap

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


_LOW_PRECISION_RESULTS = (Category.ELEMENTWISE, Category.MATMUL, Category.CONV)  # what mixed precision narrows


@dataclass(frozen=True, eq=False)
class Primitive:
    """One op: `impl(*arrays, **attrs)` is its meaning; everything else is derived."""

    name: str
    impl: Callable[..., Any]
    attrs: tuple[str, ...] = ()
    category: str = "other"  # elementwise | reduce | matmul | conv | shape | random | loss | state | other
    multiple_results: bool = False
    differentiable: bool = True
    check: Callable[..., str | None] | None = field(default=None, repr=False)
    doc: str = ""
    api: tuple = field(default=(), repr=False)  # `api.Api` entries: the op's public MindSpore names
    # Precision and placement traits (read by mixed-precision rules and device models; checked below):
    keep_fp32: bool = False      # precision-sensitive: mixed precision keeps its float32 result
    view: bool = False           # no kernel: its result is its first operand's buffer (a reshape)
    vector_kernel: bool = False  # has a vector-unit kernel although its category would run on the host CPU

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "category", Category(self.category))
        except ValueError:
            raise ValueError(f"primitive {self.name!r}: category={self.category!r} is not one of "
                             f"{[c.value for c in Category]}") from None
        if self.keep_fp32 and self.category not in _LOW_PRECISION_RESULTS:
            raise ValueError(f"primitive {self.name!r}: keep_fp32 means nothing for category {self.category.value!r} "
                             f"(only {[c.value for c in _LOW_PRECISION_RESULTS]} results are narrowed)")
        if self.view and (self.category not in (Category.SHAPE, Category.ELEMENTWISE) or self.multiple_results):
            raise ValueError(f"primitive {self.name!r}: view=True needs one result of a shape or elementwise op")
        if self.vector_kernel and self.category not in (Category.OTHER, Category.RANDOM):
            raise ValueError(f"primitive {self.name!r}: vector_kernel=True is for 'other'/'random' ops; category "
                             f"{self.category.value!r} already says where it runs")

    def __call__(self, *inputs, **attrs):
        return apply(self, inputs, attrs)

    def abstract_eval(self, in_avals: list, attrs: dict) -> Any:
        """Output `jax.ShapeDtypeStruct`(s) for input avals (arrays, ShapeDtypeStructs or Python scalars)."""
        try:
            return jax.eval_shape(lambda *xs: self.impl(*xs, **attrs), *in_avals)
        except Exception as exc:  # jax raises TypeError/ValueError/IndexError for bad shapes
            raise self.error(in_avals, attrs, exc) from None

    def error(self, inputs, attrs: dict, cause: BaseException | None = None) -> OpError:
        """A clear error naming this op, its inputs' shapes/dtypes and the reason."""
        reason = None
        if self.check is not None:
            try:
                reason = self.check(*[_aval(x) for x in inputs], **attrs)
            except Exception:  # a check must never hide the original error
                reason = None
        if reason is None and cause is not None:
            reason = str(cause).split("\n")[0]
        got = ", ".join(describe(x) for x in inputs)
        shown_attrs = "".join(f", {k}={v!r}" for k, v in attrs.items())
        cls = OpTypeError if isinstance(cause, TypeError) and "dtype" in str(reason) else OpError
        return cls(f"{self.name}: {reason}; got ({got}{shown_attrs})")


def describe(x) -> str:
    """`float32(2, 5)` for arrays and tensors, the repr for Python values."""
    a = _aval(x)
    if hasattr(a, "shape") and hasattr(a, "dtype"):
        return f"{np.dtype(a.dtype).name}{tuple(a.shape)}"
    return repr(x)


def _aval(x):
    return x._data if isinstance(x, Tensor) else x


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
              api: Api | tuple[Api, ...] = (), **traits: bool) -> Callable[[Callable], Primitive]:
    """Decorator: declare and register a primitive whose jax implementation is the function.

    `api` gives its MindSpore surface (functional/class/Tensor/mint names and signature), see `api.Api`;
    `traits`: `keep_fp32`, `view`, `vector_kernel` (see `Primitive`).
    """

    def make(impl: Callable) -> Primitive:
        return register(Primitive(name, impl, tuple(attrs), category, multiple_results, differentiable,
                                  check, (impl.__doc__ or "").strip(), api if isinstance(api, tuple) else (api,),
                                  **traits))

    return make


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
    arrays = [x._data if isinstance(x, Tensor) else x for x in inputs]
    try:
        out = prim.impl(*arrays, **attrs)
    except (TypeError, ValueError, IndexError) as exc:
        if isinstance(exc, (OpError, OpTypeError)):
            raise
        err = prim.error(inputs, attrs, exc)
        err.loc = user_loc()
        if recording.recorder is not None:
            err.stage = "capture"
        raise err from None
    result = tuple(_wrap(o) for o in out) if prim.multiple_results else _wrap(out)
    if recording.recorder is not None:
        recording.recorder.record(prim, inputs, attrs, result)
    return result
