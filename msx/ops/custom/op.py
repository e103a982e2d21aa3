"""What every custom op shares: its registry primitive, its output rule, its backward, its export record.

A custom op is an ordinary `Primitive` in `msx.ops.REGISTRY` (category
"custom"), so eager calls, every capture mode, passes, emission and backend
support tables treat it like a built-in. Its primitive always has
`multiple_results=True` (the output rule decides the count per call); the
callable the user holds returns a Tensor when there is one output.

Differentiation goes through `jax.custom_vjp` with the user's `bprop`
(MindSpore's convention: `bprop(*inputs, out, dout, **attrs)` returns one
gradient per input). An op without a bprop raises a `GradError` naming it
when a gradient reaches it — never a silent zero. Concrete (non-traced)
calls skip the wrapper: nothing can differentiate them.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Callable, Iterable

import jax
import jax.numpy as jnp
import numpy as np

from ... import dtype as mstype
from ...errors import CustomOpError, GradError, user_loc
from ...tensor import Tensor
from ...recording import not_recording
from ..primitive import REGISTRY, Primitive, apply, register

CATEGORY = "custom"  # the simulated Ascend backend runs this category on its AICPU


@dataclass(frozen=True)
class CustomOpInfo:
    """Where a custom primitive comes from: what an export file records and an error names."""

    kind: str                  # "ffi" (CustomOpBuilder), "pyfunc", "jax" or "hybrid" (ops.Custom)
    function: str              # the C++ op name, or the Python function's qualified name
    module: str | None = None  # the CustomOpBuilder name
    library: str | None = None  # the shared library's path
    target: str | None = None  # the XLA FFI target name
    backend: str = "CPU"


CUSTOM_OPS: dict[str, CustomOpInfo] = {}  # primitive name -> where it comes from


def custom_op_records(primitive_names: Iterable[str]) -> dict[str, dict]:
    """`{primitive name: record}` for the custom ops among `primitive_names` (JSON-able, for export manifests)."""
    return {name: asdict(CUSTOM_OPS[name]) for name in sorted(primitive_names) if name in CUSTOM_OPS}


def missing_custom_op_message(name: str, record: Any) -> str:
    """Why a file's custom op `name` cannot run here and how to fix it; `record` comes from the (untrusted) file."""
    fields = record if isinstance(record, dict) else {}
    shown = {k: repr(v[:200]) for k, v in fields.items() if isinstance(v, str)}
    if fields.get("kind") == "ffi":
        return (f"custom op {name!r} (C++ op {shown.get('function')} of CustomOpBuilder module "
                f"{shown.get('module')}, built as {shown.get('library')}) is not loaded in this process; run "
                f"msx.ops.CustomOpBuilder({shown.get('module')}, sources, backend={shown.get('backend')}).load() "
                f"first")
    if fields.get("kind") in ("pyfunc", "jax", "hybrid"):
        return (f"custom op {name!r} (ops.Custom over {shown.get('function')}) is not defined in this process; "
                f"create the same ops.Custom first")
    return f"custom op {name!r} is not registered in this process"


def install(name: str, impl: Callable, info: CustomOpInfo, doc: str = "") -> Primitive:
    """Register (or re-register) a custom primitive; a built-in's name is refused."""
    if name in REGISTRY and name not in CUSTOM_OPS:
        raise CustomOpError(f"custom op name {name!r} is a built-in primitive's; choose another name")
    prim = Primitive(name, impl, ("*",), category=CATEGORY, multiple_results=True, doc=doc)  # attrs: any
    REGISTRY.pop(name, None)
    register(prim)
    CUSTOM_OPS[name] = info
    return prim


# ---------------------------------------------------------------- output rule
_MEMO_SIZE = 256


def signature(inputs: tuple, attrs: dict) -> tuple | None:
    """A hashable key of the inputs' shapes and dtypes (a Python scalar's type) and the attributes; None when
    an attribute cannot be hashed."""
    try:
        key = (tuple((x.shape, x.dtype) if hasattr(x, "dtype") else type(x) for x in inputs),
               tuple(sorted(attrs.items())) if attrs else ())
        hash(key)
        return key
    except TypeError:
        return None


