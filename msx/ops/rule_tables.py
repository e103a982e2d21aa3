"""A consumer's rule table: what each op means to one concern, keyed by the primitive (jax's
`mlir.register_lowering` / `ad.primitive_jvps` shape).

Every op is one `Primitive` in one registry; what an op over subgraphs means to
a concern (its lowering, its structural types, its cost, its MindIR form) is
a rule in that concern's table, owned by the consumer that reads it and filled
beside the op's declaration (`msx/ir/control.py`) or by the consumer itself::

    LOWERINGS = RuleTable("lower", "msx/ir/interpret.py", derived=...)   # the consumer's table

    @LOWERINGS.register(CASE)                                           # beside the declaration
    def _lower_case(node, args, sub): ...

A table may derive a rule from the declaration itself (`derived(prim)`): the
interpreter lowers any op that has a jax `impl` by running it, so its table
holds rules only for the ops that have none. A concern with no rule for an op
is a `MissingRuleError` naming both, never a silent default.
"""
from __future__ import annotations

from typing import Callable

from .primitive import REGISTRY, MissingRuleError, Primitive

__all__ = ["MissingRuleError", "RuleTable", "by_impl"]


def by_impl(rule: Callable) -> Callable[[Primitive], Callable | None]:
    """A table's `derived`: `rule` for every op whose meaning is a jax `impl`, none for an op over subgraphs
    (whose row the table must hold, or asking for it is a `MissingRuleError`)."""
    return lambda prim: rule if prim.impl is not None else None


class RuleTable:
    """One consumer's rules, keyed by the primitive and owned by the consumer (`home`: the module that holds and
    reads it), so a backend's concern never sits on the op kind or in `msx/ir`."""

    def __init__(self, concern: str, home: str,
                 derived: Callable[[Primitive], Callable | None] | None = None) -> None:
        self.concern, self.home, self.derived = concern, home, derived
        self.rules: dict[Primitive, Callable] = {}

    def register(self, *prims: Primitive) -> Callable[[Callable], Callable]:
        """Decorator: `fn` is the rule of each of `prims`."""
        def put(fn: Callable) -> Callable:
            for prim in prims:
                self.rules[prim] = fn
            return fn

        return put

    def get(self, op: str) -> Callable | None:
        """The rule of op `op`, or None when it is not a declared op or this table has no rule for it (a consumer
        that holds only some ops, as a MindIR file holds four higher-order ones, asks this)."""
        prim = REGISTRY.get(op)
        if prim is None:
            return None
        rule = self.rules.get(prim)
        if rule is None and self.derived is not None:
            rule = self.derived(prim)
        return rule

    def rule_for(self, op: str) -> Callable:
        """The rule of op `op`; `MissingRuleError` when it is not a declared op or this table lacks its rule."""
        if op not in REGISTRY:
            raise MissingRuleError(f"{op!r} is not a declared op, so it has no {self.concern!r} rule "
                                   f"(ops over subgraphs: {sorted(n for n, p in REGISTRY.items() if p.subgraphs)})")
        rule = self.get(op)
        if rule is None:
            raise MissingRuleError(f"op {op!r} has no {self.concern!r} rule; add one to the table in {self.home}")
        return rule
