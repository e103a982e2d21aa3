"""`nn.GraphCell`: run a Graph (usually one read by `msx.load`) as a Cell, without the Python source.

The graph's parameters become the Cell's Parameters (named as in the graph),
so `trainable_params()`, checkpoints and optimizers see them. A call runs the
graph on a backend, built once per backend and cached. Under a jax transform
(`msx.grad`) the graph is evaluated with the primitives' jax implementations
instead, so gradients flow through it. Inside a jit capture the call becomes
one `Call` node whose body is the graph, so a GraphCell composes with the
code around it.
"""
from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ..backends import BuildConfig, get_backend
from ..capture.builder import current_builder
from ..errors import BackendError, MsxError, OpError, user_loc
from ..ignored_args import only_default
from ..ir.control import CALL
from ..ir.graph import Const, Graph
from ..ir.interpret import evaluate
from ..ir.symbolic import fits
from ..ir.verifier import verify
from ..tensor import Parameter, Tensor
from .cell import Cell


class GraphCell(Cell):
    """MindSpore's `nn.GraphCell(graph, params_init=None, obf_random_seed=None)`; `backend` (msx, keyword) names
    the backend to run on. `obf_random_seed` (MindSpore's structure obfuscation) is refused when given, as
    MindSpore 2.10 itself refuses it.

    `params_init` maps parameter names to values (Tensors, Parameters or
    arrays) that replace the graph's own weights; a graph that carries no
    weights (e.g. one from `jit(...).capture`) needs a value for each of them.
    """

    def __init__(self, graph: Graph, params_init: dict | None = None, obf_random_seed: int | None = None, *,
                 backend: str | None = None) -> None:
        super().__init__()
        only_default("GraphCell", "obf_random_seed", obf_random_seed, None,
                     "dynamic structure obfuscation, which MindSpore 2.10 refuses too")
        if not isinstance(graph, Graph):
            raise TypeError(f"GraphCell: graph must be an msx.ir.Graph (from msx.load), got {type(graph).__name__}")
        verify(graph, infer=False)
        get_backend(backend)  # an unknown backend name fails here, not at the first call
        self.graph = graph
        self.backend = backend
        values = dict(getattr(graph, "weights", {}))
        unknown = sorted(set(params_init or {}) - set(graph.param_names))
        if unknown:
            raise OpError(f"GraphCell({graph.name}): params_init names {unknown}, which are not parameters of the "
                          f"graph ({graph.param_names})")
        values.update(params_init or {})
        requires_grad = getattr(graph, "requires_grad", {})
        params = []
        for v in graph.params:
            if v.name not in values:
                raise OpError(f"GraphCell({graph.name}): no value for parameter {v.name!r}; give it in params_init")
            data = _array(values[v.name])
            if tuple(data.shape) != v.abstract.shape or np.dtype(data.dtype).name != v.abstract.dtype:
                raise OpError(f"GraphCell({graph.name}): parameter {v.name!r} must be {v.abstract}, got "
                              f"{np.dtype(data.dtype).name}{list(data.shape)}")
            p = Parameter(Tensor._from(data), name=v.name, requires_grad=requires_grad.get(v.name, True))
            self.insert_param_to_cell(v.name, p, check_name_contain_dot=False)
            params.append(p)
        object.__setattr__(self, "_graph_params", params)
        by_name = dict(zip(graph.param_names, params))
        object.__setattr__(self, "_updated", [by_name[name] for name, _ in graph.updates])
        written = {name for name, _ in graph.updates}
        self._config = BuildConfig(rw_params=tuple(i for i, n in enumerate(graph.param_names) if n in written))
        self._handles: dict[str, Any] = {}
        self._body: Graph | None = None

    def construct(self, *inputs) -> Tensor | tuple[Tensor, ...]:
        tensors = self._check_inputs(inputs)
        arrays = [t._data for t in tensors]
        param_arrays = [p._data for p in self._graph_params]
        builder = current_builder()
        if builder is not None or any(isinstance(a, jax.core.Tracer) for a in arrays + param_arrays):
            # capturing or under a jax transform: evaluate (traceable, and it donates no buffer a capture restores)
            outs, updates = evaluate(self.graph, arrays, param_arrays)
        else:
            outs, updates = self._run(arrays, param_arrays)
        outs = [Tensor._from(jnp.asarray(o)) for o in outs]
        updates = [Tensor._from(u) for u in updates]
        if builder is not None:
            operands = [builder.operand(t) for t in tensors + self._graph_params]
            builder.add_node(CALL.make(self.call_body(), operands), outs + updates)
        for p, u in zip(self._updated, updates):
            p._rebind(u)
        return outs[0] if len(outs) == 1 else tuple(outs)

    def _check_inputs(self, inputs: tuple) -> list[Tensor]:
        expected = self.graph.inputs
        if len(inputs) != len(expected):
            raise OpError(f"GraphCell({self.graph.name}): expects {len(expected)} input(s) "
                          f"({', '.join(f'{v.name}: {v.abstract}' for v in expected)}), got {len(inputs)}",
                          loc=user_loc())
        tensors = [x if isinstance(x, Tensor) else Tensor(x) for x in inputs]
        sizes: dict[str, int] = {}  # symbolic dims (an export with Tensor(shape=[None, ...])) fit any size
        for i, (t, v) in enumerate(zip(tensors, expected)):
            shape, dtype = tuple(t._data.shape), np.dtype(t._data.dtype).name
            if not fits(v.abstract.shape, shape, sizes) or dtype != v.abstract.dtype:
                raise OpError(f"GraphCell({self.graph.name}): input {i} ({v.name}) must be {v.abstract} "
                              f"(the shape and dtype it was exported with), got {dtype}{list(shape)}", loc=user_loc())
        return tensors

    def _run(self, arrays: list, param_arrays: list) -> tuple[list, list]:
        """Run on the backend (built on first use); constant outputs are filled in here, as the runtime does."""
        backend = get_backend(self.backend)
        handle = self._handles.get(backend.name)
        if handle is None:
            try:
                handle = backend.build(self.graph, self._config)
            except MsxError:
                raise
            except Exception as exc:
                raise BackendError(f"backend {backend.name!r} failed to build graph {self.graph.name}: {exc}") from exc
            self._handles[backend.name] = handle
        rw = set(self._config.rw_params)
        ro_arrays = [a for i, a in enumerate(param_arrays) if i not in rw]
        rw_arrays = [param_arrays[i] for i in self._config.rw_params]
        outs, updates, _ = backend.run(handle, (arrays, ro_arrays, rw_arrays))
        computed = iter(outs)
        return [o.value if isinstance(o, Const) else next(computed) for o in self.graph.outputs], list(updates)

    def call_body(self) -> Graph:
        """The graph as a closed `Call` body: its parameters become inputs after the graph's own inputs."""
        if self._body is None:
            g = self.graph
            self._body = Graph(g.name, list(g.inputs) + list(g.params), [], g.nodes, g.outputs, g.updates)
        return self._body

    def extend_repr(self) -> str:
        ins = ", ".join(f"{v.name}: {v.abstract}" for v in self.graph.inputs)
        return f"graph={self.graph.name}({ins}), params={len(self._graph_params)}, backend={self.backend or 'default'}"


def _array(value) -> jax.Array:
    if isinstance(value, Tensor):
        return value._data
    return jnp.asarray(value)