def _is_shape(x: Any) -> bool:
    return isinstance(x, (tuple, list)) and all(isinstance(d, (int, np.integer)) and not isinstance(d, bool)
                                                for d in x)


class OutputRule:
    """`out_shape`/`out_dtype` as MindSpore's Custom takes them, turned into `jax.ShapeDtypeStruct`s.

    out_shape: None (the first input's shape), a shape, a list of shapes (one per
    output), or a function of the input shapes (and the op's attributes as
    keywords) returning one of those. out_dtype: None (the first input's dtype),
    a dtype, a list of dtypes, or a function of the input dtypes (msx dtypes)
    returning one of those. A single dtype applies to every output.
    """

    def __init__(self, op: str, out_shape: Any = None, out_dtype: Any = None) -> None:
        self.op = op
        self.out_shape = out_shape
        self.out_dtype = out_dtype
        self._memo: dict[tuple, tuple[jax.ShapeDtypeStruct, ...]] = {}
        try:  # fixed values are checked now, a rule's results on each call
            if out_shape is not None and not callable(out_shape):
                self._shapes(out_shape)
            if out_dtype is not None and not callable(out_dtype):
                self._dtypes(out_dtype)
        except ValueError as exc:
            raise CustomOpError(f"{op}: {exc}") from None

    def _shapes(self, value: Any) -> list[tuple[int, ...]]:
        if _is_shape(value):
            shapes = [value]
        elif isinstance(value, (tuple, list)) and value and all(_is_shape(s) for s in value):
            shapes = list(value)
        else:
            raise ValueError(f"out_shape must be a shape (a tuple of ints), a list of shapes or a function "
                             f"returning one, got {value!r}")
        if any(d < 0 for s in shapes for d in s):
            raise ValueError(f"out_shape {value!r} has a negative dimension")
        return [tuple(int(d) for d in s) for s in shapes]

    def _dtypes(self, value: Any) -> list[np.dtype]:
        items = list(value) if isinstance(value, (tuple, list)) else [value]
        if not items:
            raise ValueError("out_dtype is an empty list")
        try:
            return [mstype.to_np(d) for d in items]
        except TypeError as exc:
            raise ValueError(f"out_dtype: {exc}") from None

    def structs(self, inputs: tuple, attrs: dict) -> tuple[jax.ShapeDtypeStruct, ...]:
        """The outputs' shapes and dtypes for these inputs (arrays, tracers or Python scalars), memoised per
        input signature: rules see only shapes, dtypes and attributes, and an eager call must stay cheap."""
        key = signature(inputs, attrs)
        found = self._memo.get(key) if key is not None else None
        if found is None:
            found = self._structs(inputs, attrs)
            if key is not None:
                if len(self._memo) >= _MEMO_SIZE:
                    self._memo.clear()
                self._memo[key] = found
        return found

    def _structs(self, inputs: tuple, attrs: dict) -> tuple[jax.ShapeDtypeStruct, ...]:
        if (self.out_shape is None or self.out_dtype is None) and not inputs:
            raise ValueError("it has no inputs to take the output's shape and dtype from; declare out_shape and "
                             "out_dtype")
        if self.out_shape is None:
            shapes = [tuple(jnp.shape(inputs[0]))]
        elif callable(self.out_shape):
            shapes = self._shapes(self._call("out_shape", self.out_shape,
                                             [tuple(jnp.shape(x)) for x in inputs], attrs))
        else:
            shapes = self._shapes(self.out_shape)
        if self.out_dtype is None:
            dtypes = [np.dtype(jnp.result_type(inputs[0]))]
        elif callable(self.out_dtype):
            dtypes = self._dtypes(self._call("out_dtype", self.out_dtype,
                                             [mstype.to_msx(jnp.result_type(x)) for x in inputs], attrs))
        else:
            dtypes = self._dtypes(self.out_dtype)
        if len(dtypes) == 1:
            dtypes = dtypes * len(shapes)
        if len(dtypes) != len(shapes):
            raise ValueError(f"out_shape gives {len(shapes)} outputs but out_dtype gives {len(dtypes)}")
        return tuple(jax.ShapeDtypeStruct(s, d) for s, d in zip(shapes, dtypes))

    def _call(self, what: str, rule: Callable, args: list, attrs: dict) -> Any:
        try:
            return rule(*args, **attrs)
        except Exception as exc:
            raise ValueError(f"its {what} rule failed on {args}: {type(exc).__name__}: {exc}") from None


