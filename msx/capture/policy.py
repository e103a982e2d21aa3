"""The one call policy of the interpreting capture modes: what may run at capture time, what may not.

`judge(cx, func, args, kwargs)` rules on a call into code that is not interpreted (a library function, a
builtin no capture rule handles, a method of a builtin type), the same way for ast and bytecode capture;
each mode then acts on the `Verdict` in its own way, and that is the one place they differ: bytecode
capture obeys all of it (what may not run at capture time is a graph break), ast capture refuses the
`EFFECT` verdicts (the function falls back) and runs the rest at compile time, which is MindSpore's JIT
Fallback (ast has no graph break to run it on every call). Before either mode decides, `unwrap` peels a
call the same way (bound methods, partials, nested `msx.jit` functions); which calls are then interpreted
(user code, Cells) is each mode's own walk, since it finds user code its own way (bytecode by the code
object's file, ast by the function's source): `bytecode/calls.py`, `ast_capture/interpreter.py`. The rules
of the builtins both run themselves are `handlers.py`.

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
from dataclasses import dataclass
from typing import Any

import collections

from ..tensor import Tensor
from .failures import is_jit_function

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



def is_msx_object(obj: Any) -> bool:
    """A function, method or class of msx itself (its ops record graph nodes when called)."""
    module = getattr(obj, "__module__", None)
    if module is None and hasattr(obj, "__func__"):
        module = getattr(obj.__func__, "__module__", None)
    if module is None:
        module = getattr(type(obj), "__module__", None)
    return isinstance(module, str) and (module == "msx" or module.startswith("msx."))


def mutates(self_: Any, name: str) -> bool:
    """`self_.name(...)` changes `self_` (a list's append, a dict's update, ...)."""
    return any(name in names for base, names in MUTATING_METHODS.items() if isinstance(self_, base))


def unwrap(func: Any, args: tuple, kwargs: dict) -> tuple[Any, tuple, dict]:
    """The callable a call really calls, as both interpreting modes peel it before deciding whether to
    interpret it: a bound method's function with its `self` first, a partial's function with its arguments,
    a nested `msx.jit` function's Python function (inlined into this graph, not a graph of its own)."""
    while True:
        kind = type(func)
        if kind is types.MethodType:
            func, args = func.__func__, (func.__self__, *args)
        elif kind is functools.partial:
            func, args, kwargs = func.func, (*func.args, *args), {**func.keywords, **kwargs}
        elif is_jit_function(func):
            func = func.fn
        else:
            return func, args, kwargs


# ---------------------------------------------------------------- the verdict on one call
RUN = "run"          # run it now, on the values: the same as running it on every call
METHOD = "method"    # a method of a builtin type: runs now unless it changes an object the caller can see
VALUE = "value"      # needs a tensor's value, only known when the graph runs
EFFECT = "effect"    # a builtin with effects outside the graph (I/O, the interpreter's state)
OUTSIDE = "outside"  # not known to be the same when run once: msx I/O, a pure library given a tensor, other code


@dataclass(frozen=True)
class Verdict:
    """What the call policy says of one call. For METHOD: `func` bound to `self_`, called with `args`."""

    kind: str
    what: str = ""             # how a message names the call
    reason: str = ""
    suggestion: str = ""
    func: Any = None
    self_: Any = None
    args: tuple = ()


_RUN = Verdict(RUN)
_CALL_OUTSIDE = "call it outside the jitted function"


def _hashable(x: Any) -> bool:
    try:
        hash(x)
    except TypeError:
        return False
    return True


class PlainValues:
    """What `judge` asks of a mode, for calls on ordinary Python values outside any capture (a test, a
    report): every value is what it is, and none is only known when a graph runs."""

    def use(self, v: Any) -> Any:
        return v

    def has_dynamic(self, v: Any) -> bool:
        return False


def judge(cx: Any, func: Any, args: tuple, kwargs: dict) -> Verdict:
    """The verdict on `func(*args, **kwargs)`, code no mode interprets; `cx` is the mode's `HandlerContext`
    (`cx.use` reads a value, `cx.has_dynamic` asks whether tensors only known when the graph runs are in it)."""
    hashable = _hashable(func)
    if hashable and func in VALUE_METHODS and args and cx.has_dynamic(args[0]):
        return Verdict(VALUE, VALUE_METHODS[func])
    if hashable and func in SIDE_EFFECT_BUILTINS:
        return Verdict(EFFECT, SIDE_EFFECT_BUILTINS[func], f"{SIDE_EFFECT_BUILTINS[func]} has effects outside the "
                       f"graph", _CALL_OUTSIDE)
    if hashable and func in VALUE_BUILTINS and (cx.has_dynamic(args) or cx.has_dynamic(kwargs)):
        return Verdict(VALUE, VALUE_BUILTINS[func])
    if (hashable and func in PURE_BUILTINS) or (isinstance(func, type) and issubclass(func, BaseException)):
        return _RUN
    self_ = getattr(func, "__self__", None)
    if isinstance(func, types.BuiltinMethodType) and self_ is not None and not isinstance(self_, types.ModuleType):
        return Verdict(METHOD, describe_callable(func), func=func, self_=self_, args=args)
    if type(func) is types.MethodDescriptorType and args:   # `list.append` + self, as LOAD_METHOD pushes them
        self_ = cx.use(args[0])
        if isinstance(self_, func.__objclass__):
            return Verdict(METHOD, describe_callable(func), func=getattr(self_, func.__name__), self_=self_,
                           args=args[1:])
    if is_msx_object(func):
        if getattr(func, "__name__", "") in MSX_SIDE_EFFECTS:
            return Verdict(OUTSIDE, describe_callable(func), f"{describe_callable(func)} reads or writes files or "
                           f"global settings", _CALL_OUTSIDE)
        return _RUN
    module = callable_module(func)
    if is_pure_module(module):
        if cx.has_dynamic(args) or cx.has_dynamic(kwargs):
            return Verdict(OUTSIDE, describe_callable(func),
                           f"{describe_callable(func)} is given a tensor, but {module.split('.')[0]} cannot compute "
                           f"on values that only exist when the graph runs",
                           "use the msx.ops equivalent so it becomes part of the graph (e.g. ops.sum for "
                           "numpy.sum), or convert outside the jitted function")
        return _RUN
    return Verdict(OUTSIDE, describe_callable(func),
                   f"{describe_callable(func)} is neither an msx op nor a function msx knows to be pure: run once "
                   f"at capture time its effects (I/O, randomness, state) would be lost, so it runs in Python on "
                   f"every call",
                   "if it only computes a constant, compute it outside the jitted function and pass the result "
                   "in; use msx.ops for tensor math")
