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