# ---------------------------------------------------------------- backward
def _tensors(values: tuple, single: bool):
    wrapped = tuple(Tensor._from(v) for v in values)
    return wrapped[0] if single else wrapped


def _cotangent(op: str, i: int, grad: Any, x: Any) -> Any:
    """The cotangent jax expects for input `x` from what a bprop returned for it."""
    shape, dtype = jnp.shape(x), jnp.result_type(x)
    if not jnp.issubdtype(dtype, jnp.inexact):
        return np.zeros(shape, jax.dtypes.float0)
    if grad is None:
        return jnp.zeros(shape, dtype)
    g = grad._data if isinstance(grad, Tensor) else jnp.asarray(grad)
    if tuple(g.shape) != tuple(shape):
        raise GradError(f"{op}: bprop returned a gradient of shape {tuple(g.shape)} for input {i}, whose shape is "
                        f"{tuple(shape)}", loc=user_loc())
    return g.astype(dtype)


def differentiable(op: str, forward: Callable, bprop: Callable | None, hint: str) -> Callable:
    """The primitive's impl: `forward(inputs, attrs) -> tuple of arrays`, differentiated with `bprop`."""

    def backward(attrs: dict, residuals: tuple, dout: tuple) -> tuple:
        inputs, out = residuals
        if bprop is None:
            raise GradError(f"{op} has no backward, so a gradient cannot flow through it (msx never assumes a "
                            f"zero gradient); {hint}", loc=user_loc())
        with not_recording():
            grads = bprop(*[Tensor._from(jnp.asarray(x)) for x in inputs], _tensors(out, len(out) == 1),
                          _tensors(dout, len(dout) == 1), **attrs)
        grads = tuple(grads) if isinstance(grads, (tuple, list)) else (grads,)
        if len(grads) != len(inputs):
            raise GradError(f"{op}: bprop returned {len(grads)} gradient(s) for {len(inputs)} input(s)",
                            loc=user_loc())
        return tuple(_cotangent(op, i, g, x) for i, (g, x) in enumerate(zip(grads, inputs)))

    def impl(*inputs, **attrs):
        if not any(isinstance(x, jax.core.Tracer) for x in inputs):
            return forward(inputs, attrs)  # concrete values: nothing can differentiate this call

        @jax.custom_vjp
        def call(*xs):
            return forward(xs, attrs)

        def call_fwd(*xs):
            out = forward(xs, attrs)
            return out, (xs, out)

        call.defvjp(call_fwd, lambda res, dout: backward(attrs, res, dout))
        return call(*inputs)

    return impl


# ---------------------------------------------------------------- the callable users hold
class CustomOp:
    """A callable custom op backed by one registry primitive; returns a Tensor, or a tuple for several outputs."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._primitive: Primitive | None = None
        self._used = False

    @property
    def primitive(self) -> Primitive:
        return self._primitive

    def __call__(self, *inputs, **attrs):
        prim = self._primitive
        if REGISTRY.get(prim.name) is not prim:
            raise CustomOpError(f"{self.name} was redefined (a newer load() or ops.Custom of the same name); use the "
                                f"op object that redefinition returned", loc=user_loc())
        self._used = True
        out = apply(prim, inputs, attrs)
        return out[0] if len(out) == 1 else out

    def __repr__(self) -> str:
        return f"<custom op {self.name}>"
