"""The one table of capture rules for builtins, keyed by the callable, shared by the interpreting modes.

A builtin called by interpreted code either runs as it is (the one call policy, `capture/policy.py`, says
whether it may) or has a capture rule here. A rule is written once, for ast and bytecode capture alike: it
gets the mode's `HandlerContext` (`cx`) and the call's already-evaluated arguments — concrete Python values,
Tensors, or the mode's own symbolic values (bytecode's Boxes, which carry where a value was read from) —
and reads them only through `cx`: `cx.use(v)` for a value, `cx.items_of(v)` for elements, `cx.call_value`
to call a user callback as interpreted code, `cx.refuse(...)` for what the mode cannot capture. The context
is the mode's adapter: bytecode's symbolic VM itself (`bytecode/calls.py`), ast's `AstContext`
(`ast_capture/rule_context.py`). Where a mode differs, the difference is one method of its context (bytecode's
`refuse` is a graph break, ast's a fallback), never a second rule.

Each mode looks a call up in `handlers(mode)`: `{id(fn): (fn, handler)}`, one dict probe per call.
`coverage()` says, per builtin, which modes handle it, and `shared()` which rules are one function in every
mode; a test keeps these and the call policy consistent.

Where to add a capture rule: `@rule(builtin)` on a function `(cx, args, kwargs)` in this module.
"""
from __future__ import annotations

import builtins
import functools
import types
from typing import Any, Callable, Protocol

from ..ops.functional_array import print_template
from ..ops.primitive import apply
from ..runtime.list_iterator import ListIterator
from ..tensor import Tensor

MODES = ("ast", "bytecode")
_TABLE: dict[str, dict[int, tuple[Any, Callable]]] = {mode: {} for mode in MODES}
_WHY: dict[tuple[int, str], str] = {}


class HandlerContext(Protocol):
    """What a capture rule may ask of the mode that runs it (bytecode guards what it reads; ast's values are
    the values)."""

    EXHAUSTED: Any                                  # what `next_item` returns at the end

    def use(self, v: Any) -> Any: ...               # the Python value (bytecode: guarded to equal it)
    def use_type(self, v: Any) -> Any: ...          # the value when only its type matters (guarded by type)
    def use_deep(self, v: Any) -> Any: ...          # fit for library code: no symbolic values inside
    def materialize(self, v: Any) -> Any: ...       # a container with all its elements in (a carried-over list)
    def has_dynamic(self, v: Any) -> bool: ...      # holds a tensor whose value is only known when the graph runs
    def items_of(self, v: Any) -> list: ...         # an iterable's elements, read as iteration reads them
    def get_iter(self, v: Any) -> Any: ...          # iter(v)
    def next_item(self, it: Any) -> Any: ...        # next(it), or EXHAUSTED
    def new_local(self, obj: Any) -> Any: ...       # `obj` was made by the captured code (it may change it)
    def tuple_like(self, it: Any) -> Any: ...       # a materialised map/zip/enumerate: returned, it is a tuple
    def truth(self, v: Any) -> bool: ...            # bool(v) as a branch reads it
    def call_value(self, fn: Any, args: tuple, kwargs: dict | None = None) -> Any: ...  # a callback, interpreted
    def library_call(self, fn: Any, args: tuple, kwargs: dict) -> Any: ...  # not interpreted: the call policy
    def run_library(self, fn: Any, args: tuple, kwargs: dict) -> Any: ...   # run it now on the values
    def run_now(self, fn: Any, args: tuple, kwargs: dict) -> Any: ...       # run it now on these exact objects
    def load_attr(self, obj: Any, name: str) -> Any: ...
    def store_attr(self, obj: Any, name: str, value: Any) -> None: ...
    def is_user_function(self, fn: types.FunctionType) -> bool: ...  # the user's code, interpreted when called
    def super_args(self) -> tuple[type, Any]: ...   # zero-argument super(): the class and the first argument
    def print_piece(self, v: Any) -> list: ...      # one print() argument as Print-template pieces
    def refuse(self, reason: str, suggestion: str) -> Exception: ...  # what the mode cannot capture


