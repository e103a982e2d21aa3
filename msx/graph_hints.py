"""MindSpore's graph-compilation hints, with their meaning on msx.

MindSpore needs these to compile Python into its static graph; msx captures ordinary Python (ast,
bytecode or trace), so most of them need no work here — each says below what it does in msx. None of
them changes what a program computes.
"""
from __future__ import annotations

import functools
import warnings
from typing import Any, Callable

from .tensor import Tensor
from .nn import Cell
from .jit import jit

STRICT, COMPATIBLE, LAX = 0, 1, 2  # MindSpore's jit_syntax_level values


def jit_class(cls: type) -> type:
    """Mark a class as usable inside jit. Every class is usable inside msx's jit; this checks and returns it."""
    if not isinstance(cls, type):
        raise TypeError(f"jit_class: expected a class, got {type(cls).__name__}")

    if issubclass(cls, Cell):
        raise TypeError(f"jit_class: {cls.__name__} is a Cell; Cells need no jit_class decoration")
    return cls


def mutable(input_data: Any, dynamic_len: bool = False) -> Any:
    """Mark a jit input as a variable rather than a constant.

    msx's jit already treats Tensors (also in tuples, lists and dicts) as variables; a Python scalar stays
    a guarded constant (a new value recompiles and says why), so results are the same. Returns the input.
    """
    def check(x):
        if isinstance(x, (tuple, list)):
            for v in x:
                check(v)
        elif isinstance(x, dict):
            for v in x.values():
                check(v)
        elif not isinstance(x, (Tensor, int, float, bool)):
            raise TypeError(f"mutable: input_data must be Tensors, scalars, or tuples/lists/dicts of them, "
                            f"got {type(x).__name__}")

    check(input_data)
    if dynamic_len and not isinstance(input_data, (tuple, list)):
        raise TypeError(f"mutable: dynamic_len=True needs a tuple or list, got {type(input_data).__name__}")
    return input_data


def constexpr(fn: Callable | None = None, get_instance: bool = True, name: str | None = None,
              reuse_result: bool = True, check: bool = True):
    """A function evaluated on constant (Python) inputs at compile time; in msx it simply runs in Python."""
    def wrap(f: Callable):
        if get_instance:
            return functools.wraps(f)(lambda *args, **kwargs: f(*args, **kwargs))
        return type(name or f.__name__, (), {"__call__": lambda self, *a, **k: f(*a, **k), "__doc__": f.__doc__})

    return wrap if fn is None else wrap(fn)


def lazy_inline(fn: Callable | None = None, attrs: Any = None, policy: Any = None):
    """A Cell `__init__` hint that MindSpore uses to reuse a subgraph; msx graphs need no hint: returns `fn`."""
    return (lambda f: f) if fn is None else fn


def no_inline(fn: Callable | None = None):
    """A hint to keep a function a separate subgraph; it does not change results in msx: returns `fn`."""
    return (lambda f: f) if fn is None else fn


def ms_function(fn: Callable | None = None, input_signature=None, hash_args=None, jit_config=None):
    """Deprecated MindSpore 1.x name of `jit`; warns and calls `msx.jit`."""
    warnings.warn("ms_function is deprecated (removed in MindSpore 2.x); use msx.jit", DeprecationWarning,
                  stacklevel=2)
    if input_signature is not None or hash_args is not None or jit_config is not None:
        raise TypeError("ms_function: input_signature, hash_args and jit_config are not supported; use msx.jit")

    return jit if fn is None else jit(fn)
