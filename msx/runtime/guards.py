"""Guards: what a cache entry assumed about the call, checked on every call before its graph runs.

Each guard names a `Source` and a condition (a tensor's shape and dtype, a
scalar's value, an object's identity or type, a container's length or keys),
plus the user's line that made the assumption. `compile_check` turns an
entry's guards into one generated Python function, so that a cache hit costs
one call and a few comparisons per guard, with no interpretation: the function
returns the entry's graph inputs and the values its outputs are rebuilt from,
or the index of the first guard that failed (-1 if a source could not even be
read). Only `describe`/`explain` (for recompile reasons) fetch sources slowly.
"""
from __future__ import annotations

import linecache
import math
from dataclasses import dataclass, field
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np

from ..errors import SourceLoc
from .sources import MISSING, EnvArgs, EnvKwargs, Source, fetch_or_missing
from .iterators import ListIterator

ARRAY_TYPE = type(jnp.zeros(()))

TENSOR, ID, EQUALS, TYPE, LEN, KEYS, ARRAY, ALIAS, ITER_LEFT, ITER_ATLEAST, VALUE, CONTENTS = (
    "tensor", "id", "equals", "type", "len", "keys", "array", "alias", "iter_left", "iter_at_least", "value",
    "contents")
SCALARS = (bool, int, float, complex, str, bytes, type(None))


def same_value(a: Any, b: Any) -> bool:
    """`a` stands for the same Python value as `b`: a scalar of the same type, value and sign (-0.0 is not
    0.0), a Tensor with the same data (an in-place write rebinds its array), or the same object."""
    if a is b:
        return True
    tb = type(b)
    if tb is not type(a):
        return False
    if tb is float:
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b) or (a != a and b != b)
    return tb in SCALARS and a == b


class Snapshot:
    """The shallow contents of a container (or an object's `__dict__`) when a capture read it: each item by
    identity, scalars by value and sign, Tensors by identity and data (`CONTENTS` guards compare to it)."""

    __slots__ = ("kind", "keys", "items", "data")

    def __init__(self, value: Any) -> None:
        self.kind = type(value)
        if isinstance(value, dict):
            self.keys, self.items = tuple(value.keys()), tuple(value.values())
        else:
            self.keys, self.items = None, tuple(value)
        self.data = tuple(getattr(x, "_data", None) if _is_tensor(x) else None for x in self.items)

    def matches(self, value: Any) -> bool:
        if type(value) is not self.kind:
            return False
        if self.keys is not None:
            if len(value) != len(self.keys) or tuple(value.keys()) != self.keys:
                return False
            items = value.values()
        else:
            if len(value) != len(self.items):
                return False
            items = value
        for new, old, data in zip(items, self.items, self.data):
            if new is old:
                if data is not None and new._data is not data:
                    return False
            elif not same_value(new, old):
                return False
        return True

    def difference(self, value: Any) -> str:
        """What changed, in words: `len 2 -> 3`, `item 'k': 2.0 -> 3.0`."""
        if type(value) is not self.kind:
            return _short_obj(value)
        keys = self.keys if self.keys is not None else range(len(self.items))
        new_keys = tuple(value.keys()) if self.keys is not None else range(len(value))
        if len(new_keys) != len(keys) or (self.keys is not None and tuple(new_keys) != self.keys):
            return f"{self.kind.__name__} of {len(new_keys)} item(s)"
        items = list(value.values()) if self.keys is not None else list(value)
        for key, new, old, data in zip(keys, items, self.items, self.data):
            if new is old and (data is None or new._data is data):
                continue
            if new is old or not same_value(new, old):
                was = _short(old) if type(old) in SCALARS else _short_obj(old)
                now = (_short(new) if type(new) in SCALARS else _short_obj(new)) if new is not old else "new data"
                return f"item {key!r}: {was} -> {now}"
        return repr(self)

    def __repr__(self) -> str:
        return f"{self.kind.__name__} of {len(self.items)} item(s)"


def _is_tensor(x: Any) -> bool:
    return hasattr(type(x), "_from") and hasattr(x, "_data")


