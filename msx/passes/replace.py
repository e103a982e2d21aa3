"""`replace_pattern(src_fn, dst_fn)`: a pattern pass written as two plain msx functions (torch.fx style).

    def src(x, y):
        return x + ops.neg(y)

    def dst(x, y):
        return x - y

    pass_ = msx.passes.replace_pattern(src, dst)

Both functions are captured by the one graph builder, run once on small
example inputs. The source graph becomes the source pattern: its arguments
are variables, its ops cnodes (their recorded attributes must match exactly,
constants must match by value), its result the root. Shapes and dtypes of the
examples are not part of the pattern. The destination takes the same
arguments, in order.
"""
from __future__ import annotations

import inspect
from typing import Callable, Sequence

import jax
import numpy as np

from ..capture.builder import GraphBuilder
from ..errors import PassError
from ..ir.graph import Const, Graph, Var
from ..tensor import Tensor
from .dce import eliminate_dead_code
from .pattern import DstPattern, Match, PatternToPatternPass, SrcPattern


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


def capture_pattern(fn: Callable, example_inputs: Sequence | None, names: list[str]) -> Graph:
    """The graph of `fn` on example inputs (float32 (2, 2) tensors by default)."""
    if example_inputs is None:
        example_inputs = [Tensor(np.full((2, 2), 1.0 + i, np.float32)) for i in range(len(names))]
    args = [x if isinstance(x, Tensor) else Tensor(x) for x in example_inputs]
    builder = GraphBuilder(getattr(fn, "__name__", "pattern"))
    for t, name in zip(args, names):
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
    if len(captured.graph.outputs) != 1:
        raise PassError(f"{where} returns {len(captured.graph.outputs)} values; a pattern returns exactly one")
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
    root = graph.outputs[0]
    if not isinstance(root, Var) or root.id not in {v.id for n in graph.nodes for v in n.outputs}:
        raise PassError(f"replace_pattern: {graph.name} must return the result of an op, not an argument or "
                        f"a constant")
    var_name = {v.id: v.name for v in graph.inputs}
    for v in graph.inputs:
        src.add_var(v.name)
    var_name.update(_cnode_names(graph))
    for node in graph.nodes:
        src.add_cnode(var_name[node.outputs[0].id], node.op, _operands(node, var_name), dict(node.attrs))


def _dst_pattern(graph: Graph, dst: DstPattern, src_names: list[str]) -> None:
    var_name = {v.id: name for v, name in zip(graph.inputs, src_names)}
    var_name.update(_cnode_names(graph, prefix="new_"))
    for node in graph.nodes:
        dst.add_cnode(var_name[node.outputs[0].id], node.op, _operands(node, var_name), attrs=dict(node.attrs))
    out = graph.outputs[0]
    if isinstance(out, Const):
        raise PassError(f"replace_pattern: {graph.name} returns a constant; return a value computed from its "
                        f"arguments")
    dst.set_output(var_name[out.id])


class _FunctionPattern(PatternToPatternPass):
    def __init__(self, src_graph: Graph, dst_graph: Graph, check: Callable[[Match], bool] | None,
                 name: str) -> None:
        self.name = name
        self._src_graph, self._dst_graph, self._check = src_graph, dst_graph, check
        super().__init__()

    def define_src_pattern(self, src: SrcPattern) -> None:
        _src_pattern(self._src_graph, src)

    def define_dst_pattern(self, dst: DstPattern) -> None:
        _dst_pattern(self._dst_graph, dst, [v.name for v in self._src_graph.inputs])

    def check_matched(self, match: Match) -> bool:
        return True if self._check is None else bool(self._check(match))


def replace_pattern(src_fn: Callable, dst_fn: Callable, check: Callable[[Match], bool] | None = None, *,
                    example_inputs: Sequence | None = None, name: str | None = None) -> PatternToPatternPass:
    """A pass replacing every match of `src_fn`'s graph by `dst_fn`'s (same arguments).

    `check(match)` is an extra condition (`match["x"]` is the value bound to argument `x`);
    `example_inputs` (Tensors or arrays) are used to capture both functions when the default
    float32 (2, 2) tensors do not suit their ops.
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
    return _FunctionPattern(src_graph, dst_graph, check, label)
