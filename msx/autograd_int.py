"""Gradients with respect to integer inputs, as MindSpore 2.10 gives them (never a silent 0).

jax gives integer values no cotangent (`float0`), so the main autodiff pass
(msx.autograd) has nothing to return for `grad_position` pointing at an int
Tensor. MindSpore differentiates integer arithmetic and hands back an integer
gradient: `grad(lambda a, b: a*b*7, (0, 1))(int32 1, int32 3)` is
`(int32 21, int32 7)`. msx computes it with a second pass in which those
inputs are float64 copies (exact for integers below 2**53) and the function
runs again (its state writes are undone, so BatchNorm statistics move once):

- an integral gradient is returned in the input's dtype, wrapping as
  MindSpore's integer arithmetic does (an int32 gradient of 2e10 wraps);
- an input that only indexes, labels or is compared has gradient 0, as in
  MindSpore (the float pass either gives 0 or cannot use a float there);
- a non-integral gradient (`a * 2.5`, `sqrt(a.astype(float32))`, `a / 3`) is
  refused with a `GradError`: MindSpore's answer depends on where it casts the
  cotangent back (2, 0 and 0.333 float32 in those three), so cast the input
  to float yourself.

Under jit capture the second pass runs once, at capture time, as a check:
a nonzero integer gradient there is refused (cast the input to float), a zero
one is recorded as zeros. bool inputs always get False (MindSpore's answer).
"""
from __future__ import annotations

from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax.extend.core import Literal

from . import tensor as tensor_mod
from .errors import GradError, user_loc
from .ops.primitive import recording
from .tensor import Tensor


def is_integer_input(t: Tensor) -> bool:
    return not jnp.issubdtype(t._data.dtype, jnp.inexact)


def integer_input_grads(fn: Callable, args: tuple, kwargs: dict, positions: tuple, arg_grads: tuple,
                        has_aux: bool, sens, captured: bool) -> tuple:
    """`arg_grads` with the entries of integer inputs replaced by MindSpore's integer gradients."""
    ints = [k for k, i in enumerate(positions) if is_integer_input(args[i]) and args[i]._data.dtype != np.bool_]
    if not ints:
        return arg_grads
    grads = _float_pass(fn, args, kwargs, [positions[k] for k in ints], has_aux, sens)
    out = list(arg_grads)
    for k, g in zip(ints, grads):
        i = positions[k]
        if g is None:  # the input cannot be a float where it is used (an index, a label): MindSpore gives 0
            continue
        g = np.asarray(g)
        if captured and np.any(np.isnan(g)):  # traced capture: a gradient that is not a constant zero
            g = np.ones(g.shape)
        if not np.all(np.isfinite(g)) or not np.array_equal(g, np.trunc(g)):
            raise GradError(f"gradient w.r.t. integer input {i} ({args[i]._data.dtype}) is not an integer "
                            f"({_show(g)}); MindSpore truncates it where it casts the cotangent back, which msx "
                            f"cannot know: cast the input to float (x.astype(ms.float32)) to get the float "
                            f"gradient", loc=user_loc())
        if captured:
            if np.any(g != 0):
                raise GradError(f"gradient w.r.t. integer input {i} ({args[i]._data.dtype}) under jit: msx computes "
                                f"integer gradients eagerly only; cast the input to float, or call the gradient "
                                f"outside jit", loc=user_loc())
            continue  # zero: the recorded zeros are right
        out[k] = Tensor._from(jnp.asarray(g.astype(np.int64).astype(args[i]._data.dtype)))
    return tuple(out)


def _show(g: np.ndarray) -> str:
    flat = g.reshape(-1)
    return ", ".join(f"{v:g}" for v in flat[:4]) + (", ..." if flat.size > 4 else "")


def _float_pass(fn: Callable, args: tuple, kwargs: dict, int_positions: list, has_aux: bool, sens) -> list:
    """d(output)/d(float64 copy of each integer input), or None for each when the function cannot take floats."""
    arrays = [jnp.asarray(args[i]._data, jnp.float64) for i in int_positions]

    def pure(float_arrays):
        new_args = list(args)
        for i, a in zip(int_positions, float_arrays):
            new_args[i] = Tensor._from(a)
        log: list = []
        tensor_mod._WRITE_LOGS.append(log)
        try:
            out = fn(*new_args, **kwargs)
        finally:
            tensor_mod._WRITE_LOGS.pop()
            for obj, old in reversed(log):  # this pass only measures: its state writes are undone
                obj._data = old
        if has_aux:
            out = out[0]
        return jax.tree_util.tree_map(lambda t: t._data if isinstance(t, Tensor) else jnp.asarray(t), out,
                                      is_leaf=lambda t: isinstance(t, Tensor))

    def grad_fn(float_arrays):
        main, vjp_fn = jax.vjp(pure, float_arrays)
        if sens is None:
            cot = jax.tree_util.tree_map(lambda m: jnp.ones(m.shape, m.dtype) if jnp.issubdtype(m.dtype, jnp.inexact)
                                         else np.zeros(m.shape, jax.dtypes.float0), main)
        else:
            cot = jax.tree_util.tree_map(lambda s, m: jnp.asarray(s._data if isinstance(s, Tensor) else s, m.dtype),
                                         sens, main, is_leaf=lambda t: isinstance(t, Tensor))
        return vjp_fn(cot)[0]

    previous = recording.recorder, recording.converter
    recording.recorder = recording.converter = None  # a measurement, not part of any captured graph
    try:
        if any(isinstance(a, jax.core.Tracer) for a in arrays):  # captured by tracing: no values to look at
            return _structural(grad_fn, arrays)
        grads = grad_fn(arrays)
    except Exception:  # noqa: BLE001 -- a float cannot go where this integer goes (index, label, bit op)
        return [None] * len(int_positions)
    finally:
        recording.recorder, recording.converter = previous
    return [None if getattr(g, "dtype", None) == jax.dtypes.float0 else np.asarray(g) for g in grads]


def _structural(grad_fn: Callable, arrays: list) -> list:
    """Without values: 0 where the gradient is a constant zero in its jaxpr, else NaN (refused by the caller)."""
    jaxpr = jax.make_jaxpr(grad_fn)(arrays).jaxpr
    zero_vars = set()
    for eqn in jaxpr.eqns:  # zeros jax instantiates for an input nothing differentiable reached
        if eqn.primitive.name in ("broadcast_in_dim", "convert_element_type", "reshape") and all(
                (isinstance(v, Literal) and not np.any(v.val)) or v in zero_vars for v in eqn.invars):
            zero_vars.update(eqn.outvars)
    out = []
    for v, a in zip(jaxpr.outvars, arrays):
        zero = (isinstance(v, Literal) and not np.any(v.val)) or v in zero_vars or \
            getattr(v.aval, "dtype", None) == jax.dtypes.float0
        out.append(np.zeros(a.shape) if zero else np.full(a.shape, np.nan))
    return out
