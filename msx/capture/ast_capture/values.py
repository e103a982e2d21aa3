"""What the interpreter knows about a value: static (known at compile time) or a tensor of the graph."""
from __future__ import annotations

from typing import Any

import jax
import numpy as np

from ...tensor import Parameter, Tensor


class Undefined:
    """A name that only some paths of tensor-dependent control flow assign; reading it is unsupported."""

    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason


class DeferredString:
    """An f-string holding tensors: its text is only known at run time, so only `print` may take it."""

    __slots__ = ("pieces",)

    def __init__(self, pieces: list) -> None:
        self.pieces = pieces  # str or Tensor, concatenated without separators


def is_dynamic(x: Any) -> bool:
    """True for a tensor whose value is only known when the graph runs (a graph value or a Parameter)."""
    return isinstance(x, Tensor) and (isinstance(x, Parameter) or isinstance(x._data, jax.core.Tracer))


def _is_tensor(x: Any) -> bool:
    return isinstance(x, Tensor)


def flatten(value: Any) -> tuple[list, Any]:
    """(leaves, structure) with Tensors as leaves; lists, tuples, dicts and other pytrees are structure."""
    return jax.tree_util.tree_flatten(value, is_leaf=_is_tensor)


def unflatten(structure: Any, leaves: list) -> Any:
    return jax.tree_util.tree_unflatten(structure, leaves)


def static_equal(a: Any, b: Any) -> bool:
    """Whether two compile-time values are the same (never calls a Tensor operator)."""
    if a is b:
        return True
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        if not (isinstance(a, Tensor) and isinstance(b, Tensor)) or is_dynamic(a) or is_dynamic(b):
            return False
        x, y = np.asarray(a._data), np.asarray(b._data)
        return x.dtype == y.dtype and x.shape == y.shape and bool(np.array_equal(x, y))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype == b.dtype
                and a.shape == b.shape and bool(np.array_equal(a, b)))
    if type(a) is not type(b):
        return False
    if isinstance(a, (bool, int, float, complex, str, bytes, type(None), np.generic, slice, range)):
        return bool(a == b)
    return False


def is_number(x: Any) -> bool:
    return isinstance(x, (bool, int, float, np.bool_, np.integer, np.floating)) and not isinstance(x, Tensor)


def number_dtype(x: Any) -> np.dtype:
    """MindSpore's dtype for a Python number that becomes a tensor: bool, int64 or float32."""
    if isinstance(x, (bool, np.bool_)):
        return np.dtype(np.bool_)
    if isinstance(x, (int, np.integer)):
        return np.dtype(np.int64)
    return np.dtype(np.float32)
