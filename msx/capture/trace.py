"""`capture_mode="trace"`: run the function eagerly once, recording every op into a Graph.

Python control flow is executed, not captured. Where it depends on a tensor's
value (`if loss > 0:`, `float(x)`, `x.asnumpy()`), the outcome seen at capture
time becomes a *guard* that the runtime re-checks on every call; when it comes
out differently the function is re-traced, so a later call never silently
takes the wrong branch.
"""
from __future__ import annotations

import inspect
from typing import Any, Callable

import jax

from ..tensor import Parameter, Tensor
from ..errors import MsxError
from .builder import Captured, GraphBuilder
from .outputs import as_returned
from .reads import watch_calls
from .failures import raised_at_capture


def _is_leaf(x) -> bool:
    return isinstance(x, Tensor)


def is_input(x) -> bool:
    """A graph input: a Tensor argument. A Parameter argument is state, read and written like any Parameter."""
    return isinstance(x, Tensor) and not isinstance(x, Parameter)


def input_names(fn: Callable, args: tuple, kwargs: dict) -> list[str]:
    """Readable names for the Tensor leaves of (args, kwargs): `x`, `batch.0`, ..."""
    try:
        bound = inspect.signature(fn).bind(*args, **kwargs)
        named = list(bound.arguments.items())
    except (TypeError, ValueError):
        named = [(f"arg{i}", a) for i, a in enumerate(args)] + list(kwargs.items())
    names: list[str] = []
    for name, value in named:
        leaves = jax.tree_util.tree_flatten_with_path(value, is_leaf=_is_leaf)[0]
        for path, leaf in leaves:
            if is_input(leaf):
                suffix = "".join(f".{getattr(k, 'idx', getattr(k, 'key', getattr(k, 'name', k)))}" for k in path)
                names.append(name + suffix)
    return names


def capture_trace(fn: Callable, args: tuple, kwargs: dict, name: str) -> tuple[Captured, Any]:
    """Run `fn` eagerly while recording; returns (what was captured, the eager result)."""
    builder = GraphBuilder(name)
    builder.watch_attribute_writes = True
    tensors = [x for x in jax.tree_util.tree_leaves((args, kwargs), is_leaf=_is_leaf) if is_input(x)]
    names = input_names(fn, args, kwargs)
    if len(names) != len(tensors):
        names = [f"arg{i}" for i in range(len(tensors))]
    for t, n in zip(tensors, names):
        builder.add_input(t, n)
    try:
        with builder.active(), watch_calls(fn, args, kwargs):
            result = as_returned(fn(*args, **kwargs))
    except MsxError as exc:
        raise raised_at_capture(exc, "capture")
    leaves, out_tree = jax.tree_util.tree_flatten(result, is_leaf=_is_leaf)
    builder.set_outputs(leaves)
    captured = builder.finish()
    captured.out_tree = out_tree
    return captured, result
