"""`capture_mode="ast"`: the function's source, interpreted into a graph (MindSpore's default capture).

The capture runs inside `jax.eval_shape`: arguments become Tensors with
abstract data, so no op computes anything and every op is recorded by the
GraphBuilder; the compiled graph then runs the first call too. Writes made
while capturing (Parameters rebound by an optimizer, BatchNorm statistics)
are undone afterwards: the graph's updates carry them.
"""
from __future__ import annotations

import sys
from typing import Any, Callable

import jax

from ... import tensor as tensor_mod
from ...errors import CaptureError, CaptureFallback, MsxError
from ...ops import array_ops as A
from ...ops.primitive import apply, recording
from ...tensor import Tensor
from .. import NOT_RUN
from ..builder import Captured, GraphBuilder
from ..trace import input_names, is_input
from .checks import check_reverse_mode
from .failures import STAGE, Unsupported
from .interpreter import Interpreter
from .values import is_number

RECURSION_LIMIT = 8000  # interpreting user code takes many Python frames per user call


def _is_tensor(x: Any) -> bool:
    return isinstance(x, Tensor)


def capture_ast(fn: Callable, args: tuple, kwargs: dict, name: str, config: Any) -> tuple[Captured, Any]:
    """Capture `fn(*args, **kwargs)` from its source; returns (what was captured, NOT_RUN)."""
    from ...runtime.signature import is_leaf as _is_leaf

    leaves, treedef = jax.tree_util.tree_flatten((args, kwargs), is_leaf=_is_leaf)
    positions = [i for i, x in enumerate(leaves) if is_input(x)]
    labels = input_names(fn, args, kwargs)
    if len(labels) != len(positions):
        labels = [f"arg{i}" for i in range(len(positions))]
    builder = GraphBuilder(name)
    builder.guards_allowed = False
    interp = Interpreter()
    out_tree: list = []

    def trace(*arrays) -> None:
        new = list(leaves)
        for i, array, label in zip(positions, arrays, labels):
            new[i] = Tensor._from(array)
            builder.add_input(new[i], label)
        call_args, call_kwargs = jax.tree_util.tree_unflatten(treedef, new)
        with builder.active():
            result = interp.call(fn, tuple(call_args), dict(call_kwargs))
            outputs, tree = jax.tree_util.tree_flatten(result, is_leaf=_is_tensor)
            outputs = [_graph_output(builder, x) for x in outputs]
        builder.set_outputs(outputs)
        out_tree.append(tree)

    structs = [jax.ShapeDtypeStruct(leaves[i].shape, leaves[i]._data.dtype) for i in positions]
    log: list = []
    tensor_mod._WRITE_LOGS.append(log)
    converter, limit = recording.converter, sys.getrecursionlimit()
    recording.converter = interp.convert
    sys.setrecursionlimit(max(limit, RECURSION_LIMIT))
    try:
        with interp:
            jax.eval_shape(trace, *structs)
        check_reverse_mode(builder.graph)
    except Unsupported as exc:
        raise _cannot_capture(exc.reason, exc.loc, config) from None
    except CaptureError as exc:  # raised by library code outside interpreted source
        if isinstance(exc, CaptureFallback) and exc.stage == STAGE:
            raise
        raise _cannot_capture(exc.message, exc.loc, config) from None
    except MsxError as exc:
        if exc.stage == "capture":
            exc.stage = STAGE
        raise
    finally:
        recording.converter = converter
        sys.setrecursionlimit(limit)
        tensor_mod._WRITE_LOGS.pop()
        for obj, old in reversed(log):  # the graph's updates carry these writes
            obj._data = old
    captured = builder.finish()
    captured.out_tree = out_tree[0]
    return captured, NOT_RUN


def _graph_output(builder: GraphBuilder, x: Any) -> Any:
    if isinstance(x, Tensor):
        if not isinstance(x._data, jax.core.Tracer) and not builder.knows(x):
            return apply(A.identity, (x,))  # a constant Tensor still comes back as a Tensor
        return x
    if is_number(x):
        return x
    raise Unsupported(f"the function returns a {type(x).__name__}; a graph returns tensors and numbers (in "
                      f"tuples, lists and dicts)")


def _cannot_capture(reason: str, loc, config) -> CaptureError:
    if getattr(config, "fullgraph", False):
        return CaptureError(f"{reason} (fullgraph=True: the whole function must be one graph; with "
                            f"fullgraph=False it would run eagerly instead)", stage=STAGE, loc=loc)
    return CaptureFallback(reason, stage=STAGE, loc=loc)
