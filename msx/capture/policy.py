"""The one call policy of the interpreting capture modes: what may run at capture time, what may not.

Bytecode capture applies all of it (what may not run at capture time is a
graph break); ast capture applies the side-effect and mutation tables (what
may not run is a fallback to eager, or a `Print` node for `print`).

The rule: a call runs at capture time only when doing it once gives the same
program as doing it on every call. That holds for msx ops (they record graph
nodes), for pure functions of constants (`len`, `math.sqrt(2)`, `str.join`,
numpy on Python values) and for building or changing containers the function
itself created. Everything else — `print`, I/O, random numbers, changing an
object the caller can see, a numpy/jax function given a tensor, reading a
tensor's value in Python — is a graph break: the graph ends before it, Python
runs it on every call, and capture resumes after it.
"""
from __future__ import annotations

import builtins
import functools
import types
from typing import Any

import collections

from ..tensor import Tensor

# Reading a tensor's value in Python: a break when the tensor's value is only known when the graph runs.
VALUE_BUILTINS = {builtins.bool: "bool()", builtins.int: "int()", builtins.float: "float()",
                  builtins.complex: "complex()", builtins.str: "str()", builtins.repr: "repr()",
                  builtins.format: "format()", builtins.ascii: "ascii()", builtins.hash: "hash()",
                  builtins.range: "range()", builtins.round: "round()", builtins.hex: "hex()", builtins.oct: "oct()",
                  builtins.bin: "bin()", builtins.chr: "chr()", builtins.sorted: "sorted()"}
VALUE_METHODS = {Tensor.asnumpy: "Tensor.asnumpy()", Tensor.numpy: "Tensor.numpy()", Tensor.item: "Tensor.item()",
                 Tensor.tolist: "Tensor.tolist()", Tensor.__str__: "str(Tensor)", Tensor.__repr__: "repr(Tensor)",
                 Tensor.__format__: "format(Tensor)", Tensor.__bool__: "bool(Tensor)",
                 Tensor.__float__: "float(Tensor)", Tensor.__int__: "int(Tensor)",
                 Tensor.__index__: "Tensor.__index__", Tensor.__array__: "numpy.asarray(Tensor)"}

# Builtins that are pure functions of their arguments (run at capture time when no tensor value is needed).
PURE_BUILTINS = {builtins.abs, builtins.all, builtins.any, builtins.ascii, builtins.bin, builtins.bool,
                 builtins.callable, builtins.chr, builtins.complex, builtins.dict, builtins.divmod, builtins.float,
                 builtins.format, builtins.frozenset, builtins.hash, builtins.hex, builtins.int, builtins.isinstance,
                 builtins.issubclass, builtins.len, builtins.list, builtins.max, builtins.min, builtins.oct,
                 builtins.ord, builtins.pow, builtins.repr, builtins.round, builtins.set, builtins.slice,
                 builtins.str, builtins.sum, builtins.tuple, builtins.type, builtins.object, builtins.bytes,
                 builtins.range, builtins.sorted, builtins.reversed, builtins.zip, builtins.enumerate,
                 builtins.map, builtins.filter, builtins.iter, builtins.next, builtins.getattr, builtins.hasattr,
                 functools.partial, functools.reduce}
PURE_BUILTINS |= {v for v in vars(builtins).values() if isinstance(v, type) and issubclass(v, BaseException)}

# Always a break, with what it is in words.
SIDE_EFFECT_BUILTINS = {builtins.print: "print()", builtins.input: "input()", builtins.open: "open()",
                        builtins.id: "id()", builtins.exec: "exec()", builtins.eval: "the eval builtin",
                        builtins.compile: "compile()", builtins.globals: "globals()", builtins.locals: "locals()",
                        builtins.vars: "vars()", builtins.breakpoint: "breakpoint()", builtins.delattr: "delattr()",
                        builtins.help: "help()", builtins.__import__: "__import__()"}

# Modules whose functions are pure: run at capture time on Python values (never on tensors).
PURE_MODULES = ("math", "cmath", "operator", "numpy", "jax", "jaxlib", "string", "re", "functools", "keyword")
IMPURE_MODULES = ("numpy.random", "jax.experimental.io_callback", "jax.debug", "random")

MUTATING_METHODS = {
    list: {"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse", "__setitem__", "__delitem__",
           "__iadd__", "__imul__"},
    dict: {"pop", "popitem", "setdefault", "update", "clear", "__setitem__", "__delitem__", "__ior__"},
    set: {"add", "discard", "remove", "pop", "clear", "update", "difference_update", "intersection_update",
          "symmetric_difference_update", "__ior__", "__iand__", "__isub__", "__ixor__"},
    collections.deque: {"append", "appendleft", "extend", "extendleft", "pop", "popleft", "clear", "remove",
                        "rotate", "insert"},
    bytearray: {"append", "extend", "insert", "pop", "remove", "clear", "reverse"},
}
PURE_SELF_TYPES = (str, bytes, int, float, complex, bool, tuple, frozenset, range, slice, list, dict, set,
                   type(None))

# msx calls with effects outside the graph: they run in Python on every call.
MSX_SIDE_EFFECTS = ("save_checkpoint", "load_checkpoint", "load_param_into_net", "export", "set_context", "load")


def callable_module(func: Any) -> str:
    """The module a callable comes from (`numpy`, `math`, ...), or '' when unknown."""
    self_ = getattr(func, "__self__", None)
    if isinstance(func, types.BuiltinMethodType) and self_ is not None and not isinstance(self_, types.ModuleType):
        return type(self_).__module__ or ""
    module = getattr(func, "__module__", None)
    if isinstance(module, str):
        return module
    module = getattr(type(func), "__module__", None)
    return module if isinstance(module, str) else ""


def is_pure_module(module: str) -> bool:
    if any(module == m or module.startswith(m + ".") for m in IMPURE_MODULES):
        return False
    return any(module == m or module.startswith(m + ".") for m in PURE_MODULES)


def describe_callable(func: Any) -> str:
    """`numpy.sum`, `time.time`, `MyClass.method`: how a break reason names a call."""
    name = getattr(func, "__qualname__", None) or getattr(func, "__name__", None) or type(func).__name__
    module = callable_module(func)
    if module in ("builtins", "") or name.startswith(module):
        return f"{name}()"
    return f"{module}.{name}()"

