"""Cell hooks: forward / backward / state-dict hooks and the handles that remove them (torch's and
MindSpore 2.x's protocol); `HookMixin` is part of `Cell`."""
from __future__ import annotations

import itertools
from collections import OrderedDict
from typing import Any, Callable

from .. import versions
from ..ignored_args import not_honoured

_handle_ids = itertools.count()


class _Hooks:
    """A Cell's registered hooks, each an ordered {handle id: hook}; created on the first registration so a
    Cell without hooks pays one dict lookup per call."""

    def __init__(self) -> None:
        self.forward_pre: OrderedDict = OrderedDict()
        self.forward: OrderedDict = OrderedDict()
        self.backward: OrderedDict = OrderedDict()
        self.backward_pre: OrderedDict = OrderedDict()
        self.state_dict_pre: OrderedDict = OrderedDict()
        self.state_dict_post: OrderedDict = OrderedDict()
        self.load_state_dict_pre: OrderedDict = OrderedDict()
        self.load_state_dict_post: OrderedDict = OrderedDict()


class RemovableHandle:
    """What a `register_*_hook` returns: `handle.remove()` unregisters the hook."""

    def __init__(self, table: OrderedDict, hook: Any, prepend: bool = False) -> None:
        self.id = next(_handle_ids)
        self._table = table
        table[self.id] = hook
        if prepend:
            table.move_to_end(self.id, last=False)
        versions.touch()  # a compiled graph of this Cell ran (or inlined) the old set of hooks

    def remove(self) -> None:
        self._table.pop(self.id, None)
        versions.touch()

    def __enter__(self) -> "RemovableHandle":
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


def _check_hook(name: str, fn: Any) -> None:
    if not callable(fn):
        raise TypeError(f"{name}: hook_fn must be a Python function, got {type(fn).__name__}")


class HookMixin:
    """The `register_*_hook` methods of `Cell`."""

    def _hook_tables(self) -> _Hooks:
        if self._hooks is None:
            object.__setattr__(self, "_hooks", _Hooks())
        return self._hooks

    def register_forward_pre_hook(self, hook_fn: Callable, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """`hook_fn(cell, args)` (or `(cell, args, kwargs)`) runs before construct and may return new args."""
        _check_hook("register_forward_pre_hook", hook_fn)
        return RemovableHandle(self._hook_tables().forward_pre, (hook_fn, with_kwargs), prepend)

    def register_forward_hook(self, hook_fn: Callable, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        """`hook_fn(cell, args, output)` (or `(cell, args, kwargs, output)`) runs after construct and may
        return a new output."""
        _check_hook("register_forward_hook", hook_fn)
        not_honoured(f"{type(self).__name__}.register_forward_hook", "always_call", always_call, False,
                     "the hook runs after construct returns, not when it raises")
        return RemovableHandle(self._hook_tables().forward, (hook_fn, with_kwargs), prepend)

    def register_backward_pre_hook(self, hook_fn: Callable) -> RemovableHandle:
        """`hook_fn(cell, grad_output)` runs when the output's gradient reaches this Cell, and may return a new
        grad_output (a tuple)."""
        _check_hook("register_backward_pre_hook", hook_fn)
        return RemovableHandle(self._hook_tables().backward_pre, hook_fn)

    def register_backward_hook(self, hook_fn: Callable) -> RemovableHandle:
        """`hook_fn(cell, grad_input, grad_output)` runs once the gradients of the Cell's inputs are known, and
        may return new grad_input (a tuple)."""
        _check_hook("register_backward_hook", hook_fn)
        return RemovableHandle(self._hook_tables().backward, hook_fn)

    @property
    def enable_backward_hook(self) -> bool:
        return self._hooks is not None and bool(self._hooks.backward or self._hooks.backward_pre)

    def register_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        """`hook(cell, prefix, keep_vars)` runs before `state_dict` collects this Cell's state."""
        _check_hook("register_state_dict_pre_hook", hook)
        return RemovableHandle(self._hook_tables().state_dict_pre, hook)

    def register_state_dict_post_hook(self, hook: Callable) -> RemovableHandle:
        """`hook(cell, state_dict, prefix, local_metadata)` runs after; it may edit `state_dict` in place."""
        _check_hook("register_state_dict_post_hook", hook)
        return RemovableHandle(self._hook_tables().state_dict_post, hook)

    def register_load_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        """`hook(cell, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)`
        runs before `load_state_dict` reads this Cell's entries."""
        _check_hook("register_load_state_dict_pre_hook", hook)
        return RemovableHandle(self._hook_tables().load_state_dict_pre, hook)

    def register_load_state_dict_post_hook(self, hook: Callable) -> RemovableHandle:
        """`hook(cell, incompatible_keys)` runs after `load_state_dict`; it may edit the key lists in place."""
        _check_hook("register_load_state_dict_post_hook", hook)
        return RemovableHandle(self._hook_tables().load_state_dict_post, hook)
