"""Cell hooks: forward / backward / state-dict hooks and the handles that remove them (torch's and
MindSpore 2.x's protocol); `HookMixin` is part of `Cell`."""
from __future__ import annotations

import contextlib
import itertools
from collections import OrderedDict
from typing import Any, Callable, Iterator

from .. import versions
from ..eager import saved_hooks
from ..ignored_args import not_honoured
from ..tensor import Parameter, Tensor

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
        # hooks around construct (every table stays a dict: guards compare the tables' contents):
        # "saved" -> (pack_hook, unpack_hook), "params" -> the hook of every Parameter (the callable form)
        self.around: OrderedDict = OrderedDict()
        self.param_forward: OrderedDict = OrderedDict()  # id(Parameter) -> (Parameter, hook): the list form

    def around_construct(self) -> bool:
        return bool(self.around) or bool(self.param_forward)


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

    # ------------------------------------------------------------ hooks around construct
    def register_saved_tensors_hooks(self, pack_hook: Callable, unpack_hook: Callable) -> None:
        """While `construct` runs, the tensors its ops save for backward go through `pack_hook` and come back
        through `unpack_hook` (`msx.saved_tensors_hooks` around construct; a later call replaces the pair)."""
        saved_hooks._check(pack_hook, unpack_hook, f"{type(self).__name__}.register_saved_tensors_hooks")
        self._hook_tables().around["saved"] = (pack_hook, unpack_hook)
        versions.touch()

    def register_parameter_forward_hook(self, hook: Callable | list) -> None:
        """While `construct` runs, a Parameter it reads is `hook(param)` instead (the gradient flows through the
        hook to the Parameter). `hook` is one callable for every Parameter of this Cell and its sub-Cells, or a
        list of `{"params": [Parameter, ...], "hook": callable}`. MindSpore applies these in graph mode only;
        msx applies them eagerly and under `msx.jit` alike."""
        tables = self._hook_tables()
        if callable(hook):
            tables.around["params"] = hook
        elif isinstance(hook, (list, tuple)):
            entries = {}
            for item in hook:
                if not isinstance(item, dict) or "params" not in item or "hook" not in item:
                    raise ValueError("Each dictionary in the hook list must contain both params and hook keys.")
                fn, params = item["hook"], item["params"]
                if not callable(fn):
                    raise TypeError(f"The hook must be a callable function, but got {type(fn)}.")
                for p in (params if isinstance(params, (list, tuple)) else [params]):
                    if not isinstance(p, Parameter):
                        raise TypeError(f"All items in params must be of type 'Parameter', but got {type(p)}.")
                    entries[id(p)] = (p, fn)
            tables.param_forward.update(entries)
        else:
            raise TypeError(f"Hook must be a callable function or a list of dictionaries, but got {type(hook)}.")
        versions.touch()

    def _construct_around(self, hooks: _Hooks, args: tuple, kwargs: dict) -> Any:
        """`run_construct` inside the saved-tensor hooks and with the Parameter forward hooks applied."""
        with contextlib.ExitStack() as stack:
            if "saved" in hooks.around:
                stack.enter_context(saved_hooks.hooks_for(*hooks.around["saved"], "Cell.register_saved_tensors_hooks"))
            if "params" in hooks.around or hooks.param_forward:
                stack.enter_context(_hooked_parameters(self, hooks))
            return self.run_construct(args, kwargs)


@contextlib.contextmanager
def _hooked_parameters(cell: Any, hooks: _Hooks) -> Iterator[None]:
    """Each hooked Parameter of `cell`'s tree is read as `hook(param)` while construct runs: its entry in the
    owning Cell's parameter table is swapped for the hook's Tensor and put back after (also on error)."""
    swapped: list[tuple[dict, str, Parameter]] = []
    made: dict[int, Tensor] = {}
    try:
        for _, owner in cell.cells_and_names():
            table = owner._params
            for name, p in list(table.items()):
                if not isinstance(p, Parameter):
                    continue
                hook = hooks.param_forward.get(id(p), (None, hooks.around.get("params")))[1]
                if hook is None:
                    continue
                if id(p) not in made:
                    out = hook(p)
                    if not isinstance(out, Tensor):
                        raise TypeError(f"{type(cell).__name__}.register_parameter_forward_hook: the hook must return "
                                        f"a Tensor for Parameter '{p.name}', got {type(out).__name__}")
                    made[id(p)] = out
                swapped.append((table, name, p))
                table[name] = made[id(p)]
        yield
    finally:
        for table, name, p in reversed(swapped):
            table[name] = p
