"""The primitives behind `msx.numpy`: one registry entry per `mindspore.numpy` function msx has no op for.

Each entry is an ordinary `Primitive` (ARCHITECTURE rule 1) named `Np<Name>` (`NpTrapz`, `NpHistogram`) whose
jax implementation is the matching `jax.numpy` function, so eager dispatch, every capture mode, the verifier
and emission read it like any other op. A call's tensors are the primitive's inputs; every other argument
(axes, shapes, modes, Python numbers, dtypes) travels in one static attribute, `spec`, where a tensor stands
as its input position. So `mnp.trapz(y, dx=0.5)` is the node `NpTrapz[spec=((('@', 0),), (('dx', ('=', 0.5)),))](%y)`.

Result dtypes follow MindSpore (which has no 64-bit defaults): a float64 (complex128) result is float32
(complex64) unless an input tensor was float64 (complex128) or the call named a dtype, and an int64 result
is int32 unless an input tensor was int64, the call named a dtype, or MindSpore itself answers int64
(`INT64_RESULTS`, recorded in tests/golden_numpy/).
"""
from __future__ import annotations

import re
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np

from ..dtype import Type
from ..ops.primitive import Primitive, apply, register
from ..tensor import Tensor

# MindSpore 2.10 answers int64 for these on int32 inputs (argmax: its index type; sum/trace: numpy's widening).
INT64_RESULTS = frozenset({"argmax", "argwhere", "sum", "trace"})
# MindSpore keeps an integer input's dtype for these (its mean of int32 is an int32, rounded toward zero).
KEEP_INT_INPUT = frozenset({"mean", "average"})


def _camel(name: str) -> str:
    return "Np" + "".join(p[:1].upper() + p[1:] for p in re.split(r"_+", name) if p)


def _encode(x: Any, arrays: list) -> tuple:
    """A static, hashable stand-in for one argument; tensors are appended to `arrays` and named by position."""
    if isinstance(x, Tensor):
        arrays.append(x)
        return ("@", len(arrays) - 1)
    if isinstance(x, (np.ndarray, jax.Array)):
        arrays.append(constant(x))
        return ("@", len(arrays) - 1)
    if isinstance(x, list):
        return ("L", tuple(_encode(v, arrays) for v in x))
    if isinstance(x, tuple):
        return ("U", tuple(_encode(v, arrays) for v in x))
    if isinstance(x, Type):
        return ("D", x.name)
    if isinstance(x, (np.dtype, type)) and x is not type(None):
        try:
            return ("D", np.dtype(x).name)
        except TypeError:
            pass
    if isinstance(x, np.generic):
        return ("=", x.item())
    if isinstance(x, slice):
        return ("S", (x.start, x.stop, x.step))
    return ("=", x)


def constant(a: Any, dtype=None) -> Tensor:
    """A Tensor made from Python or numpy data: a constant of the graph when called inside a capture."""
    with jax.ensure_compile_time_eval():
        return Tensor(a, dtype=dtype)


def _decode(e: tuple, arrays: tuple) -> Any:
    tag, v = e
    if tag == "@":
        return arrays[v]
    if tag == "L":
        return [_decode(i, arrays) for i in v]
    if tag == "U":
        return tuple(_decode(i, arrays) for i in v)
    if tag == "D":
        return jnp.dtype(v)
    if tag == "S":
        return slice(*v)
    return v


def _names_dtype(spec) -> bool:
    """The call named a dtype somewhere (`dtype=mnp.int64`, `zeros(shape, mnp.float64)`): keep what it asked."""
    def walk(e):
        tag, v = e
        if tag == "D":
            return True
        return tag in ("L", "U") and any(walk(i) for i in v)

    args, kwargs = spec
    return any(walk(e) for e in args) or any(walk(e) for _, e in kwargs)


def ms_dtype(name: str, out, arrays: tuple, explicit: bool):
    """`out` with MindSpore's result dtypes (see the module docstring)."""
    kinds = {np.dtype(a.dtype) for a in arrays if hasattr(a, "dtype")}
    wide_f = bool(kinds & {np.dtype(np.float64), np.dtype(np.complex128)})
    wide_i = np.dtype(np.int64) in kinds or np.dtype(np.uint64) in kinds
    int_in = next((k for k in kinds if np.issubdtype(k, np.integer)), None) if name in KEEP_INT_INPUT else None

    def fix(x):
        if not hasattr(x, "dtype"):
            return x
        d = np.dtype(x.dtype)
        if int_in is not None and len(kinds) == 1 and not explicit:
            return x.astype(int_in)
        if explicit:
            return x
        if d == np.float64 and not wide_f:
            return x.astype(jnp.float32)
        if d == np.complex128 and not wide_f:
            return x.astype(jnp.complex64)
        if d == np.int64 and not wide_i and name not in INT64_RESULTS:
            return x.astype(jnp.int32)
        return x

    return jax.tree_util.tree_map(fix, out)


def _impl(name: str, fn: Callable, multiple: bool) -> Callable:
    def impl(*arrays, spec):
        args, kwargs = spec
        out = fn(*[_decode(e, arrays) for e in args], **{k: _decode(e, arrays) for k, e in kwargs})
        out = ms_dtype(name, out, arrays, _names_dtype(spec))
        if multiple:
            return tuple(jnp.asarray(o) for o in jax.tree_util.tree_leaves(out))
        return jnp.asarray(out)

    impl.__name__ = name
    return impl


NP_PRIMS: dict[str, Primitive] = {}


def declare(name: str, fn: Callable, *, multiple: bool = False, category: str = "other",
            differentiable: bool = True) -> Primitive:
    """Register the primitive for `mindspore.numpy.<name>`, computed by `fn` (a jax.numpy function)."""
    doc = f"mindspore.numpy.{name} (jax.numpy.{getattr(fn, '__name__', name)})"
    prim = register(Primitive(_camel(name), _impl(name, fn, multiple), ("spec",), category, multiple,
                              differentiable, doc=doc, internal=f"the primitive behind mindspore.numpy.{name}, "
                                                                f"called by msx.numpy with its own argument logic"))
    NP_PRIMS[name] = prim
    return prim


def call(prim: Primitive, args: tuple, kwargs: dict):
    """Apply `prim` to a call's arguments: tensors become inputs, the rest the static `spec`."""
    arrays: list = []
    spec = (tuple(_encode(a, arrays) for a in args), tuple((k, _encode(v, arrays)) for k, v in kwargs.items()))
    return apply(prim, tuple(arrays), {"spec": spec})