def register_builtin(fn: Any, handler: Callable, modes: tuple[str, ...] = MODES, why: str = "") -> None:
    """`handler(cx, args, kwargs)` runs calls of `fn` in `modes`. A rule for only some modes says `why`."""
    if set(modes) != set(MODES) and not why:
        raise ValueError(f"a capture rule for {getattr(fn, '__name__', fn)} in {modes} only must say why")
    for mode in modes:
        _TABLE[mode][id(fn)] = (fn, handler)
        if why:
            _WHY[(id(fn), mode)] = why


def rule(*fns: Any, modes: tuple[str, ...] = MODES, why: str = "") -> Callable[[Callable], Callable]:
    """Decorator: the function is the capture rule of `fns` (see `register_builtin`)."""
    def register(handler: Callable) -> Callable:
        for fn in fns:
            register_builtin(fn, handler, modes, why)
        return handler
    return register


def handlers(mode: str) -> dict[int, tuple[Any, Callable]]:
    """The live lookup table of `mode`: id(builtin) -> (builtin, handler)."""
    return _TABLE[mode]


def coverage() -> dict[Any, tuple[str, ...]]:
    """Each builtin in the table -> the modes that handle it."""
    out: dict[int, tuple[Any, list]] = {}
    for mode in MODES:
        for key, (fn, _) in _TABLE[mode].items():
            out.setdefault(key, (fn, []))[1].append(mode)
    return {fn: tuple(modes) for fn, modes in out.values()}


def shared() -> dict[Any, Callable]:
    """The builtins whose capture rule is one function in every mode -> that function."""
    first, *rest = (_TABLE[mode] for mode in MODES)
    return {fn: h for key, (fn, h) in first.items() if all(key in t and t[key][1] is h for t in rest)}


def differences() -> dict[Any, dict[str, str]]:
    """The builtins with a rule of their own in some mode -> {mode: why}."""
    out: dict[Any, dict[str, str]] = {}
    for (key, mode), why in _WHY.items():
        out.setdefault(_TABLE[mode][key][0], {})[mode] = why
    return out


# ---------------------------------------------------------------- print(): a Print node in every interpreting mode
class NotPrintable(Exception):
    """A `print(...)` a Print node cannot do (`file=`, `end=`): the mode says so in its own way."""


def print_pieces(args: tuple, kwargs: dict, piece: Callable[[Any], list]) -> list:
    """`print(*args, **kwargs)` as a Print template: strings and graph tensors, joined as they are.

    `piece(arg)` gives one argument's pieces (`[str(arg)]` for a Python value, `[tensor]` for a graph value).
    A type, a dtype, a shape or any other Python value is text known at capture time, printed by the node on
    every run as eager code prints it on every call (MindSpore's graph mode prints it on every call too)."""
    kwargs = dict(kwargs)
    sep = kwargs.pop("sep", " ")
    end = kwargs.pop("end", "\n")
    file = kwargs.pop("file", None)
    kwargs.pop("flush", None)
    if kwargs:
        raise TypeError(f"'{next(iter(kwargs))}' is an invalid keyword argument for print()")
    if file is not None or end not in ("\n", None):
        raise NotPrintable("print(..., file=/end=) cannot be captured: the graph prints whole lines to stdout")
    sep = " " if sep is None else sep
    if not isinstance(sep, str):
        raise TypeError(f"sep must be None or a string, not {type(sep).__name__}")
    pieces: list = []
    for i, arg in enumerate(args):
        if i:
            pieces.append(sep)
        pieces.extend(piece(arg))
    return pieces


def record_print(pieces: list) -> None:
    """A Print node whose template is `pieces` (str, or a tensor printed where it stands), joined as they are."""
    template, tensors, text = [], [], []
    for p in pieces:
        if isinstance(p, Tensor):
            if text:
                template.append("".join(text))
                text = []
            template.append(None)
            tensors.append(p)
        else:
            text.append(p)
    if text or not template:
        template.append("".join(text))
    apply(print_template, tuple(tensors), {"template": tuple(template), "sep": ""})


