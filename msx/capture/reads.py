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

import jax

from ..cell_protocol import CellProtocol
from ..ops.primitive import recording
from ..runtime.guards import SCALARS
from ..runtime.value_sources import Attr, CellContents, GlobalVar, Item, Pinned
from ..tensor import Tensor
from .user_code import is_user_file


def _builder() -> Any:
    return recording.recorder


def is_user_module(module: types.ModuleType) -> bool:
    """A module of the user's: a file outside msx and the installed libraries, or code with no file that is not
    built into Python (a module made with `types.ModuleType`, a notebook's `__main__`)."""
    file = getattr(module, "__file__", None)
    if file:
        return is_user_file(file)
    spec = getattr(module, "__spec__", None)
    return spec is None or getattr(spec, "origin", None) not in ("built-in", "frozen")


def defined_by_user(cls: type) -> bool:
    """The class was written in the user's code. Its methods' file decides where it has one (a class from a
    script run with `runpy` or `exec`, a notebook cell or a config file loaded without registering a module has
    no module in `sys.modules`, or the wrong one); otherwise its module's, and no known module means the user's."""
    files = {f.__code__.co_filename for f in vars(cls).values() if isinstance(f, types.FunctionType)}
    real = {f for f in files if not f.startswith("<")}  # "<string>": generated methods (dataclasses), exec'd code
    if real:
        return all(is_user_file(f) for f in real)
    module = sys.modules.get(cls.__module__)
    if module is None:
        return bool(files)  # exec'd code; a C type whose module name is not importable is the library's
    return is_user_module(module)


def is_stored_attribute(obj: Any, name: str) -> bool:
    """`obj.name` is data the object holds (its `__dict__` or a slot), what `obj.name = v` changes: a config
    object's fields, whatever class it is (`types.SimpleNamespace`, `argparse.Namespace`, a dataclass)."""
    try:
        if name in object.__getattribute__(obj, "__dict__"):
            return True
    except (AttributeError, TypeError):
        pass
    return isinstance(getattr(type(obj), name, None), types.MemberDescriptorType)


def is_user_object(obj: Any) -> bool:
    """An instance (or class) defined in the user's code, or a module of the user's: state the user edits."""
    if isinstance(obj, types.ModuleType):
        return is_user_module(obj)
    if isinstance(obj, Tensor):
        return False
    return defined_by_user(obj if isinstance(obj, type) else type(obj))


def is_guarded_attribute(obj: Any, name: str) -> bool:
    """A read of `obj.name` is state a graph must re-check: any attribute of a user object, class or module, and
    the stored attributes of any other object (what a user sets on a config object between two calls). Only
    computed attributes of library objects (properties, methods) and library modules are not."""
    if isinstance(obj, (types.ModuleType, type, Tensor)):
        return is_user_object(obj)
    return is_user_object(obj) or is_stored_attribute(obj, name)


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
    if isinstance(obj, CellProtocol):
        builder.on_cell(obj)
    elif is_guarded_attribute(obj, name):
        builder.note_read(Attr(Pinned(obj, _describe(obj)), name), value)


def note_function(fn: types.FunctionType) -> None:
    """A user function is being run by the capture: its mutable default arguments are state."""
    builder = _builder()
    if builder is not None and fn.__defaults__:
        builder.reads.read_function(fn, fn.__qualname__)


def _note_value(builder: Any, value: Any, name: str) -> None:
    if isinstance(value, CellProtocol):
        builder.on_cell(value)


def _describe(obj: Any) -> str:
    if isinstance(obj, (type, types.ModuleType)):
        return obj.__name__
    return f"the {type(obj).__name__} object"


# ---------------------------------------------------------------- trace capture: watch the user's calls
MAX_WALK = 2000       # objects looked at after one trace capture (a Cell holding a whole dataset stays cheap)
MAX_DEPTH = 4         # cfg.model.encoder.scale
_WHOLE = frozenset({"__dict__", "vars", "asdict", "getattr"})  # names that read an object's attributes by value


