"""The compiled entries of one jitted function, found again by call signature.

One signature key can hold several entries: a graph is only valid while the Python state its capture read
still holds (a Cell's training flag, a global, `self.k`), so train and eval of one network are two entries
of one key, each checked with its own `StateGuards` before it may run. The newest entry is tried first;
past `recompile_warn_limit` the oldest are dropped.

Each entry is a `SignatureEntry`, the signature cache's kind of the one `msx.runtime.entries.CacheEntry`
(bytecode capture keeps the other kind, per code position, in the same `EntryTable`, run through the same
`Compiled.run`; explain() and the recompile reasons read both the same way). `lookup` is the checked path
of `msx.jit` for the source and trace capture modes. `hot` is the path of a call
like the last hit: only Tensor arguments, as many as then, the same Cell training flag and the entry's
state still holding. It builds no signature: the executable itself compares the arguments' shapes and
dtypes with the ones it was compiled for (in C++, before running), and a call it refuses takes `lookup`.
"""
from __future__ import annotations

from typing import Any, Callable

from .. import context
from .compiled import EAGER, INLINE, Compiled
from .entries import CacheEntry, EntryTable
from .signature import Signature

MISS = object()  # lookup: no entry can serve this call; compile one (the reason says why)


class SignatureEntry(CacheEntry):
    """An entry of the signature cache: a graph for one call signature, valid while `state` (the Python state
    its capture read: `StateGuards`) holds; `guards` are trace capture's value guards, re-checked by the
    graph itself. `shapes`: the signature's Tensors in words (explain's first guard)."""

    __slots__ = ("state", "shapes")

    def __init__(self, where: str, compiled: Compiled, shapes: str) -> None:
        super().__init__(where, compiled.guards, compiled)
        self.state, self.shapes = compiled.state, shapes

    def guard_lines(self) -> list[str]:
        return [f"the call's Tensor arguments are {self.shapes}   [the signature]"] + super().guard_lines() + \
            [f"Cell {c.path}: training flag, sub-Cells, Parameters and attributes unchanged   [read by the "
             f"capture]" for c in self.state.cells]

    def explained_guards(self) -> list:
        return list(self.guards) + list(self.state.guards)

    def why_not(self, call: Any) -> str | None:
        return self.state.change()


class EntryCache:
    """Signature key -> the entries compiled for it (newest first), or `EAGER` for a key that runs eagerly.
    `where`: where its entries start, in explain()'s words ("the start of step")."""

    shape_families = True  # (`entries.Cache`: msx.dynamic adds each family's concrete shapes as signatures here)

    def __init__(self, where: str = "the start of the function") -> None:
        self.where = where
        self.table = EntryTable(newest_first=True)
        # the hot call of the entry of the last hit (`Compiled.hot_call`): `hot(args, cell)` is the call's
        # result, or `UNCHECKED`/`INLINE` when the call needs `lookup`; None: no entry is hot
        self.hot: Callable[[tuple, Any], Any] | None = None
        self._hot_entry: Compiled | None = None

    def lookup(self, sig: Signature) -> tuple[Any, str | None]:
        """(the call's result, None) on a hit; (EAGER, None) when the call must run in Python; (MISS, why)
        when a new entry is needed — `why` is None for a key never seen."""
        entries = self.table.get(sig.key)
        if entries is None:
            return MISS, None
        if entries is EAGER:
            return EAGER, None
        for entry in entries:
            if not entry.state.holds():
                continue
            compiled = entry.compiled
            out = compiled.run(sig)
            if out is not INLINE:
                self._remember(sig, compiled)
                return out, None
            if not compiled.failure:  # e.g. a Parameter holds a jax tracer: this call belongs to Python
                return EAGER, None
            entries.remove(entry)  # a Parameter changed shape, dtype or requires_grad: never valid again
            self.hot = None
            return MISS, compiled.failure
        return MISS, (entries[-1].why_not(sig) if entries else None) or "new signature"

    def serving(self, sig: Signature) -> SignatureEntry | object | None:
        """The entry `lookup` would run for `sig` now (the newest whose state holds), `EAGER`, or None."""
        entries = self.table.get(sig.key)
        if entries is None or entries is EAGER:
            return entries
        return next((e for e in entries if e.state.holds()), None)

    def explained_call(self, call: Callable[[], Any], args: tuple, kwargs: dict, cell: Any) -> tuple[Any, list]:
        """Run `call()` (the jitted call of `args`, `kwargs`); (its result, the entries it went through): the
        one entry that serves the signature, or an eager one when the signature runs in Python."""
        result = call()
        entry = self.serving(Signature(args, kwargs, cell))
        if entry is EAGER or entry is None:  # (None: a call under a jax transform or inside a capture)
            entry = CacheEntry(self.where, [], None, "this signature runs eagerly (see the warning it gave)")
        return result, [entry]

    def _remember(self, sig: Signature, compiled: Compiled) -> None:
        """Make `compiled` the hot entry when its key is the plain one (Tensor arguments only, none twice)."""
        if self.hot is not None and self._hot_entry is compiled:
            return
        n, _, training, aliasing = sig.key if type(sig.key[0]) is int else (None, None, None, True)
        hot = aliasing is None and compiled.backend_checks
        self.hot = compiled.hot_call(n, training) if hot else None
        self._hot_entry = compiled

    def add(self, sig: Signature, compiled: Compiled) -> None:
        """Cache `compiled` for calls with signature `sig` (the oldest entries of its key go past the limit)."""
        key = sig.key
        entries = self.table.get(key)
        if entries is EAGER:
            self.table.set(key, [])
        self.hot = None  # the next hit elects it again (an entry dropped below must never stay hot)
        if entries is not None and entries is not EAGER and any(e.compiled is compiled for e in entries):
            return
        shapes = ", ".join(f"{t.dtype}{list(t.shape)}" for t in sig.tensors) or "no Tensors"
        self.table.add(key, SignatureEntry(self.where, compiled, shapes),
                          keep=context.get_context("recompile_warn_limit"))

    def run_eagerly(self, key: Any) -> None:
        """Calls with signature `key` run the Python function from now on (it could not be captured)."""
        self.hot = None
        self.table.set(key, EAGER)

    def __len__(self) -> int:
        return len(self.table)


__all__ = ["EntryCache", "MISS", "SignatureEntry"]
