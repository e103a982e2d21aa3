"""`vjp_call` on the tape: run the differentiated function eagerly, then walk its tape backward.

`msx.autograd` calls `tape_vjp_call` when `usable(...)` says the tape can follow the call (PyNative, no
capture, no enclosing jax-path autodiff, concrete float leaves, a function not known to need the jax path).
Results, the order of state writes and the undo on error are those of the jax path. A `tape.Fallback`
escaping from here means: run the jax path instead (`remember_fallback` keeps that function on it).
"""
from __future__ import annotations

import weakref
from typing import Any, Callable

import jax
import jax.numpy as jnp

from .. import tensor as tensor_mod
from ..errors import GradError
from ..tensor import Tensor
from . import dispatch, tensor_hooks
from . import tape as tape_mod

_JAX_PATH: "weakref.WeakSet" = weakref.WeakSet()  # functions the tape could not follow once
_zeros_like = jax.jit(jnp.zeros_like)


def _fn_key(fn: Callable):
    return getattr(fn, "__func__", fn)


def remember_fallback(fn: Callable) -> None:
    try:
        _JAX_PATH.add(_fn_key(fn))
    except TypeError:  # not weakly referenceable: the tape is tried again next time
        pass


def usable(fn: Callable, args: tuple, positions: tuple, trainable: list) -> bool:
    """Whether the tape can differentiate this call (else the jax-vjp path does, with the same results)."""
    if tensor_mod._WRITE_LOGS:  # inside jax-path autodiff (grad of grad that fell back): leaves are tracers
        return False
    if tape_mod.STATE.tape is not None:
        raise tape_mod.Fallback("grad inside grad")  # the outer call must differentiate through this one
    try:
        if _fn_key(fn) in _JAX_PATH:
            return False
    except TypeError:
        pass
    if len(set(positions)) != len(positions) or len({id(p) for p in trainable}) != len(trainable):
        return False
    for x in [args[i]._data for i in positions] + [p._data for p in trainable]:
        if isinstance(x, jax.core.Tracer) or not isinstance(x, jax.Array) or not jnp.issubdtype(x.dtype, jnp.inexact):
            return False
    return True


def _to_arrays(out) -> Any:
    return jax.tree_util.tree_map(lambda t: t._data if isinstance(t, Tensor) else jnp.asarray(t), out,
                                  is_leaf=lambda t: isinstance(t, Tensor))


def tape_vjp_call(fn: Callable, args: tuple, kwargs: dict, positions: tuple, params: list, trainable: list,
                  has_aux: bool, sens=None):
    """(value, arg grads, param grads) as Tensors, like `autograd._vjp_call`, computed on the tape."""
    tape = tape_mod.Tape()
    new_args = list(args)
    slots = []
    for i in positions:
        a = tape_mod.alias(args[i]._data)
        new_args[i] = Tensor._from(a)
        slots.append(tape.leaf(a))
    saved = [p._data for p in trainable]
    aliases = [tape_mod.alias(a) for a in saved]
    slots += [tape.leaf(a) for a in aliases]
    log: list = []
    tensor_mod._WRITE_LOGS.append(log)
    try:
        for p, a in zip(trainable, aliases):
            p._data = a
        tape_mod.STATE.tape = tape
        dispatch.TAPING[0] += 1  # (under vjp_call's PARAMETER_LOCK: no other thread moves it meanwhile)
        try:
            out = fn(*new_args, **kwargs)
        finally:
            dispatch.TAPING[0] -= 1
            tape_mod.STATE.tape = None
        out = _to_arrays(out)
        if has_aux and (not isinstance(out, (tuple, list)) or len(out) < 2):
            raise GradError("has_aux=True needs the function to return (output, aux, ...)")
        main = out[0] if has_aux else out
        leaves = jax.tree_util.tree_leaves(main)
        if sens is None:
            seeds = [(x, None) for x in leaves if jnp.issubdtype(x.dtype, jnp.inexact)]  # None: ones
        else:
            cots = jax.tree_util.tree_leaves(_to_arrays(sens))
            if len(cots) != len(leaves) or any(c.shape != x.shape or c.dtype != x.dtype for c, x in zip(cots, leaves)):
                raise tape_mod.Fallback("sens does not match the output")  # the jax path words the error
            seeds = list(zip(leaves, cots))
    except BaseException:
        for obj, old in reversed(log):  # undo state writes of the failed call, as the jax path does
            obj._data = old
        for p, a, old in zip(trainable, aliases, saved):
            p._data = old if p._data is a else p._data
        raise
    finally:
        tensor_mod._WRITE_LOGS.pop()
    for p, a, old in zip(trainable, aliases, saved):
        if p._data is a:  # not written inside the call: the original array object comes back
            p._data = old
    grads = tape.backward(seeds, slots)
    like = [args[i] for i in positions] + trainable
    grads = tensor_hooks.run_on_leaves(like, grads)  # hooks registered on an input or a Parameter before the call
    grads = [Tensor._from(g if g is not None else _zeros_like(t._data)) for g, t in zip(grads, like)]
    arg_grads = tuple(grads[:len(positions)])
    by_id = {id(p): g for p, g in zip(trainable, grads[len(positions):])}
    param_grads = tuple(by_id[id(p)] if id(p) in by_id else Tensor._from(_zeros_like(p._data)) for p in params)
    value = jax.tree_util.tree_map(Tensor._from, (main,) + tuple(out[1:]) if has_aux else main)
    return value, arg_grads, param_grads