@contextlib.contextmanager
def watch_calls(fn: Any, args: tuple = (), kwargs: dict | None = None) -> Iterator[None]:
    """While the block runs `fn(*args, **kwargs)` natively, report the Python state of every user function it
    runs: the globals its code names, its closures and defaults, and then the attributes those names reach."""
    builder = _builder()
    seen: set = set()
    functions: dict[types.CodeType, types.FunctionType] = {}

    def profile(frame: types.FrameType, event: str, arg: Any) -> None:
        if event != "call":
            return
        code = frame.f_code
        if code in seen or not _runs_user_code(frame):
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
    names: set[str] = set()
    for code in seen:  # the attribute names the user's code mentions (`cfg.scale`, `getattr(cfg, "scale")`)
        names.update(code.co_names)
        names.update(c for c in code.co_consts if type(c) is str)
    roots = list(reads.items()) + [(Pinned(cell, path), cell) for cell, path in reads.reached_cells()]
    for i, value in enumerate(x for x in _leaves((args, kwargs or {})) if not isinstance(x, Tensor)):
        roots.append((Pinned(value, f"argument {i} ({type(value).__name__})"), value))
    _read_attributes(reads, roots, names)


def is_user_code(code: types.CodeType) -> bool:
    """The code object is the user's own (a script, a test, a notebook cell), not msx's or a library's."""
    filename = code.co_filename
    return is_user_file(filename) and not filename.startswith("<msx")


def _runs_user_code(frame: types.FrameType) -> bool:
    """The frame runs the user's code. Generated code (`<string>`: dataclass and namedtuple methods, exec'd
    code) is the user's only where its globals are a user module's (a notebook cell, `exec` of a script);
    msx's own generated functions (`<msx guards ...>`, `<msx hot call>`) never are: their constants would be
    guarded, and they change every call."""
    filename = frame.f_code.co_filename
    if not is_user_file(filename) or filename.startswith("<msx"):
        return False
    if not filename.startswith("<"):
        return True
    module = sys.modules.get(frame.f_globals.get("__name__", ""))
    return module is None or is_user_module(module)


def _leaves(tree: Any) -> list:
    return jax.tree_util.tree_leaves(tree, is_leaf=lambda x: isinstance(x, (Tensor, CellProtocol)))


def _read_attributes(reads: Any, roots: list, names: set[str]) -> None:
    """Report the attributes named in the user's code of every object the roots reach (a config object's
    `scale`, a Cell's `cfg.dropout`, a list of config objects' items), as source capture reports each read."""
    cell_type = CellProtocol
    whole = bool(names & _WHOLE)
    todo = [(source, value, 0) for source, value in roots]
    visited: set[int] = set()
    while todo and len(visited) < MAX_WALK:
        source, value, depth = todo.pop()
        if id(value) in visited or depth > MAX_DEPTH or not _is_data(value):
            continue
        visited.add(id(value))
        if isinstance(value, (list, tuple)):
            reads.read(source, value)
            todo += [(Item(source, i), v, depth + 1) for i, v in enumerate(value)]
            continue
        if isinstance(value, dict):
            reads.read(source, value)
            todo += [(Item(source, k), value[k], depth + 1) for k in value if type(k) in (int, str) and k in names]
            continue
        is_cell = isinstance(value, cell_type)
        if whole and not is_cell and hasattr(value, "__dict__"):
            reads.read(Attr(source, "__dict__"), value.__dict__)  # its attributes as a whole
        for name in names:
            if is_cell:
                if name not in value.__dict__ or name.startswith("_"):
                    continue
                attr = value.__dict__[name]   # the Cell's own snapshot pins it; what it holds is walked
            elif is_stored_attribute(value, name):
                attr = getattr(value, name)
                reads.read(Attr(source, name), attr)
            else:
                continue
            todo.append((Attr(source, name), attr, depth + 1))


def _is_data(value: Any) -> bool:
    """An object whose attributes or items a graph may bake in (not a scalar, Tensor, module, class or code)."""
    return not (type(value) in SCALARS or isinstance(value, (Tensor, types.ModuleType, type, types.FunctionType,
                                                             types.MethodType, types.BuiltinFunctionType)))
def _collect_function(value: Any, functions: dict) -> None:
    if isinstance(value, types.MethodType):
        value = value.__func__
    if isinstance(value, types.FunctionType):
        functions.setdefault(value.__code__, value)
