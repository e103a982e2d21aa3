"""`capture_mode="ast"`: the function's source, interpreted into a graph (MindSpore's default capture).

The capture runs inside `jax.eval_shape`: arguments become Tensors with
abstract data, so no op computes anything and every op is recorded by the
GraphBuilder; the compiled graph then runs the first call too. Writes made
while capturing (Parameters rebound by an optimizer, BatchNorm statistics)
are undone afterwards: the graph's updates carry them.
"""
from __future__ import annotations

from typing import Any, Callable

import jax

from ...errors import CaptureError, CaptureFallback, MsxError
from ...ops import array_ops as A
from ...ops.primitive import apply
from ...tensor import Tensor
from ..modes import NOT_RUN
from ..builder import Captured, GraphBuilder
from ..failures import cannot_capture, raised_at_capture
from ..outputs import as_returned
from ..session import capture_session
from ..trace import input_names, is_input
from .checks import check_reverse_mode
from .failures import STAGE, Unsupported
from .interpreter import Interpreter
from .values import is_number
from ...runtime.signature import is_leaf as _is_leaf


def _is_tensor(x: Any) -> bool:
    return isinstance(x, Tensor)


def capture_ast(fn: Callable, args: tuple, kwargs: dict, name: str, config: Any) -> tuple[Captured, Any]:
    """Capture `fn(*args, **kwargs)` from its source; returns (what was captured, NOT_RUN)."""
    leaves, treedef = jax.tree_util.tree_flatten((args, kwargs), is_leaf=_is_leaf)
    positions = [i for i, x in enumerate(leaves) if is_input(x)]
    labels = input_names(fn, args, kwargs)
    if len(labels) != len(positions):
        labels = [f"arg{i}" for i in range(len(positions))]
    builder = GraphBuilder(name)
    builder.guards_allowed = False
    builder.capture_values = "abstract"
    interp = Interpreter()
    out_tree: list = []

    def trace(*arrays) -> None:
        new, first = list(leaves), {}
        for i, array, label in zip(positions, arrays, labels):
            tensor = Tensor._from(array)
            builder.add_input(tensor, label)
            # one Tensor passed twice is one object in the function too (a write through one name shows
            # through the other); the later input stays unused
            new[i] = first.setdefault(id(leaves[i]), tensor)
        call_args, call_kwargs = jax.tree_util.tree_unflatten(treedef, new)
        with builder.active():
            result = as_returned(interp.call(fn, tuple(call_args), dict(call_kwargs)),
                                 is_tuple=interp.context.is_tuple_like)
            outputs, tree = jax.tree_util.tree_flatten(result, is_leaf=_is_tensor)
            outputs = [_graph_output(builder, x) for x in outputs]
        builder.set_outputs(outputs)
        out_tree.append(tree)

    structs = [jax.ShapeDtypeStruct(leaves[i].shape, leaves[i]._data.dtype) for i in positions]
    try:
        with capture_session(interp.convert), interp:   # writes undone after: the graph's updates carry them
            jax.eval_shape(trace, *structs)
        check_reverse_mode(builder.graph)
    except Unsupported as exc:
        raise cannot_capture(exc.reason, exc.loc, config, STAGE) from None
    except CaptureError as exc:  # raised by library code outside interpreted source
        if isinstance(exc, CaptureFallback) and exc.stage == STAGE:
            raise
        raise cannot_capture(exc.message, exc.loc, config, STAGE) from None
    except MsxError as exc:
        raise raised_at_capture(exc, STAGE)
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