@dataclass(eq=False)
class Guard:
    """One assumption: `source` satisfies `kind` with `expected`; `loc` is the user line that made it."""

    kind: str
    source: Source
    expected: Any
    loc: SourceLoc | None = None
    other: Source | None = None          # ALIAS: the source that must be the same object
    extra: tuple = field(default=())     # TENSOR: (type, shape, dtype)
    origin_note: str = "the call's arguments"   # what a guard without a line is about

    # ------------------------------------------------------------ checking
    def holds(self, value: Any, env: Any = None) -> bool:
        """The slow check of one value (the generated code does the same, faster)."""
        try:
            return self._holds(value, env)
        except Exception:
            return False

    def _holds(self, v: Any, env: Any) -> bool:
        k, e = self.kind, self.expected
        if k == TENSOR:
            cls, shape, dtype = self.extra
            return type(v) is cls and type(v._data) is ARRAY_TYPE and v._data.shape == shape and v._data.dtype == dtype
        if k == ID:
            return v is e
        if k == EQUALS:
            return same_value(v, e)
        if k == VALUE:
            return v is e and v._data is self.extra[0]
        if k == CONTENTS:
            return e.matches(v)
        if k == TYPE:
            return type(v) is e
        if k == LEN:
            return type(v) is e[0] and len(v) == e[1]
        if k == KEYS:
            return type(v) is e[0] and tuple(v) == e[1]
        if k == ARRAY:
            return (type(v) is np.ndarray and v.shape == e.shape and v.dtype == e.dtype
                    and bool(np.array_equal(v, e, equal_nan=True)))
        if k == ALIAS:
            return v is self.other.fetch(env)
        if k == ITER_LEFT:
            return type(v) is ListIterator and len(v.items) - v.index == e
        if k == ITER_ATLEAST:
            return type(v) is ListIterator and len(v.items) - v.index >= e
        raise ValueError(f"unknown guard kind {k!r}")

    def code(self, var: str, index: int, const: Callable[[Any], str], other_var: str | None = None) -> list[str]:
        """Statements that `return index` when the guard fails."""
        k, e, fail = self.kind, self.expected, f"return {index}"
        if k == TENSOR:
            cls, shape, dtype = self.extra
            return [f"if type({var}) is not {const(cls)}: {fail}",
                    f"d = {var}._data",
                    f"if type(d) is not {const(ARRAY_TYPE)} or d.shape != {shape!r} or d.dtype != {const(dtype)}: "
                    f"{fail}"]
        if k == ID:
            return [f"if {var} is not {const(e)}: {fail}"]
        if k == EQUALS:
            if type(e) is float and math.isnan(e):
                return [f"if type({var}) is not float or {var} == {var}: {fail}"]
            if type(e) in (bool, type(None)):
                return [f"if {var} is not {e!r}: {fail}"]
            if type(e) is float and e == 0.0:  # the sign of a zero changes results (x / s)
                return [f"if type({var}) is not float or {var} != 0.0 or {const(math.copysign)}(1.0, {var}) != "
                        f"{math.copysign(1.0, e)!r}: {fail}"]
            return [f"if type({var}) is not {const(type(e))} or {var} != {const(e)}: {fail}"]
        if k == VALUE:
            return [f"if {var} is not {const(e)} or {var}._data is not {const(self.extra[0])}: {fail}"]
        if k == CONTENTS:
            return [f"if not {const(e.matches)}({var}): {fail}"]
        if k == TYPE:
            return [f"if type({var}) is not {const(e)}: {fail}"]
        if k == LEN:
            return [f"if type({var}) is not {const(e[0])} or len({var}) != {e[1]}: {fail}"]
        if k == KEYS:
            return [f"if type({var}) is not {const(e[0])} or tuple({var}) != {const(e[1])}: {fail}"]
        if k == ARRAY:
            return [f"if type({var}) is not {const(np.ndarray)} or {var}.shape != {e.shape!r} or {var}.dtype != "
                    f"{const(e.dtype)} or not {const(np.array_equal)}({var}, {const(e)}, equal_nan=True): {fail}"]
        if k == ALIAS:
            return [f"if {var} is not {other_var}: {fail}"]
        if k == ITER_LEFT:
            return [f"if type({var}) is not {const(ListIterator)} or len({var}.items) - {var}.index != {e}: {fail}"]
        if k == ITER_ATLEAST:
            return [f"if type({var}) is not {const(ListIterator)} or len({var}.items) - {var}.index < {e}: {fail}"]
        raise ValueError(f"unknown guard kind {k!r}")

    # ------------------------------------------------------------ words
    def describe(self) -> str:
        """`global SCALE == 2.0`, `arg x is Tensor float32(2, 4)`, ..."""
        what = self.source.describe()
        k, e = self.kind, self.expected
        if isinstance(self.source, EnvArgs) and k == LEN:
            return f"{e[1]} positional argument(s)"
        if isinstance(self.source, EnvKwargs) and k == KEYS:
            return f"keyword arguments {list(e[1])}" if e[1] else "no keyword arguments"
        if k == TENSOR:
            cls, shape, dtype = self.extra
            return f"{what} is a {cls.__name__} {np.dtype(dtype).name}{tuple(shape)}"
        if k == ID:
            return f"{what} is {_short_obj(e)}"
        if k == EQUALS:
            return f"{what} == {_short(e)}"
        if k == VALUE:
            return f"{what} is the Tensor seen at capture, with the same data"
        if k == CONTENTS:
            return f"{what} holds the same {e!r} as at capture"
        if k == TYPE:
            return f"{what} is a {e.__name__}"
        if k == LEN:
            return f"len({what}) == {e[1]} ({e[0].__name__})"
        if k == KEYS:
            return f"{what} has keys {list(e[1])}"
        if k == ARRAY:
            return f"{what} equals the numpy array {np.dtype(e.dtype).name}{e.shape} seen at capture"
        if k == ALIAS:
            return f"{what} is the same object as {self.other.describe()}"
        if k == ITER_LEFT:
            return f"{what} has {e} element(s) left"
        if k == ITER_ATLEAST:
            return f"{what} has at least {e} element(s) left"
        return f"{what} ({k})"

    def show(self, value: Any) -> str:
        """A value as this guard's failure message shows it (the old one is `show_expected`)."""
        if value is MISSING:
            return "<missing>"
        k = self.kind
        if k == TENSOR:
            data = getattr(value, "_data", None)
            if data is None:
                return type(value).__name__
            if isinstance(data, jax.core.Tracer):
                return f"{type(value).__name__} (abstract, under a jax transform)"
            return f"{type(value).__name__} {np.dtype(data.dtype).name}{tuple(data.shape)}"
        if k in (ID, ALIAS):
            return _short_obj(value)
        if k == VALUE:
            return "the same Tensor with new data (written in place)" if value is self.expected else _short_obj(value)
        if k == CONTENTS:
            return self.expected.difference(value)
        if k in (LEN,):
            return f"len {len(value)}" if hasattr(value, "__len__") else type(value).__name__
        if k == KEYS:
            return f"keys {list(value)}" if isinstance(value, dict) else type(value).__name__
        if k in (ITER_LEFT, ITER_ATLEAST):
            return f"{len(value.items) - value.index} left" if isinstance(value, ListIterator) else _short_obj(value)
        if k == TYPE:
            return type(value).__name__
        return _short(value)

    def show_expected(self) -> str:
        k, e = self.kind, self.expected
        if k == TENSOR:
            cls, shape, dtype = self.extra
            return f"{cls.__name__} {np.dtype(dtype).name}{tuple(shape)}"
        if k == LEN:
            return f"len {e[1]}"
        if k == KEYS:
            return f"keys {list(e[1])}"
        if k == TYPE:
            return e.__name__
        if k == ITER_LEFT:
            return f"{e} left"
        if k == ITER_ATLEAST:
            return f"at least {e} left"
        if k == ALIAS:
            return f"the same object as {self.other.describe()}"
        if k == VALUE:
            return "the Tensor seen at capture"
        if k == CONTENTS:
            return repr(e)
        return _short(e) if k in (EQUALS, ARRAY) else _short_obj(e)

    def origin(self) -> str:
        """`prog.py:12 (y = x * SCALE)`: the line that introduced the guard."""
        if self.loc is None:
            return self.origin_note
        text = linecache.getline(self.loc.file, self.loc.line).strip()
        return f"{self.loc.short()}" + (f" `{text}`" if text else "")

    def failure(self, env: Any) -> str | None:
        """Why this guard fails for `env`, in words (None when it holds)."""
        value = fetch_or_missing(self.source, env)
        if value is not MISSING and self.holds(value, env):
            return None
        return (f"{self.source.describe()}: {self.show_expected()} -> {self.show(value)} "
                f"(guard from {self.origin()})")


