"""The compiled entries of one jitted function, found again by call signature.

One signature key can hold several entries: a graph is only valid while the Python state its capture read
still holds (a Cell's training flag, a global, `self.k`), so train and eval of one network are two entries
of one key, each checked with its own `StateGuards` before it may run. The newest entry is tried first;
past `recompile_warn_limit` the oldest are dropped.

`lookup` is the checked path of `msx.jit` for the source and trace capture modes (bytecode capture keeps its
own guarded entries per code position, run through the same `Compiled.run`). `hot` is the path of a call
like the last hit: only Tensor arguments, as many as then, the same Cell training flag and the entry's
state still holding. It builds no signature: the executable itself compares the arguments' shapes and
dtypes with the ones it was compiled for (in C++, before running), and a call it refuses takes `lookup`.
"""
from __future__ import annotations

from typing import Any, Callable

from .. import context
from .compiled import EAGER, INLINE, Compiled
from .signature import Signature

MISS = object()  # lookup: no entry can serve this call; compile one (the reason says why)


class EntryCache:
    """Signature key -> the entries compiled for it (newest first), or `EAGER` for a key that runs eagerly."""

    def __init__(self) -> None:
        self._entries: dict[Any, list[Compiled] | object] = {}
        # the hot call of the entry of the last hit (`Compiled.hot_call`): `hot(args, cell)` is the call's
        # result, or `UNCHECKED`/`INLINE` when the call needs `lookup`; None: no entry is hot
        self.hot: Callable[[tuple, Any], Any] | None = None
        self._hot_entry: Compiled | None = None

    def lookup(self, sig: Signature) -> tuple[Any, str | None]:
        """(the call's result, None) on a hit; (EAGER, None) when the call must run in Python; (MISS, why)
        when a new entry is needed — `why` is None for a key never seen."""
        entries = self._entries.get(sig.key)
        if entries is None:
            return MISS, None
        if entries is EAGER:
            return EAGER, None
        for compiled in entries:
            if not compiled.state.holds():
                continue
            out = compiled.run(sig)
            if out is not INLINE:
                self._remember(sig, compiled)
                return out, None
            if not compiled.failure:  # e.g. a Parameter holds a jax tracer: this call belongs to Python
                return EAGER, None
            entries.remove(compiled)  # a Parameter changed shape, dtype or requires_grad: never valid again
            self.hot = None
            return MISS, compiled.failure
        return MISS, (entries[-1].state.change() if entries else None) or "new signature"

    def serving(self, sig: Signature) -> Compiled | object | None:
        """The entry `lookup` would run for `sig` now (the newest whose state holds), `EAGER`, or None."""
        entries = self._entries.get(sig.key)
        if entries is None or entries is EAGER:
            return entries
        return next((c for c in entries if c.state.holds()), None)

    def _remember(self, sig: Signature, compiled: Compiled) -> None:
        """Make `compiled` the hot entry when its key is the plain one (Tensor arguments only, none twice)."""
        if self.hot is not None and self._hot_entry is compiled:
            return
        n, _, training, aliasing = sig.key if type(sig.key[0]) is int else (None, None, None, True)
        hot = aliasing is None and compiled.backend_checks
        self.hot = compiled.hot_call(n, training) if hot else None
        self._hot_entry = compiled

    def add(self, key: Any, compiled: Compiled) -> None:
        """Cache `compiled` for calls with signature `key` (the oldest entries of a key go past the limit)."""
        entries = self._entries.get(key)
        if entries is None or entries is EAGER:
            entries = self._entries[key] = []
        self.hot = None  # the next hit elects it again (an entry dropped below must never stay hot)
        if compiled not in entries:
            entries.insert(0, compiled)
            del entries[max(1, context.get_context("recompile_warn_limit")):]

    def run_eagerly(self, key: Any) -> None:
        """Calls with signature `key` run the Python function from now on (it could not be captured)."""
        self.hot = None
        self._entries[key] = EAGER

    def __len__(self) -> int:
        return sum(1 if e is EAGER else len(e) for e in self._entries.values())


__all__ = ["EntryCache", "MISS"]
