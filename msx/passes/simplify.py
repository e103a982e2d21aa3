"""Algebraic simplification: identities that are exact in floating point, as rules of the rewrite engine.

`x + 0`, `0 + x`, `x - 0`, `x * 1`, `1 * x`, `x / 1`, `x ** 1`, `-(-x)`,
`Identity(x)`, and reshapes, casts, broadcasts, tiles, squeezes and flattens
that change nothing, and transposes by the identity permutation. A rule fires
only when the replacement has exactly the node's shape and dtype, so dtype
promotion and broadcasting are never lost (`int_x * 1.0` stays).
`x * 0` is not simplified: it is NaN for NaN or infinite x.
"""
from __future__ import annotations

from ..ir.graph import Graph, Operand, Var
from .base import Pass
from .rewrite import all_equal_to
from .rules import Match, Pat, Rule, RuleSet, rewrite

_NO_OP_IF_SAME_TYPE = ("Identity", "Reshape", "Cast", "BroadcastTo", "Tile", "Squeeze", "Flatten")


def _zero(x: Operand) -> bool:
    return all_equal_to(x, 0)


def _one(x: Operand) -> bool:
    return all_equal_to(x, 1)


def _keep_x(m: Match) -> Operand | None:
    """`x` itself, where it has exactly the root's type."""
    x = m["x"]
    return x if isinstance(x, Var) and x.abstract == m.root.outputs[0].abstract else None


def _identity_perm(m: Match) -> Operand | None:
    perm, rank = m.root.attrs.get("perm"), len(m["x"].abstract.shape)
    identity = (perm is None and rank <= 1) or (perm is not None and tuple(perm) == tuple(range(rank)))
    return _keep_x(m) if identity else None


x = Pat.var("x")
RULES = RuleSet([
    Rule(Pat.op("Add", x, Pat.var(where=_zero), commutative=True), _keep_x, "x + 0"),
    Rule(Pat.op("Sub", x, Pat.var(where=_zero)), _keep_x, "x - 0"),
    Rule(Pat.op("Mul", x, Pat.var(where=_one), commutative=True), _keep_x, "x * 1"),
    Rule(Pat.op(("RealDiv", "Pow"), x, Pat.var(where=_one)), _keep_x, "x / 1, x ** 1"),
    Rule(Pat.op(_NO_OP_IF_SAME_TYPE, x, prefix=True), _keep_x, "no-op reshape/cast"),
    Rule(Pat.op("Transpose", Pat.var("x", where=lambda v: isinstance(v, Var)), prefix=True), _identity_perm,
         "identity transpose"),
    Rule(Pat.op("Neg", Pat.op("Neg", x)), _keep_x, "-(-x)"),
])


class AlgebraicSimplification(Pass):
    name = "simplify"

    def run(self, graph: Graph) -> Graph:
        return rewrite(graph, RULES)
