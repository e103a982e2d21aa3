"""`PatternToPatternPass`: MindSpore's pattern rewrite, on msx's IR.

    class AddNegFusion(PatternToPatternPass):
        def define_src_pattern(self, src):
            src.add_var("x").add_var("y")
            src.add_cnode("neg", "Neg", ["y"])
            src.add_cnode("add", "Add", ["x", "neg"])       # the last cnode is the root

        def define_dst_pattern(self, dst):
            dst.add_cnode("sub", "Sub", ["x", "y"])

The source pattern is a DAG: a name used twice must match one value (`Mul(x, x)`,
or a sub-pattern shared by two cnodes). Cnodes match single-output nodes by
primitive name (or a tuple of names), with optional attribute constraints (a
value, or a predicate on the value). Matching is non-overlapping (a node takes
part in at most one match per run) and safe: the root's value is replaced, and
a matched intermediate node is deleted only when nothing outside the match
still reads it. `commutative=True` on a cnode also matches its two operands
swapped; `src.set_outputs(*names)` and `dst.set_output(*names)` make a
multi-output pattern (several roots sharing variables, replaced together).
The pass compiles both patterns into one rule of the rewrite engine
(`msx.passes.rules`) and runs it with the engine's non-overlapping driver.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from ..errors import PassError
from ..ir.graph import Const, Graph, Node, Operand, Var
from ..ir.interpret import infer_node
from ..ops.primitive import REGISTRY
from .base import Pass
from .rules import ANY as _ANY, Match, Pat, Rule, RuleSet, rewrite


@dataclass
class _PNode:
    name: str
    ops: tuple[str, ...]
    inputs: list[str]
    attrs: dict
    build: Callable | None = None
    commutative: bool = False


@dataclass
class _PConst:
    name: str
    value: Any = _ANY


def _check_op(where: str, op) -> tuple[str, ...]:
    ops = (op,) if isinstance(op, str) else tuple(op)
    for name in ops:
        if not isinstance(name, str) or name not in REGISTRY:
            raise PassError(f"{where}: unknown primitive {name!r} (see msx.ops.REGISTRY)")
    return ops


class _Pattern:
    kind = "pattern"

    def __init__(self) -> None:
        self.vars: dict[str, object] = {}   # name -> None (any value) or _PConst
        self.cnodes: dict[str, _PNode] = {}
        self._anon = 0

    def _new_name(self, name: str) -> None:
        if not isinstance(name, str) or not name:
            raise PassError(f"{self.kind} pattern: names must be non-empty strings, got {name!r}")
        if name in self.vars or name in self.cnodes:
            raise PassError(f"{self.kind} pattern: the name {name!r} is defined twice")

    def _literal(self, value) -> str:
        name = f"<const {self._anon}>"
        self._anon += 1
        self.vars[name] = _PConst(name, value)
        return name

    def _inputs(self, name: str, inputs) -> list[str]:
        if isinstance(inputs, str):
            raise PassError(f"{self.kind} pattern: inputs of {name!r} must be a list of names, got the string "
                            f"{inputs!r}")
        names = []
        for x in inputs:
            if not isinstance(x, str):
                names.append(self._literal(x))
            elif x not in self.vars and x not in self.cnodes and not self._known(x):
                raise PassError(f"{self.kind} pattern: {name!r} uses {x!r}, which is not defined before it")
            else:
                names.append(x)
        return names

    def _known(self, name: str) -> bool:
        return False

    @property
    def root(self) -> str:
        if not self.cnodes:
            raise PassError(f"{self.kind} pattern: define at least one cnode (the last one is the root)")
        return list(self.cnodes)[-1]


class SrcPattern(_Pattern):
    """What to look for: variables, constants and cnodes; the last cnode added is the root."""

    kind = "source"

    def add_var(self, name: str) -> "SrcPattern":
        """A variable: matches any value (an input, a node's output or a constant)."""
        self._new_name(name)
        self.vars[name] = None
        return self

    def add_const(self, name: str, value: Any = _ANY) -> "SrcPattern":
        """A constant operand, optionally with exactly this value."""
        self._new_name(name)
        self.vars[name] = _PConst(name, value)
        return self

    def add_cnode(self, name: str, op: str | tuple[str, ...], inputs: list, attrs: dict | None = None,
                  commutative: bool = False) -> "SrcPattern":
        """A node of primitive `op` (a name or a tuple of names) over `inputs` (names; non-str items are
        constants that must match exactly); `attrs` maps attribute names to a value or a predicate;
        `commutative=True` also matches a two-operand node with its operands swapped."""
        self._new_name(name)
        ops = _check_op(f"source pattern: cnode {name!r}", op)
        self.cnodes[name] = _PNode(name, ops, self._inputs(name, inputs), dict(attrs or {}),
                                   commutative=commutative)
        return self

    def set_outputs(self, *names: str) -> "SrcPattern":
        """Several roots (cnodes, in the order the destination's `set_output` gives their replacements)."""
        for name in names:
            if name not in self.cnodes:
                raise PassError(f"source pattern: set_outputs({name!r}): not a cnode")
        if not names or len(set(names)) != len(names):
            raise PassError(f"source pattern: set_outputs needs distinct cnode names, got {list(names)}")
        self.outputs = list(names)
        return self

    @property
    def roots(self) -> list[str]:
        return getattr(self, "outputs", None) or [self.root]

    def validate(self) -> None:
        """Every name must feed a root: a pattern is one connected DAG."""
        reached, todo = set(), list(self.roots)
        while todo:
            name = todo.pop()
            if name not in reached:
                reached.add(name)
                todo += self.cnodes[name].inputs if name in self.cnodes else []
        unused = [n for n in list(self.vars) + list(self.cnodes) if n not in reached]
        if unused:
            raise PassError(f"source pattern: {unused} do not feed the root {self.root!r}")

    def compile(self) -> tuple[Pat, ...]:
        """The engine patterns of the roots (names shared between them bind one value)."""
        made: dict[str, Pat] = {}

        def pat(name: str) -> Pat:
            if name not in made:
                if name in self.cnodes:
                    pn = self.cnodes[name]
                    made[name] = Pat.op(pn.ops, *[pat(x) for x in pn.inputs], name=name, attrs=pn.attrs,
                                        commutative=pn.commutative)
                else:
                    spec = self.vars[name]
                    made[name] = Pat.var(name) if spec is None else Pat.const(name, spec.value)
            return made[name]

        return tuple(pat(r) for r in self.roots)


class DstPattern(_Pattern):
    """What to build: new cnodes over the matched names; the last cnode (or `set_output`) replaces the root."""

    kind = "destination"

    def __init__(self, src: SrcPattern) -> None:
        super().__init__()
        self.src = src
        self.output: str | None = None

    def _known(self, name: str) -> bool:
        return name in self.src.vars or name in self.src.cnodes

    def _new_name(self, name: str) -> None:
        super()._new_name(name)
        if self._known(name):
            raise PassError(f"destination pattern: {name!r} is already a source-pattern name")

    def add_cnode(self, name: str, op: str, inputs: list, build: Callable | None = None,
                  attrs: dict | None = None) -> "DstPattern":
        """A new node of primitive `op` over `inputs` (source or destination names; non-str items are
        constants). `build(match, node)` may set `node.attrs` or `node.outputs` (their abstracts) and may
        return a replacement Node; outputs left unset are inferred from the primitive's rule."""
        self._new_name(name)
        ops = _check_op(f"destination pattern: cnode {name!r}", op)
        if len(ops) != 1:
            raise PassError(f"destination pattern: cnode {name!r} must name one primitive, got {list(ops)}")
        self.cnodes[name] = _PNode(name, ops, self._inputs(name, inputs), dict(attrs or {}), build)
        return self

    def _inputs(self, name: str, inputs) -> list[str]:
        names = super()._inputs(name, inputs)
        for root in self.src.roots:
            if root in names:
                raise PassError(f"destination pattern: {name!r} uses the source root {root!r}, which the "
                                f"rewrite replaces")
        return names

    def validate(self) -> None:
        if not self.cnodes and self.output is None:
            raise PassError("destination pattern: define at least one cnode, or set_output(name)")
        if len(self.results) != len(self.src.roots):
            raise PassError(f"destination pattern: the source has {len(self.src.roots)} roots "
                            f"{self.src.roots}; set_output gives {len(self.results)} values {self.results}")

    def set_output(self, *names: str) -> "DstPattern":
        """Replace the source root(s) with these values (source names or destination cnodes) instead."""
        for name in names:
            if not (self._known(name) or name in self.cnodes):
                raise PassError(f"destination pattern: set_output({name!r}): no such name")
        self.output = names[0] if len(names) == 1 else list(names)
        return self

    @property
    def result(self) -> str:
        return self.results[0]

    @property
    def results(self) -> list[str]:
        if self.output is None:
            return [self.root]
        return [self.output] if isinstance(self.output, str) else list(self.output)


class PatternToPatternPass(Pass):
    """Subclass: `define_src_pattern(src)`, `define_dst_pattern(dst)`, optionally `check_matched(match)`."""

    def __init__(self) -> None:
        super().__init__()
        self.src = SrcPattern()
        self.define_src_pattern(self.src)
        self.src.validate()
        self.dst = DstPattern(self.src)
        self.define_dst_pattern(self.dst)
        self.dst.validate()

    def define_src_pattern(self, src: SrcPattern) -> None:
        raise PassError(f"{type(self).__name__}: define_src_pattern(self, src) is not defined")

    def define_dst_pattern(self, dst: DstPattern) -> None:
        raise PassError(f"{type(self).__name__}: define_dst_pattern(self, dst) is not defined")

    def check_matched(self, match: Match) -> bool:
        """An extra condition on a match (all matches by default)."""
        return True

    # ------------------------------------------------------------ running
    def run(self, graph: Graph) -> Graph:
        if getattr(self, "_rules", None) is None:
            self._rules = RuleSet([Rule(self.src.compile(), self._build, self.name)])
        return rewrite(graph, self._rules, once=True, accept=self.check_matched)

    def _build(self, m: Match) -> list[Operand]:
        made: dict[str, Var] = {}
        root = m.root

        def resolve(name: str) -> Operand:
            if name in made:
                return made[name]
            if name in self.dst.vars:
                return Const(self.dst.vars[name].value)
            return m.value(name)

        for name, pn in self.dst.cnodes.items():
            node = Node(pn.ops[0], [resolve(x) for x in pn.inputs], [], dict(pn.attrs), root.loc, scope=root.scope)
            if pn.build is not None:
                node = pn.build(m, node) or node
                if not isinstance(node, Node):
                    raise PassError(f"pass {self.name!r}: build of destination cnode {name!r} returned "
                                    f"{type(node).__name__}, expected a Node or None", loc=root.loc)
            if not node.outputs:
                try:
                    node.outputs = [Var(a) for a in infer_node(node)]
                except Exception as exc:
                    raise PassError(f"pass {self.name!r}: destination cnode {name!r} ({node.op}) rejects its "
                                    f"inputs: {exc}", loc=root.loc) from None
            if len(node.outputs) != 1:
                raise PassError(f"pass {self.name!r}: destination cnode {name!r} ({node.op}) must have one output, "
                                f"it has {len(node.outputs)}", loc=root.loc)
            made[name] = m.add(node)
        return [resolve(r) for r in self.dst.results]
