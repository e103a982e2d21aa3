"""`replace_pattern(src_fn, dst_fn)`: a pattern pass written as two plain msx functions (torch.fx style).

    def src(x, y):
        return x + ops.neg(y)

    def dst(x, y):
        return x - y

    pass_ = msx.passes.replace_pattern(src, dst)

Both functions are captured by the one graph builder. The source graph,
captured once on example inputs, gives the pattern's structure: its arguments
are variables, its ops cnodes, constants match by value, its result(s) the
root(s) — a function returning a tuple is a multi-output pattern, replaced by
the destination's tuple. Shapes and dtypes of the examples are not part of
the pattern, and neither are attributes that depend on them: each match is
checked against the source captured again at the matched values' shapes and
dtypes (its attributes must be the ones recorded there), and the destination
is captured at those shapes too, so `ops.reshape(y, x.shape)` in it means the
matched x's shape. Captures are cached per shape signature. The destination
takes the same arguments, in order.
"""
from __future__ import annotations

import inspect
from typing import Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from ..capture.builder import GraphBuilder
from ..errors import MsxError, PassError
from ..ir.graph import Const, Graph, Node, Var
from ..tensor import Tensor
from .dce import eliminate_dead_code
from .pattern import DstPattern, Match, PatternToPatternPass, SrcPattern
from .rewrite import Substitution, freeze


