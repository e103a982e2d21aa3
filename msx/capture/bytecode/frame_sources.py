"""Sources of bytecode capture's own: slots of the interpreter frames resumed after a graph break.

The generic sources (arguments, globals, attributes, pinned objects) live in
`msx.runtime.value_sources`, shared by every capture mode's guards.
"""
from __future__ import annotations

from ...runtime.value_sources import (MISSING, Attr, BuiltinVar, CellContents, CellMember, Derived, EnvArgs,  # noqa: F401
                                EnvKwargs, GlobalVar, Item, Pinned, Source, fetch_or_missing)


class FrameSlot(Source):
    """A local variable (or cell) of frame `frame` of the resumed frames, after a graph break."""

    __slots__ = ("frame", "index", "name", "where")

    def __init__(self, frame: int, index: int, name: str, where: str) -> None:
        super().__init__((frame, index))
        self.frame, self.index, self.name, self.where = frame, index, name, where

    def expr(self, base, const):
        return f"E[{self.frame}].lp[{self.index}]"

    def fetch(self, env):
        return env[self.frame].lp[self.index]

    def describe(self):
        return f"local {self.name} ({self.where})"

    def name_hint(self):
        return self.name


class FrameStack(Source):
    """Value `index` of the value stack of frame `frame` of the resumed frames."""

    __slots__ = ("frame", "index", "where", "what")

    def __init__(self, frame: int, index: int, where: str, what: str | None = None) -> None:
        super().__init__((frame, index))
        self.frame, self.index, self.where = frame, index, where
        self.what = what   # for the value the graph break's instruction just produced: its source text

    def expr(self, base, const):
        return f"E[{self.frame}].stack[{self.index}]"

    def fetch(self, env):
        return env[self.frame].stack[self.index]

    def describe(self):
        if self.label is not None:
            return f"{self.label} ({self.where})"
        if self.what is not None:
            return f"the result of `{self.what}` ({self.where})"
        return f"a value being computed ({self.where})"


class FrameOverride(Source):
    """The object an inlined `__init__` of frame `frame` returns (the instance being built)."""

    __slots__ = ("frame", "where")

    def __init__(self, frame: int, where: str) -> None:
        super().__init__((frame,))
        self.frame, self.where = frame, where

    def expr(self, base, const):
        return f"E[{self.frame}].override"

    def fetch(self, env):
        return env[self.frame].override

    def describe(self):
        return f"the object being initialised ({self.where})"


class IterNext(Derived):
    """Item `offset` still to come of an iterator carried across a graph break (a loop's next element)."""

    __slots__ = ("offset",)

    def __init__(self, base: Source, offset: int) -> None:
        super().__init__(base, (offset,))
        self.offset = offset

    def expr(self, base, const):
        return f"{base}.items[{base}.index + {self.offset}]"

    def fetch(self, env):
        it = self.base.fetch(env)
        return it.items[it.index + self.offset]

    def describe(self):
        return f"element {self.offset} still to come of the loop over {self.base.describe()}"
