"""Public stage calls over a Graph you hold: capture, edit by hand, then optimise, build and run it.

`jit` composes capture -> optimise -> build -> run behind a cache
(ARCHITECTURE rule 7); `optimize` is the middle stage on its own, for a graph
that did not come straight from a capture — one you edited, built, or loaded:

    graph = step.capture(x)                 # or step.captured(x) to keep its Parameters
    graph.nodes[1].op = "Exp"               # an edit
    compiled = msx.stages.optimize(graph, params=net, jit_level="O1").compile()
    out = compiled(x)

The graph is verified first (shapes included), so a bad edit is a
`VerifyError` naming the node, never a jax error from deep inside emission.
"""
from __future__ import annotations

from typing import Any, Iterable

import jax
import jax.numpy as jnp
import numpy as np

from .backends import BackendBase, get_backend
from .capture.builder import Captured
from .errors import VerifyError
from .ir.graph import Graph
from .ir.symbolic import is_symbolic
from .ir.verifier import verify
from .runtime.compiled import Lowered
from .runtime.compile_pipeline import run_pipeline
from .runtime.signature import Signature
from .tensor import Parameter, Tensor


def optimize(graph: Graph | Captured, *, params: Any = None, backend: str | BackendBase | None = None,
             jit_level: str = "O0", disable_passes: Iterable[str] | None = None, name: str | None = None) -> Lowered:
    """Verify `graph`, run the pass pipeline of `jit_level` for `backend`, and bind it: a `Lowered`.

    `graph`: a `Graph`, or a `Captured` (`jit_fn.captured(...)`) whose `.graph` may have been edited; the
    Captured supplies the Parameters and output structure. `params`: the Parameters behind `graph.params`,
    matched by name — a Cell, a dict name -> Parameter, or an iterable of Parameters (needed for a bare Graph
    that reads Parameters). `.compile()` builds it; the `Compiled` takes the graph's inputs as Tensors, in
    order, and writes the Parameters the graph updates.
    """
    captured = graph if isinstance(graph, Captured) else None
    graph = captured.graph if captured is not None else graph
    if not isinstance(graph, Graph):
        raise TypeError(f"stages.optimize: expected a Graph or a Captured, got {type(graph).__name__}")
    verify(graph, infer=True)
    bound = _bind_params(graph, params if params is not None or captured is None else captured.params)
    b = backend if isinstance(backend, BackendBase) else get_backend(backend)
    result, config = run_pipeline(graph, b, jit_level, disable_passes=disable_passes)
    out = result.graph
    by_name = dict(zip(graph.param_names, bound))
    updated = [by_name[n] for n, _ in out.updates]
    n_out = len(out.outputs)
    tree = captured.out_tree if captured is not None and captured.out_tree is not None and \
        captured.out_tree.num_leaves == n_out else jax.tree_util.tree_structure(0 if n_out == 1 else (0,) * n_out)
    bound_captured = Captured(out, [by_name[v.name] for v in out.params], updated, [], tree,
                              [p._data for p in updated])
    return Lowered(bound_captured, out, b, config, _signature(graph), name or graph.name, result.records)


def _bind_params(graph: Graph, params: Any) -> list[Parameter]:
    """The Parameter objects behind `graph.params`, in order, found by name in `params`."""
    if params is None:
        params = []
    if hasattr(params, "parameters_and_names"):
        table = {p.name: p for _, p in params.parameters_and_names()}
    elif isinstance(params, dict):
        table = dict(params)
    else:
        table = {p.name: p for p in params}
    missing = [n for n in graph.param_names if n not in table]
    if missing:
        raise VerifyError(f"stages.optimize: graph {graph.name} reads Parameter(s) {missing}, which `params` does "
                          f"not give (it has {sorted(table)[:8]})")
    bound = [table[n] for n in graph.param_names]
    for v, p in zip(graph.params, bound):
        if tuple(p.shape) != tuple(v.abstract.shape) or np.dtype(p._data.dtype).name != v.abstract.dtype:
            raise VerifyError(f"stages.optimize: Parameter {v.name} is {np.dtype(p._data.dtype).name}"
                              f"{tuple(p.shape)} but graph {graph.name} reads it as {v.abstract}")
    return bound


def _signature(graph: Graph) -> Signature:
    """The call signature the graph's inputs describe (a Tensor per input), which `Compiled` checks calls by."""
    for v in graph.inputs:
        if is_symbolic(v.abstract.shape):
            raise VerifyError(f"stages.optimize: input {v.name} of graph {graph.name} has a symbolic shape "
                              f"{v.abstract}; hand back a graph of static shapes")
    examples = tuple(Tensor._from(jnp.zeros(v.abstract.shape, v.abstract.dtype)) for v in graph.inputs)
    return Signature(examples, {}, None)


__all__ = ["optimize"]
