"""Saved-tensor hooks (`mindspore.saved_tensors_hooks`, `register_saved_tensors_hooks`,
`Cell.register_saved_tensors_hooks`): torch's pack/unpack hooks over the tensors autograd keeps for backward.

While a hook pair is active and the eager tape records (`msx.grad` / `value_and_grad` in PyNative), each op
the tape records hands the tensors its backward will read to `pack_hook(tensor) -> packed` (any object); the
tape keeps `packed` instead of the tensor, and when the backward walk reaches the op it calls
`unpack_hook(packed) -> Tensor` and differentiates with what that returns. Which tensors an op saves is found
from its VJP: an input whose value the VJP reads (both factors of `x * y`; `c` alone of `x * c` with `c`
constant; none of `x + y`), the rule MindSpore's bprops follow. Pairs nest; the innermost one is used. Packing
happens only while a gradient is taken (an op outside `grad` saves nothing), and unpacking in backward order.

msx's VJP recomputes an op's forward from its inputs, so an op MindSpore differentiates through its *output*
(`exp`, `relu`, `sigmoid`) hands msx's pack hook its input instead: hooks that give back what they were given
(offloading, compressing losslessly, logging) give MindSpore's gradients; hooks that change values change
the gradient of such an op differently.

Inside a compiled graph (`msx.jit`, GRAPH_MODE) the saved tensors are XLA's residuals, which no Python hook
can reach: the context manager is refused there as MindSpore refuses it ("not supported in Graph and Jit
mode"), and hooks registered by the decorator or on a Cell warn once that they do not run in the graph.
"""
from __future__ import annotations

import functools
import threading
import warnings
from typing import Any, Callable

from .. import tensor as tensor_mod
from ..recording import recording


class _State(threading.local):
    def __init__(self) -> None:
        self.stack: list[tuple[Callable, Callable]] = []


STATE = _State()
_WARNED: set[str] = set()
TAPE_STATE: list = []  # the eager tape's thread state (`tape.STATE`), set by `msx.eager.tape` at import


def current() -> tuple[Callable, Callable] | None:
    """The innermost active (pack_hook, unpack_hook), or None."""
    stack = STATE.stack
    return stack[-1] if stack else None


def _check(pack_hook: Any, unpack_hook: Any, what: str) -> None:
    for name, fn in (("pack_hook", pack_hook), ("unpack_hook", unpack_hook)):
        if not callable(fn):
            raise TypeError(f"{what}: {name} must be callable, but got {type(fn).__name__}")


def _in_graph() -> bool:
    return recording.recorder is not None or recording.converter is not None


def warn_in_graph(what: str) -> None:
    if what not in _WARNED:
        _WARNED.add(what)
        warnings.warn(f"{what}: saved-tensor hooks do not run inside a compiled graph (msx.jit / GRAPH_MODE): XLA "
                      f"keeps the backward's residuals itself; the gradients are those without hooks",
                      UserWarning, stacklevel=3)


def warn_opaque(what: str) -> None:
    """Called by the tape when a hook pair is active and it records `what` as one opaque node (a Cell with a
    custom backward, a compiled graph): jax keeps that node's residuals, so the hooks do not see them."""
    key = f"opaque:{what}"
    if key not in _WARNED:
        _WARNED.add(key)
        warnings.warn(f"saved_tensors_hooks: the tensors saved inside {what} are kept by jax (one opaque node of the "
                      f"tape) and do not go through the hooks", UserWarning, stacklevel=4)


class saved_tensors_hooks:  # noqa: N801  (MindSpore's name)
    """`with saved_tensors_hooks(pack_hook, unpack_hook):` packs the tensors the ops inside save for backward
    (module docstring). Not supported inside a compiled graph (MindSpore's rule): a TypeError there."""

    def __init__(self, pack_hook: Callable[[Any], Any], unpack_hook: Callable[[Any], Any]) -> None:
        _check(pack_hook, unpack_hook, "saved_tensors_hooks")
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook
        self._graph = "raise"

    def __enter__(self) -> "saved_tensors_hooks":
        if _in_graph():
            if self._graph == "raise":
                raise TypeError("saved_tensors_hooks is not supported in Graph and Jit mode (msx.jit); use "
                                "register_saved_tensors_hooks on the function, or call it in PyNative mode")
            warn_in_graph(self._graph)
        elif tensor_mod._WRITE_LOGS and TAPE_STATE and TAPE_STATE[0].tape is None:
            # a gradient is being taken by jax.vjp (the eager tape fell back, or a jax transform runs): jax keeps
            # the residuals, as a compiled graph does
            warn_in_graph("saved_tensors_hooks under a jax-path gradient")
        STATE.stack.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, exc_type, exc_val, exc_tb) -> None:
        STATE.stack.pop()


def hooks_for(pack_hook: Callable, unpack_hook: Callable, what: str) -> saved_tensors_hooks:
    """The context `register_saved_tensors_hooks` and `Cell.register_saved_tensors_hooks` enter: inside a graph
    it warns (once per `what`) rather than raising."""
    ctx = saved_tensors_hooks(pack_hook, unpack_hook)
    ctx._graph = what
    return ctx


def register_saved_tensors_hooks(pack_hook: Callable[[Any], Any], unpack_hook: Callable[[Any], Any]) -> Callable:
    """`@register_saved_tensors_hooks(pack_hook, unpack_hook)`: the function runs with the hooks active (what
    `with saved_tensors_hooks(...)` inside it would do). MindSpore applies it in graph mode only; msx applies it
    eagerly, where the tape can run the hooks, and warns inside a compiled graph, where it cannot."""
    _check(pack_hook, unpack_hook, "register_saved_tensors_hooks")

    def decorate(fn: Callable) -> Callable:
        if not callable(fn):
            raise TypeError(f"register_saved_tensors_hooks: expected a function to decorate, got {type(fn).__name__}")

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with hooks_for(pack_hook, unpack_hook, "register_saved_tensors_hooks"):
                return fn(*args, **kwargs)

        return wrapper

    return decorate
