"""MindSpore arguments that msx accepts for MindSpore's signatures but cannot honour.

A ported script keeps running, and is told once per (owner, argument) what msx does instead — a MindSpore
argument is never silently ignored (docs/api_surface.md lists every one). An argument left at MindSpore's
default says nothing, so only the programs that asked for the behaviour hear about it.
"""
from __future__ import annotations

import threading
import warnings
from typing import Any

_warned: set[tuple[str, str]] = set()
# what msx does instead of a random op's own `seed`/`seed2`/`offset` (ops.uniform, ops.Gamma, ...)
SEED_INSTEAD = "msx draws every random op from its one global generator (msx.set_seed makes a run reproducible)"
_lock = threading.Lock()


def not_honoured(owner: str, name: str, value: Any, default: Any, instead: str) -> None:
    """Warn once that `owner`'s `name=value` is not honoured, saying what msx does `instead`; silent when the
    value is MindSpore's `default` (compared by identity first, so arrays and Tensors never compare)."""
    if value is default or (type(value) in (bool, int, float, str, type(None)) and value == default):
        return
    with _lock:
        if (owner, name) in _warned:
            return
        _warned.add((owner, name))
    warnings.warn(f"{owner}: {name}={value!r} is not honoured by msx: {instead}", UserWarning, stacklevel=3)


def only_default(owner: str, name: str, value: Any, default: Any, why: str) -> None:
    """Refuse `owner`'s `name=value` unless it is MindSpore's `default`: for an argument whose other values would
    change the answer (a data layout msx does not implement), so warning and computing anyway would be wrong."""
    if value is default or (type(value) in (bool, int, float, str, type(None)) and value == default):
        return
    raise ValueError(f"{owner}: {name}={value!r} is not supported by msx ({why}); use {name}={default!r}")
