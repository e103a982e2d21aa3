"""The precision rules of the simulated Ascend, as rules of the one rewrite engine (`msx.passes.rules`).

The Cube unit multiplies float16 (or bfloat16) operands and accumulates in
float32. The rewrite makes that visible and exact on XLA CPU: each float32
operand of a Cube op goes through `Cast(float16)` then `Cast(float32)`, so the
op sees float16-rounded values in a float32 container and XLA accumulates in
float32 — products of float16 values are exact in float32, so this is the
Cube's arithmetic up to summation order. Under "allow_mix_precision" the
float32 results of Cube ops and of elementwise Vector ops are also stored in
float16, except precision-sensitive ops (`traits.KEEP_FP32`, listed by `keep_fp32_ops()`).

Besides the rewritten graph, the rewrite says how the device would store
values (`storage`: value id -> dtype, where it differs from the graph's) and
which of the inserted nodes cost nothing on the device (`free`: the cast back
to the float32 container, and both casts that round a result the op would
have written in float16 directly). The cost and memory models read both.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import jax.numpy as jnp
import numpy as np

from ... import context
from ... import dtype as mstype
from ...errors import ContextError
from ...ir.graph import Abstract, Const, Graph, Node, Operand, Var
from ...ops.primitive import REGISTRY
from ...passes.rules import Match, Pat, Rule, RuleSet, rewrite
from .support import CUBE, runs_as_kernel, unit_of
from .traits import KEEP_FP32


@dataclass(frozen=True)
class PrecisionRule:
    """`cube`: the dtype the Cube reads float32 operands in (None: as they are); `vector`: the dtype float32
    elementwise results are stored in (None: float32)."""

    cube: str | None
    vector: str | None


PRECISION_MODES: dict[str, PrecisionRule] = {
    "force_fp16": PrecisionRule("float16", None),
    "force_bf16": PrecisionRule("bfloat16", None),
    "allow_mix_precision": PrecisionRule("float16", "float16"),
    "allow_mix_precision_bf16": PrecisionRule("bfloat16", "bfloat16"),
    "must_keep_origin_dtype": PrecisionRule(None, None),
}


def keep_fp32_ops() -> list[str]:
    """The registered primitives mixed precision leaves in float32 (`traits.KEEP_FP32`)."""
    return sorted(prim.name for prim in KEEP_FP32 if REGISTRY.get(prim.name) is prim)


def check_ascend_config(value) -> None:
    """`set_context(ascend_config=...)`: a dict with at most the key 'precision_mode', one of PRECISION_MODES."""
    if not isinstance(value, dict) or set(value) - {"precision_mode"}:
        raise ContextError(f"set_context: ascend_config must be a dict with the key 'precision_mode', got {value!r}")
    if "precision_mode" in value and value["precision_mode"] not in PRECISION_MODES:
        raise ContextError(f"set_context: ascend_config precision_mode={value['precision_mode']!r} is not valid; "
                           f"choose one of {list(PRECISION_MODES)}")


context.register_key_check("ascend_config", check_ascend_config)


def check_precision_mode(mode) -> str:
    if mode not in PRECISION_MODES:
        raise ValueError(f"precision_mode={mode!r} is not valid; choose one of {list(PRECISION_MODES)}")
    return mode


@dataclass
class Rewritten:
    graph: Graph
    storage: dict[int, str] = field(default_factory=dict)
    free: set[int] = field(default_factory=set)  # id(node) of inserted nodes that are no kernel on the device
    origin: dict[int, int] = field(default_factory=dict)  # id of an inserted value -> id of the value it rounds


def apply_precision(graph: Graph, rule: PrecisionRule) -> Rewritten:
    """`graph` with the rule's roundings made explicit (subgraphs included); the graph itself is not changed."""
    out = Rewritten(graph)
    if rule.cube is not None or rule.vector is not None:
        out.graph = _Roundings(rule, out).run(graph)
    return out


def _is_f32(x: Operand) -> bool:
    return not isinstance(x, Const) and x.abstract.dtype == "float32"


def _stores_low(node: Node) -> bool:
    prim = REGISTRY.get(node.op)
    return prim is not None and prim not in KEEP_FP32 and prim.category in ("elementwise", "matmul", "conv")


