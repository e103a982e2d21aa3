"""Per-primitive recompute (`ops.Primitive.recompute()`): a gradient recomputes a marked node's outputs.

MindSpore's graph mode keeps a marked op's outputs out of the backward pass and recomputes them from the
op's inputs there. jax decides what a gradient keeps only inside `jax.checkpoint`, by a policy that sees
each equation's primitive and parameters, never which node of msx's graph it came from; a name
(`checkpoint_name`) does not help either: the value it names is saved as the equation that made it, which
the policy keeps. So a marked node lowers to one equation of its own primitive, `msx_recompute` (a call of
the node's jaxpr), and a gradient over a graph with a marked node differentiates its forward under
`jax.checkpoint(policy=keep_all_but_marked)`: every equation's outputs are saved as in a plain `jax.vjp`,
but a `msx_recompute` equation's are recomputed (from its inputs, which are saved) where the backward
reads them. Its own gradient also reads only its inputs (the tangent is one more `msx_recompute` call that
recomputes the forward inside). Values are unchanged: the same jax implementation runs, once more.

A Cell's recompute (`Cell.recompute()`, `jax.checkpoint` of its construct) inside such a gradient would be
overruled by the outer policy (jax judges a nested checkpoint's equations by the outermost policy); while
the policy is on, `keeping_outputs(fn)` gives it the same meaning with `msx_recompute`: its inputs and its
outputs are kept, everything inside recomputed (`msx.nn._backward.checkpointed`).
"""
from __future__ import annotations

import contextlib
import threading
from typing import Any, Callable, Iterator, Sequence

import jax
import jax.extend as jex
import jax.numpy as jnp
import numpy as np
from jax.interpreters import ad, batching, mlir

from .graph import Graph

RECOMPUTE_P = jex.core.Primitive("msx_recompute")
RECOMPUTE_P.multiple_results = True


def _run(jaxpr, *args):
    return jex.core.jaxpr_as_fun(jaxpr)(*args)


RECOMPUTE_P.def_impl(lambda *args, jaxpr, keep: _run(jaxpr, *args))
RECOMPUTE_P.def_abstract_eval(lambda *avals, jaxpr, keep: list(jaxpr.out_avals))
mlir.register_lowering(RECOMPUTE_P, mlir.lower_fun(lambda *args, jaxpr, keep: _run(jaxpr, *args),
                                                   multiple_results=True))


def _zero_tangent(aval):
    if jnp.issubdtype(aval.dtype, jnp.inexact):
        return jnp.zeros(aval.shape, aval.dtype)
    return np.zeros(aval.shape, jax.dtypes.float0)


def _jvp(primals, tangents, *, jaxpr, keep):
    """The outputs by this equation; their tangents by a second `msx_recompute` call of the JVP, which runs the
    forward again inside: a backward of it reads the primal inputs only, never this equation's outputs."""
    out = RECOMPUTE_P.bind(*primals, jaxpr=jaxpr, keep=keep)
    live = [i for i, t in enumerate(tangents) if type(t) is not ad.Zero]
    floats = [i for i, a in enumerate(jaxpr.out_avals) if jnp.issubdtype(a.dtype, jnp.inexact)]
    n = len(primals)

    def tangent(*xs):
        full = [_zero_tangent(a) for a in jaxpr.in_avals]
        for i, t in zip(live, xs[n:]):
            full[i] = t
        outs = jax.jvp(lambda *a: _run(jaxpr, *a), tuple(xs[:n]), tuple(full))[1]
        return [outs[i] for i in floats]

    given = [tangents[i] for i in live]
    tan_jaxpr = jax.make_jaxpr(tangent)(*primals, *given)
    computed = iter(RECOMPUTE_P.bind(*primals, *given, jaxpr=tan_jaxpr, keep=False) if floats else ())
    return out, [next(computed) if i in floats else ad.Zero(a.to_tangent_aval())
                 for i, a in enumerate(jaxpr.out_avals)]


