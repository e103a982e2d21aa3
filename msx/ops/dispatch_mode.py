"""`MsDispatchMode` (MindSpore's `mindspore.utils.ms_dispatch`): intercept every eager op call in a block.

A subclass overrides `__ms_dispatch__(self, func, args, kwargs=None)`; inside `with Mode():` (or on a function
decorated with `@Mode()`) each primitive an eager op runs calls it with `func` (an `OpFunc`: `func.name` is
the primitive's name, `func(*args, **kwargs)` runs it), the op's inputs and its attributes (None when it has
none); what it returns is the op's result. Modes nest: the innermost handles the call, and an op its handler
runs goes to the modes outside it (torch's `TorchDispatchMode` rule, which MindSpore follows). Names are
msx's primitive names (`Add`, `Sin`, ...; MindSpore's own kernels are `AddExt`, `SumExt`, ...). Ops inside a
compiled graph (`msx.jit`) are not intercepted, as in MindSpore.
"""
from __future__ import annotations

import contextlib
import inspect
import threading
from typing import Any, Callable

MODES: list = []  # every active mode of every thread (the fast "none active" check of `apply`)


class _Local(threading.local):
    def __init__(self) -> None:
        self.stack: list["MsDispatchMode"] = []


_LOCAL = _Local()


class OpFunc:
    """The operator a mode's `__ms_dispatch__` receives: `name`, and calling it runs the op."""

    __slots__ = ("name", "_run")

    def __init__(self, name: str, run: Callable) -> None:
        self.name, self._run = name, run

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._run(args, kwargs)

    def __repr__(self) -> str:
        return f"OpFunc({self.name})"


class MsDispatchMode(contextlib.ContextDecorator):
    """Base class of dispatch modes: override `__ms_dispatch__(self, func, args, kwargs=None)` (module
    docstring). Usable as a context manager and as a decorator."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        handler = cls.__dict__.get("__ms_dispatch__")
        if handler is not None:
            try:
                inspect.signature(handler).bind(None, None, None)
            except TypeError:
                raise TypeError(f"{cls.__name__}.__ms_dispatch__ must accept (func, args, kwargs=None)") from None

    def __ms_dispatch__(self, func: OpFunc, args: tuple, kwargs: dict | None = None) -> Any:
        return func(*args, **(kwargs or {}))

    def __enter__(self) -> "MsDispatchMode":
        _LOCAL.stack.append(self)
        MODES.append(self)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb) -> None:
        _LOCAL.stack.remove(self)
        MODES.remove(self)


def intercept(prim, inputs: tuple, attrs: dict, run: Callable) -> Any:
    """`run(prim, inputs, attrs)` through this thread's innermost mode, which is off while its handler runs
    (an op the handler calls goes to the modes outside it)."""
    stack = _LOCAL.stack
    if not stack:
        return run(prim, inputs, attrs)
    mode = stack.pop()
    MODES.remove(mode)
    try:
        func = OpFunc(prim.name, lambda args, kwargs: intercept(prim, tuple(args), kwargs or attrs, run))
        return mode.__ms_dispatch__(func, tuple(inputs), dict(attrs) if attrs else None)
    finally:
        stack.append(mode)
        MODES.append(mode)