# ---------------------------------------------------------------- the rules, one per builtin
def _type_lookup(cls: type, name: str) -> Any:
    """`name` on the class (its MRO), without the instance: what Python's method lookup finds."""
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return klass.__dict__[name]
    return None


@rule(builtins.getattr)
def _getattr(cx: HandlerContext, args: tuple, kwargs: dict) -> Any:
    obj, name = args[0], cx.use(args[1])
    try:
        return cx.load_attr(obj, name)
    except AttributeError:
        if len(args) > 2:
            return args[2]
        raise


@rule(builtins.hasattr)
def _hasattr(cx: HandlerContext, args: tuple, kwargs: dict) -> bool:
    try:
        cx.load_attr(args[0], cx.use(args[1]))
        return True
    except AttributeError:
        return False


@rule(builtins.setattr)
def _setattr(cx: HandlerContext, args: tuple, kwargs: dict) -> None:
    obj, name, value = args
    cx.store_attr(obj, cx.use(name), value)


@rule(builtins.isinstance)
def _isinstance(cx: HandlerContext, args: tuple, kwargs: dict) -> bool:
    return isinstance(cx.use_type(args[0]), cx.use_deep(args[1]))


@rule(builtins.type)
def _type(cx: HandlerContext, args: tuple, kwargs: dict) -> Any:
    if len(args) == 1 and not kwargs:
        return type(cx.use_type(args[0]))
    return cx.library_call(type, args, kwargs)


@rule(builtins.len)
def _len(cx: HandlerContext, args: tuple, kwargs: dict) -> Any:
    obj = cx.materialize(cx.use(args[0]))
    fn = _type_lookup(type(obj), "__len__")
    if type(fn) is types.FunctionType and cx.is_user_function(fn):   # the user's __len__ is interpreted
        return cx.call_value(fn, (obj,))
    return cx.run_now(len, (obj,), {})


@rule(builtins.iter)
def _iter(cx: HandlerContext, args: tuple, kwargs: dict) -> Any:
    if len(args) != 1:
        return cx.library_call(iter, args, kwargs)
    return cx.get_iter(args[0])


@rule(builtins.next)
def _next(cx: HandlerContext, args: tuple, kwargs: dict) -> Any:
    it = cx.use(args[0])
    if not hasattr(type(it), "__next__"):
        raise TypeError(f"'{type(it).__name__}' object is not an iterator")
    if not isinstance(it, ListIterator):
        it = cx.get_iter(it)
    x = cx.next_item(it)
    if x is cx.EXHAUSTED:
        if len(args) > 1:
            return args[1]
        raise StopIteration
    return x


def _sequence(cx: HandlerContext, args: tuple, kwargs: dict, kind: type) -> Any:
    if kwargs or len(args) > 1:
        return cx.library_call(kind, args, kwargs)
    return cx.new_local(kind(cx.items_of(args[0])) if args else kind())


register_builtin(builtins.list, functools.partial(_sequence, kind=list))
register_builtin(builtins.tuple, functools.partial(_sequence, kind=tuple))


def _lazy(cx: HandlerContext, items: list) -> Any:
    """A map/zip/enumerate, materialised (a graph has no lazy values); returned, it is MindSpore's tuple."""
    return cx.tuple_like(cx.new_local(ListIterator(items)))


@rule(builtins.enumerate)
def _enumerate(cx: HandlerContext, args: tuple, kwargs: dict) -> Any:
    start = cx.use(kwargs.get("start", args[1] if len(args) > 1 else 0))
    items = cx.items_of(args[0])
    return _lazy(cx, [cx.new_local((start + i, x)) for i, x in enumerate(items)])


@rule(builtins.zip)
def _zip(cx: HandlerContext, args: tuple, kwargs: dict) -> Any:
    if kwargs.get("strict"):
        return cx.library_call(zip, args, kwargs)
    columns = [cx.items_of(a) for a in args]
    return _lazy(cx, [cx.new_local(row) for row in zip(*columns)])