class _Roundings:
    """The precision rules as three rules of the one rewrite engine (`msx.passes.rules`), run over every graph
    innermost first: Cube operands read in the Cube's dtype, Vector results stored low, and a loop's results
    stored as its body's. Each rule notes in `out` how the device stores what it inserts."""

    def __init__(self, rule: PrecisionRule, out: Rewritten) -> None:
        self.rule, self.out = rule, out
        self.rounded: dict[int, Var] = {}   # value id -> its round trip, per graph
        self.made: dict[int, Const] = {}    # the rounded constants (kept, so their ids stay theirs)
        any_node = dict(prefix=True, single=False)
        rules = []
        if rule.cube is not None:
            rules.append(Rule(Pat.op(None, where=self._on_cube, **any_node), self._cube_operands, "cube operands"))
        if rule.vector is not None:
            rules.append(Rule(Pat.op(None, where=self._stores_low, **any_node), self._store_low, "low storage"))
        rules.append(Rule(Pat.op(None, where=_loop_like, **any_node), self._body_storage, "loop storage"))
        self.rules = RuleSet(rules)

    def run(self, graph: Graph) -> Graph:
        nodes = [replace(n, subgraphs={k: self.run(g) for k, g in n.subgraphs.items()}) if n.subgraphs else n
                 for n in graph.nodes]
        self.rounded = {}
        return rewrite(replace(graph, nodes=nodes), self.rules)

    def _round_trip(self, m: Match, x: Var, low: str, kernel: bool) -> Var:
        """`x` rounded to `low` and back in float32 (memoised per value), placed before the match's root."""
        if x.id not in self.rounded:
            narrow, back = Var(Abstract(x.abstract.shape, low)), Var(x.abstract)
            down = Node("Cast", [x], [narrow], {"dtype": mstype.to_msx(low)}, m.root.loc)
            up = Node("Cast", [narrow], [back], {"dtype": mstype.float32}, m.root.loc)
            m.add(down)
            m.add(up)
            self.out.free.add(id(up))
            if not kernel:
                self.out.free.add(id(down))
            self.out.storage[back.id] = self.out.storage[narrow.id] = low
            self.out.origin[narrow.id] = self.out.origin[back.id] = x.id
            self.rounded[x.id] = back
        return self.rounded[x.id]

    # ------------------------------------------------------------ the rules
    def _on_cube(self, node: Node) -> bool:
        return runs_as_kernel(node.op) and unit_of(node) == CUBE and any(
            self._storage_of(x) == "float32" and id(x) not in self.made for x in node.inputs[:2])

    def _cube_operands(self, m: Match) -> list[Operand]:
        node = m.root
        inputs = list(node.inputs)
        for i in (0, 1):
            if i < len(inputs) and self._storage_of(inputs[i]) == "float32" and id(inputs[i]) not in self.made:
                inputs[i] = self._round_const(inputs[i]) if isinstance(inputs[i], Const) else \
                    self._round_trip(m, inputs[i], self.rule.cube, kernel=True)
        m.add(replace(node, inputs=inputs))   # the same outputs, read from rounded operands
        return node.outputs

    def _stores_low(self, node: Node) -> bool:
        return _stores_low(node) and any(_is_f32(v) and v.id not in self.out.storage for v in node.outputs)

    def _store_low(self, m: Match) -> list[Operand]:
        node = m.root
        m.add(node)   # kept as it is; its float32 results are read through their rounding
        news: list[Operand] = []
        for v in node.outputs:
            if _is_f32(v):
                news.append(self._round_trip(m, v, self.rule.vector, kernel=False))
                self.out.storage[v.id] = self.rule.vector
            else:
                news.append(v)
        return news

    def _body_storage(self, m: Match) -> None:
        """A loop's results are stored as its body's results are (an analysis: the node is not changed)."""
        for v, inner in zip(m.root.outputs, m.root.subgraphs["body"].outputs):
            if isinstance(inner, Var) and inner.id in self.out.storage:
                self.out.storage[v.id] = self.out.storage[inner.id]
        return None

    def _storage_of(self, x: Operand) -> str | None:
        if isinstance(x, Const):
            value = x.value
            return "float32" if isinstance(value, np.ndarray) and value.dtype == np.float32 else None
        return self.out.storage.get(x.id, x.abstract.dtype)

    def _round_const(self, x: Const) -> Const:
        low = jnp.dtype(self.rule.cube)
        rounded = Const(np.asarray(x.value).astype(low).astype(np.float32))
        self.made[id(rounded)] = rounded   # already in the Cube's dtype: not rounded again
        return rounded


def _loop_like(node: Node) -> bool:
    return not runs_as_kernel(node.op) and list(node.subgraphs) == ["body"] and \
        len(node.subgraphs["body"].outputs) == len(node.outputs)
