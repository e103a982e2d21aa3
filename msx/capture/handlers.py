"""The one table of builtins the interpreting capture modes run themselves, keyed by the callable.

A builtin called by interpreted code either runs as it is (the call policy, `capture/policy.py`, says
whether it may run at capture time) or has a handler of the mode here: bytecode's handlers keep the sources
of what flows through `len`, `zip`, `getattr`, ... (`bytecode/specials.py`), ast's give `print`, `super()`
and `setattr` their graph meaning (`ast_capture/interpreter.py`). Each mode registers its handlers from its
own module and looks a call up in `handlers(mode)`: `{id(fn): (fn, handler)}`, one dict probe per call.
`coverage()` says, per builtin, which modes handle it, so a test keeps the modes' tables and the call
policy consistent (a builtin one mode handles is handled, or ruled on by the policy, in every mode).
"""
from __future__ import annotations

from typing import Any, Callable

from ..ops import array_ops as A
from ..ops.primitive import apply
from ..tensor import Tensor

MODES = ("ast", "bytecode")
_TABLE: dict[str, dict[int, tuple[Any, Callable]]] = {mode: {} for mode in MODES}


def register_builtin(fn: Any, mode: str, handler: Callable) -> None:
    """`handler` runs calls of `fn` in capture mode `mode` (its signature is the mode's own)."""
    _TABLE[mode][id(fn)] = (fn, handler)


def handlers(mode: str) -> dict[int, tuple[Any, Callable]]:
    """The live lookup table of `mode`: id(builtin) -> (builtin, handler)."""
    return _TABLE[mode]


def coverage() -> dict[Any, tuple[str, ...]]:
    """Each builtin in the table -> the modes that handle it."""
    out: dict[int, tuple[Any, list]] = {}
    for mode in MODES:
        for key, (fn, _) in _TABLE[mode].items():
            out.setdefault(key, (fn, []))[1].append(mode)
    return {fn: tuple(modes) for fn, modes in out.values()}


# ---------------------------------------------------------------- print(): a Print node in every interpreting mode
class NotPrintable(Exception):
    """A `print(...)` a Print node cannot do (`file=`, `end=`): the mode says so in its own way."""


def print_pieces(args: tuple, kwargs: dict, piece: Callable[[Any], list]) -> list:
    """`print(*args, **kwargs)` as a Print template: strings and graph tensors, joined as they are.

    `piece(arg)` gives one argument's pieces (`[str(arg)]` for a Python value, `[tensor]` for a graph value).
    A type, a dtype, a shape or any other Python value is text known at capture time, printed by the node on
    every run as eager code prints it on every call (MindSpore's graph mode prints it on every call too)."""
    kwargs = dict(kwargs)
    sep = kwargs.pop("sep", " ")
    end = kwargs.pop("end", "\n")
    file = kwargs.pop("file", None)
    kwargs.pop("flush", None)
    if kwargs:
        raise TypeError(f"'{next(iter(kwargs))}' is an invalid keyword argument for print()")
    if file is not None or end not in ("\n", None):
        raise NotPrintable("print(..., file=/end=) cannot be captured: the graph prints whole lines to stdout")
    sep = " " if sep is None else sep
    if not isinstance(sep, str):
        raise TypeError(f"sep must be None or a string, not {type(sep).__name__}")
    pieces: list = []
    for i, arg in enumerate(args):
        if i:
            pieces.append(sep)
        pieces.extend(piece(arg))
    return pieces


def record_print(pieces: list) -> None:
    """A Print node whose template is `pieces` (str, or a tensor printed where it stands), joined as they are."""
    template, tensors, text = [], [], []
    for p in pieces:
        if isinstance(p, Tensor):
            if text:
                template.append("".join(text))
                text = []
            template.append(None)
            tensors.append(p)
        else:
            text.append(p)
    if text or not template:
        template.append("".join(text))
    apply(A.print_, tuple(tensors), {"template": tuple(template), "sep": ""})
