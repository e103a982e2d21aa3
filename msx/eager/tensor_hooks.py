"""Tensor backward hooks (`Tensor.register_hook`): MindSpore's PyNative semantics, kept where gradients flow.

A hook `hook(grad) -> new grad` sees the whole gradient of its Tensor (the sum over every use, also the uses
made before it was registered) and may replace it; returning None keeps it. Hooks run in registration order;
`handle.remove()` (or `tensor.remove_hook(handle.id)`) takes one back. Where the gradient is taken:

- a Tensor that is a differentiated input or a Parameter when `grad` is called: its hooks run on its final
  gradient (`run_on_leaves`, on both of msx.autograd's paths);
- a Tensor computed inside the differentiated function, on the eager tape: the tape keeps its hook table
  (`Tape.hook`), and the hooks run when the backward walk has summed its cotangent, before it flows into the
  op that made it;
- elsewhere (the jax-vjp path, a `msx.jit` capture) the Tensor is rebound to an identity whose backward runs
  the hooks, so they see the gradient of the uses after registration: MindSpore's graph mode has the same
  rule ("register the hook before the Tensor is used"). `ops.tensor_own_methods` does that rebinding.

Hooks are kept beside the Tensor (a table by identity, emptied as the Tensor goes), not in it: a Tensor stays two slots.
"""
from __future__ import annotations

import itertools
import threading
import weakref
from typing import Any, Callable

import jax
import jax.numpy as jnp

from .. import versions
from ..errors import CaptureFallback
from ..recording import not_recording, recording
from ..tensor import Tensor

# id(Tensor) -> (a weak reference to it, {hook id: hook}); by identity: a Tensor's `==` is elementwise
_HOOKS: dict[int, tuple[weakref.ref, dict[int, Callable]]] = {}
_LOCK = threading.Lock()
_IDS = itertools.count(1)


class TensorHookHandle:
    """What `Tensor.register_hook` returns: `remove()` takes the hook back (MindSpore's `_TensorHookHandle`)."""

    def __init__(self, tensor: Tensor, hook_id: int) -> None:
        self.id = hook_id
        self.tensor_weakref = weakref.ref(tensor)

    def remove(self) -> None:
        tensor = self.tensor_weakref()
        if tensor is not None:
            remove(tensor, self.id)

    def __repr__(self) -> str:
        return f"TensorHookHandle(id={self.id})"


class GraphHookHandle(TensorHookHandle):
    """The handle of a hook registered inside a capture or a jax transform, where the hook is part of the
    value (`hooked_array`) and of the graph's `GradHook` node. Inside a capture the node stays, so `remove()`
    sends the call to Python (MindSpore refuses it in graph mode); under a jax transform alone the hook's
    backward sees `removed` and passes the gradient through."""

    def __init__(self, tensor: Tensor) -> None:
        super().__init__(tensor, 0)
        self.removed = False

    def remove(self) -> None:
        if recording.recorder is not None:
            raise CaptureFallback("Tensor.register_hook: a hook registered inside a jitted function cannot be "
                                  "removed there (MindSpore's graph-mode rule); the call runs in Python")
        self.removed = True


def add(tensor: Tensor, hook: Callable) -> TensorHookHandle:
    """Keep `hook` for `tensor`'s gradient (`Tensor.register_hook` also hands the table to a tape recording now)."""
    if not callable(hook):
        raise TypeError(f"Tensor.register_hook: expected a callable hook function, but got {type(hook).__name__}")
    hook_id = next(_IDS)
    with _LOCK:
        table = _table(tensor, create=True)
        table[hook_id] = hook
    versions.touch()  # compiled entries compare the hooks of their Tensors (`marks`) again
    return TensorHookHandle(tensor, hook_id)


def remove(tensor: Tensor, hook_id: int) -> None:
    if isinstance(hook_id, bool) or not isinstance(hook_id, int):
        raise TypeError(f"Tensor.remove_hook: expected the handle's int id, got {type(hook_id).__name__}")
    with _LOCK:
        _table(tensor).pop(hook_id, None)
    versions.touch()


def table(tensor: Tensor) -> dict[int, Callable]:
    """`tensor`'s hook table itself (hook id -> hook): a tape keeps it while the Tensor may go."""
    with _LOCK:
        return _table(tensor, create=True)


