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
from ..tensor import PendingTensor, Tensor
from .value_sources import MISSING, EnvArgs, EnvKwargs, Source, fetch_or_missing
from .list_iterator import ListIterator

ARRAY_TYPE = type(jnp.zeros(()))

TENSOR, ID, EQUALS, TYPE, LEN, KEYS, ARRAY, ALIAS, DISTINCT, ITER_LEFT, ITER_ATLEAST, VALUE, CONTENTS = (
    "tensor", "id", "equals", "type", "len", "keys", "array", "alias", "distinct", "iter_left", "iter_at_least",
    "value", "contents")   # the kind names (`make_guard(kind, ...)`); each is one Guard subclass below
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
    """One assumption: `source` satisfies this guard's condition on `expected`; `loc` is the user line that
    made it. One subclass per kind (dynamo's GuardBuilder shape): each says how to check a value slowly
    (`_holds`), as generated code (`code`), and in words (`condition`, `show`, `show_expected`)."""

    source: Source
    expected: Any
    loc: SourceLoc | None = None
    other: Source | None = None          # ALIAS: the source that must be the same object
    extra: tuple = field(default=())     # TENSOR: (type, shape, dtype); VALUE: (data,)
    origin_note: str = "the call's arguments"   # what a guard without a line is about

    kind = ""

    # ------------------------------------------------------------ checking
    def holds(self, value: Any, env: Any = None) -> bool:
        """The slow check of one value (the generated code does the same, faster)."""
        try:
            return self._holds(value, env)
        except Exception:
            return False

    def _holds(self, v: Any, env: Any) -> bool:
        raise NotImplementedError

    def code(self, var: str, index: int, const: Callable[[Any], str], other_var: str | None = None) -> list[str]:
        """Statements that `return index` when the guard fails."""
        raise NotImplementedError

    # ------------------------------------------------------------ words
    def describe(self) -> str:
        """`global SCALE == 2.0`, `arg x is Tensor float32(2, 4)`, ..."""
        return self.condition(self.source.describe())

    def condition(self, what: str) -> str:
        return f"{what} ({self.kind})"

    def show(self, value: Any) -> str:
        """A value as this guard's failure message shows it (the old one is `show_expected`)."""
        return "<missing>" if value is MISSING else self._show(value)

    def _show(self, value: Any) -> str:
        return _short(value)

    def show_expected(self) -> str:
        return _short_obj(self.expected)

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


class TensorGuard(Guard):
    """A tensor argument: its class, and its array's shape and dtype (`extra`)."""

    kind = TENSOR

    def _holds(self, v, env):
        cls, shape, dtype = self.extra
        return (type(v) is cls or (cls is Tensor and type(v) is PendingTensor)) and type(v._data) is ARRAY_TYPE \
            and v._data.shape == shape and v._data.dtype == dtype

    def code(self, var, index, const, other_var=None):
        cls, shape, dtype = self.extra
        fail = f"return {index}"
        # a deferred eager result (msx.eager.lazy) is a Tensor too: reading `_data` runs it
        pending = f" and type({var}) is not {const(PendingTensor)}" if cls is Tensor else ""
        return [f"if type({var}) is not {const(cls)}{pending}: {fail}", f"d = {var}._data",
                f"if type(d) is not {const(ARRAY_TYPE)} or d.shape != {shape!r} or d.dtype != {const(dtype)}: {fail}"]

    def condition(self, what):
        cls, shape, dtype = self.extra
        return f"{what} is a {cls.__name__} {np.dtype(dtype).name}{tuple(shape)}"

    def _show(self, value):
        data = getattr(value, "_data", None)
        if data is None:
            return type(value).__name__
        if isinstance(data, jax.core.Tracer):
            return f"{type(value).__name__} (abstract, under a jax transform)"
        return f"{type(value).__name__} {np.dtype(data.dtype).name}{tuple(data.shape)}"

    def show_expected(self):
        cls, shape, dtype = self.extra
        return f"{cls.__name__} {np.dtype(dtype).name}{tuple(shape)}"


class IdGuard(Guard):
    """The very object seen at capture (a function, module, class, Cell, Parameter)."""

    kind = ID

    def _holds(self, v, env):
        return v is self.expected

    def code(self, var, index, const, other_var=None):
        return [f"if {var} is not {const(self.expected)}: return {index}"]

    def condition(self, what):
        return f"{what} is {_short_obj(self.expected)}"

    def _show(self, value):
        return _short_obj(value)


