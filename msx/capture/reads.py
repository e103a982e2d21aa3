"""What a capture reads from Python state, reported to the builder so that the runtime can guard it.

Source capture reports each read as it interprets it (`note_global`, `note_closure`, `note_attribute`);
trace capture runs the user's code natively, so `watch_calls` watches which user functions run and
reports, for each, the globals its code names, its closure variables and its mutable default arguments
(a closure found nowhere else is looked up from its code object, at capture time only), and for plain user
objects among them their whole `__dict__`. Both report every Cell called
(`Cell.__call__` tells the builder). Only user state is reported: modules, msx and installed libraries
are not what a user edits between two calls.
"""
from __future__ import annotations

import contextlib
import gc
import sys
import types
from typing import Any, Iterator

from ..ops.primitive import recording
from ..runtime.sources import Attr, CellContents, GlobalVar, Pinned
from ..tensor import Tensor
from .user_code import is_user_file


def _builder() -> Any:
    return recording.recorder


def _cell_type() -> type:
    from ..nn.cell import Cell

    return Cell


def is_user_object(obj: Any) -> bool:
    """An instance (or class) defined in the user's code, or a module of the user's: state the user edits."""
    if isinstance(obj, types.ModuleType):
        return is_user_file(getattr(obj, "__file__", None) or "<frozen>")
    cls = obj if isinstance(obj, type) else type(obj)
    module = sys.modules.get(cls.__module__)
    return module is not None and is_user_file(getattr(module, "__file__", None) or "<frozen>") \
        and not issubclass(cls, Tensor)


def note_global(globals_: dict, name: str, value: Any) -> None:
    builder = _builder()
    if builder is None or isinstance(value, types.ModuleType):
        return  # a module global names a module (`np`, `ops`): its attributes are what changes, if anything
    module = globals_.get("__name__", "?")
    builder.note_read(GlobalVar(Pinned(globals_, f"the globals of {module}"), name), value)
    _note_value(builder, value, name)


def note_closure(cell: types.CellType, name: str, value: Any) -> None:
    builder = _builder()
    if builder is None or isinstance(value, types.ModuleType):
        return
    builder.note_read(CellContents(Pinned(cell, f"the closure cell of {name}"), name), value)
    _note_value(builder, value, name)


def note_attribute(obj: Any, name: str, value: Any) -> None:
    """`obj.name` was read: a Cell's state is guarded as a whole; a user object's attribute one by one."""
    builder = _builder()
    if builder is None:
        return
    if isinstance(obj, _cell_type()):
        builder.on_cell(obj)
    elif is_user_object(obj):
        builder.note_read(Attr(Pinned(obj, _describe(obj)), name), value)


def note_function(fn: types.FunctionType) -> None:
    """A user function is being run by the capture: its mutable default arguments are state."""
    builder = _builder()
    if builder is not None and fn.__defaults__:
        builder.reads.read_function(fn, fn.__qualname__)


def _note_value(builder: Any, value: Any, name: str) -> None:
    if isinstance(value, _cell_type()):
        builder.on_cell(value)


def _describe(obj: Any) -> str:
    if isinstance(obj, (type, types.ModuleType)):
        return obj.__name__
    return f"the {type(obj).__name__} object"


# ---------------------------------------------------------------- trace capture: watch the user's calls
@contextlib.contextmanager
def watch_calls(fn: Any) -> Iterator[None]:
    """While the block runs `fn` natively, report the Python state of every user function it runs."""
    builder = _builder()
    seen: set = set()
    functions: dict[types.CodeType, types.FunctionType] = {}

    def profile(frame: types.FrameType, event: str, arg: Any) -> None:
        if event != "call":
            return
        code = frame.f_code
        if code in seen or not is_user_file(code.co_filename):
            return
        seen.add(code)
        globals_ = frame.f_globals
        for name in code.co_names:  # names the code may load as globals (attribute names too: harmless extras)
            if name in globals_:
                note_global(globals_, name, globals_[name])

    _collect_function(fn, functions)
    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        yield
    finally:
        sys.setprofile(previous)
    reads = builder.reads
    for value in reads.values():
        _collect_function(value, functions)
    for code in seen:
        if code.co_freevars and code not in functions:  # a closure kept somewhere else (a Cell attribute)
            for function in gc.get_referrers(code):
                if isinstance(function, types.FunctionType) and function.__code__ is code:
                    reads.read_function(function, function.__qualname__)
    for code, function in functions.items():
        if code in seen:
            reads.read_function(function, function.__qualname__)
    for source, value in reads.items():
        if is_user_object(value) and not isinstance(value, (type, types.ModuleType, _cell_type())) \
                and hasattr(value, "__dict__"):
            reads.read(Attr(source, "__dict__"), value.__dict__)  # a config object: its attributes as a whole


def _collect_function(value: Any, functions: dict) -> None:
    if isinstance(value, types.MethodType):
        value = value.__func__
    if isinstance(value, types.FunctionType):
        functions.setdefault(value.__code__, value)
