"""The higher-order primitive kind: ops whose meaning includes subgraphs (`Grad`, `Cond`, `While`, ...).

jax treats `cond_p` and `scan_p` as ordinary primitives with entries in
per-concern rule tables; msx does the same. A `HigherOrderPrimitive` is plain
data — its name, the names of its subgraphs, its static attributes and its
input/output layout in words — and every concern that must understand it
reads one rule table, filled beside the declaration (`msx/ir/control.py`)
for the concerns of the IR itself::

    CASE = declare_higher_order("Case", subgraphs=("branch*",), layout="index, operands -> branch outputs")

    @CASE.rule("lower")
    def _lower_case(node, args, sub): ...

The concerns (`CONCERNS`), each a table `RULES[concern][name]`:

- `make`: the constructor every producer calls (`COND.make(pred, operands, then, else_)`);
  it returns a `Node` whose layout is right by construction.
- `lower`: `(node, args, sub) -> outputs`, run inside `jax.jit` (emission);
  `sub(key, args) -> (outputs, updates)` evaluates subgraph `key`.
- `abstract_eval`: `(node) -> [Abstract]` from the node's input abstracts and
  subgraphs alone (no jax), raising `ValueError` with a reason when the layout
  is wrong (subgraph arity, mismatched branch types); the verifier runs it.
- `operands`: `(node) -> [(subgraph, the node inputs its inputs take, in order)]`,
  the data flow into the subgraphs, for analyses that follow values inside
  (the capture check for a `while` on a gradient's path).

A consumer above the IR owns its own table, a `RuleTable` keyed by the
primitive, and fills it itself (jax's `mlir.register_lowering`): the
simulated Ascend's `cost` and `memory` rules live in
`msx/backends/ascend_sim/{cost,memory}.py`, not here. A concern with no rule
for an op is an error naming both (`rule`, `RuleTable.rule_for`), never a
silent default. `lookup(name)` is the one question "is this an op?", for
first-order primitives (`primitive.REGISTRY`) and higher-order ones alike.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from ..errors import MsxError

CONCERNS = ("make", "lower", "abstract_eval", "operands")
RULES: dict[str, dict[str, Callable]] = {c: {} for c in CONCERNS}
HIGHER_ORDER: dict[str, "HigherOrderPrimitive"] = {}


class MissingRuleError(MsxError, NotImplementedError):
    """A concern has no rule for a higher-order op (a declaration left one out)."""


@dataclass(frozen=True, eq=False)
class HigherOrderPrimitive:
    """One higher-order op: named subgraphs, static attrs and a documented layout; rules live in `RULES`.

    `subgraphs` names the node's subgraphs in order; a name ending in `*`
    (`"branch*"`) stands for any number >= 1 of them, numbered from 0.
    """

    name: str
    subgraphs: tuple[str, ...]
    attrs: tuple[str, ...] = ()
    layout: str = ""
    doc: str = ""
    multiple_results = True
    differentiable = True

    def rule(self, concern: str) -> Callable[[Callable], Callable]:
        """Decorator: register `fn` as this op's rule for `concern`."""
        if concern not in RULES:
            raise ValueError(f"{self.name}: unknown concern {concern!r}; concerns are {CONCERNS}")

        def put(fn: Callable) -> Callable:
            RULES[concern][self.name] = fn
            return fn

        return put

    def rule_for(self, concern: str) -> Callable:
        try:
            return RULES[concern][self.name]
        except KeyError:
            raise MissingRuleError(f"higher-order op {self.name!r} has no {concern!r} rule; declare one beside "
                                   f"its declaration (msx/ir/control.py)") from None

    def make(self, *args: Any, **kwargs: Any):
        """A new node of this op from its parts (the layout is the constructor's job, not the producer's)."""
        return self.rule_for("make")(*args, **kwargs)

    def subgraph_keys_ok(self, keys) -> str | None:
        """None when `keys` are the declared subgraph names, else the reason."""
        keys = list(keys)
        if len(self.subgraphs) == 1 and self.subgraphs[0].endswith("*"):
            stem = self.subgraphs[0][:-1]
            want = [f"{stem}{i}" for i in range(len(keys))]
            if not keys or keys != want:
                return f"expects subgraphs {stem}0, {stem}1, ... (at least one), got {keys}"
            return None
        if keys != list(self.subgraphs):
            return f"expects subgraphs {list(self.subgraphs)}, got {keys}"
        return None


def declare_higher_order(name: str, *, subgraphs: tuple[str, ...], attrs: tuple[str, ...] = (), layout: str = "",
                         doc: str = "") -> HigherOrderPrimitive:
    """Declare and register a higher-order op; add its rules with `@prim.rule(concern)` beside it."""
    if name in HIGHER_ORDER:
        raise ValueError(f"higher-order op {name!r} is already declared")
    prim = HigherOrderPrimitive(name, tuple(subgraphs), tuple(attrs), layout, doc)
    HIGHER_ORDER[name] = prim
    return prim


def rule_or(op: str, concern: str, first_order: Callable) -> Callable:
    """The rule a consumer runs for op `op`: a higher-order op's declared `concern` rule (`MissingRuleError` when
    the declaration left it out), else the consumer's own rule for first-order primitives, `first_order`.
    Consumers ask this one question for every op, never which kind it is."""
    prim = HIGHER_ORDER.get(op)
    return first_order if prim is None else prim.rule_for(concern)


def subgraph_problem(prim, keys) -> str | None:
    """Why node subgraphs `keys` do not fit `prim` (either kind: a first-order op has none), or None."""
    if not prim.subgraphs:
        return f"{prim.name} is not a higher-order op but has subgraphs {list(keys)}" if keys else None
    return prim.subgraph_keys_ok(keys)


def rule(concern: str, op: str) -> Callable:
    """The `concern` rule of higher-order op `op`; `MissingRuleError` when it is not one or lacks the rule."""
    return _declared(op, concern).rule_for(concern)


def _declared(op: str, concern: str) -> HigherOrderPrimitive:
    prim = HIGHER_ORDER.get(op)
    if prim is None:
        raise MissingRuleError(f"{op!r} is not a higher-order op, so it has no {concern!r} rule "
                               f"(higher-order ops: {sorted(HIGHER_ORDER)})")
    return prim


class RuleTable:
    """One consumer's rules for higher-order ops, keyed by the primitive and owned by the consumer (`home`, the
    module that fills and reads it), so a backend's concern never sits on the op kind or in `msx/ir`."""

    def __init__(self, concern: str, home: str) -> None:
        self.concern, self.home = concern, home
        self.rules: dict[HigherOrderPrimitive, Callable] = {}

    def register(self, *prims: HigherOrderPrimitive) -> Callable[[Callable], Callable]:
        """Decorator: `fn` is the rule of each of `prims`."""
        def put(fn: Callable) -> Callable:
            for prim in prims:
                self.rules[prim] = fn
            return fn

        return put

    def get(self, op: str) -> Callable | None:
        """The rule of op `op`, or None when it is not a higher-order op this table has a rule for (a consumer
        that holds only some of them, as a MindIR file holds four, asks this)."""
        prim = HIGHER_ORDER.get(op)
        return None if prim is None else self.rules.get(prim)

    def rule_for(self, op: str) -> Callable:
        """The rule of higher-order op `op`; `MissingRuleError` when it is not one or this table lacks it."""
        prim = _declared(op, self.concern)
        try:
            return self.rules[prim]
        except KeyError:
            raise MissingRuleError(f"higher-order op {op!r} has no {self.concern!r} rule; add one to the table "
                                   f"in {self.home}") from None