class EqualsGuard(Guard):
    """A Python scalar: the same type and value (and sign of a zero, and NaN-ness)."""

    kind = EQUALS

    def _holds(self, v, env):
        return same_value(v, self.expected)

    def code(self, var, index, const, other_var=None):
        e, fail = self.expected, f"return {index}"
        if type(e) is float and math.isnan(e):
            return [f"if type({var}) is not float or {var} == {var}: {fail}"]
        if type(e) in (bool, type(None)):
            return [f"if {var} is not {e!r}: {fail}"]
        if type(e) is float and e == 0.0:  # the sign of a zero changes results (x / s)
            return [f"if type({var}) is not float or {var} != 0.0 or {const(math.copysign)}(1.0, {var}) != "
                    f"{math.copysign(1.0, e)!r}: {fail}"]
        return [f"if type({var}) is not {const(type(e))} or {var} != {const(e)}: {fail}"]

    def condition(self, what):
        return f"{what} == {_short(self.expected)}"

    def show_expected(self):
        return _short(self.expected)


class ValueGuard(Guard):
    """A Tensor read as a constant: the same object holding the same array (`extra[0]`)."""

    kind = VALUE

    def _holds(self, v, env):
        return v is self.expected and v._data is self.extra[0]

    def code(self, var, index, const, other_var=None):
        return [f"if {var} is not {const(self.expected)} or {var}._data is not {const(self.extra[0])}: "
                f"return {index}"]

    def condition(self, what):
        return f"{what} is the Tensor seen at capture, with the same data"

    def _show(self, value):
        return "the same Tensor with new data (written in place)" if value is self.expected else _short_obj(value)

    def show_expected(self):
        return "the Tensor seen at capture"


class ContentsGuard(Guard):
    """A container's shallow contents (`expected` is a `Snapshot`)."""

    kind = CONTENTS

    def _holds(self, v, env):
        return self.expected.matches(v)

    def code(self, var, index, const, other_var=None):
        return [f"if not {const(self.expected.matches)}({var}): return {index}"]

    def condition(self, what):
        return f"{what} holds the same {self.expected!r} as at capture"

    def _show(self, value):
        return self.expected.difference(value)

    def show_expected(self):
        return repr(self.expected)


class TypeGuard(Guard):
    """Only the exact type matters."""

    kind = TYPE

    def _holds(self, v, env):
        return type(v) is self.expected

    def code(self, var, index, const, other_var=None):
        return [f"if type({var}) is not {const(self.expected)}: return {index}"]

    def condition(self, what):
        return f"{what} is a {self.expected.__name__}"

    def _show(self, value):
        return type(value).__name__

    def show_expected(self):
        return self.expected.__name__


class LenGuard(Guard):
    """A list or tuple: its type and length (`expected` is (type, length))."""

    kind = LEN

    def _holds(self, v, env):
        return type(v) is self.expected[0] and len(v) == self.expected[1]

    def code(self, var, index, const, other_var=None):
        e = self.expected
        return [f"if type({var}) is not {const(e[0])} or len({var}) != {e[1]}: return {index}"]

    def describe(self):
        if isinstance(self.source, EnvArgs):
            return f"{self.expected[1]} positional argument(s)"
        return super().describe()

    def condition(self, what):
        return f"len({what}) == {self.expected[1]} ({self.expected[0].__name__})"

    def _show(self, value):
        return f"len {len(value)}" if hasattr(value, "__len__") else type(value).__name__

    def show_expected(self):
        return f"len {self.expected[1]}"


class KeysGuard(Guard):
    """A dict: its type and keys in order (`expected` is (type, keys))."""

    kind = KEYS

    def _holds(self, v, env):
        return type(v) is self.expected[0] and tuple(v) == self.expected[1]

    def code(self, var, index, const, other_var=None):
        e = self.expected
        return [f"if type({var}) is not {const(e[0])} or tuple({var}) != {const(e[1])}: return {index}"]

    def describe(self):
        if isinstance(self.source, EnvKwargs):
            keys = self.expected[1]
            return f"keyword arguments {list(keys)}" if keys else "no keyword arguments"
        return super().describe()

    def condition(self, what):
        return f"{what} has keys {list(self.expected[1])}"

    def _show(self, value):
        return f"keys {list(value)}" if isinstance(value, dict) else type(value).__name__

    def show_expected(self):
        return f"keys {list(self.expected[1])}"


