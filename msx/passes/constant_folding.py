"""Constant folding as one rule of the rewrite engine: a pure primitive whose operands are all constants
becomes constants.

Results larger than `FOLD_LIMIT` elements stay computed (a big constant costs
more to embed than to compute), and values a graph returns are never folded,
so outputs keep their Tensor type and control-flow branches their dtypes.
"""
from __future__ import annotations

import math

import jax
import numpy as np

from ..ir.graph import Const, Graph, Node
from ..ops.primitive import get_primitive
from .base import Pass
from .cse import is_pure_primitive
from .rules import Match, Pat, Rule, RuleSet, rewrite

FOLD_LIMIT = 4096


def _as_const(result) -> Const | None:
    """A Const that behaves like `result` downstream: weakly typed scalars stay Python scalars."""
    if getattr(result, "weak_type", False):
        return Const(result.item()) if result.ndim == 0 else None
    return Const(np.asarray(result))


def fold(node: Node) -> list[Const] | None:
    prim = get_primitive(node.op)
    with jax.ensure_compile_time_eval():
        out = prim.impl(*[x.value for x in node.inputs], **node.op_attrs)
    outs = list(out) if prim.multiple_results else [out]
    consts = [_as_const(o) for o in outs]
    return None if any(c is None for c in consts) else consts


def _foldable(node: Node) -> bool:
    for x in node.inputs:
        if type(x) is not Const:
            return False
    return is_pure_primitive(node) and sum(math.prod(v.abstract.shape) for v in node.outputs) <= FOLD_LIMIT


def _fold(m: Match) -> list[Const] | None:
    return None if m.leaves_graph(m.root) else fold(m.root)


RULES = RuleSet([Rule(Pat.op(None, where=_foldable, prefix=True, single=False), _fold, "constant fold")])


class ConstantFolding(Pass):
    name = "constant_fold"

    def run(self, graph: Graph) -> Graph:
        return rewrite(graph, RULES, allow_consts=True)
