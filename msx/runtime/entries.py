"""The one cache-entry type of `msx.jit`, in every capture mode, and the keyed table that holds entries.

A `CacheEntry` is what a jitted function's cache keeps for one kind of call: where it starts (`where`: the
start of the function, or just after a graph break), what it assumed (`guards`, checked before it may run),
what it runs (`compiled`, a `msx.runtime.compiled.Compiled`) or why it runs eagerly instead
(`eager_reason`). `explain()` (`msx.capture.explain.ExplainedEntry.of`) and the recompile reasons
(`why_not`) read every entry through this one protocol, so they say the same things in ast, trace and
bytecode. Each mode adds only what its cache needs to run an entry: the signature cache's
`msx.runtime.cache.SignatureEntry` (the Python state its capture read) and the bytecode cache's
`msx.capture.bytecode.runtime.Entry` (a generated guard check, the captured piece and how it continues).

`EntryTable` maps a key (a call signature; a bytecode resume point) to its entries, in the order they are
tried. A leaf: it imports nothing of msx, so the capture modes below the runtime build on it too.
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Callable, Iterator, Protocol


class CacheEntry:
    """One cache entry: `where` it starts, the `guards` it assumed, the `compiled` graph it runs (None: no
    graph — no ops, or it runs eagerly), and `eager_reason` (why it runs eagerly; None: it does not)."""

    __slots__ = ("where", "guards", "compiled", "eager_reason")

    def __init__(self, where: str, guards: list, compiled: Any, eager_reason: str | None = None) -> None:
        self.where, self.guards, self.compiled, self.eager_reason = where, guards, compiled, eager_reason

    @property
    def graph(self) -> Any:
        """The captured graph this entry runs (before passes, as explain shows it), or None."""
        return self.compiled.lowered.captured.graph if self.compiled is not None else None

    @property
    def brk(self) -> Any:
        """The graph break that ends this entry (a `BreakInfo`); None: it returns (ast and trace always)."""
        return None

    def guard_lines(self) -> list[str]:
        """Each guard in words, with the line of user code that made it (explain's guard list, the same in every
        capture mode); a guard several reads made is one line with its count."""
        said = Counter(f"{g.describe()}   [{g.origin()}]" for g in self.explained_guards())
        return [text if n == 1 else f"{text} (x{n})" for text, n in said.items()]

    def explained_guards(self) -> list:
        """The guards explain lists: those this entry checks."""
        return list(self.guards)

    def why_not(self, call: Any) -> str | None:
        """Why this entry cannot serve `call` (the recompile reason of a miss): the first guard that fails."""
        for guard in self.guards:
            failure = guard.failure(call)
            if failure is not None:
                return failure
        return None


class EntryTable:
    """Key -> its entries, in the order a lookup tries them. `newest_first`: a new entry goes before the
    older ones (the signature cache: the latest Python state is the likeliest); otherwise after them (the
    bytecode cache: an eager entry with fewer guards must never shadow an older graph)."""

    __slots__ = ("_lists", "newest_first")

    def __init__(self, newest_first: bool) -> None:
        self._lists: dict[Any, list] = {}
        self.newest_first = newest_first

    def get(self, key: Any) -> list | None:
        return self._lists.get(key)

    def list_for(self, key: Any) -> list:
        """The (live) list of `key`'s entries, made empty at first use: a caller may keep it to walk it."""
        entries = self._lists.get(key)
        if entries is None:
            entries = self._lists[key] = []
        return entries

    def add(self, key: Any, entry: CacheEntry, keep: int | None = None) -> None:
        """Add `entry` under `key`; `keep`: at most that many entries stay (the oldest go)."""
        entries = self.list_for(key)
        if entry in entries:
            return
        if self.newest_first:
            entries.insert(0, entry)
            if keep is not None:
                del entries[max(1, keep):]
        else:
            entries.append(entry)
            if keep is not None:
                del entries[:max(0, len(entries) - max(1, keep))]

    def set(self, key: Any, value: Any) -> None:
        """Replace `key`'s entries with `value` (a marker such as the signature cache's `EAGER`, counted one)."""
        self._lists[key] = value

    def values(self) -> Iterator:
        return iter(self._lists.values())

    def __len__(self) -> int:
        return sum(len(e) if type(e) is list else 1 for e in self._lists.values())


class Cache(Protocol):
    """What `msx.jit` asks of a jitted function's cache, whatever its mode (the signature cache of ast and
    trace, the bytecode cache): `JitFunction` serves, explains and counts through these alone."""

    table: EntryTable
    # a call like the last hit: `hot(args, cell)` is its result, or `UNCHECKED`/`INLINE` (nothing ran: the
    # call takes the cache's checked path); None while no entry is hot
    hot: Callable[[tuple, Any], Any] | None
    # whether `msx.dynamic`'s shape families can be entries of this cache (one compiled graph for many shapes,
    # each concrete shape it ran added as an exact hit of its signature): the signature cache's; bytecode's
    # guards key its graphs on shapes, so there a new shape is a new guarded entry
    shape_families: bool

    def explained_call(self, call: Callable[[], Any], args: tuple, kwargs: dict,
                       cell: Any) -> tuple[Any, list[CacheEntry]]:
        """Run `call()`; (its result, the entries the call went through, in order)."""
        ...

    def __len__(self) -> int: ...


__all__ = ["Cache", "CacheEntry", "EntryTable"]