def hooks(tensor: Tensor) -> list[Callable]:
    """The hooks of `tensor`, in the order they run."""
    with _LOCK:
        return list(_table(tensor).values())


def has_hooks(tensor: Tensor) -> bool:
    entry = _HOOKS.get(id(tensor))
    return entry is not None and entry[0]() is tensor and bool(entry[1])


def any_registered() -> bool:
    """Whether any live Tensor has hooks (while one does, compiled entries check every call's Tensors)."""
    return bool(_HOOKS) and any(hs for _, hs in list(_HOOKS.values()))


def marks(tensors: list) -> tuple:
    """Which of `tensors` have hooks, and which: (position, hook ids) pairs; () when none has any."""
    if not _HOOKS:
        return ()
    return tuple((i, tuple(_table(t))) for i, t in enumerate(tensors) if has_hooks(t))


def _table(tensor: Tensor, create: bool = False) -> dict[int, Callable]:
    """`tensor`'s hooks by id (under `_LOCK`); the entry leaves with the Tensor."""
    entry = _HOOKS.get(id(tensor))
    if entry is not None and entry[0]() is tensor:
        return entry[1]
    if not create:
        return {}
    key = id(tensor)
    table: dict[int, Callable] = {}
    _HOOKS[key] = (weakref.ref(tensor, lambda ref: _forget(key, ref)), table)
    return table


def _forget(key: int, ref: weakref.ref) -> None:
    if _HOOKS.get(key, (None,))[0] is ref:  # not a later Tensor that took the same id
        _HOOKS.pop(key, None)


def call(hook: Callable, grad: Tensor) -> Tensor:
    """`hook(grad)`, checked (`checked`)."""
    return checked(hook, grad, hook(grad))


def checked(hook: Callable, grad: Tensor, new: Any) -> Tensor:
    """What `hook` returned for `grad`, as the gradient that flows on: None keeps `grad`; a replacement must
    have its shape (and gets its dtype)."""
    if new is None:
        return grad
    if not isinstance(new, Tensor):
        new = Tensor(new)
    if tuple(new.shape) != tuple(grad.shape):
        raise ValueError(f"Tensor.register_hook: the hook {getattr(hook, '__name__', hook)!r} returned a "
                         f"gradient of shape {tuple(new.shape)}; the Tensor's gradient has shape "
                         f"{tuple(grad.shape)}")
    return new.astype(grad.dtype) if new.dtype != grad.dtype else new


def with_backward(x: Any, free: tuple, backward: Callable[[tuple, Any], Any]) -> Any:
    """`x` unchanged, whose cotangent `ct` becomes `backward(free, ct)` in the backward pass (the `free` values
    get none): the one identity-with-a-backward of a Tensor hook, eager (`hooked_array`) and lowered
    (`GradHook`)."""
    @jax.custom_vjp
    def identity(x, *free):
        return x

    def forward(x, *free):
        return x, free

    def vjp(free, ct):
        return (jnp.asarray(backward(free, ct), ct.dtype), *(None for _ in free))

    identity.defvjp(forward, vjp)
    return identity(x, *free)


def hooked_array(array: Any, hook: Callable, handle: GraphHookHandle) -> Any:
    """`array` unchanged, with a backward that runs `hook` on its cotangent (nothing in it is recorded) unless
    `handle` was removed: the value a Tensor hooked inside a jax transform, or inside a trace capture's run,
    holds."""
    def backward(_, ct):
        if handle.removed:
            return ct
        with not_recording():
            return call(hook, Tensor._from(ct))._data

    return with_backward(array, (), backward)


def through(fns: list[Callable], grad: Tensor) -> Tensor:
    """`grad` through the hooks `fns`, in registration order."""
    for hook in fns:
        grad = call(hook, grad)
    return grad


def run(fns: list[Callable], grad: Any) -> Any:
    """`through` on a jax array (the tape's cotangents)."""
    return through(fns, Tensor._from(grad))._data


def run_on_leaves(tensors: list, grads: list) -> list:
    """Final gradients (Tensors, or the tape's arrays; None where none flows) through the hooks of the Tensors
    they belong to."""
    if not _HOOKS:  # (every grad call comes here: nothing to look up while no Tensor has hooks)
        return grads
    out = []
    for t, g in zip(tensors, grads):
        if g is not None and has_hooks(t):
            g = through(hooks(t), g) if isinstance(g, Tensor) else run(hooks(t), g)
        out.append(g)
    return out
