"""The one rewrite engine: rules as data, indexed by their root op, applied bottom-up (tinygrad's PatternMatcher).

A `Pat` describes a value: a leaf (`Pat.var`, `Pat.const`: any operand, or a
constant) or a node (`Pat.op`: a single-output node of one of some primitives
over sub-patterns, with attribute constraints and an optional predicate).
A name used twice binds one value (a DAG pattern); `commutative=True` also
tries a binary node's operands swapped. A `Rule` pairs a pattern (or a tuple
of patterns: a multi-output rule, whose roots share leaves) with a function
`fn(match) -> replacement`: the operand(s) that take the root's outputs, or
None when the rule declines. `fn` may build new nodes with `match.emit`.

`rewrite(graph, rules)` runs the rules over one graph (the pass manager
applies passes to subgraphs). Two drivers share the matcher:

- fixpoint (the built-in rules): nodes are visited in program order, each
  against the rules of its op; a node a rule emits is itself rewritten before
  it is placed. Since a rule looks only at a node's producers, which are
  final when it is visited, one sweep reaches the fixpoint (nothing left to
  match) without a second walk.
- once (user patterns, MindSpore's `PatternToPatternPass`): matches are found
  on the graph as given, are non-overlapping (a node takes part in at most
  one match), and what a rule builds is not matched again.

A rewrite never mutates its input graph and returns it unchanged (the same
object) when no rule fired.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Iterable, Sequence

from ..errors import PassError
from ..ir.graph import Abstract, Const, Graph, Node, Operand, Var
from ..ir.interpret import infer_node
from .rewrite import Substitution, const_equals, freeze, producers, returned, users

ANY = object()


class Pat:
    """One pattern node; build with `Pat.var`, `Pat.const` and `Pat.op`."""

    __slots__ = ("ops", "src", "name", "attrs", "value", "where", "commutative", "prefix", "single")

    def __init__(self, ops: tuple[str, ...] | None, src: tuple["Pat", ...] | None, name: str | None, *,
                 attrs: dict | None = None, value: Any = ANY, where: Callable | None = None,
                 commutative: bool = False, prefix: bool = False, single: bool = True) -> None:
        self.ops, self.src, self.name, self.attrs = ops, src, name, dict(attrs or {})
        self.value, self.where, self.commutative, self.prefix, self.single = value, where, commutative, prefix, single

    @classmethod
    def var(cls, name: str | None = None, where: Callable[[Operand], bool] | None = None) -> "Pat":
        """Any operand (an input, a node's value or a constant), optionally only where `where(x)` holds."""
        return cls(None, None, name, where=where)

    @classmethod
    def const(cls, name: str | None = None, value: Any = ANY) -> "Pat":
        """A constant operand: any, equal (by shape and values) to `value`, or one for which `value(c)` holds."""
        return cls(None, None, name, value=value, where=lambda x: isinstance(x, Const))

    @classmethod
    def op(cls, ops: str | Iterable[str] | None, *src: "Pat", name: str | None = None, attrs: dict | None = None,
           where: Callable[[Node], bool] | None = None, commutative: bool = False, prefix: bool = False,
           single: bool = True) -> "Pat":
        """A node of one of `ops` (None: any op) whose operands match `src` (with `prefix`: its first operands;
        more may follow); `attrs` maps names to a value or a predicate; `where(node)` is an extra condition;
        `single=False` also matches nodes with several outputs (a rule then replaces all of them)."""
        names = None if ops is None else ((ops,) if isinstance(ops, str) else tuple(ops))
        return cls(names, tuple(src), name, attrs=attrs, where=where, commutative=commutative, prefix=prefix,
                   single=single)

    def __repr__(self) -> str:
        if self.src is None:
            return f"Pat.{'const' if self.value is not ANY else 'var'}({self.name!r})"
        return f"Pat.op({self.ops}, {', '.join(map(repr, self.src))})"


class Match:
    """One match: `match["x"]` is the value bound to a leaf, or the Node bound to a node pattern."""

    def __init__(self, graph: Graph, context: "_Context | None" = None) -> None:
        self.graph = graph
        self.values: dict[str, Operand] = {}
        self.nodes: dict[str, Node] = {}
        self.root: Node | None = None
        self._context, self._emitted = context, []

    def __getitem__(self, name: str) -> Operand | Node:
        if name in self.nodes:
            return self.nodes[name]
        if name in self.values:
            return self.values[name]
        raise KeyError(f"the match has no name {name!r}; names: {sorted(self.values) + sorted(self.nodes)}")

    def __contains__(self, name: str) -> bool:
        return name in self.values or name in self.nodes

    def value(self, name: str) -> Operand:
        """The value bound to a name (a node pattern's output for node patterns)."""
        return self.nodes[name].outputs[0] if name in self.nodes else self[name]

    def abstract(self, name: str) -> Abstract:
        """Shape and dtype of the value bound to `name`."""
        return self.value(name).abstract

    def const(self, name: str) -> Any:
        """The Python/numpy value of a name bound to a constant, else None."""
        v = self.value(name)
        return v.value if isinstance(v, Const) else None

    def has_external_users(self, name: str) -> bool:
        """Whether the node bound to `name` has a value read outside this match (so the rewrite keeps it)."""
        read_by, leaving = self._context.read_by, self._context.leaving
        inside = {id(n) for n in self.nodes.values()}
        return any(v.id in leaving or any(id(u) not in inside for u in read_by.get(v.id, ()))
                   for v in self.nodes[name].outputs)

    def leaves_graph(self, node: Node) -> bool:
        """Whether one of `node`'s values is a graph output or a parameter update."""
        return any(v.id in self._context.leaving for v in node.outputs)

    def emit(self, op: str, inputs: Sequence[Operand], attrs: dict | None = None,
             outputs: Sequence[Abstract] | None = None) -> Var | list[Var]:
        """A new node placed before the root: its value (its values, for several `outputs`); inputs that are not
        Vars or Consts become constants; output abstracts not given are inferred from the primitive's rule."""
        inputs = [x if isinstance(x, (Var, Const)) else Const(x) for x in inputs]
        node = Node(op, inputs, [Var(a) for a in outputs or ()], dict(attrs or {}), self.root.loc,
                    scope=self.root.scope)
        if outputs is None:
            node.outputs = [Var(a) for a in infer_node(node)]
        return self.add(node)

    def add(self, node: Node) -> Var | list[Var]:
        """Place an already built node before the root; its value(s)."""
        self._emitted.append(node)
        return node.outputs[0] if len(node.outputs) == 1 else list(node.outputs)

    def _mark(self) -> tuple[int, int]:
        return len(self.values), len(self.nodes)

    def _truncate(self, mark: tuple[int, int]) -> None:
        """Forget the bindings made since `mark` (bindings are only ever added, in order)."""
        for names, keep in ((self.values, mark[0]), (self.nodes, mark[1])):
            for name in list(names)[keep:]:
                del names[name]

    def __repr__(self) -> str:
        shown = {**{k: v for k, v in self.values.items() if not k.startswith("<")},
                 **{k: n.op for k, n in self.nodes.items() if not k.startswith("<")}}
        return f"Match({shown})"


class Rule:
    """`pattern` (a Pat, or a tuple of Pats for a multi-output rule) and `fn(match) -> replacement | None`."""

    def __init__(self, pattern: Pat | tuple[Pat, ...], fn: Callable[[Match], Any], name: str = "") -> None:
        self.roots = tuple(pattern) if isinstance(pattern, (tuple, list)) else (pattern,)
        if not self.roots or any(p.src is None for p in self.roots):
            raise PassError(f"rule {name or fn!r}: its root must be a node pattern (Pat.op)")
        self.fn, self.name = fn, name or getattr(fn, "__name__", "rule")
        self.fits = _root_test(self.roots[0])
        self._anon: dict[int, str] = {}
        for p in self._walk():
            if p.src is not None and p.name is None:
                self._anon[id(p)] = f"<node {len(self._anon)}>"

    def _walk(self) -> Iterable[Pat]:
        seen, todo = set(), list(self.roots)
        while todo:
            p = todo.pop()
            if id(p) not in seen:
                seen.add(id(p))
                yield p
                todo += p.src or ()

    def key(self, p: Pat) -> str:
        return p.name if p.name is not None else self._anon[id(p)]

    def __repr__(self) -> str:
        return f"Rule({self.name}: {', '.join(map(repr, self.roots))})"


class _Context:
    """What matching reads from the graph being rewritten: producers, users, values that leave it, taken nodes."""

    def __init__(self, graph: Graph, made_by: dict[int, Node], taken: set[int] | None) -> None:
        self.graph, self.made_by, self.taken = graph, made_by, taken
        self._users: dict | None = None
        self._leaving: set | None = None

    @property
    def read_by(self) -> dict[int, list[Node]]:
        if self._users is None:
            self._users = users(self.graph)
        return self._users

    @property
    def leaving(self) -> set[int]:
        if self._leaving is None:
            self._leaving = returned(self.graph)
        return self._leaving


def _attr_ok(node: Node, key: str, want) -> bool:
    if key not in node.attrs:
        return False
    have = node.attrs[key]
    return bool(want(have)) if callable(want) else freeze(have) == freeze(want)


def _operand(rule: Rule, p: Pat, x: Operand, m: Match, cx: _Context) -> bool:
    if p.src is not None:
        node = cx.made_by.get(x.id) if isinstance(x, Var) else None
        return node is not None and _node(rule, p, node, m, cx)
    if p.where is not None and not p.where(x):
        return False
    if p.value is not ANY and not (p.value(x) if callable(p.value) else const_equals(x, p.value)):
        return False
    if p.name is None:
        return True
    if p.name in m.values:
        bound = m.values[p.name]
        return bound is x or (isinstance(bound, Const) and isinstance(x, Const) and bound.same(x))
    m.values[p.name] = x
    return True


def _fits(p: Pat, node: Node) -> bool:
    """The checks on `node` itself (op, arity, outputs, attributes, predicate), before any binding."""
    if p.ops is not None and node.op not in p.ops:
        return False
    n_in, n_pat = len(node.inputs), len(p.src)
    if (n_in < n_pat if p.prefix else n_in != n_pat) or (p.single and len(node.outputs) != 1):
        return False
    if p.attrs and not all(_attr_ok(node, k, v) for k, v in p.attrs.items()):
        return False
    return p.where is None or bool(p.where(node))


def _root_test(p: Pat) -> Callable[[Node], bool]:
    """`_fits(p, node)` for a node the index already gave the right op, specialised to the checks `p` needs
    (most nodes fail here, so this is the engine's hot path)."""
    n_pat, single, attrs, where = len(p.src), p.single, p.attrs, p.where
    if p.prefix:
        def arity(node: Node) -> bool:
            return len(node.inputs) >= n_pat and (not single or len(node.outputs) == 1)
    else:
        def arity(node: Node) -> bool:
            return len(node.inputs) == n_pat and (not single or len(node.outputs) == 1)
    if not attrs and where is None:
        return arity
    if not attrs and p.prefix and not n_pat and not single:
        return where  # any node at all, if the predicate holds (constant folding)

    def test(node: Node) -> bool:
        return arity(node) and all(_attr_ok(node, k, v) for k, v in attrs.items()) and \
            (where is None or bool(where(node)))
    return test


def _may_match(s: Pat, x: Operand, cx: _Context) -> bool:
    """A cheap necessary condition for operand `x` to match `s` (no binding): a leaf's own conditions, or
    the op of the node that makes `x`."""
    if s.src is None:
        return (s.where is None or s.where(x)) and (s.value is ANY or isinstance(x, Const))
    if s.ops is None:
        return isinstance(x, Var)
    made = cx.made_by.get(x.id) if isinstance(x, Var) else None
    return made is not None and made.op in s.ops


def _inputs_may_match(p: Pat, node: Node, cx: _Context) -> bool:
    ins = node.inputs
    if p.commutative and len(p.src) == 2:
        a, b = p.src
        return (_may_match(a, ins[0], cx) and _may_match(b, ins[1], cx)) or \
            (_may_match(a, ins[1], cx) and _may_match(b, ins[0], cx))
    return all(_may_match(s, x, cx) for s, x in zip(p.src, ins))


def _node(rule: Rule, p: Pat, node: Node, m: Match, cx: _Context, checked: bool = False) -> bool:
    key = rule.key(p)
    if key in m.nodes:
        return m.nodes[key] is node
    if not checked and not _fits(p, node):
        return False
    if cx.taken is not None and id(node) in cx.taken or any(n is node for n in m.nodes.values()):
        return False
    m.nodes[key] = node
    if not p.src:
        return True
    ins = node.inputs
    if not (p.commutative and len(p.src) == 2):
        if all(_operand(rule, s, x, m, cx) for s, x in zip(p.src, ins)):
            return True
    else:
        mark = m._mark()
        if _operand(rule, p.src[0], ins[0], m, cx) and _operand(rule, p.src[1], ins[1], m, cx):
            return True
        m._truncate(mark)
        if _operand(rule, p.src[0], ins[1], m, cx) and _operand(rule, p.src[1], ins[0], m, cx):
            return True
    m.nodes.pop(key, None)
    return False


def match_at(rule: Rule, node: Node, cx: _Context, checked: bool = False) -> Match | None:
    """Match `rule` with its first root at `node` (other roots among the readers of the bound values);
    `checked`: `_fits(root, node)` already holds."""
    p = rule.roots[0]
    if not (checked or _fits(p, node)) or not _inputs_may_match(p, node, cx):
        return None
    m = Match(cx.graph, cx)
    if not _node(rule, rule.roots[0], node, m, cx, checked=True):
        return None
    for p in rule.roots[1:]:
        if not _another_root(rule, p, m, cx):
            return None
    m.root = node
    return m


def _another_root(rule: Rule, p: Pat, m: Match, cx: _Context) -> bool:
    bound = {x.id for x in m.values.values() if isinstance(x, Var)} | \
        {v.id for n in m.nodes.values() for v in n.outputs}
    candidates = {id(u): u for vid in bound for u in cx.read_by.get(vid, ())}
    for node in candidates.values():
        mark = m._mark()
        if _node(rule, p, node, m, cx):
            return True
        m._truncate(mark)
    return False


class RuleSet:
    """Rules indexed by the op of their (first) root; rules whose root matches any op are tried after."""

    def __init__(self, rules: Iterable[Rule]) -> None:
        self.rules = list(rules)
        self.by_op: dict[str, list[Rule]] = {}
        self.any_op: list[Rule] = []
        # whether a rule looks past a node's operands to the nodes that make them (then producers are tracked)
        self.deep = any(s.src is not None for r in self.rules for p in r.roots for s in p.src)
        for r in self.rules:
            ops = r.roots[0].ops
            for op in ops or ():
                self.by_op.setdefault(op, []).append(r)
            if ops is None:
                self.any_op.append(r)

        self._for_op: dict[str, list[Rule]] = {}

    def for_op(self, op: str) -> list[Rule]:
        """The rules to try at a node of `op`, in order."""
        found = self._for_op.get(op)
        if found is None:
            found = self._for_op[op] = self.by_op.get(op, []) + self.any_op
        return found


def _results(rule: Rule, m: Match, out, roots: list[Node]) -> list[Operand]:
    """The rule's replacement as one operand per output of the roots (in order), checked to keep their types."""
    olds = [v for n in roots for v in n.outputs]
    news = list(out) if isinstance(out, (list, tuple)) else [out]
    root = m.root
    if len(news) != len(olds):
        raise PassError(f"rule {rule.name!r}: gives {len(news)} values for the {len(olds)} outputs of the matched "
                        f"{', '.join(n.op for n in roots)}", loc=root.loc)
    for old, new in zip(olds, news):
        got = new.abstract if isinstance(new, Var) else None
        if got != old.abstract:
            shown = got if got is not None else f"the constant {new!r}"
            raise PassError(f"pass {rule.name!r}: the destination gives {shown} but the matched {root.op} gives "
                            f"{old.abstract}; a rewrite must keep the root's shape and dtype", loc=root.loc)
    return news


def rewrite(graph: Graph, rules: RuleSet, once: bool = False, accept: Callable[[Match], bool] | None = None,
            allow_consts: bool = False) -> Graph:
    """`graph` with `rules` applied (see the module docstring for the two drivers); `accept(match)` is an extra
    condition on each match; `allow_consts` lets a rule replace a value by a constant."""
    if once:
        return _rewrite_once(graph, rules, accept)
    subst = Substitution()
    made_by: dict[int, Node] = {}
    nodes: list[Node] = []
    cx = _Context(graph, made_by, None)
    for_op, deep = rules.for_op, rules.deep
    changed = False

    def fire(node: Node, candidates: list[Rule]) -> bool:
        for rule in candidates:
            if not rule.fits(node):  # the common case, without building a match
                continue
            m = match_at(rule, node, cx, checked=True)
            if m is None or (accept is not None and not accept(m)):
                continue
            out = rule.fn(m)
            if out is None:
                continue
            news = list(out) if isinstance(out, (list, tuple)) else [out]
            if len(news) != len(node.outputs) or not all(
                    (isinstance(new, Var) and new.abstract == old.abstract) or (allow_consts and isinstance(new, Const))
                    for new, old in zip(news, node.outputs)):
                news = _results(rule, m, out, [node])
            for e in m._emitted:  # what a rule builds is rewritten too before it is placed
                place(subst.node(e))
            for old, new in zip(node.outputs, news):
                new = subst.get(new)
                if new is not old:   # a rule may keep an output (re-placing its node with `match.add`)
                    subst.set(old, new)
            return True
        return False

    def place(node: Node) -> None:
        candidates = for_op(node.op)
        if not (candidates and fire(node, candidates)):
            nodes.append(node)
            if deep:
                for v in node.outputs:
                    made_by[v.id] = node

    for node in graph.nodes:
        node = subst.node(node)
        candidates = for_op(node.op)
        if candidates and fire(node, candidates):
            changed = True
            continue
        nodes.append(node)
        if deep:
            for v in node.outputs:
                made_by[v.id] = node
    return subst.graph(graph, nodes) if changed else graph


def _rewrite_once(graph: Graph, rules: RuleSet, accept: Callable[[Match], bool] | None) -> Graph:
    taken: set[int] = set()
    cx = _Context(graph, producers(graph), taken)
    position = {id(n): i for i, n in enumerate(graph.nodes)}
    matches: dict[int, tuple[Rule, Match, list[Node]]] = {}
    for node in graph.nodes:
        if id(node) in taken:
            continue
        for rule in rules.for_op(node.op):
            m = match_at(rule, node, cx)
            if m is None or (accept is not None and not accept(m)):
                continue
            roots = [m.nodes[rule.key(p)] for p in rule.roots]
            first = min(roots, key=lambda n: position[id(n)])
            if len(roots) > 1 and not _defined_before(m, cx, position, position[id(first)]):
                continue
            m.root = first
            matches[id(first)] = (rule, m, roots)
            taken |= {id(n) for n in m.nodes.values()}
            break
    if not matches:
        return graph
    subst = Substitution()
    nodes: list[Node] = []
    intermediates: set[int] = set()
    for original in graph.nodes:
        node = subst.node(original)
        found = matches.get(id(original))
        if found is None:
            nodes.append(node)
            if id(original) in taken:  # a matched intermediate (roots are in `matches`)
                intermediates.add(id(node))
            continue
        rule, m, roots = found
        m.values = {k: subst.get(v) for k, v in m.values.items()}
        out = rule.fn(m)
        news = _results(rule, m, out, roots)
        nodes.extend(m._emitted)
        for old, new in zip([v for n in roots for v in n.outputs], news):
            subst.set(old, new)
    return drop_unread(subst.graph(graph, nodes), intermediates)


def _defined_before(m: Match, cx: _Context, position: dict[int, int], limit: int) -> bool:
    """Whether every leaf value of a multi-root match is defined before the first root (where the rewrite goes)."""
    for x in m.values.values():
        if isinstance(x, Var) and x.id in cx.made_by and position[id(cx.made_by[x.id])] >= limit:
            return False
    return True


def drop_unread(graph: Graph, candidates: set[int]) -> Graph:
    """Delete the candidate nodes nobody reads any more; ones still read stay (safe rewrites)."""
    live = returned(graph)
    kept: list[Node] = []
    for node in reversed(graph.nodes):
        if id(node) in candidates and not any(v.id in live for v in node.outputs):
            continue
        kept.append(node)
        live |= {x.id for x in node.inputs if isinstance(x, Var)}
    kept.reverse()
    return graph if len(kept) == len(graph.nodes) else replace(graph, nodes=kept)
