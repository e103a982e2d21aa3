"""`Cell`: MindSpore's module — a plain Python object that owns Parameters and sub-Cells."""
from __future__ import annotations

import contextlib
from collections import OrderedDict
from typing import Any, Callable, Iterator

from .. import dtype as mstype
from .. import versions
from ..ops.primitive import recording
from ..tensor import Parameter, Tensor


class Cell:
    """Base class of all layers and networks; subclasses define `construct`.

    Assigning a Parameter or a Cell to an attribute registers it; parameter
    names become hierarchical (`fc1.weight`) as sub-Cells are attached, unless
    the parent was made with `auto_prefix=False` (as `WithLossCell` is).
    """

    def __init__(self, auto_prefix: bool = True, flags: dict | None = None) -> None:
        object.__setattr__(self, "_params", OrderedDict())
        object.__setattr__(self, "_cells", OrderedDict())
        object.__setattr__(self, "_auto_prefix", auto_prefix)
        object.__setattr__(self, "training", False)
        object.__setattr__(self, "_compute_dtype", None)
        object.__setattr__(self, "_jit_cache", None)

    # ------------------------------------------------------------ attributes
    def __setattr__(self, name: str, value: Any) -> None:
        if "_params" not in self.__dict__:
            raise AttributeError(f"{type(self).__name__}: call super().__init__() before assigning attributes")
        params, cells = self.__dict__["_params"], self.__dict__["_cells"]
        params.pop(name, None)
        cells.pop(name, None)
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
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        if name in self._params:
            del self._params[name]
        elif name in self._cells:
            del self._cells[name]
        else:
            object.__delattr__(self, name)
        versions.touch()

    def insert_child_to_cell(self, child_name: str, child_cell: "Cell") -> None:
        if not isinstance(child_cell, Cell):
            raise TypeError(f"insert_child_to_cell: {child_name!r} must be a Cell, got {type(child_cell).__name__}")
        setattr(self, child_name, child_cell)

    def insert_param_to_cell(self, param_name: str, param: Parameter, check_name_contain_dot: bool = True) -> None:
        setattr(self, param_name, param)

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
        recorder = recording.recorder
        if recorder is None and recording.converter is None:
            return self.construct(*args, **kwargs)
        if recorder is not None:  # a capture reached this Cell: its state is part of what the graph assumes
            recorder.on_cell(self)
        with cell_scope(self):  # capturing: the ops recorded inside carry this Cell's path
            converter = recording.converter
            if converter is not None:  # source capture: a user construct is captured from its source
                return converter(self.construct, args, kwargs)
            return self.construct(*args, **kwargs)

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


def _graph_call(cell: Cell, args: tuple, kwargs: dict):
    """GRAPH_MODE: every top-level Cell call goes through `jit` (cached on the Cell), with jit's default
    capture mode ("ast", MindSpore's: `construct` is captured from its source)."""
    from ..jit import jit

    if cell._jit_cache is None:
        object.__setattr__(cell, "_jit_cache", jit(cell))
    return cell._jit_cache(*args, **kwargs)


class ParameterTuple(tuple):
    """MindSpore's ParameterTuple: a tuple of Parameters."""

    def __new__(cls, iterable):
        items = tuple(iterable)
        bad = [type(p).__name__ for p in items if not isinstance(p, Parameter)]
        if bad:
            raise TypeError(f"ParameterTuple holds Parameters only, got {bad[0]}")
        return super().__new__(cls, items)
