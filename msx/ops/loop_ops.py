"""MindSpore 2.10's functional loops as class ops: `ops.WhileLoop`, `ops.ForiLoop`, `ops.Scan`.

Eagerly (PyNative) each is the Python loop MindSpore's own `__call__` runs: the user functions are called
on the values, a `ForiLoop` index is a Python int, a `Scan` collects the `y`s in a list, and an error inside
a user function comes out as MindSpore's `ValueError("Invalid loop_func ...")`. Inside an `msx.jit`
capture (every capture mode) a loop the graph must hold becomes one of the IR's loop nodes, built by
`msx.loop_capture` (above the capture builder; it fills `CAPTURE` here, the registry-entry way a lower
layer reaches a higher one): a `WhileLoop` whose condition is a tensor is a `While` node, a
`ForiLoop(..., unroll=False)` with int bounds and a `Scan(..., unroll=False)` are `Scan` nodes, a
`ForiLoop` with tensor bounds is a `While` node. `unroll=True` (MindSpore's default) unrolls the loop
while the graph is captured, as MindSpore's compiler does, so each iteration's ops are in the graph.
"""
from __future__ import annotations

import types
from typing import Any, Callable

from ..errors import CaptureError, MsxError, OpError, OpTypeError
from ..tensor import Tensor
from .api import SURFACE, PrimitiveOp
from .primitive import recording

CAPTURE: dict[str, Callable] = {}  # "while" / "fori" / "scan" -> the capture-time builder (msx.loop_capture)


def check_function(op: str, what: str, fn: Any) -> None:
    """MindSpore accepts a Python function or a bound method (not a Cell or another callable); source capture
    hands a `def`/`lambda` of the captured code over as its interpreted function."""
    if not isinstance(fn, (types.FunctionType, types.MethodType)) and type(fn).__name__ != "InterpretedFunction":
        raise OpTypeError(f"{op}: `{what}` must be a Python function or method, got {type(fn).__name__}")


def call_user(op: str, fn: Callable, *args: Any) -> Any:
    """`fn(*args)`, through the source-capture converter while one is active. Eagerly an error of the user
    function is MindSpore's PyNative `ValueError("Invalid loop_func ...")`; inside a capture it passes
    unchanged (a capture mode's own signals, "this needs a fallback", must reach it)."""
    converter = recording.converter
    if converter is not None or recording.recorder is not None:
        return fn(*args) if converter is None else converter(fn, args, {})
    try:
        return fn(*args)
    except (CaptureError, KeyboardInterrupt):
        raise
    except Exception as exc:  # noqa: BLE001 - MindSpore wraps every error of the loop function
        if isinstance(exc, MsxError) and exc.stage not in ("run", "capture"):
            raise
        raise OpError(f"{op}: Invalid loop_func, please check input arguments and return value, error info: "
                      f"{exc}") from exc


def _captured(kind: str) -> Callable | None:
    return CAPTURE.get(kind) if recording.recorder is not None else None


def _bound(op: str, what: str, x: Any) -> None:
    if isinstance(x, bool) or not isinstance(x, (int, Tensor)):
        raise OpTypeError(f"{op}: `{what}` must be an int or a Tensor, got {type(x).__name__}")


class WhileLoop(PrimitiveOp):
    """`ops.WhileLoop()(cond_func, loop_func, init_val)`: `while cond_func(val): val = loop_func(val)`.

    Under jit a tensor condition makes a `While` node carrying `init_val`'s tensors (and numbers, as tensors);
    a condition that is a Python bool is decided while capturing."""

    name = "WhileLoop"

    def __call__(self, cond_func, loop_func, init_val):
        check_function(self.name, "cond_func", cond_func)
        check_function(self.name, "loop_func", loop_func)
        capture = _captured("while")
        if capture is not None:
            return capture(cond_func, loop_func, init_val)
        val = init_val
        while call_user(self.name, cond_func, val):
            val = call_user(self.name, loop_func, val)
        return val


class ForiLoop(PrimitiveOp):
    """`ops.ForiLoop()(lower, upper, loop_func, init_val, unroll=True)`: `for i in range(lower, upper):
    val = loop_func(i, val)`. Under jit, int bounds with `unroll=False` make a `Scan` node (differentiable;
    the index is an int64 scalar tensor there), tensor bounds a `While` node."""

    name = "ForiLoop"

    def __call__(self, lower, upper, loop_func, init_val, unroll=True):
        _bound(self.name, "lower", lower)
        _bound(self.name, "upper", upper)
        check_function(self.name, "loop_func", loop_func)
        if not isinstance(unroll, bool):
            raise OpTypeError(f"{self.name}: `unroll` must be a bool, got {type(unroll).__name__}")
        capture = _captured("fori")
        if capture is not None:
            return capture(lower, upper, loop_func, init_val, unroll)
        val = init_val
        for i in range(int(lower), int(upper)):
            val = call_user(self.name, loop_func, i, val)
        return val


class Scan(PrimitiveOp):
    """`ops.Scan()(loop_func, init, xs, length=None, unroll=True)` -> `(carry, ys)`: `carry, y =
    loop_func(carry, x)` for each `x` of the list `xs` (or `length` times with `x=None` when `xs` is None),
    `ys` the list of the `y`s. Under jit, `unroll=False` makes one `Scan` node over the stacked `xs`."""

    name = "Scan"

    def __call__(self, loop_func, init, xs, length=None, unroll=True):
        check_function(self.name, "loop_func", loop_func)
        if xs is not None and not isinstance(xs, (list, tuple)):
            raise OpTypeError(f"{self.name}: `xs` must be a list, a tuple or None, got {type(xs).__name__}")
        if xs is None and (isinstance(length, bool) or not isinstance(length, int)):
            raise OpTypeError(f"{self.name}: with xs=None, `length` must be an int, got {type(length).__name__}")
        if not isinstance(unroll, bool):
            raise OpTypeError(f"{self.name}: `unroll` must be a bool, got {type(unroll).__name__}")
        xs = [None] * length if xs is None else list(xs)
        if not xs:
            return init, []
        capture = _captured("scan")
        if capture is not None and not unroll:
            return capture(loop_func, init, xs)
        carry, ys = init, []
        for x in xs:
            out = call_user(self.name, loop_func, carry, x)
            carry, y = split_step(self.name, out)
            ys.append(y)
        return carry, ys


def split_step(op: str, out: Any) -> tuple:
    """`loop_func`'s result as (carry, y): MindSpore's loop function returns a pair."""
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise OpError(f"{op}: Invalid loop_func, please check input arguments and return value, error info: "
                      f"loop_func must return a (carry, y) pair, got {type(out).__name__}")
    return out[0], out[1]


for _cls in (WhileLoop, ForiLoop, Scan):
    SURFACE.add("cls", _cls.__name__, _cls)
