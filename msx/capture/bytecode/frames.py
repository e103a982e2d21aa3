"""Interpreter frames as plain data, and CPython's argument binding and method lookup for them.

A `Frame` is one activation of a code object: its fast locals, value stack and
position. Being a plain object (not Python's frame) is what lets the bytecode
interpreter stop at any instruction, keep the frames, and resume after a graph
break (`reconstruct` rebuilds them).
"""
from __future__ import annotations

import builtins
import types
from typing import Any

from ...errors import SourceLoc
from .instructions import CodeInfo, code_info
from .stack_values import UNBOUND

CO_VARARGS, CO_VARKEYWORDS = 0x04, 0x08


class Frame:
    """One activation of a code object: locals (CPython's "fast locals plus"), value stack, position."""

    __slots__ = ("info", "globals", "builtins", "lp", "stack", "ip", "ci", "kw_names", "gen_items", "override",
                 "scope", "scope_cell")

    def __init__(self, info: CodeInfo, globals_: dict, builtins_: dict, lp: list, stack: list | None = None,
                 ip: int = 0) -> None:
        self.info = info
        self.globals = globals_
        self.builtins = builtins_
        self.lp = lp
        self.stack = stack if stack is not None else []
        self.ip = ip            # the next instruction to execute
        self.ci = ip            # the instruction being executed
        self.kw_names: tuple = ()
        self.gen_items: list | None = None  # set while a generator is being run to completion
        self.override: Any = UNBOUND        # the value a call returns instead (an inlined `__init__` returns self)
        self.scope: str = ""                # the Cell path the ops recorded here carry (`fc1`, `backbone/conv1`)
        self.scope_cell: Any = None         # the Cell whose construct this frame is (or is called from)

    @property
    def code(self) -> types.CodeType:
        return self.info.code

    def loc(self) -> SourceLoc:
        return self.info.loc(self.ci)

    def __repr__(self) -> str:
        return f"<Frame {self.info.qualname} at {self.loc().short()}>"


def builtins_of(globals_: dict) -> dict:
    b = globals_.get("__builtins__", builtins)
    return b.__dict__ if isinstance(b, types.ModuleType) else b


def bind_arguments(fn: types.FunctionType, args: tuple, kwargs: dict) -> list:
    """The initial fast locals of a call of `fn` (CPython's argument binding), or a TypeError as Python gives."""
    code = fn.__code__
    info = code_info(code)
    n_pos, n_posonly, n_kwonly = code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount
    names = code.co_varnames
    lp: list = [UNBOUND] * len(info.names)
    name = fn.__qualname__
    for i, a in enumerate(args[:n_pos]):
        lp[i] = a
    slot = n_pos + n_kwonly
    if code.co_flags & CO_VARARGS:
        lp[slot] = tuple(args[n_pos:])
        slot += 1
    elif len(args) > n_pos:
        raise TypeError(f"{name}() takes {n_pos} positional argument{'s' * (n_pos != 1)} but {len(args)} "
                        f"{'were' if len(args) != 1 else 'was'} given")
    extra = {} if code.co_flags & CO_VARKEYWORDS else None
    index = {n: i for i, n in enumerate(names[n_posonly:n_pos + n_kwonly], n_posonly)}
    for k, v in kwargs.items():
        i = index.get(k)
        if i is None:
            if extra is None:
                raise TypeError(f"{name}() got an unexpected keyword argument {k!r}")
            extra[k] = v
        elif lp[i] is not UNBOUND:
            raise TypeError(f"{name}() got multiple values for argument {k!r}")
        else:
            lp[i] = v
    if extra is not None:
        lp[slot] = extra
    defaults = fn.__defaults__ or ()
    first_default = n_pos - len(defaults)
    missing = []
    for i in range(n_pos):
        if lp[i] is UNBOUND:
            if i >= first_default:
                lp[i] = defaults[i - first_default]
            else:
                missing.append(names[i])
    kwdefaults = fn.__kwdefaults__ or {}
    for i in range(n_pos, n_pos + n_kwonly):
        if lp[i] is UNBOUND:
            if names[i] in kwdefaults:
                lp[i] = kwdefaults[names[i]]
            else:
                missing.append(names[i])
    if missing:
        raise TypeError(f"{name}() missing {len(missing)} required argument{'s' * (len(missing) != 1)}: "
                        f"{', '.join(repr(m) for m in missing)}")
    closure = fn.__closure__ or ()
    if closure:
        lp[len(lp) - len(closure):] = list(closure)
    return lp


def new_frame(fn: types.FunctionType, lp: list) -> Frame:
    globals_ = fn.__globals__
    return Frame(code_info(fn.__code__), globals_, fn.__builtins__ if hasattr(fn, "__builtins__")
                 else builtins_of(globals_), lp)


def type_lookup(cls: type, name: str) -> Any:
    """`name` on the class (its MRO), without the instance: what Python's method lookup finds."""
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return klass.__dict__[name]
    return None
