"""Evaluate a Graph with each primitive's jax implementation (ARCHITECTURE rule 5).

Run inside `jax.jit(...).lower(...)` this *is* StableHLO emission: the Python
loop over nodes runs at trace time only. Each node runs its op's rule in
`LOWERINGS`, this interpreter's table: an op with a jax `impl` lowers by
running it (the rule the table derives from the declaration); an op over
subgraphs by the rule registered beside its declaration (`msx/ir/control.py`:
`Grad` to `jax.vjp`, `Cond` to `lax.cond`, ...), which evaluates its
subgraphs through this interpreter.

`infer_node` re-derives a node's output abstracts by the op's rule in
`ABSTRACT_EVAL`: for an op with an `impl`, its `abstract_eval`
(`jax.eval_shape`), cached by (op, input avals, attrs) since the verifier asks
the same question for every layer of a model; for an op over subgraphs, its
structural rule (no jax at all).
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from ..ops.primitive import get_primitive
from ..ops.rule_tables import RuleTable, by_impl
from .graph import Abstract, Const, Graph, Node
from .recompute import recomputed
from .symbolic import jax_shape, plain_shape

Env = dict[int, Any]


def _read(env: Env, x):
    if isinstance(x, Const):
        return jnp.asarray(x.value) if isinstance(x.value, np.ndarray) else x.value
    return env[x.id]


def _read_input(env: Env, x):
    """A node's input; a float constant that is zero, infinite or NaN comes out opaque to XLA (see `_opaque`)."""
    if type(x) is Const and type(x.value) is float:
        v = x.value
        if v == 0.0 or not math.isfinite(v):
            return _opaque(v)
    return _read(env, x)


def _opaque(v: float) -> jax.Array:
    """`v` as a weakly typed scalar that XLA cannot constant-fold.

    XLA's CPU code generation gives garbage, not NaN, for `exp` of a value it folds to a NaN constant
    (`jax.jit(lambda h: jnp.exp(h * jnp.float32(np.nan)))` on jax 0.10), and its algebraic simplifier makes
    such a NaN out of `x / -0.0 * -0.0`. Eager dispatch passes Python floats as data, so it never meets
    this; graphs pass these values behind an optimization barrier, built from a zero where the value is
    not finite (a barrier around a NaN or infinity itself is still folded). Found by the differential
    fuzzer (seed 115137223)."""
    if v == 0.0:
        return jax.lax.optimization_barrier(v)
    zero = jax.lax.optimization_barrier(0.0)
    return zero / zero if math.isnan(v) else math.copysign(1.0, v) / zero


def evaluate(graph: Graph, inputs: Sequence, params: Sequence = ()) -> tuple[list, list]:
    """(outputs, parameter updates) of `graph` on arrays (concrete or jax tracers)."""
    if len(inputs) != len(graph.inputs) or len(params) != len(graph.params):
        raise ValueError(f"graph {graph.name}: expected {len(graph.inputs)} inputs and {len(graph.params)} params, "
                         f"got {len(inputs)} and {len(params)}")
    env: Env = {}
    for v, x in zip(graph.inputs, inputs):
        env[v.id] = x
    for v, x in zip(graph.params, params):
        env[v.id] = x
    for i, node in enumerate(graph.nodes):
        args = [_read_input(env, x) for x in node.inputs]
        with jax.named_scope(f"{node.op}#{i}"):  # HLO metadata op_name: maps XLA ops back to this node
            outs = run_node(node, args)
        for v, o in zip(node.outputs, outs):
            env[v.id] = o
    return [_read(env, x) for x in graph.outputs], [_read(env, x) for _, x in graph.updates]


def run_node(node: Node, args: list) -> list:
    """The node's outputs as a list: its op's rule in `LOWERINGS` (`_lower_first_order` for an op with an impl)."""
    def sub(key: str, sub_args: list) -> tuple[list, list]:
        with jax.named_scope(key):  # HLO metadata names the subgraph: `Cond#3/then/Mul#0`
            return evaluate(node.subgraphs[key], sub_args)

    return list(LOWERINGS.rule_for(node.op)(node, args, sub))


def _lower_first_order(node: Node, args: list, sub) -> list:
    """A first-order primitive lowers by running its jax implementation (it has no subgraphs for `sub`)."""
    prim = get_primitive(node.op)
    attrs = node.op_attrs
    if node.recomputed:  # one `msx_recompute` equation: a gradient's policy recomputes it (msx.ir.recompute)
        return recomputed(lambda *xs: prim.impl(*xs, **attrs), args)
    out = prim.impl(*args, **attrs)
    return list(out) if prim.multiple_results else [out]


