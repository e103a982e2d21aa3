"""Where a value came from, so that a cache entry can fetch it again on the next call.

A `Source` is a path from the call's environment to a value: the arguments
(`args[1]`), a global, a closure variable, an attribute or item of another
source, or an object the entry holds itself (`Pinned`). Guards check sources,
graph inputs are fetched through them, and (bytecode capture) values carried
across a graph break are rebuilt from them. Each source renders itself as a
Python expression for the generated check function (`guards.compile_check`)
and can fetch itself slowly (`fetch`) to explain a guard failure.

The environment `E` of a check is `(args, kwargs)` at the start of a function
(bytecode capture adds the frames it resumes after a graph break, with sources
of its own in `msx.capture.bytecode.frame_sources`).
"""
from __future__ import annotations

from typing import Any, Callable


class Source:
    """A path to a value; sources with the same path are equal (one fetch, one guard)."""

    __slots__ = ("key", "label")
    base: "Source | None" = None

    def __init__(self, key: tuple) -> None:
        self.key = key
        self.label: str | None = None   # a readable name (an argument's name), set by the interpreter

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and other.key == self.key

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.key))

    def expr(self, base: str, const: "Callable[[Any], str]") -> str:
        raise NotImplementedError(type(self).__name__)

    def fetch(self, env: Any) -> Any:
        raise NotImplementedError(type(self).__name__)

    def describe(self) -> str:
        raise NotImplementedError(type(self).__name__)

    def name_hint(self) -> str:
        """A short identifier for a graph input read from here (`x`, `weight`, `n`)."""
        return self.label or "in"

    def __repr__(self) -> str:
        return f"<{self.describe()}>"


class EnvArgs(Source):
    """The positional arguments of the call (a tuple)."""

    def __init__(self) -> None:
        super().__init__(())

    def expr(self, base, const):
        return "E[0]"

    def fetch(self, env):
        return env[0]

    def describe(self):
        return "the positional arguments"


class EnvKwargs(Source):
    """The keyword arguments of the call (a dict)."""

    def __init__(self) -> None:
        super().__init__(())

    def expr(self, base, const):
        return "E[1]"

    def fetch(self, env):
        return env[1]

    def describe(self):
        return "the keyword arguments"


class Pinned(Source):
    """An object the cache entry holds itself (the jitted function, a module's globals, a closure cell)."""

    __slots__ = ("obj", "name")

    def __init__(self, obj: Any, name: str) -> None:
        super().__init__((id(obj),))
        self.obj = obj
        self.name = name

    def expr(self, base, const):
        return const(self.obj)

    def fetch(self, env):
        return self.obj

    def describe(self):
        return self.name


class Derived(Source):
    """A source computed from another one."""

    __slots__ = ("base",)

    def __init__(self, base: Source, key: tuple) -> None:
        super().__init__((base, *key))
        self.base = base


class Attr(Derived):
    """`base.name`."""

    __slots__ = ("name",)

    def __init__(self, base: Source, name: str) -> None:
        super().__init__(base, (name,))
        self.name = name

    def expr(self, base, const):
        return f"{base}.{self.name}" if self.name.isidentifier() else f"getattr({base}, {self.name!r})"

    def fetch(self, env):
        return getattr(self.base.fetch(env), self.name)

    def describe(self):
        return f"{self.base.describe()}.{self.name}"

    def name_hint(self):
        return self.name


class CellMember(Derived):
    """A Parameter or sub-Cell of a Cell: `base._params[name]` / `base._cells[name]` (what `base.name` finds)."""

    __slots__ = ("table", "name")

    def __init__(self, base: Source, table: str, name: str) -> None:
        super().__init__(base, (table, name))
        self.table, self.name = table, name

    def expr(self, base, const):
        return f"{base}.{self.table}[{self.name!r}]"

    def fetch(self, env):
        return getattr(self.base.fetch(env), self.table)[self.name]

    def describe(self):
        return f"{self.base.describe()}.{self.name}"


class Item(Derived):
    """`base[key]` for a constant key."""

    __slots__ = ("item",)

    def __init__(self, base: Source, item: Any) -> None:
        super().__init__(base, (type(item), item))
        self.item = item

    def expr(self, base, const):
        literal = repr(self.item) if type(self.item) in (int, str) else const(self.item)
        return f"{base}[{literal}]"

    def fetch(self, env):
        return self.base.fetch(env)[self.item]

    def describe(self):
        if self.label is not None:
            return f"arg {self.label}"
        if isinstance(self.base, EnvArgs):
            return f"arg {self.item}"
        if isinstance(self.base, EnvKwargs):
            return f"kwarg {self.item!r}"
        return f"{self.base.describe()}[{self.item!r}]"


class GlobalVar(Derived):
    """A module global, read from the function's globals dict."""

    __slots__ = ("name",)

    def __init__(self, globals_source: Pinned, name: str) -> None:
        super().__init__(globals_source, (name,))
        self.name = name

    def expr(self, base, const):
        return f"{base}[{self.name!r}]"

    def fetch(self, env):
        return self.base.fetch(env)[self.name]

    def describe(self):
        return f"global {self.name}"

    def name_hint(self):
        return self.name


class BuiltinVar(Source):
    """A builtin (`len`, `print`) that no global of the same name shadows."""

    __slots__ = ("globals", "builtins", "name")

    def __init__(self, globals_: dict, builtins_: dict, name: str) -> None:
        super().__init__((id(globals_), name))
        self.globals, self.builtins, self.name = globals_, builtins_, name

    def expr(self, base, const):
        return f"({const(self.builtins)}[{self.name!r}] if {self.name!r} not in {const(self.globals)} else None)"

    def fetch(self, env):
        return None if self.name in self.globals else self.builtins[self.name]

    def describe(self):
        return f"builtin {self.name}"


class CellContents(Derived):
    """The value of a closure variable (`cell.cell_contents`)."""

    __slots__ = ("name",)

    def __init__(self, base: Source, name: str) -> None:
        super().__init__(base, ())
        self.name = name

    def expr(self, base, const):
        return f"{base}.cell_contents"

    def fetch(self, env):
        return self.base.fetch(env).cell_contents

    def describe(self):
        return f"closure variable {self.name}"


MISSING = object()


def fetch_or_missing(source: Source, env: Any) -> Any:
    """`source.fetch(env)`, or MISSING where the path no longer exists (for explaining a guard failure)."""
    try:
        return source.fetch(env)
    except Exception:
        return MISSING