@rule(builtins.map)
def _map(cx: HandlerContext, args: tuple, kwargs: dict) -> Any:
    fn, columns = args[0], [cx.items_of(a) for a in args[1:]]
    return _lazy(cx, [cx.call_value(fn, row) for row in zip(*columns)])


@rule(builtins.reversed)
def _reversed(cx: HandlerContext, args: tuple, kwargs: dict) -> Any:
    obj = cx.use(args[0])
    if isinstance(obj, range):
        return cx.new_local(ListIterator(list(reversed(obj))))
    return cx.new_local(ListIterator(cx.items_of(obj)[::-1]))


@rule(builtins.filter)
def _filter(cx: HandlerContext, args: tuple, kwargs: dict) -> Any:
    fn, items = args[0], cx.items_of(args[1])
    keep = [x for x in items if cx.truth(x if cx.use(fn) is None else cx.call_value(fn, (x,)))]
    return cx.new_local(ListIterator(keep))


@rule(builtins.sorted)
def _sorted(cx: HandlerContext, args: tuple, kwargs: dict) -> Any:
    items = [cx.use_deep(x) for x in cx.items_of(args[0])]
    key, reverse = kwargs.get("key"), cx.use(kwargs.get("reverse", False))
    keyed = key is not None and cx.use(key) is not None
    # the key callback is interpreted (it may be the user's); only what is compared must be known now
    keys = [cx.use_deep(cx.call_value(key, (x,))) for x in items] if keyed else items
    if cx.has_dynamic(keys):
        raise cx.refuse("sorted() needs the value of a tensor, which is only known when the graph runs",
                        "sort with ops.sort / ops.argsort on a tensor, or sort Python values")
    if keyed:
        order = sorted(range(len(items)), key=keys.__getitem__, reverse=reverse)
        return cx.new_local([items[i] for i in order])
    return cx.new_local(sorted(items, reverse=reverse))


@rule(builtins.sum)
def _sum(cx: HandlerContext, args: tuple, kwargs: dict) -> Any:
    items = [cx.use_deep(x) for x in cx.items_of(args[0])]
    start = cx.use_deep(kwargs.get("start", args[1] if len(args) > 1 else 0))
    return cx.run_now(sum, (items, start), {})   # Python's own sum: its errors, its float summation


@rule(functools.reduce)
def _reduce(cx: HandlerContext, args: tuple, kwargs: dict) -> Any:
    fn, items = args[0], cx.items_of(args[1])
    if len(args) > 2:
        acc = args[2]
    elif items:
        acc, items = items[0], items[1:]
    else:
        raise TypeError("reduce() of empty iterable with no initial value")
    for x in items:
        acc = cx.call_value(fn, (acc, x))
    return acc


@rule(builtins.super)
def _super(cx: HandlerContext, args: tuple, kwargs: dict) -> Any:
    if args or kwargs:
        return cx.run_library(super, args, kwargs)
    cls, first = cx.super_args()
    return super(cls, cx.use(first))


@rule(builtins.print)
def _print(cx: HandlerContext, args: tuple, kwargs: dict) -> None:
    """`print(...)` prints when the graph runs, in program order (a Print node), like `ops.Print`; a tensor
    inside a container, or `file=`/`end=`, is what the mode cannot capture."""
    args = tuple(cx.use_deep(a) for a in args)
    kwargs = {k: cx.use_deep(v) for k, v in kwargs.items()}
    if cx.has_dynamic(kwargs) or any(cx.has_dynamic(a) and not isinstance(a, Tensor) for a in args):
        raise cx.refuse("print() of a container holding tensors needs their values, which are only known when "
                        "the graph runs", "print the tensors themselves, or use ops.Print(...)")
    try:
        pieces = print_pieces(args, kwargs, cx.print_piece)
    except NotPrintable as exc:
        raise cx.refuse(str(exc), "print whole lines to stdout, or print outside the jitted function") from None
    cx.run_now(record_print, (pieces,), {})