# `(node, args, sub) -> outputs`, run inside `jax.jit` (emission); `sub(key, args) -> (outputs, updates)`
# evaluates subgraph `key`. Filled for the ops over subgraphs beside their declarations (msx/ir/control.py).
LOWERINGS = RuleTable("lower", "msx/ir/interpret.py (LOWERINGS), beside the op's declaration",
                      derived=by_impl(_lower_first_order))


# ---------------------------------------------------------------- abstract evaluation
def to_struct(a: Abstract) -> jax.ShapeDtypeStruct:
    return jax.ShapeDtypeStruct(jax_shape(a.shape), np.dtype(a.dtype))


def from_struct(s) -> Abstract:
    name = np.dtype(s.dtype).name
    return Abstract(plain_shape(s.shape), name)


def infer_node(node: Node) -> list[Abstract]:
    """Re-derive a node's output abstracts from its inputs: its op's rule in `ABSTRACT_EVAL` (structural for an
    op over subgraphs, `_infer_first_order` for an op with an impl)."""
    return list(ABSTRACT_EVAL.rule_for(node.op)(node))


def _infer_first_order(node: Node) -> list[Abstract]:
    """`jax.eval_shape` of the primitive's implementation, cached by (op, input avals, attrs)."""
    prim = get_primitive(node.op)
    key = _cache_key(node, prim)
    if key is not None:
        hit = _INFER_CACHE.get(key)
        if hit is not None:
            return list(hit)
    in_avals = [x.value if isinstance(x, Const) else to_struct(x.abstract) for x in node.inputs]
    outs = prim.abstract_eval(in_avals, node.op_attrs)
    outs = [from_struct(o) for o in (outs if prim.multiple_results else [outs])]
    if key is not None:
        if len(_INFER_CACHE) >= _INFER_CACHE_SIZE:
            _INFER_CACHE.clear()  # a crude bound: a long session's graphs never grow it without limit
        _INFER_CACHE[key] = tuple(outs)
    return outs


# `(node) -> [Abstract]` from the node's input abstracts and subgraphs, raising `ValueError` with a reason when
# the layout is wrong (subgraph arity, mismatched branch types); the verifier runs it. Filled for the ops over
# subgraphs beside their declarations (msx/ir/control.py).
ABSTRACT_EVAL = RuleTable("abstract_eval", "msx/ir/interpret.py (ABSTRACT_EVAL), beside the op's declaration",
                          derived=by_impl(_infer_first_order))


_INFER_CACHE: dict[tuple, tuple[Abstract, ...]] = {}
_INFER_CACHE_SIZE = 50_000
_SMALL = 64  # constant arrays up to this many elements are part of the cache key (by value); larger ones opt out


def _cache_key(node: Node, prim) -> tuple | None:
    """(primitive, input avals, attrs) as a hashable key; None when an input or attr cannot be keyed cheaply."""
    ins = []
    for x in node.inputs:
        if isinstance(x, Const):
            v = x.value
            if isinstance(v, np.ndarray):
                if v.size > _SMALL:
                    return None
                ins.append(("a", v.shape, v.dtype.str, v.tobytes()))
            else:
                ins.append(("s", type(v), v))
        else:
            ins.append(x.abstract)
    attrs = _freeze(node.attrs)
    if attrs is None:
        return None
    key = (prim, tuple(ins), attrs)  # the object, not its name: a custom op redefined under a name is new
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _freeze(v):
    """A hashable stand-in for an attr value (type-tagged so 1, 1.0 and True differ), None if there is none."""
    if isinstance(v, dict):
        items = [(k, _freeze(x)) for k, x in v.items()]
        return None if any(x is None for _, x in items) else ("d", tuple(items))
    if isinstance(v, (list, tuple)):
        items = [_freeze(x) for x in v]
        return None if any(x is None for x in items) else (type(v).__name__, tuple(items))
    if isinstance(v, np.ndarray):
        return ("a", v.shape, v.dtype.str, v.tobytes()) if v.size <= _SMALL else None
    if v is None or isinstance(v, (bool, int, float, complex, str, np.generic)):
        return (type(v), v)
    return None
