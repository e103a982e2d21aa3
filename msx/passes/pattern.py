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
still reads it.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable

from ..errors import PassError
from ..ir.graph import Abstract, Const, Graph, Node, Operand, Var
from ..ir.interpret import infer_node
from ..ops.primitive import lookup
from .base import Pass
from .rewrite import Substitution, const_equals, freeze, producers, returned, users

_ANY = object()


@dataclass
class _PNode:
    name: str
    ops: tuple[str, ...]
    inputs: list[str]
    attrs: dict
    build: Callable | None = None


@dataclass
class _PConst:
    name: str
    value: Any = _ANY


def _check_op(where: str, op) -> tuple[str, ...]:
    ops = (op,) if isinstance(op, str) else tuple(op)
    for name in ops:
        if not isinstance(name, str) or lookup(name) is None:
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

    def add_cnode(self, name: str, op: str | tuple[str, ...], inputs: list, attrs: dict | None = None) -> "SrcPattern":
        """A node of primitive `op` (a name or a tuple of names) over `inputs` (names; non-str items are
        constants that must match exactly); `attrs` maps attribute names to a value or a predicate."""
        self._new_name(name)
        ops = _check_op(f"source pattern: cnode {name!r}", op)
        self.cnodes[name] = _PNode(name, ops, self._inputs(name, inputs), dict(attrs or {}))
        return self

    def validate(self) -> None:
        """Every name must feed the root: a pattern is one connected DAG."""
        reached, todo = set(), [self.root]
        while todo:
            name = todo.pop()
            if name not in reached:
                reached.add(name)
                todo += self.cnodes[name].inputs if name in self.cnodes else []
        unused = [n for n in list(self.vars) + list(self.cnodes) if n not in reached]
        if unused:
            raise PassError(f"source pattern: {unused} do not feed the root {self.root!r}")


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
        if self.src.root in names:
            raise PassError(f"destination pattern: {name!r} uses the source root {self.src.root!r}, which the "
                            f"rewrite replaces")
        return names

    def validate(self) -> None:
        if not self.cnodes and self.output is None:
            raise PassError("destination pattern: define at least one cnode, or set_output(name)")

    def set_output(self, name: str) -> "DstPattern":
        """Replace the source root with this value (a source name or a destination cnode) instead."""
        if not (self._known(name) or name in self.cnodes):
            raise PassError(f"destination pattern: set_output({name!r}): no such name")
        self.output = name
        return self

    @property
    def result(self) -> str:
        return self.output if self.output is not None else self.root


class Match:
    """One match: `match["x"]` is the value bound to a variable, or the Node bound to a cnode."""

    def __init__(self, graph: Graph, read_by: dict[int, list[Node]], leaving: set[int]) -> None:
        self.graph = graph
        self.values: dict[str, Operand] = {}
        self.nodes: dict[str, Node] = {}
        self._read_by, self._leaving = read_by, leaving

    def __getitem__(self, name: str) -> Operand | Node:
        if name in self.nodes:
            return self.nodes[name]
        if name in self.values:
            return self.values[name]
        raise KeyError(f"the match has no name {name!r}; names: {sorted(self.values) + sorted(self.nodes)}")

    def __contains__(self, name: str) -> bool:
        return name in self.values or name in self.nodes

    def value(self, name: str) -> Operand:
        """The value bound to a name (a cnode's output for cnodes)."""
        return self.nodes[name].outputs[0] if name in self.nodes else self[name]

    def abstract(self, name: str) -> Abstract:
        """Shape and dtype of the value bound to `name`."""
        return self.value(name).abstract

    def const(self, name: str) -> Any:
        """The Python/numpy value of a name bound to a constant, else None."""
        v = self.value(name)
        return v.value if isinstance(v, Const) else None

    def has_external_users(self, name: str) -> bool:
        """Whether the cnode `name`'s value is read outside this match (so the rewrite keeps it)."""
        node = self.nodes[name]
        inside = {id(n) for n in self.nodes.values()}
        v = node.outputs[0]
        return v.id in self._leaving or any(id(u) not in inside for u in self._read_by.get(v.id, ()))

    def __repr__(self) -> str:
        shown = {**{k: v for k, v in self.values.items() if not k.startswith("<")},
                 **{k: n.op for k, n in self.nodes.items()}}
        return f"Match({shown})"


