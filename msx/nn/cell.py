"""`Cell`: MindSpore's module — a plain Python object that owns Parameters and sub-Cells."""
from __future__ import annotations

import contextlib
import threading
import time
from collections import OrderedDict
from types import MappingProxyType
from typing import Any, Callable, Iterator, Mapping, TypeVar

from .. import dtype as mstype
from .. import versions
from ..cell_protocol import CellProtocol
from ..context import GRAPH_MODE, get_context
from ..errors import CaptureError
from ..ops.primitive import recording
from ..tensor import PARAMETER_LOCK, Parameter, Tensor
from ._backward import custom_backward_call, has_custom_backward, records_as_one_node
from .cell_config import ConfigMixin, _cast_float, _graph_entry  # noqa: F401  (_cast_float: capture uses it)
from .cell_hooks import HookMixin, RemovableHandle  # noqa: F401
from .cell_state import StateMixin
from ..tensor import ParameterTuple  # noqa: F401  (nn.ParameterTuple is msx.ParameterTuple)


class Cell(CellProtocol, HookMixin, StateMixin, ConfigMixin):
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
    # per-instance state MindSpore shows on every Cell (each instance sets its own in __init__; these class-level
    # values are the immutable defaults `hasattr(nn.Cell, ...)` sees)
    bprop_debug, compiled, compile_phase, param_prefix, create_time = False, False, None, "", 0
    compile_cache: frozenset = frozenset()
    parameter_layout_dict = phase_cache = MappingProxyType({})

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
        set_(self, "phase_cache", {})  # {phase ("train"/"predict"): the last compiled phase key}
        set_(self, "parameter_layout_dict", {})  # sharding layouts of Parameters: none (no auto-parallel layouts)
        set_(self, "_mixed_precision", None)
        Cell.total_instance_count += 1
        if flags:
            self.add_flags(**flags)

    # ------------------------------------------------------------ attributes
    def __setattr__(self, name: str, value: Any) -> None:
        if "_params" not in self.__dict__:
            if isinstance(value, (Parameter, Cell)):
                raise AttributeError(f"{type(self).__name__}: call super().__init__() before assigning the "
                                     f"{type(value).__name__} {name!r}")
            object.__setattr__(self, name, value)  # a plain value before Cell.__init__: MindSpore allows it (SKNet)
            return
        params, cells = self.__dict__["_params"], self.__dict__["_cells"]
        buffers = self.__dict__["_buffers"]
        if name in buffers and not isinstance(value, (Parameter, Cell)):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign {type(value).__name__} to buffer {name!r} (a Tensor or None is needed)")
            buffers[name] = value
            return
        if name in params and value is not None and not isinstance(value, (Parameter, Cell)):
            # MindSpore: a Tensor assigned to a Parameter's name is written into that Parameter
            # (`self.step += 1`, `self.weight = w * 2` keep the Parameter; under jit the write is recorded)
            if not isinstance(value, Tensor):
                raise TypeError(f"Parameter {name!r} already exists in {type(self).__name__}: cannot assign a "
                                f"{type(value).__name__} to it (a Tensor, a Parameter or None is needed)")
            params[name].set_data(value)
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
            if isinstance(value, Tensor) and recording.recorder is not None:
                note = getattr(recording.recorder, "on_attribute_write", None)
                if note is not None:  # a trace: the graph could not repeat this write on later calls
                    note(self, name)
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
    def construct(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define construct()")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._compute_dtype is not None:
            args = tuple(_cast_float(a, self._compute_dtype) for a in args)
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
        out = self._construct_around(hooks, args, kwargs) if hooks.around_construct() else \
            self.run_construct(args, kwargs)
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
            if recorder is not None and records_as_one_node(self):
                return custom_backward_call(self, cast_inputs, kwargs)  # one node keeping bprop / recompute
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
    return recording.recorder is not None


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


from ..ops.sharding_ops import cell_shard as _cell_shard  # noqa: E402

Cell.shard = _cell_shard  # MindSpore's Cell.shard(in_strategy, out_strategy, parameter_plan)