def _arg_names(fn: Callable, n: int | None) -> list[str]:
    try:
        params = [p for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    names = [p.name for p in params]
    if n is not None and len(names) != n:
        names = [f"arg{i}" for i in range(n)]
    return names


def _example(abstract) -> Tensor:
    return Tensor(np.ones(abstract.shape, dtype=jnp.dtype(abstract.dtype)))


def capture_pattern(fn: Callable, example_inputs: Sequence | None, names: list[str]) -> Graph:
    """The graph of `fn` on example inputs (float32 (2, 2) tensors by default); non-Tensor Python scalars are
    passed as they are (they become constants of the graph)."""
    if example_inputs is None:
        example_inputs = [Tensor(np.full((2, 2), 1.0 + i, np.float32)) for i in range(len(names))]
    args = [x if isinstance(x, (Tensor, bool, int, float)) else Tensor(x) for x in example_inputs]
    builder = GraphBuilder(getattr(fn, "__name__", "pattern"))
    for t, name in zip(args, names):
        if isinstance(t, Tensor):
            builder.add_input(t, name)
    with builder.active():
        result = fn(*args)
    builder.set_outputs(jax.tree_util.tree_leaves(result, is_leaf=lambda t: isinstance(t, Tensor)))
    captured = builder.finish()
    where = f"replace_pattern: {builder.graph.name}"
    if captured.params or captured.updated:
        raise PassError(f"{where} reads or writes Parameters; a pattern may use only its arguments")
    if captured.guards:
        raise PassError(f"{where} branches on a tensor value ({captured.guards[0].describe()}); patterns must be "
                        f"straight-line code")
    if not captured.graph.outputs:
        raise PassError(f"{where} returns no value; a pattern returns one value or a tuple of them")
    return eliminate_dead_code(captured.graph)
def _cnode_names(graph: Graph, prefix: str = "") -> dict[int, str]:
    """Var id -> a readable cnode name (`neg`, `add`, `add_1`, ...), distinct from the argument names."""
    names: dict[int, str] = {}
    taken = {v.name for v in graph.inputs}
    for node in graph.nodes:
        if len(node.outputs) != 1:
            raise PassError(f"replace_pattern: {graph.name}: {node.op} has {len(node.outputs)} outputs; patterns "
                            f"can use single-output ops only")
        base, k = prefix + node.op.lower(), 0
        name = base
        while name in taken:
            k += 1
            name = f"{base}_{k}"
        taken.add(name)
        names[node.outputs[0].id] = name
    return names


def _operands(node, var_name: dict[int, str]) -> list:
    return [var_name[x.id] if isinstance(x, Var) else x.value for x in node.inputs]


def _src_pattern(graph: Graph, src: SrcPattern) -> None:
    made = {v.id for n in graph.nodes for v in n.outputs}
    if any(not isinstance(r, Var) or r.id not in made for r in graph.outputs) or \
            len({r.id for r in graph.outputs}) != len(graph.outputs):
        raise PassError(f"replace_pattern: {graph.name} must return the results of distinct ops, not an argument "
                        f"or a constant")
    var_name = {v.id: v.name for v in graph.inputs}
    for v in graph.inputs:
        src.add_var(v.name)
    var_name.update(_cnode_names(graph))
    for node in graph.nodes:  # attributes are checked per match, at the matched shapes (`_FunctionPattern`)
        src.add_cnode(var_name[node.outputs[0].id], node.op, _operands(node, var_name))
    if len(graph.outputs) > 1:
        src.set_outputs(*[var_name[r.id] for r in graph.outputs])


def _dst_pattern(graph: Graph, dst: DstPattern, src_names: list[str]) -> None:
    var_name = {v.id: name for v, name in zip(graph.inputs, src_names)}
    var_name.update(_cnode_names(graph, prefix="new_"))
    for node in graph.nodes:
        dst.add_cnode(var_name[node.outputs[0].id], node.op, _operands(node, var_name), attrs=dict(node.attrs))
    if any(isinstance(out, Const) for out in graph.outputs):
        raise PassError(f"replace_pattern: {graph.name} returns a constant; return a value computed from its "
                        f"arguments")
    dst.set_output(*[var_name[out.id] for out in graph.outputs])


class _FunctionPattern(PatternToPatternPass):
    def __init__(self, fns: tuple[Callable, Callable], graphs: tuple[Graph, Graph],
                 check: Callable[[Match], bool] | None, name: str) -> None:
        self.name = name
        (self._src_fn, self._dst_fn), (self._src_graph, self._dst_graph) = fns, graphs
        self._names = [v.name for v in self._src_graph.inputs]
        self._check, self._graphs = check, {}
        super().__init__()

    def define_src_pattern(self, src: SrcPattern) -> None:
        _src_pattern(self._src_graph, src)

    def define_dst_pattern(self, dst: DstPattern) -> None:
        _dst_pattern(self._dst_graph, dst, self._names)

    def _args(self, m: Match) -> list:
        """Example arguments like the matched values: Tensors of their shapes and dtypes, Python scalars as
        they are."""
        args = []
        for name in self._names:
            x = m.value(name)
            args.append(x.value if isinstance(x, Const) and isinstance(x.value, (bool, int, float))
                        else _example(x.abstract))
        return args

    def _captured(self, which: int, m: Match) -> Graph | None:
        """The source (0) or destination (1) captured at the matched values' shapes (None: it cannot be)."""
        args = self._args(m)
        key = (which, tuple(freeze(a) if not isinstance(a, Tensor) else (a.shape, str(a.dtype)) for a in args))
        if key not in self._graphs:
            fn, names = (self._src_fn, self._names) if which == 0 else (self._dst_fn, _arg_names(self._dst_fn, None))
            try:
                self._graphs[key] = capture_pattern(fn, args, names)
            except MsxError as exc:
                if which == 1:
                    raise PassError(f"replace_pattern {self.name!r}: the destination fails for the match "
                                    f"{m!r}: {exc.message}", loc=m.root.loc) from None
                self._graphs[key] = None
            except (TypeError, ValueError, IndexError):  # the source does not apply at these shapes
                if which == 1:
                    raise
                self._graphs[key] = None
        return self._graphs[key]

    def _attrs_hold(self, m: Match) -> bool:
        """Whether the source, captured at the match's shapes, records the matched nodes' attributes and
        constants."""
        graph = self._captured(0, m)
        if graph is None or len(graph.nodes) != len(m.nodes):
            return False
        names = _cnode_names(graph)
        for node in graph.nodes:
            matched = m.nodes.get(names[node.outputs[0].id])
            if matched is None or matched.op != node.op or freeze(matched.attrs) != freeze(node.attrs):
                return False
            for want, have in zip(node.inputs, matched.inputs):
                if isinstance(want, Const) and not (isinstance(have, Const) and have.same(want)):
                    return False
        return True

    def check_matched(self, match: Match) -> bool:
        if not self._attrs_hold(match):
            return False
        return True if self._check is None else bool(self._check(match))

    def _build(self, m: Match) -> list:
        """The destination captured at the match's shapes, its nodes copied over the matched values."""
        graph = self._captured(1, m)
        env = Substitution()
        tensors = [i for i, a in enumerate(self._args(m)) if isinstance(a, Tensor)]  # the captured inputs
        for v, i in zip(graph.inputs, tensors):
            env.set(v, m.value(self._names[i]))
        for node in graph.nodes:
            fresh = [Var(v.abstract) for v in node.outputs]
            for old, new in zip(node.outputs, fresh):
                env.set(old, new)
            m.add(Node(node.op, [env.get(x) for x in node.inputs], fresh, dict(node.attrs), m.root.loc,
                       scope=m.root.scope))
        return [env.get(x) for x in graph.outputs]


def replace_pattern(src_fn: Callable, dst_fn: Callable, check: Callable[[Match], bool] | None = None, *,
                    example_inputs: Sequence | None = None, name: str | None = None) -> PatternToPatternPass:
    """A pass replacing every match of `src_fn`'s graph by `dst_fn`'s (same arguments).

    `check(match)` is an extra condition (`match["x"]` is the value bound to argument `x`);
    `example_inputs` (Tensors or arrays) are used to capture the pattern's structure when the default
    float32 (2, 2) tensors do not suit its ops. A source returning a tuple is a multi-output pattern.
    """
    names = _arg_names(src_fn, len(example_inputs) if example_inputs is not None else None)
    if not names:
        raise PassError(f"replace_pattern: {getattr(src_fn, '__name__', src_fn)!r} takes no positional arguments")
    dst_names = _arg_names(dst_fn, None)
    if len(dst_names) != len(names):
        raise PassError(f"replace_pattern: the source takes {len(names)} arguments {names} but the destination "
                        f"takes {len(dst_names)} {dst_names}; they must take the same arguments")
    src_graph = capture_pattern(src_fn, example_inputs, names)
    dst_graph = capture_pattern(dst_fn, example_inputs, dst_names)
    label = name or f"replace_pattern({getattr(src_fn, '__name__', 'src')}->{getattr(dst_fn, '__name__', 'dst')})"
    return _FunctionPattern((src_fn, dst_fn), (src_graph, dst_graph), check, label)