def _transpose(cts, *args, jaxpr, keep):
    """A tangent call is linear in its tangent inputs: their cotangents by `jax.vjp` of the call (the
    recomputation of the forward happens here, in the backward pass)."""
    undefined = [ad.is_undefined_primal(a) for a in args]
    known = [a for a, u in zip(args, undefined) if not u]

    def call(*ts):
        ts_, ks = iter(ts), iter(known)
        return _run(jaxpr, *[next(ts_) if u else next(ks) for u in undefined])

    cts = [_zero_tangent(a) if type(c) is ad.Zero else c for c, a in zip(cts, jaxpr.out_avals)]
    _, vjp = jax.vjp(call, *[jnp.zeros(a.aval.shape, a.aval.dtype) for a, u in zip(args, undefined) if u])
    grads = iter(vjp(cts))
    return [next(grads) if u else None for u in undefined]


def _batch(args, dims, *, jaxpr, keep):
    """Under `vmap` the call is batched as a whole (the mark goes on the batched call)."""
    dims = [d if isinstance(d, int) else None for d in dims]  # (jax marks an unbatched argument by None)
    out = recomputed(jax.vmap(lambda *a: _run(jaxpr, *a), in_axes=dims), list(args), keep=keep)
    return out, [0] * len(out)


ad.primitive_jvps[RECOMPUTE_P] = _jvp
ad.primitive_transposes[RECOMPUTE_P] = _transpose
batching.primitive_batchers[RECOMPUTE_P] = _batch


def recomputed(fn: Callable, args: Sequence, keep: bool = False) -> list:
    """`fn(*args)` (a list of arrays) as one `msx_recompute` equation: under `rematerialised` its outputs are
    recomputed where a backward reads them (`keep=True`: kept, only what is inside is recomputed). Arguments
    that are not arrays (Python scalars) are constants of the call. A random op recomputes the same values: its
    key is one of its inputs."""
    arrays = [i for i, a in enumerate(args) if isinstance(a, (jax.Array, np.ndarray, np.generic))]
    fixed = list(args)

    def over_arrays(*xs):
        full = list(fixed)
        for i, x in zip(arrays, xs):
            full[i] = x
        out = fn(*full)
        return list(out) if isinstance(out, (tuple, list)) else [out]

    ins = [args[i] for i in arrays]
    jaxpr = jax.make_jaxpr(over_arrays)(*ins)
    if jaxpr.effects:  # a side effect (a print, a callback) must run once: such an op is run, not recomputed
        return over_arrays(*ins)
    return RECOMPUTE_P.bind(*ins, jaxpr=jaxpr, keep=keep)  # (a ClosedJaxpr: its constants travel inside)


def keep_all_but_marked(prim, *_, **params) -> bool:
    """The checkpoint policy: save every equation's outputs but a marked node's (`msx_recompute`, keep=False)."""
    return prim is not RECOMPUTE_P or params.get("keep", False)


class _State(threading.local):
    depth = 0  # >0 while a gradient over a marked graph is being lowered


STATE = _State()


@contextlib.contextmanager
def _policy_on() -> Iterator[None]:
    STATE.depth += 1
    try:
        yield
    finally:
        STATE.depth -= 1


def rematerialised(fn: Callable) -> Callable:
    """`fn` (a function jax differentiates) under the recompute policy: marked nodes' outputs recomputed in the
    backward pass, everything else saved as without it."""
    ckpt = jax.checkpoint(fn, policy=keep_all_but_marked)

    def run(*args: Any):
        with _policy_on():
            return ckpt(*args)

    return run


def policy_on() -> bool:
    """Whether a gradient over a marked graph is being lowered (a nested checkpoint must use `recomputed`)."""
    return STATE.depth > 0


def has_marked(graph: Graph) -> bool:
    """Whether `graph` or any of its subgraphs holds a node marked for recompute."""
    return any(n.recomputed for n in graph.nodes) or any(n.recomputed for g in graph.subgraphs() for n in g.nodes)
