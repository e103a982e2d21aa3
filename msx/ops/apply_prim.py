"""Running a primitive: `apply(prim, inputs, attrs)`, eagerly now or recorded into the graph being captured.

Kept apart from the declaration (`msx.ops.primitive`) because the public views
built at declaration time (`msx.ops.api`: generated functions, operators,
class-style ops) call it, while the declaration calls them: with `apply` here,
below both, neither imports the other back. It reads only what every
primitive has (`name`, `impl`, `values`, `error`, `multiple_results`), so it
needs nothing of the `Primitive` class itself.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import jax
import numpy as np
from jax._src import core as _jax_core  # trace_state_clean: whether a jax trace is active

from .. import hostevents
from . import dispatch_mode as _modes
from ..eager import dispatch as _dispatch, lazy as _lazy, tape as _tape
from ..errors import MsxError, OpIndexError, user_loc
from ..recording import recording
from ..sizes import oom_error
from ..tensor import Tensor, _wrap

if TYPE_CHECKING:
    from .primitive import Primitive


def describe(x) -> str:
    """`float32(2, 5)` for arrays and tensors, the repr for Python values."""
    a = _aval(x)
    if hasattr(a, "shape") and hasattr(a, "dtype"):
        return f"{np.dtype(a.dtype).name}{tuple(a.shape)}"
    return repr(x)


def _aval(x):
    return x._data if isinstance(x, Tensor) else x


def range_error(prim: "Primitive", inputs, attrs: dict, reason: str) -> OpIndexError:
    """The error for inputs whose values `prim.values` refused."""
    got = ", ".join(describe(x) for x in inputs)
    err = OpIndexError(f"{prim.name}: {reason}; got ({got})")
    if recording.recorder is not None:
        err.stage = "capture"
    return err


def _known_values(inputs: tuple, arrays: list) -> list:
    """The arrays whose values a range rule may read: eagerly all of them; while capturing, only constants (a
    graph value is known only when the compiled graph runs, with other values than the call being captured)."""
    rec = recording.recorder
    if rec is None:
        return arrays
    return [jax.ShapeDtypeStruct(np.shape(a), getattr(a, "dtype", None)) if _graph_value(rec, x) else a
            for x, a in zip(inputs, arrays)]


def known_value(t):
    """`t`'s array when a range rule may read it (see `_known_values`), else only its shape and dtype: for layers
    and functions that check values in their own name (`Embedding`, `index_select`)."""
    return _known_values((t,), [t._data if isinstance(t, Tensor) else t])[0]


def _graph_value(rec, x) -> bool:
    """`x` is bound to a graph Var (an input, a Parameter, an op's result), not to a constant."""
    bound = rec.lookup(x) if isinstance(x, Tensor) and hasattr(rec, "lookup") else None
    return bound is not None and not hasattr(bound, "value")


_NO_ATTRS: dict = {}


def apply(prim: "Primitive", inputs: tuple, attrs: dict = _NO_ATTRS):
    """Run `prim` now on `inputs` (Tensors or Python scalars) and return Tensor(s).

    The hot path is one jax call plus wrapping; input validation costs nothing
    unless jax rejects the inputs, in which case `prim.error` explains why.
    While `msx.Profiler` runs, each eager call is an "msx.eager" host event.
    """
    if _modes.MODES and recording.recorder is None:  # an MsDispatchMode is active: its handler runs the op
        return _modes.intercept(prim, inputs, attrs, _apply_timed)
    if hostevents.ACTIVE and recording.recorder is None:
        with hostevents.span("msx.eager", prim.name):
            return _apply(prim, inputs, attrs)
    return _apply(prim, inputs, attrs)


def _abstract_capture(prim: "Primitive", recorder) -> bool:
    """Whether this call is recorded by a capture that never reads values (ast's, inside `jax.eval_shape`: every
    result there is a tracer, whatever the inputs) and the op declares its output types: then only the types
    are needed, and the impl need not be traced."""
    return prim.abstract is not None and getattr(recorder, "capture_values", "run") == "abstract" \
        and not _jax_core.trace_state_clean()


def _stand_ins(prim: "Primitive", arrays: list, attrs: dict):
    """Fresh traced values of the op's output types (zeros: an abstract capture's values are never read)."""
    types = prim.abstract(*arrays, **attrs)
    if not prim.multiple_results:
        return jax.lax.full(types.shape, 0, types.dtype)
    return tuple(jax.lax.full(t.shape, 0, t.dtype) for t in types)


def _apply_timed(prim: "Primitive", inputs: tuple, attrs: dict):
    """`apply` past the dispatch modes (what an `MsDispatchMode` handler's `func(...)` runs)."""
    if hostevents.ACTIVE and recording.recorder is None:
        with hostevents.span("msx.eager", prim.name):
            return _apply(prim, inputs, attrs)
    return _apply(prim, inputs, attrs)


def _apply(prim: "Primitive", inputs: tuple, attrs: dict):
    if _lazy.ENABLED[0] and recording.recorder is None and _tape.STATE.tape is None and not hostevents.ACTIVE:
        out = _lazy.defer(prim, inputs, attrs)  # a compiled op's pending result (forward replay), or None
        if out is not None:
            return out
    arrays = [x._data if isinstance(x, Tensor) else x for x in inputs]
    if prim.values is not None:
        reason = prim.values(*_known_values(inputs, arrays), **attrs)
        if reason is not None:
            raise range_error(prim, inputs, attrs, reason)
    recorder = recording.recorder
    try:  # eager: one cached executable per primitive (msx.eager.dispatch); a capture traces the impl
        if recorder is not None and prim.name in _dispatch.EAGER_ONLY and not getattr(recorder, "runs_effects", True):
            out = ()  # (a capture whose graph then runs this call too, bytecode's: printing now would print twice)
        else:
            out = _dispatch.run(prim, arrays, attrs) if recorder is None else (
                _stand_ins(prim, arrays, attrs) if _abstract_capture(prim, recorder)
                else prim.impl(*arrays, **attrs))
    except (TypeError, ValueError, IndexError) as exc:
        if isinstance(exc, MsxError):
            if recording.recorder is not None and exc.stage == "run":
                exc.stage = "capture"
            raise
        err = prim.error(inputs, attrs, exc)
        err.loc = user_loc()
        if recording.recorder is not None:
            err.stage = "capture"
        raise err from None
    except RuntimeError as exc:  # XLA's RESOURCE_EXHAUSTED: out of memory
        err = oom_error(prim.name, exc, lambda: ", ".join(describe(x) for x in inputs))
        if err is None:
            raise
        raise err from None
    result = tuple(_wrap(o) for o in out) if prim.multiple_results else _wrap(out)
    if recorder is not None:
        recorder.record(prim, inputs, attrs, result)
    else:
        tape = _tape.STATE.tape
        if tape is not None:  # eager autograd: a tape node (msx.eager.tape)
            tape.record(prim, arrays, attrs, result)
    return result
