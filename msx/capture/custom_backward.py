"""A Cell with its own `bprop`, called inside a capture: one graph node whose backward is that `bprop`.

Eagerly `msx.nn._backward.custom_backward_call` runs the Cell as one pure jax
function wrapped in `jax.custom_vjp`. Under capture the same function becomes
the implementation of a primitive recorded as one node: its inputs are the
call's tensors and the Cell's Parameters, so the graph stays a function of its
inputs, and every later stage (the `Grad` node's lowering, XLA) differentiates
it through the user's `bprop` — the gradient equals eager's and MindSpore's.
The node is process-local (like a Python `ops.Custom`): a graph holding it can
run and be compiled, not written to a file.
"""
from __future__ import annotations

import itertools
import weakref
from typing import Any, Callable

import jax
import jax.numpy as jnp

from ..errors import CaptureError, user_loc
from ..ops.primitive import REGISTRY, Primitive, apply, register
from ..tensor import Tensor
from .session import not_recording, swapped_parameters

_PRIMITIVES: dict[int, Primitive] = {}   # id(cell) -> its primitive, dropped with the Cell
_COUNTER = itertools.count()


def _is_tensor(x: Any) -> bool:
    return isinstance(x, Tensor)


def _primitive(cell: Any, run: Callable) -> Primitive:
    prim = _PRIMITIVES.get(id(cell))
    if prim is not None:
        return prim
    ref = weakref.ref(cell)
    name = f"{type(cell).__name__}.bprop#{next(_COUNTER)}"

    def impl(*arrays, static_args: tuple, kwargs: tuple, n_tensors: int):
        cell_ = ref()
        params = list(cell_.get_parameters())
        fixed, tensors = dict(static_args), iter(arrays[:n_tensors])
        args = tuple(fixed[i] if i in fixed else Tensor._from(next(tensors)) for i in range(n_tensors + len(fixed)))
        with not_recording(), swapped_parameters(params, arrays[n_tensors:]):
            out = run(cell_, args, dict(kwargs))
        flat, _TREES[name] = jax.tree_util.tree_flatten(out, is_leaf=_is_tensor)
        return tuple(t._data if isinstance(t, Tensor) else jnp.asarray(t) for t in flat)

    prim = register(Primitive(name, impl, category="custom", multiple_results=True,
                              doc=f"{type(cell).__name__}.construct, differentiated by its bprop"))
    _PRIMITIVES[id(cell)] = prim
    weakref.finalize(cell, _forget, id(cell), name)
    return prim


def _forget(key: int, name: str) -> None:
    _PRIMITIVES.pop(key, None)
    _TREES.pop(name, None)
    REGISTRY.pop(name, None)


def record_custom_backward(cell: Any, args: tuple, kwargs: dict, run: Callable) -> Any:
    """`cell(*args, **kwargs)` inside a capture as one node; `run(cell, args, kwargs)` is the eager
    custom-backward call (`msx.nn._backward.custom_backward_call`) the node's implementation runs."""
    if any(_is_tensor(x) for x in jax.tree_util.tree_leaves((kwargs, [a for a in args if not _is_tensor(a)]),
                                                            is_leaf=_is_tensor)):
        raise CaptureError(f"{type(cell).__name__}: a Cell with bprop takes its tensors as separate positional "
                           f"arguments under jit (bprop returns one gradient per positional input)", loc=user_loc())
    tensors = tuple(a for a in args if _is_tensor(a))
    attrs = {"static_args": tuple((i, a) for i, a in enumerate(args) if not _is_tensor(a)),
             "kwargs": tuple(sorted(kwargs.items())), "n_tensors": len(tensors)}
    prim = _primitive(cell, run)
    flat = apply(prim, tensors + tuple(cell.get_parameters()), attrs)
    return jax.tree_util.tree_unflatten(_TREES[prim.name], list(flat))


_TREES: dict[str, Any] = {}   # primitive name -> the output structure of its latest call