class ArrayGuard(Guard):
    """A numpy array: equal to the one seen at capture (shape, dtype and every element)."""

    kind = ARRAY

    def _holds(self, v, env):
        e = self.expected
        return (type(v) is np.ndarray and v.shape == e.shape and v.dtype == e.dtype
                and bool(np.array_equal(v, e, equal_nan=True)))

    def code(self, var, index, const, other_var=None):
        e = self.expected
        return [f"if type({var}) is not {const(np.ndarray)} or {var}.shape != {e.shape!r} or {var}.dtype != "
                f"{const(e.dtype)} or not {const(np.array_equal)}({var}, {const(e)}, equal_nan=True): "
                f"return {index}"]

    def condition(self, what):
        e = self.expected
        return f"{what} equals the numpy array {np.dtype(e.dtype).name}{e.shape} seen at capture"

    def show_expected(self):
        return _short(self.expected)


class AliasGuard(Guard):
    """Two sources are the same object (`other`)."""

    kind = ALIAS

    def _holds(self, v, env):
        return v is self.other.fetch(env)

    def code(self, var, index, const, other_var=None):
        return [f"if {var} is not {other_var}: return {index}"]

    def condition(self, what):
        return f"{what} is the same object as {self.other.describe()}"

    def _show(self, value):
        return _short_obj(value)

    def show_expected(self):
        return f"the same object as {self.other.describe()}"


class DistinctGuard(Guard):
    """Two sources are NOT the same object (`other`): two graph inputs that were two Tensors at capture. A graph
    that reads them as two inputs would miss a write through one showing in the other (`h = x` when a loop
    before the graph break ran no iteration)."""

    kind = DISTINCT

    def _holds(self, v, env):
        return v is not self.other.fetch(env)

    def code(self, var, index, const, other_var=None):
        return [f"if {var} is {other_var}: return {index}"]

    def condition(self, what):
        return f"{what} is not the same object as {self.other.describe()}"

    def _show(self, value):
        return _short_obj(value)

    def show_expected(self):
        return f"another object than {self.other.describe()}"


class IterLeftGuard(Guard):
    """An iterator carried across a graph break has exactly `expected` elements left."""

    kind = ITER_LEFT

    def _holds(self, v, env):
        return type(v) is ListIterator and len(v.items) - v.index == self.expected

    def code(self, var, index, const, other_var=None):
        return [f"if type({var}) is not {const(ListIterator)} or len({var}.items) - {var}.index != "
                f"{self.expected}: return {index}"]

    def condition(self, what):
        return f"{what} has {self.expected} element(s) left"

    def _show(self, value):
        return f"{len(value.items) - value.index} left" if isinstance(value, ListIterator) else _short_obj(value)

    def show_expected(self):
        return f"{self.expected} left"


class IterAtLeastGuard(IterLeftGuard):
    """An iterator carried across a graph break has at least `expected` elements left."""

    kind = ITER_ATLEAST

    def _holds(self, v, env):
        return type(v) is ListIterator and len(v.items) - v.index >= self.expected

    def code(self, var, index, const, other_var=None):
        return [f"if type({var}) is not {const(ListIterator)} or len({var}.items) - {var}.index < "
                f"{self.expected}: return {index}"]

    def condition(self, what):
        return f"{what} has at least {self.expected} element(s) left"

    def show_expected(self):
        return f"at least {self.expected} left"


GUARD_KINDS: dict[str, type[Guard]] = {cls.kind: cls for cls in (
    TensorGuard, IdGuard, EqualsGuard, ValueGuard, ContentsGuard, TypeGuard, LenGuard, KeysGuard, ArrayGuard,
    AliasGuard, DistinctGuard, IterLeftGuard, IterAtLeastGuard)}


def make_guard(kind: str, source: Source, expected: Any = None, loc: SourceLoc | None = None,
               other: Source | None = None, extra: tuple = (), origin_note: str = "the call's arguments") -> Guard:
    """The guard of `kind` (one of the kind names above) on `source`."""
    return GUARD_KINDS[kind](source, expected, loc, other, extra, origin_note)


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