def _attr_ok(node: Node, key: str, want) -> bool:
    if key not in node.attrs:
        return False
    have = node.attrs[key]
    return bool(want(have)) if callable(want) else freeze(have) == freeze(want)


class _Matcher:
    def __init__(self, graph: Graph, src: SrcPattern, taken: set[int]) -> None:
        self.src, self.taken = src, taken
        self.made_by = producers(graph)
        self.read_by, self.leaving = users(graph), returned(graph)
        self.graph = graph

    def at(self, root: Node) -> Match | None:
        m = Match(self.graph, self.read_by, self.leaving)
        return m if self._node(self.src.root, root, m) else None

    def _node(self, name: str, node: Node, m: Match) -> bool:
        pn = self.src.cnodes[name]
        if name in m.nodes:
            return m.nodes[name] is node
        if id(node) in self.taken or any(n is node for n in m.nodes.values()):
            return False
        if node.op not in pn.ops or len(node.outputs) != 1 or len(node.inputs) != len(pn.inputs):
            return False
        if not all(_attr_ok(node, k, v) for k, v in pn.attrs.items()):
            return False
        m.nodes[name] = node
        return all(self._operand(p, x, m) for p, x in zip(pn.inputs, node.inputs))

    def _operand(self, name: str, x: Operand, m: Match) -> bool:
        if name in self.src.cnodes:
            node = self.made_by.get(x.id) if isinstance(x, Var) else None
            return node is not None and self._node(name, node, m)
        spec = self.src.vars[name]
        if isinstance(spec, _PConst) and not (isinstance(x, Const) and (spec.value is _ANY or const_equals(x, spec.value))):
            return False
        if name in m.values:
            bound = m.values[name]
            return bound is x or (isinstance(bound, Const) and isinstance(x, Const) and bound.same(x))
        m.values[name] = x
        return True


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
        taken: set[int] = set()
        matcher = _Matcher(graph, self.src, taken)
        matches: dict[int, Match] = {}
        for node in graph.nodes:
            if id(node) in taken:
                continue
            m = matcher.at(node)
            if m is not None and self.check_matched(m):
                matches[id(node)] = m
                taken |= {id(n) for n in m.nodes.values()}
        if not matches:
            return graph
        subst = Substitution()
        nodes: list[Node] = []
        intermediates: set[int] = set()
        for original in graph.nodes:
            node = subst.node(original)
            m = matches.get(id(original))
            if m is None:
                nodes.append(node)
                if id(original) in taken:  # a matched intermediate (roots are in `matches`)
                    intermediates.add(id(node))
                continue
            built, result = self._build(m, subst, node)
            nodes.extend(built)
            subst.set(node.outputs[0], result)
        return _drop_unread(subst.graph(graph, nodes), intermediates)

    def _build(self, m: Match, subst: Substitution, root: Node) -> tuple[list[Node], Operand]:
        made: dict[str, Var] = {}

        def resolve(name: str) -> Operand:
            if name in made:
                return made[name]
            if name in self.dst.vars:
                return Const(self.dst.vars[name].value)
            return subst.get(m.value(name))

        built = []
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
            made[name] = node.outputs[0]
            built.append(node)
        result = resolve(self.dst.result)
        want = root.outputs[0].abstract
        got = result.abstract if isinstance(result, Var) else None
        if got != want:
            shown = got if got is not None else f"the constant {result!r}"
            raise PassError(f"pass {self.name!r}: the destination gives {shown} but the matched {root.op} gives "
                            f"{want}; a rewrite must keep the root's shape and dtype", loc=root.loc)
        return built, result


def _drop_unread(graph: Graph, intermediates: set[int]) -> Graph:
    """Delete the matched non-root nodes nobody reads any more; ones still read stay (safe rewrites)."""
    live = returned(graph)
    kept: list[Node] = []
    for node in reversed(graph.nodes):
        if id(node) in intermediates and not any(v.id in live for v in node.outputs):
            continue
        kept.append(node)
        live |= {x.id for x in node.inputs if isinstance(x, Var)}
    kept.reverse()
    return graph if len(kept) == len(graph.nodes) else replace(graph, nodes=kept)
