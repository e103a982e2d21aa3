"""Evaluate a Graph with each primitive's jax implementation (ARCHITECTURE rule 5).

Run inside `jax.jit(...).lower(...)` this *is* StableHLO emission: the Python
loop over nodes runs at trace time only. Higher-order nodes lower to jax:
`Grad` to `jax.vjp`, `Cond` to `lax.cond`, `While` to `lax.while_loop`,
`Scan` to `lax.scan`, `Call` and `Fused` (a group of elementwise ops made by
the O1 fusion pass) to a nested evaluation of their body.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..ops.primitive import get_primitive
from .graph import Abstract, Const, Graph, Node
from .symbolic import jax_shape, plain_shape

Env = dict[int, Any]


def _read(env: Env, x):
    if isinstance(x, Const):
        return jnp.asarray(x.value) if isinstance(x.value, np.ndarray) else x.value
    return env[x.id]


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
        args = [_read(env, x) for x in node.inputs]
        with jax.named_scope(f"{node.op}#{i}"):  # HLO metadata op_name: maps XLA ops back to this node
            outs = run_node(node, args)
        for v, o in zip(node.outputs, outs):
            env[v.id] = o
    return [_read(env, x) for x in graph.outputs], [_read(env, x) for _, x in graph.updates]


def run_node(node: Node, args: list) -> list:
    """The node's outputs as a list, whatever its kind."""
    lower = HIGHER_ORDER.get(node.op)
    if lower is not None:
        return list(lower(node, args))
    prim = get_primitive(node.op)
    out = prim.impl(*args, **node.attrs)
    return list(out) if prim.multiple_results else [out]


# ---------------------------------------------------------------- higher-order nodes
def _ones_cotangent(x):
    if jnp.issubdtype(x.dtype, jnp.inexact):
        return jnp.ones(x.shape, x.dtype)
    return np.zeros(x.shape, jax.dtypes.float0)


def _zero_grad_like(x, g):
    return jnp.zeros(jnp.shape(x), jnp.result_type(x)) if getattr(g, "dtype", None) == jax.dtypes.float0 else g


def lower_grad(node: Node, args: list) -> list:
    """Grad node: outputs = body outputs + input grads + parameter grads + state written by the body.

    inputs: `n_args` differentiated inputs, `n_params` differentiated parameters,
    the body's free values, then `n_sens` sensitivities (cotangents; ones if none).
    """
    body = node.subgraphs["body"]
    n_diff = node.attrs["n_args"] + node.attrs["n_params"]
    has_aux, n_sens = node.attrs["has_aux"], node.attrs["n_sens"]
    sens = args[len(args) - n_sens:]
    args = args[:len(args) - n_sens]
    diff, free = list(args[:n_diff]), list(args[n_diff:])

    def pure(diff):
        outs, updates = _evaluate_sub("body", body, list(diff) + free)
        if has_aux:
            return outs[0], (tuple(outs[1:]), updates)
        return tuple(outs), ((), updates)

    main, vjp_fn, (aux, updates) = jax.vjp(pure, diff, has_aux=True)
    if n_sens:
        cot = sens[0] if has_aux else tuple(sens)
    else:
        cot = jax.tree_util.tree_map(_ones_cotangent, main)
    (grads,) = vjp_fn(cot)
    grads = [_zero_grad_like(x, g) for x, g in zip(diff, grads)]
    values = [main, *aux] if has_aux else list(main)
    return values + grads + list(updates)


def _evaluate_sub(key: str, graph: Graph, args: list) -> tuple[list, list]:
    """`evaluate` of a node's subgraph `key`, named so in the HLO metadata (`Cond#3/then/Mul#0`)."""
    with jax.named_scope(key):
        return evaluate(graph, args)


def lower_call(node: Node, args: list) -> list:
    outs, updates = _evaluate_sub("body", node.subgraphs["body"], args)
    return outs + updates


def lower_cond(node: Node, args: list) -> list:
    """Cond node: inputs = predicate + operands; both branches map operands to outputs."""
    pred, operands = args[0], tuple(args[1:])

    def branch(key: str) -> Callable:
        return lambda ops: tuple(_evaluate_sub(key, node.subgraphs[key], list(ops))[0])

    return list(lax.cond(jnp.asarray(pred).astype(bool).reshape(()), branch("then"), branch("else"), operands))


def lower_while(node: Node, args: list) -> list:
    """While node: inputs = initial carry; `cond` maps carry to a scalar bool, `body` carry to carry."""
    cond_g, body_g = node.subgraphs["cond"], node.subgraphs["body"]
    def keep_going(c):
        return jnp.asarray(_evaluate_sub("cond", cond_g, list(c))[0][0]).astype(bool).reshape(())

    out = lax.while_loop(keep_going, lambda c: tuple(_evaluate_sub("body", body_g, list(c))[0]), tuple(args))
    return list(out)


def lower_scan(node: Node, args: list) -> list:
    """Scan node: inputs = n_carry carries, then n_xs scanned inputs, then loop-invariant values.

    The body maps (carry..., x slices..., invariants...) to (carry..., y slices...);
    outputs are the final carry then the stacked ys.
    """
    body = node.subgraphs["body"]
    n_carry, n_xs = node.attrs["n_carry"], node.attrs["n_xs"]
    carry, xs, consts = tuple(args[:n_carry]), tuple(args[n_carry:n_carry + n_xs]), list(args[n_carry + n_xs:])

    def step(c, x):
        outs = _evaluate_sub("body", body, list(c) + list(x) + consts)[0]
        return tuple(outs[:n_carry]), tuple(outs[n_carry:])

    final, ys = lax.scan(step, carry, xs, length=node.attrs.get("length"), reverse=node.attrs.get("reverse", False))
    return list(final) + list(ys)


HIGHER_ORDER: dict[str, Callable[[Node, list], list]] = {
    "Grad": lower_grad, "Call": lower_call, "Cond": lower_cond, "While": lower_while, "Scan": lower_scan,
    "Fused": lower_call,
}


# ---------------------------------------------------------------- abstract evaluation
def to_struct(a: Abstract) -> jax.ShapeDtypeStruct:
    return jax.ShapeDtypeStruct(jax_shape(a.shape), np.dtype(a.dtype))


def from_struct(s) -> Abstract:
    name = np.dtype(s.dtype).name
    return Abstract(plain_shape(s.shape), name)


def infer_node(node: Node) -> list[Abstract]:
    """Re-derive a node's output abstracts from its inputs (primitive rule or lowering)."""
    in_avals = [x.value if isinstance(x, Const) else to_struct(x.abstract) for x in node.inputs]
    if node.op in HIGHER_ORDER:
        outs = jax.eval_shape(lambda *xs: run_node(node, list(xs)), *in_avals)
    else:
        prim = get_primitive(node.op)
        outs = prim.abstract_eval(in_avals, node.attrs)
        outs = list(outs) if prim.multiple_results else [outs]
    return [from_struct(o) for o in outs]
