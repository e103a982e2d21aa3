"""`Cell`: MindSpore's module — a plain Python object that owns Parameters and sub-Cells."""
from __future__ import annotations

import contextlib
import itertools
import threading
import time
from collections import OrderedDict, namedtuple
from typing import Any, Callable, Iterator, Mapping, TypeVar

from .. import dtype as mstype
from .. import versions
from ..errors import CaptureError
from ..ops.primitive import recording
from ..tensor import PARAMETER_LOCK, Parameter, Tensor
from ._backward import custom_backward_call, has_custom_backward

_IncompatibleKeys = namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])
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


class Cell:
    """Base class of all layers and networks; subclasses define `construct`.

    Assigning a Parameter or a Cell to an attribute registers it; parameter
    names become hierarchical (`fc1.weight`) as sub-Cells are attached, unless
    the parent was made with `auto_prefix=False` (as `WithLossCell` is).
    A subclass may define `bprop(self, *inputs, out, dout) -> input grads`
    (MindSpore's custom backward); hooks, buffers and state dicts follow
    MindSpore 2.x (which follows torch).
    """

    IGNORE_LIST = ("_scope", "_cell_init_args", "_auto_prefix", "_cells", "_params", "_create_time", "_func_graph_flags",
                   "_parameter_layout_dict", "_params_list", "_phase", "_bprop_debug", "_forward_pre_hook",
                   "_forward_hook", "_enable_forward_pre_hook", "_enable_forward_hook", "_cell_backward_hook",
                   "_cell_backward_pre_hook", "_is_run", "_param_prefix", "_attr_synced", "pynative", "requires_grad",
                   "cell_type")
    T_destination = TypeVar("T_destination", bound=Mapping[str, Any])
    total_instance_count = 0

    def __init__(self, auto_prefix: bool = True, flags: dict | None = None) -> None:
        set_ = object.__setattr__
        set_(self, "_params", OrderedDict())
        set_(self, "_cells", OrderedDict())
        set_(self, "_buffers", OrderedDict())
        set_(self, "_non_persistent", set())
        set_(self, "_auto_prefix", auto_prefix)
        set_(self, "training", False)
        set_(self, "_compute_dtype", None)
        set_(self, "_jit_cache", None)
        set_(self, "_hooks", None)
        set_(self, "_flags", {})
        set_(self, "_scope", None)
        set_(self, "_inputs", None)
        set_(self, "_jit_config_dict", {})
        set_(self, "param_prefix", "")
        set_(self, "cell_type", None)
        set_(self, "create_time", int(time.time() * 1e9))
        set_(self, "bprop_debug", False)
        set_(self, "compiled", False)
        set_(self, "compile_cache", set())
        set_(self, "compile_phase", None)
        set_(self, "parameter_layout_dict", {})  # sharding layouts of Parameters: none (no auto-parallel layouts)
        set_(self, "_mixed_precision", None)
        Cell.total_instance_count += 1
        if flags:
            self.add_flags(**flags)

    # ------------------------------------------------------------ attributes
    def __setattr__(self, name: str, value: Any) -> None:
        if "_params" not in self.__dict__:
            raise AttributeError(f"{type(self).__name__}: call super().__init__() before assigning attributes")
        params, cells = self.__dict__["_params"], self.__dict__["_cells"]
        buffers = self.__dict__["_buffers"]
        if name in buffers and not isinstance(value, (Parameter, Cell)):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign {type(value).__name__} to buffer {name!r} (a Tensor or None is needed)")
            buffers[name] = value
            return
        params.pop(name, None)
        cells.pop(name, None)
        buffers.pop(name, None)
        if isinstance(value, Parameter):
            if value.name == "Parameter":
                value.name = name
            params[name] = value
            self.__dict__.pop(name, None)
        elif isinstance(value, Cell):
            if self._auto_prefix:
                value.update_parameters_name(name + ".")
            cells[name] = value
            self.__dict__.pop(name, None)
        else:
            object.__setattr__(self, name, value)
        versions.touch()

    def __getattr__(self, name: str) -> Any:
        d = self.__dict__
        if "_params" in d:
            if name in d["_params"]:
                return d["_params"][name]
            if name in d["_cells"]:
                return d["_cells"][name]
            if name in d["_buffers"]:
                return d["_buffers"][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        if name in self._params:
            del self._params[name]
        elif name in self._cells:
            del self._cells[name]
        elif name in self._buffers:
            del self._buffers[name]
        else:
            object.__delattr__(self, name)
        versions.touch()

    def insert_child_to_cell(self, child_name: str, child_cell: "Cell") -> None:
        if not isinstance(child_cell, Cell):
            raise TypeError(f"insert_child_to_cell: {child_name!r} must be a Cell, got {type(child_cell).__name__}")
        setattr(self, child_name, child_cell)

    def insert_param_to_cell(self, param_name: str, param: Parameter | None, check_name_contain_dot: bool = True) -> None:
        """Register `param` under `param_name` (MindSpore's checks: a non-empty name without '.', not already
        a non-Parameter attribute; None registers nothing under that name)."""
        if not param_name or not isinstance(param_name, str):
            raise KeyError(f"insert_param_to_cell: the name must be a non-empty str, got {param_name!r}")
        if check_name_contain_dot and "." in param_name:
            raise KeyError(f"insert_param_to_cell: the name {param_name!r} must not contain '.'")
        if param_name in self.__dict__ and param_name not in self._params:
            raise KeyError(f"insert_param_to_cell: {param_name!r} is already an attribute of {self.cls_name}")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"insert_param_to_cell: {param_name!r} must be a Parameter, got {type(param).__name__}")
        if param is None:
            self._params[param_name] = None
            return
        setattr(self, param_name, param)

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """A Tensor of state that is not a Parameter (not trained), read as `self.<name>`; persistent buffers are
        part of `state_dict`."""
        if not isinstance(name, str) or not name or "." in name:
            raise KeyError(f"register_buffer: the name must be a non-empty str without '.', got {name!r}")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"register_buffer: {name!r} must be a Tensor or None, got {type(tensor).__name__}")
        if (name in self.__dict__ or name in self._params or name in self._cells) and name not in self._buffers:
            raise KeyError(f"register_buffer: {name!r} is already an attribute of {self.cls_name}")
        self._buffers[name] = tensor
        (self._non_persistent.discard if persistent else self._non_persistent.add)(name)

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at a dotted path (`"block.bn.running_mean"`)."""
        path, _, name = target.rpartition(".")
        cell = self.get_sub_cell(path) if path else self
        if name not in cell._buffers:
            raise AttributeError(f"get_buffer: {type(cell).__name__} has no buffer {name!r}")
        return cell._buffers[name]

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        seen: set[int] = set()
        cells = self.cells_and_names(name_prefix=prefix) if recurse else [(prefix, self)]
        for cell_prefix, cell in cells:
            for name, b in cell._buffers.items():
                if b is None or (remove_duplicate and id(b) in seen):
                    continue
                seen.add(id(b))
                yield (f"{cell_prefix}.{name}" if cell_prefix else name), b

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def get_sub_cell(self, target: str) -> "Cell":
        """The sub-Cell at a dotted path (`"net_b.net_c.conv"`); "" is this Cell."""
        cell: Cell = self
        for part in target.split(".") if target else ():
            if part not in cell._cells:
                raise AttributeError(f"get_sub_cell: {type(cell).__name__} has no sub-Cell {part!r} "
                                     f"(looking up {target!r})")
            cell = cell._cells[part]
        return cell

    def update_parameters_name(self, prefix: str = "", recurse: bool = True) -> None:
        """Name every Parameter `prefix` + its attribute path (MindSpore's auto_prefix naming)."""
        for path, p in self.parameters_and_names(expand=recurse):
            p.name = prefix + path

    # ------------------------------------------------------------ calling
    def construct(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must define construct()")

    def __call__(self, *args, **kwargs):
        if self._compute_dtype is not None:
            args = tuple(_cast_float(a, self._compute_dtype) for a in args)
        from ..context import GRAPH_MODE, get_context

        if get_context("mode") == GRAPH_MODE and not _in_graph():
            return _graph_call(self, args, kwargs)
        if recording.recorder is None and recording.converter is None:
            # an eager call reads the Parameters' arrays op by op: a jitted step of this network in another
            # thread must not donate (delete) or swap them meanwhile (reentrant: nested Cells re-enter)
            with PARAMETER_LOCK:
                return self._pynative_call(args, kwargs)
        return self._pynative_call(args, kwargs)

    def _pynative_call(self, args: tuple, kwargs: dict):
        hooks = self.__dict__["_hooks"]
        if hooks is None:
            return self.run_construct(args, kwargs)
        for hook, with_kwargs in list(hooks.forward_pre.values()):
            new = hook(self, args, kwargs) if with_kwargs else hook(self, args)
            if new is not None:
                if with_kwargs:
                    args, kwargs = new
                    args = tuple(args) if isinstance(args, (tuple, list)) else (args,)
                else:
                    args = new if isinstance(new, tuple) else (new,)
        out = self.run_construct(args, kwargs)
        for hook, with_kwargs in list(hooks.forward.values()):
            new = hook(self, args, kwargs, out) if with_kwargs else hook(self, args, out)
            if new is not None:
                out = new
        return out

    def run_construct(self, cast_inputs: tuple, kwargs: dict):
        """Call `construct` (through the source-capture converter when capturing, through the custom backward
        when the Cell has `bprop`, backward hooks or recompute)."""
        converter, recorder = recording.converter, recording.recorder
        if has_custom_backward(self):
            if recorder is not None and callable(getattr(type(self), "bprop", None)):
                return custom_backward_call(self, cast_inputs, kwargs)  # recorded as one node keeping bprop
            if converter is not None or recorder is not None:
                if self._hooks is not None and (self._hooks.backward or self._hooks.backward_pre):
                    raise CaptureError(f"{self.cls_name}: a Cell with backward hooks runs in PyNative "
                                       f"(eager) mode only for now; call it outside jit/GRAPH_MODE, or remove the "
                                       f"hooks")
            else:
                return custom_backward_call(self, cast_inputs, kwargs)
        if recorder is None and converter is None:
            return self.construct(*cast_inputs, **kwargs)
        if recorder is not None:  # a capture reached this Cell: its state is part of what the graph assumes
            recorder.on_cell(self)
        with cell_scope(self):  # capturing: the ops recorded inside carry this Cell's path
            if converter is not None:  # source capture: a user construct is captured from its source
                return converter(self.construct, cast_inputs, kwargs)
            return self.construct(*cast_inputs, **kwargs)

    # ------------------------------------------------------------ hooks
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

    # ------------------------------------------------------------ state dicts
    def state_dict(self, *args, destination=None, prefix: str = "", keep_vars: bool = False):
        """{name: Parameter or buffer} of this Cell and its sub-Cells (references unless keep_vars is False,
        where, as MindSpore documents, the returned entries are the same objects — msx Tensors are immutable
        arrays, so a reference never changes under the caller)."""
        if args:
            destination = args[0] if len(args) > 0 else destination
            prefix = args[1] if len(args) > 1 else prefix
            keep_vars = args[2] if len(args) > 2 else keep_vars
        if destination is None:
            destination = OrderedDict()
        for cell_prefix, cell in self.cells_and_names(name_prefix=prefix.rstrip(".")):
            cp = f"{cell_prefix}." if cell_prefix else ""
            hooks = cell._hooks
            for hook in list(hooks.state_dict_pre.values()) if hooks else ():
                hook(cell, cp, keep_vars)
            for name, p in cell._params.items():
                if p is not None:
                    destination[cp + name] = p
            for name, b in cell._buffers.items():
                if b is not None and name not in cell._non_persistent:
                    destination[cp + name] = b
            if type(cell).get_extra_state is not Cell.get_extra_state:
                destination[cp + "_extra_state"] = cell.get_extra_state()
            for hook in list(hooks.state_dict_post.values()) if hooks else ():
                result = hook(cell, destination, cp, {})
                if result is not None:
                    raise RuntimeError("state_dict post hooks must edit state_dict in place and return None")
        return destination

    def load_state_dict(self, state_dict: Mapping[str, Any], strict: bool = True):
        """Copy values from `state_dict` into this Cell's Parameters and buffers; returns
        `(missing_keys, unexpected_keys)`, and with `strict` raises on either."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"load_state_dict: expected a dict, got {type(state_dict).__name__}")
        state_dict = OrderedDict(state_dict)
        missing: list[str] = []
        errors: list[str] = []
        expected: set[str] = set()
        for cell_prefix, cell in self.cells_and_names():
            cp = f"{cell_prefix}." if cell_prefix else ""
            hooks = cell._hooks
            for hook in list(hooks.load_state_dict_pre.values()) if hooks else ():
                hook(cell, state_dict, cp, {}, strict, missing, [], errors)
            entries = [(n, p) for n, p in cell._params.items() if p is not None]
            entries += [(n, b) for n, b in cell._buffers.items() if b is not None and n not in cell._non_persistent]
            for name, target in entries:
                key = cp + name
                expected.add(key)
                if key not in state_dict:
                    missing.append(key)
                    continue
                value = state_dict[key]
                value = value if isinstance(value, Tensor) else Tensor(value)
                if tuple(value.shape) != tuple(target.shape):
                    errors.append(f"size mismatch for {key}: copying a param with shape {tuple(value.shape)}, "
                                  f"the shape in the current cell is {tuple(target.shape)}")
                    continue
                if isinstance(target, Parameter):
                    target.set_data(value.astype(target.dtype))
                else:
                    cell._buffers[name] = value.astype(target.dtype)
            if type(cell).set_extra_state is not Cell.set_extra_state:
                expected.add(cp + "_extra_state")
                if cp + "_extra_state" in state_dict:
                    cell.set_extra_state(state_dict[cp + "_extra_state"])
                elif strict:
                    missing.append(cp + "_extra_state")
        unexpected = [k for k in state_dict if k not in expected]
        result = _IncompatibleKeys(missing, unexpected)
        for _, cell in self.cells_and_names():
            for hook in list(cell._hooks.load_state_dict_post.values()) if cell._hooks else ():
                hook(cell, result)
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: " + ", ".join(map(repr, unexpected)))
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: " + ", ".join(map(repr, missing)))
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {self.cls_name}:\n\t" + "\n\t".join(errors))
        return result

    def get_extra_state(self) -> Any:
        """Extra (non-Tensor) state a subclass puts in `state_dict` under `_extra_state` by overriding this."""
        raise RuntimeError(f"{self.cls_name}.get_extra_state: override it (and set_extra_state) to save extra "
                           f"state in state_dict")

    def set_extra_state(self, state: Any) -> None:
        raise RuntimeError(f"{self.cls_name}.set_extra_state: override it to load the state get_extra_state saved")

    # ------------------------------------------------------------ inputs, flags, compile
    def set_inputs(self, *inputs, **kwargs) -> None:
        """Declare the inputs the graph is compiled for; `Tensor(shape=[None, 3], dtype=...)` marks dynamic
        dims, so `jit`/GRAPH_MODE compiles one dynamic-shape graph (as `msx.enable_dynamic`). Positional
        inputs are all of construct's inputs (full mode); keyword inputs name some of them (incremental)."""
        import inspect

        from ..dynamic import make_spec

        if inputs and kwargs:
            raise ValueError(f"{self.cls_name}.set_inputs: give positional inputs or keyword inputs, not both")
        names = [n for n, p in inspect.signature(self.construct).parameters.items()
                 if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        if inputs:
            if len(inputs) > len(names) and not any(
                    p.kind == p.VAR_POSITIONAL for p in inspect.signature(self.construct).parameters.values()):
                raise ValueError(f"{self.cls_name}.set_inputs: got {len(inputs)} inputs, construct takes "
                                 f"{len(names)} ({', '.join(names)})")
            named = dict(zip(names, inputs))
        else:
            unknown = sorted(set(kwargs) - set(names))
            if unknown:
                raise ValueError(f"{self.cls_name}.set_inputs: {unknown} are not inputs of construct ({names})")
            named = dict(kwargs)
        dynamic = {n: t for n, t in named.items() if isinstance(t, Tensor) and t.is_placeholder()}
        object.__setattr__(self, "_inputs", tuple(inputs) if inputs else named)
        if dynamic:
            object.__setattr__(self, "__msx_dynamic__", make_spec(dynamic))
        object.__setattr__(self, "_jit_cache", None)
        versions.touch()

    def get_inputs(self):
        """What `set_inputs` declared (a tuple in full mode, a dict in incremental mode), or None."""
        return self._inputs

    def add_flags(self, **flags) -> "Cell":
        """Attach flags (plain values) to this Cell: kept in `get_flags()` and readable as attributes."""
        self._flags.update(flags)
        for key, value in flags.items():
            object.__setattr__(self, key, value)
        versions.touch()
        return self

    def add_flags_recursive(self, **flags) -> "Cell":
        for _, cell in self.cells_and_names():
            cell.add_flags(**flags)
        return self

    def get_flags(self) -> dict:
        return self._flags

    def set_jit_config(self, jit_config) -> None:
        """MindSpore's `JitConfig` (or a dict of its keys) for this Cell's graph (GRAPH_MODE / jit)."""
        conf = getattr(jit_config, "jit_config_dict", jit_config)
        if not isinstance(conf, Mapping):
            raise TypeError(f"set_jit_config: expected a JitConfig or a dict, got {type(jit_config).__name__}")
        object.__setattr__(self, "_jit_config_dict", dict(conf))
        object.__setattr__(self, "_jit_cache", None)
        versions.touch()

    @property
    def jit_config_dict(self) -> dict:
        return self._jit_config_dict

    def compile(self, *args, **kwargs) -> None:
        """Capture and compile this Cell's graph for `args` without running it (MindSpore's `Cell.compile`);
        `compile_cache` collects the phases (mode + input signature) compiled so far."""
        _graph_entry(self).lower(*args, **kwargs).compile()
        self._note_compiled(args)

    def compile_and_run(self, *args, **kwargs):
        """Compile (once per input signature) and run this Cell's graph."""
        out = _graph_entry(self)(*args, **kwargs)
        self._note_compiled(args)
        return out

    def _note_compiled(self, args: tuple) -> None:
        sig = ",".join(f"{a.dtype}{list(a.shape)}" if isinstance(a, Tensor) else repr(a) for a in args)
        phase = f"{self.phase}.{type(self).__name__}.{self.create_time}[{sig}]"
        self.compile_cache.add(phase)
        object.__setattr__(self, "compile_phase", phase)
        object.__setattr__(self, "compiled", True)

    def set_mixed_precision_type(self, mixed_type) -> None:
        """Compute this Cell in float16/bfloat16/float32 (`"FP16"`, `"BF16"`, `"FP32"`, or a dtype), as
        `to_float` does; `"NOTSET"` or None clears it."""
        names = {"FP16": mstype.float16, "BF16": mstype.bfloat16, "FP32": mstype.float32}
        key = getattr(mixed_type, "name", mixed_type)
        if key in (None, "NOTSET"):
            for _, cell in self.cells_and_names():
                object.__setattr__(cell, "_compute_dtype", None)
            object.__setattr__(self, "_mixed_precision", None)
            return
        dst = names.get(key) if isinstance(key, str) else mstype.to_msx(mixed_type)
        if dst is None:
            raise ValueError(f"set_mixed_precision_type: expected 'FP16', 'BF16', 'FP32', 'NOTSET' or a float "
                             f"dtype, got {mixed_type!r}")
        self.to_float(dst)
        object.__setattr__(self, "_mixed_precision", dst)
        versions.touch()

    def get_mixed_precision_type(self):
        """The dtype `set_mixed_precision_type`/`to_float` set for this Cell, or None."""
        return self._compute_dtype

    def to_empty(self, *, device=None, recurse: bool = True) -> "Cell":
        """Give every Parameter fresh storage of its shape and dtype without copying values (torch's meaning:
        the contents are unspecified — here zeros); `device` must be the current target."""
        from ..context import get_context

        if device is not None and device != get_context("device_target"):
            raise ValueError(f"{self.cls_name}.to_empty: device {device!r} is not the current device_target")
        import jax.numpy as jnp

        for p in self.get_parameters(expand=recurse):
            p.set_data(Tensor._from(jnp.zeros(p.shape, p._data.dtype)))
        return self

    def recompute(self, *, use_reentrant: bool = True, output_recompute: bool = False, **kwargs) -> None:
        """Rematerialise this Cell's forward in the backward pass instead of keeping its activations (eager:
        `jax.checkpoint` around the Cell; values and gradients are unchanged, only memory differs)."""
        if self.__dict__.get("_recompute"):
            raise RuntimeError(f"{self.cls_name}.recompute: the recompute interface can be configured only once")
        object.__setattr__(self, "_recompute", True)
        versions.touch()

    def cast_inputs(self, inputs: tuple, dst_type) -> tuple:
        """`inputs` with every floating Tensor cast to `dst_type`."""
        dst = mstype.to_msx(dst_type)
        return tuple(_cast_float(x, dst) for x in inputs)

    def init_parameters_data(self, auto_parallel_mode: bool = False) -> dict:
        """{Parameter: Parameter}: msx Parameters hold their data from creation, so each maps to itself."""
        return {p: p for p in self.get_parameters()}

    def check_names(self) -> None:
        """Raise if two different Parameters of this network share a name (checkpoints would mix them up)."""
        seen: dict[str, int] = {}
        for p in self.get_parameters():
            if p.name in seen and seen[p.name] != id(p):
                raise ValueError(f"{self.cls_name}: the parameter name {p.name!r} is used by two Parameters; "
                                 f"give them different names")
            seen[p.name] = id(p)

    def check_names_and_refresh_name(self) -> None:
        """Re-derive every Parameter name from its attribute path (when auto_prefix), then `check_names`."""
        if self._auto_prefix:
            self.update_parameters_name()
        self.check_names()

    def update_cell_prefix(self) -> None:
        """Set `param_prefix` of every sub-Cell to its attribute path."""
        for name, cell in self.cells_and_names():
            object.__setattr__(cell, "param_prefix", name)

    def update_cell_type(self, cell_type: str) -> None:
        object.__setattr__(self, "cell_type", cell_type)

    def generate_scope(self) -> None:
        """Give every Cell its MindSpore scope name (`Default/fc1-Dense`), returned by `get_scope`."""
        for name, cell in self.cells_and_names():
            path = "/".join(f"{part}-{type(c).__name__}" for part, c in _path_cells(self, name))
            object.__setattr__(cell, "_scope", "Default" + (f"/{path}" if path else ""))

    def get_scope(self) -> str | None:
        return self._scope

    @property
    def cls_name(self) -> str:
        return type(self).__name__

    @property
    def cell_init_args(self) -> str:
        return f"{type(self).__name__}<{self.extend_repr()}>"

    def to(self, *args, **kwargs) -> "Cell":
        """Cast floating Parameters and buffers to a dtype: `to(dtype)`, `to(device=None, dtype=None)` or
        `to(tensor)` (its dtype). msx arrays live on the device of `set_context(device_target=...)`; a device
        other than the current target is refused."""
        from ..context import get_context

        device, dtype = kwargs.pop("device", None), kwargs.pop("dtype", None)
        kwargs.pop("non_blocking", None)
        if kwargs:
            raise TypeError(f"{self.cls_name}.to: unexpected arguments {sorted(kwargs)}")
        for a in args:
            if isinstance(a, Tensor):
                dtype = a.dtype
            elif isinstance(a, str):
                device = a
            elif isinstance(a, bool):
                continue
            else:
                dtype = a
        if device is not None and device != get_context("device_target"):
            raise ValueError(f"{self.cls_name}.to: device {device!r} is not the current device_target "
                             f"{get_context('device_target')!r} (change it with set_context(device_target=...))")
        if dtype is None:
            return self
        dst = mstype.to_msx(dtype)
        if not (dst.is_floating or "complex" in str(dst)):
            raise TypeError(f"{self.cls_name}.to: dtype must be floating point or complex, got {dst}")
        for p in self.get_parameters():
            if p.dtype.is_floating:
                p._rebind(p.astype(dst))
        for _, cell in self.cells_and_names():
            for name, b in list(cell._buffers.items()):
                if b is not None and b.dtype.is_floating:
                    cell._buffers[name] = b.astype(dst)
        return self

    # ------------------------------------------------------------ traversal
    def cells_and_names(self, cells: set | None = None, name_prefix: str = "") -> Iterator[tuple[str, "Cell"]]:
        seen = cells if cells is not None else set()
        if id(self) in seen:
            return
        seen.add(id(self))
        yield name_prefix, self
        for name, cell in self._cells.items():
            if cell is not None:
                yield from cell.cells_and_names(seen, f"{name_prefix}.{name}" if name_prefix else name)

    def name_cells(self) -> "OrderedDict[str, Cell]":
        return OrderedDict(self._cells)

    def cells(self):
        return self._cells.values()

    def parameters_and_names(self, name_prefix: str = "", expand: bool = True) -> Iterator[tuple[str, Parameter]]:
        """(hierarchical attribute path, Parameter) pairs, each Parameter once."""
        seen: set[int] = set()
        cells = self.cells_and_names(name_prefix=name_prefix) if expand else [(name_prefix, self)]
        for prefix, cell in cells:
            for name, p in cell._params.items():
                if p is not None and id(p) not in seen:
                    seen.add(id(p))
                    yield (f"{prefix}.{name}" if prefix else name), p

    def get_parameters(self, expand: bool = True) -> Iterator[Parameter]:
        for _, p in self.parameters_and_names(expand=expand):
            yield p

    def trainable_params(self, recurse: bool = True) -> list[Parameter]:
        return [p for p in self.get_parameters(expand=recurse) if p.requires_grad]

    def untrainable_params(self, recurse: bool = True) -> list[Parameter]:
        return [p for p in self.get_parameters(expand=recurse) if not p.requires_grad]

    def parameters_dict(self, recurse: bool = True) -> "OrderedDict[str, Parameter]":
        return OrderedDict((p.name, p) for p in self.get_parameters(expand=recurse))

    def parameters_broadcast_dict(self, recurse: bool = True) -> "OrderedDict[str, Parameter]":
        """The Parameters a data-parallel start broadcasts from rank 0 (those without `layerwise_parallel`):
        every Parameter here, as msx Parameters have no layer-wise sharding flag."""
        return self.parameters_dict(recurse)

    # ------------------------------------------------------------ modes
    def set_train(self, mode: bool = True) -> "Cell":
        for _, cell in self.cells_and_names():
            object.__setattr__(cell, "training", bool(mode))
        versions.touch()
        return self

    @property
    def phase(self) -> str:
        return "train" if self.training else "predict"

    def set_grad(self, requires_grad: bool = True) -> "Cell":
        return self

    def to_float(self, dst_type) -> "Cell":
        """Compute this Cell (and its sub-Cells) in `dst_type`: float inputs are cast on entry."""
        dst = mstype.to_msx(dst_type)
        if dst not in (mstype.float16, mstype.bfloat16, mstype.float32):
            raise ValueError(f"to_float: dst_type must be float16, bfloat16 or float32, got {dst}")
        for _, cell in self.cells_and_names():
            object.__setattr__(cell, "_compute_dtype", dst)
        versions.touch()
        return self

    def apply(self, fn: Callable[["Cell"], Any]) -> "Cell":
        for _, cell in self.cells_and_names():
            fn(cell)
        return self

    # ------------------------------------------------------------ display
    def extend_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        extra = self.extend_repr()
        if not self._cells:
            return f"{type(self).__name__}<{extra}>"
        lines = [f"{type(self).__name__}<{extra}"]
        for name, cell in self._cells.items():
            body = repr(cell).replace("\n", "\n  ")
            lines.append(f"  ({name}): {body}")
        return "\n".join(lines) + "\n  >"


def _cast_float(x, dtype):
    if isinstance(x, Tensor) and x.dtype.is_floating and x.dtype != dtype:
        return x.astype(dtype)
    return x


@contextlib.contextmanager
def cell_scope(cell: Cell) -> Iterator[None]:
    """While capturing `cell`'s construct, recorded nodes get its path as `Node.scope`: its attribute name in the
    Cell being captured around it (`fc1`, `0` in a SequentialCell), or its class name when it is outermost."""
    outer, parent = recording.scope, recording.scope_cell
    name = None
    if parent is not None:
        name = next((k for k, child in parent._cells.items() if child is cell), None)
    name = name or type(cell).__name__
    recording.scope, recording.scope_cell = f"{outer}/{name}" if outer else name, cell
    try:
        yield
    finally:
        recording.scope, recording.scope_cell = outer, parent


def _in_graph() -> bool:
    from ..ops.primitive import recording

    return recording.recorder is not None


def _graph_entry(cell: Cell):
    """The Cell's cached `jit` entry, with jit's default capture mode ("ast", MindSpore's: `construct` is
    captured from its source) and the jit_level of `set_jit_config`; dynamic dims of `set_inputs` are read
    by jit from the Cell."""
    from ..jit import jit

    if cell._jit_cache is None:
        options = {"jit_level": cell._jit_config_dict["jit_level"]} if "jit_level" in cell._jit_config_dict else {}
        object.__setattr__(cell, "_jit_cache", jit(cell, **options))
    return cell._jit_cache


class _GraphCalls(threading.local):
    depth = 0


_GRAPH_CALLS = _GraphCalls()


def _graph_call(cell: Cell, args: tuple, kwargs: dict):
    """GRAPH_MODE: every top-level Cell call goes through `jit`. A Cell called while one runs, outside any
    capture, is jit's eager fallback (the construct could not be captured; jit warned once): it runs eagerly."""
    if _GRAPH_CALLS.depth:
        return cell._pynative_call(args, kwargs)
    _GRAPH_CALLS.depth += 1
    try:
        return _graph_entry(cell)(*args, **kwargs)
    finally:
        _GRAPH_CALLS.depth -= 1


def _path_cells(root: Cell, path: str) -> list[tuple[str, Cell]]:
    """[(name, Cell)] along a dotted sub-Cell path below `root`."""
    out, cell = [], root
    for part in path.split(".") if path else ():
        cell = cell._cells[part]
        out.append((part, cell))
    return out


class ParameterTuple(tuple):
    """MindSpore's ParameterTuple: a tuple of Parameters."""

    def __new__(cls, iterable):
        items = tuple(iterable)
        bad = [type(p).__name__ for p in items if not isinstance(p, Parameter)]
        if bad:
            raise TypeError(f"ParameterTuple holds Parameters only, got {bad[0]}")
        return super().__new__(cls, items)

    def clone(self, prefix: str, init: Any = "same") -> "ParameterTuple":
        """New Parameters named `prefix.<name>`: copies of these (`init='same'`) or made by `init` (an
        initializer name, Initializer or Tensor) with the same shapes and dtypes (optimizer state buffers)."""
        from .initializer import initializer

        if not isinstance(prefix, str) or not prefix:
            raise ValueError(f"ParameterTuple.clone: prefix must be a non-empty str, got {prefix!r}")
        out = []
        for p in self:
            data = Tensor(p) if init == "same" else initializer(init, p.shape, p.dtype)
            out.append(Parameter(data, name=f"{prefix}.{p.name}", requires_grad=p.requires_grad))
        return ParameterTuple(out)


from ..ops.sharding_ops import cell_shard as _cell_shard  # noqa: E402

Cell.shard = _cell_shard  # MindSpore's Cell.shard(in_strategy, out_strategy, parameter_plan)