def _short(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


def _short_obj(v: Any) -> str:
    if v is None or isinstance(v, (bool, int, float, str)):
        return repr(v)
    name = getattr(v, "__qualname__", None) or getattr(v, "__name__", None)
    if isinstance(name, str):
        kind = {"builtin_function_or_method": "builtin", "type": "class"}.get(type(v).__name__, type(v).__name__)
        return f"{kind} {name}"
    return f"the {type(v).__name__} object at {id(v):#x}"


# ---------------------------------------------------------------- code generation
class _Emitter:
    def __init__(self) -> None:
        self.consts: list[Any] = []
        self._const_ids: dict[int, str] = {}
        self.lines: list[str] = []
        self.vars: dict[Source, str] = {}

    def const(self, obj: Any) -> str:
        name = self._const_ids.get(id(obj))
        if name is None:
            name = f"K[{len(self.consts)}]"
            self.consts.append(obj)
            self._const_ids[id(obj)] = name
        return name

    def var(self, source: Source) -> str:
        name = self.vars.get(source)
        if name is not None:
            return name
        base = self.var(source.base) if source.base is not None else ""
        name = f"v{len(self.vars)}"
        self.lines.append(f"{name} = {source.expr(base, self.const)}")
        self.vars[source] = name
        return name


def compile_check(guards: list[Guard], inputs: list[Source], values: list[Source],
                  name: str = "check") -> Callable[[Any], Any]:
    """`check(E)`: `(input Tensors, values)` when every guard holds, else the index of the failed guard (-1: a
    source could not be read). Generated once per cache entry; see the module docstring."""
    em = _Emitter()
    for i, g in enumerate(guards):
        var = em.var(g.source)
        other = em.var(g.other) if g.other is not None else None
        em.lines.extend(g.code(var, i, em.const, other))
    ins = [em.var(s) for s in inputs]
    vals = [em.var(s) for s in values]
    em.lines.append(f"return [{', '.join(ins)}], [{', '.join(vals)}]")
    body = "\n".join("        " + line for line in em.lines)
    text = f"def {name}(E, K=K):\n    try:\n{body}\n    except Exception:\n        return -1\n"
    namespace: dict[str, Any] = {"K": tuple(em.consts)}
    exec(compile(text, f"<msx guards {name}>", "exec"), namespace)  # noqa: S102 - our own generated code
    fn = namespace[name]
    fn.source_text = text
    return fn
