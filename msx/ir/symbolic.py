"""Symbolic dimensions in the IR: `Dim("b")`, `Dim("2*b")` — plain data, converted to jax's symbolic shapes.

An `Abstract`'s shape holds ints and `Dim`s. A `Dim` is only its expression
text (jax's own syntax: `b`, `2*b`, `floordiv(b, 2)`), so graphs with symbolic
dims still print, compare and serialize without jax objects inside. Shape
rules run on them through `jax.export.symbolic_shape`: every primitive's rule
is its jax implementation, so a rule jax can decide symbolically works
unchanged, and one it cannot decide raises `SymbolicShapeError` naming the op
and the dims.

All msx symbols live in one jax `SymbolicScope` (jax only combines dims of
one scope); symbols are assumed >= 1. Declared constraints (`msx.Symbol`'s
min, max, divisor) are checked on every call's concrete shapes, not used to
decide shape rules.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable

import numpy as np
import jax

from ..errors import OpError

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_EXPR = re.compile(r"^[A-Za-z0-9_ +\-*(),]+$")


class SymbolicShapeError(OpError):
    """A shape rule cannot be decided for symbolic dims (e.g. is `b == 32`?)."""


@dataclass(frozen=True)
class Dim:
    """A symbolic dimension: its expression over symbol names, in jax's syntax."""

    expr: str

    def __str__(self) -> str:
        return self.expr

    def __repr__(self) -> str:
        return f"Dim({self.expr!r})"


def is_symbolic(shape: Iterable) -> bool:
    return any(isinstance(d, Dim) for d in shape)


def plain_dim(d: Any) -> int | Dim:
    """An int, or a `Dim` for a jax symbolic dim expression."""
    if isinstance(d, (int, np.integer)):
        return int(d)
    if isinstance(d, Dim):
        return d
    return Dim(str(d))


def plain_shape(shape: Iterable) -> tuple:
    return tuple(plain_dim(d) for d in shape)


_SCOPE = None


def _scope():
    global _SCOPE
    if _SCOPE is None:
        _SCOPE = jax.export.SymbolicScope()
    return _SCOPE


def check_expr(text: str) -> str:
    """Validate dim-expression text (from an untrusted file): only names, numbers and jax's operators."""
    if not isinstance(text, str) or not text or not _EXPR.match(text):
        raise ValueError(f"{text!r} is not a symbolic dimension expression")
    jax_shape((Dim(text),))
    return text


def jax_shape(shape: Iterable) -> tuple:
    """The shape with each `Dim` as a jax symbolic dim (one scope for all msx symbols)."""
    shape = tuple(shape)
    if not is_symbolic(shape):
        return shape

    spec = ", ".join(str(d) for d in shape)
    try:
        return tuple(jax.export.symbolic_shape(spec, scope=_scope()))
    except Exception as exc:
        raise ValueError(f"cannot read symbolic shape ({spec}): {exc}") from None


def fits(shape: Iterable, concrete: Iterable, values: dict[str, int] | None = None) -> bool:
    """Does a concrete shape fit a (possibly symbolic) one? Dims that are one symbol must agree across calls
    sharing `values` (symbol -> size, filled in as they are met)."""
    shape, concrete = tuple(shape), tuple(concrete)
    if len(shape) != len(concrete):
        return False
    values = {} if values is None else values
    for d, c in zip(shape, concrete):
        if isinstance(d, Dim):
            if _NAME.match(d.expr) and values.setdefault(d.expr, int(c)) != int(c):
                return False
        elif d != c:
            return False
    return True


def shape_to_data(shape: Iterable) -> list:
    """JSON form of a shape: ints, and expression strings for symbolic dims."""
    return [str(d) if isinstance(d, Dim) else d for d in shape]
