"""MindSpore's deprecated gradient Cells `nn.Jvp` and `nn.Vjp` (`mindspore.nn.grad.cell_grad`): `Jvp(fn)(*inputs, v)`
-> (fn(*inputs), the Jacobian-vector product) and `Vjp(fn)(*inputs, v)` -> (fn(*inputs), the vector-Jacobian
product), over msx's `jvp` / `vjp` transforms (ops.jvp and ops.vjp are the ones to use in new code)."""
from __future__ import annotations

from typing import Any, Callable

from ..transforms import jvp, vjp
from .cell import Cell


class Jvp(Cell):
    """Forward mode: the derivative of `fn` at the inputs along the tangents `v` (one per input)."""

    def __init__(self, fn: Callable) -> None:
        super().__init__()
        self.fn = fn

    def construct(self, *args: Any) -> Any:
        inputs, v = args[:-1], args[-1]
        return jvp(self.fn, inputs, v)


class Vjp(Cell):
    """Reverse mode: `v` (shaped as fn's output) times the Jacobian of `fn` at the inputs."""

    def __init__(self, fn: Callable) -> None:
        super().__init__()
        self.fn = fn

    def construct(self, *args: Any) -> Any:
        inputs, v = args[:-1], args[-1]
        out, pullback = vjp(self.fn, *inputs)
        grads = pullback(v)
        return out, grads[0] if isinstance(grads, tuple) and len(grads) == 1 else grads
