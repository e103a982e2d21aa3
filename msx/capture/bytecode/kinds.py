"""Kinds of values and limits the symbolic interpreter's parts share (helpers, not state)."""
from __future__ import annotations

import functools
import sys
import types
from typing import Any

import numpy as np
import linecache

from ...cell_protocol import CellProtocol
from ...errors import CaptureError, MsxError
from ...nn.layer.container import _Container
from ...runtime.list_iterator import ListIterator
from ...tensor import Parameter
from ..failures import CONCRETE_ERRORS as JAX_CONCRETE_ERRORS
from .breaks import STAGE
from .frame_sources import Source
from .stack_values import is_user_code, is_user_file
from .vm import Frame

MAX_STEPS = 2_000_000     # instructions interpreted for one graph (a loop unrolled longer than this is refused)
MAX_UNROLL = 100_000      # elements of one sequence unrolled at capture time
CONCRETE_ERRORS = (CaptureError,) + JAX_CONCRETE_ERRORS   # a tensor's value needed in Python: a graph break
_CALLABLES = (types.FunctionType, types.BuiltinFunctionType, types.ModuleType, type, types.MethodDescriptorType,
              types.WrapperDescriptorType, types.MethodWrapperType, types.ClassMethodDescriptorType,
              functools.partial, np.ufunc)


def _entry(fn, args, kwargs):
    """The bottom frame of every capture: the call itself, so binding arguments is ordinary interpretation."""
    return fn(*args, **kwargs)


class EnvListIterator(ListIterator):
    """An iterator carried across a graph break: its elements are read (and guarded) as they are consumed."""

    __slots__ = ("source", "exhausted")

    def __init__(self, items: list, source: Source) -> None:
        super().__init__(items)
        self.source = source
        self.exhausted = False


_LIBRARY_CONSTANTS = (types.FunctionType, types.BuiltinFunctionType, types.ModuleType, type)
_DICT_VIEWS = (type({}.keys()), type({}.values()), type({}.items()))
_DUNDERS = ["__add__", "__and__", "__floordiv__", "__lshift__", "__matmul__", "__mul__", "__mod__", "__or__", "__pow__",
            "__rshift__", "__sub__", "__truediv__", "__xor__"]
_DUNDERS += ["__i" + d[2:] for d in _DUNDERS]
_RDUNDERS = {i: "__r" + d[2:] for i, d in enumerate(_DUNDERS[:13])}
_UNARY_DUNDERS = {"UNARY_NEGATIVE": "__neg__", "UNARY_POSITIVE": "__pos__", "UNARY_INVERT": "__invert__"}
_CMP_DUNDERS = {"<": "__lt__", "<=": "__le__", "==": "__eq__", "!=": "__ne__", ">": "__gt__", ">=": "__ge__"}
_CMP_REFLECT = {"<": "__gt__", "<=": "__ge__", "==": "__eq__", "!=": "__ne__", ">": "__lt__", ">=": "__le__"}


def _is_cell(x: Any) -> bool:
    return type(x) is types.CellType


def is_bound_builtin(x: Any) -> bool:
    """A builtin method bound to an object or a class (`dict.fromkeys`, `int.from_bytes`, `(3).__add__`):
    each attribute read makes a new one, so it is guarded by what it is bound to and its name, not identity."""
    return (isinstance(x, (types.BuiltinMethodType, types.MethodWrapperType)) and x.__self__ is not None
            and not isinstance(x.__self__, types.ModuleType))


def _identity_kind(x: Any) -> bool:
    """Objects a guard checks by identity: functions, modules, classes, Cells, Parameters, jax arrays."""
    if is_bound_builtin(x):
        return False
    return (isinstance(x, _CALLABLES) or _is_cell(x) or isinstance(x, Parameter) or _is_cell_instance(x)
            or type(x).__module__.startswith(("jax", "jaxlib")))


def _is_cell_instance(x: Any) -> bool:
    return isinstance(x, CellProtocol)


def _is_user_class(cls: type) -> bool:
    """A class defined in user code (one of its functions is, or its module's file is)."""
    for value in vars(cls).values():
        fn = getattr(value, "__func__", value)
        if type(fn) is types.FunctionType:
            return is_user_code(fn.__code__)
    module = sys.modules.get(cls.__module__)
    filename = getattr(module, "__file__", None)
    return filename is None or is_user_file(filename)


def _is_cell_class(cls: type) -> bool:
    return issubclass(cls, CellProtocol)


def _is_container_cell(x: Any) -> bool:
    return isinstance(x, _Container)


def _sorted_keys(d: dict) -> list:
    try:
        return sorted(d)
    except TypeError:
        return list(d)


def _span_text(loc) -> str | None:
    """The source text a location underlines (`float(z.mean())`), or None."""
    line = linecache.getline(loc.file, loc.line)
    if not line or loc.end_col is None:
        return None
    return line[loc.col:loc.end_col].strip() or None


def _cell_path(outer: str, parent: Any, cell: Any) -> str:
    """`cell`'s scope inside `outer`: its attribute name in the Cell around it, or its class name (as
    `nn.cell.cell_scope` names it for ast and trace capture)."""
    name = None
    if parent is not None:
        name = next((k for k, child in parent._cells.items() if child is cell), None)
    name = name or type(cell).__name__
    return f"{outer}/{name}" if outer else name


def _user_frame(frames: list[Frame]) -> Frame:
    """The innermost frame of the user's code (an error inside an inlined msx layer shows the user's call)."""
    for f in reversed(frames):
        if is_user_code(f.info.code):
            return f
    return frames[-1]


def _note_line(exc: BaseException, f: Frame) -> None:
    """An error of the user's code, raised while capturing: it keeps its type (and is what eager execution
    raises) and gains `stage` and `loc`, the user's line, also shown in a note (a traceback would show the
    interpreter)."""
    if isinstance(exc, MsxError):
        if exc.stage == "capture":
            exc.stage = STAGE
        if exc.loc is None:
            exc.loc = f.loc()
        return
    if getattr(exc, "loc", None) is not None:
        return
    try:
        exc.loc = f.loc()
        exc.stage = STAGE
        exc.add_note(f"[{STAGE}] raised while msx captured {f.info.qualname}:\n{exc.loc.render()}")
    except (AttributeError, TypeError):   # an exception type without a __dict__
        pass
