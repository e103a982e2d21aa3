"""The one primitive registry (ARCHITECTURE rule 1).

A `Primitive` is plain data plus one function: its MindSpore name, the names of
its static attributes, its jax implementation and, optionally, a `check` that
explains bad inputs in words. Its shape/dtype rule is derived from the jax
implementation (`jax.eval_shape`), so it can never disagree with what runs.
Eager execution (`apply`), capture, emission, pattern matching, serialization
and backend support tables all read the same entry in `REGISTRY`.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Callable

import jax
import numpy as np

from .. import hostevents
from ..eager import dispatch as _dispatch, tape as _tape
from ..errors import OpError, OpTypeError, user_loc
from .api import Api, declare
from ..tensor import Tensor, _wrap

REGISTRY: dict[str, "Primitive"] = {}


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
              api: Api | tuple[Api, ...] = ()) -> Callable[[Callable], Primitive]:
    """Decorator: declare and register a primitive whose jax implementation is the function.

    `api` gives its MindSpore surface (functional/class/Tensor/mint names and signature), see `api.Api`.
    """

    def make(impl: Callable) -> Primitive:
        return register(Primitive(name, impl, tuple(attrs), category, multiple_results, differentiable,
                                  check, (impl.__doc__ or "").strip(), api if isinstance(api, tuple) else (api,)))

    return make


def get_primitive(name: str) -> Primitive:
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown primitive {name!r}") from None


# ----------------------------------------------------------------- eager dispatch
class _Recording(threading.local):
    """Hooks for capture: when `recorder` is set, every `apply` is reported to it; when `converter` is set
    (source capture), library code calling back into user code (a Cell's `construct`, a differentiated
    function) calls `converter(fn, args, kwargs)` instead of `fn(*args, **kwargs)`, so the user code is captured
    from its source too. Per thread: ops run by another thread (a dataset's prefetch thread) are not captured.

    A recorder implements `record(prim, inputs, attrs, result)`, `on_rebind(obj, new)`, `on_alias(obj, src)`,
    `on_concrete(t, what)` and `on_cell(cell)` (a Cell was called: its state is guarded); see
    `msx.capture.builder.GraphBuilder`."""

    recorder: Any = None
    converter: Any = None
    scope: str = ""        # the Cell path recorded ops get as `Node.scope` (maintained by `Cell.__call__`)
    scope_cell: Any = None  # the innermost Cell being captured, to name its children by attribute


recording = _Recording()
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
    try:  # eager: one cached executable per primitive (msx.eager.dispatch); a capture traces the impl
        out = prim.impl(*arrays, **attrs) if recording.recorder is not None else _dispatch.run(prim, arrays, attrs)
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
    elif _tape.STATE.tape is not None:  # eager autograd: a tape node (msx.eager.tape)
        _tape.STATE.tape.record(prim, arrays, attrs, result)
    return result
