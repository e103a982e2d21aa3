"""Builtins the symbolic interpreter runs itself, so that what flows through them keeps its sources.

`len`, `isinstance`, `getattr`, `iter`/`next`, `enumerate`, `zip`, `map`,
`sorted`, `sum`, `super()`, ... called by interpreted code: each handler gets
the interpreter (`vm`) and the call's arguments (Boxes and all) and does what
the builtin does, reading elements through the interpreter (guarded) and
calling user callbacks through it (interpreted). They are registered in the
capture modes' one table (`capture/handlers.py`); `SPECIAL` is bytecode's view
of it, a builtin's id -> (the builtin, its handler).
"""
from __future__ import annotations

import builtins
import functools
import operator
import types
from typing import Any

from ..handlers import handlers, register_builtin
from .breaks import value_needed
from ...runtime.list_iterator import ListIterator
from .stack_values import is_user_code
from .vm import EXHAUSTED, type_lookup


def _print(vm, frames, args, kwargs):
    return vm.library_call(builtins.print, args, kwargs)


def _getattr(vm, frames, args, kwargs):
    obj, name = args[0], vm.use(args[1])
    try:
        return vm.load_attr(obj, name)
    except AttributeError:
        if len(args) > 2:
            return args[2]
        raise


def _hasattr(vm, frames, args, kwargs):
    try:
        vm.load_attr(args[0], vm.use(args[1]))
        return True
    except AttributeError:
        return False


def _setattr(vm, frames, args, kwargs):
    vm.store_attr(args[0], vm.use(args[1]), args[2])


def _isinstance(vm, frames, args, kwargs):
    return isinstance(vm.use_type(args[0]), vm.use_deep(args[1]))


def _type(vm, frames, args, kwargs):
    if len(args) == 1 and not kwargs:
        return type(vm.use_type(args[0]))
    return vm.library_call(type, args, kwargs)


def _len(vm, frames, args, kwargs):
    obj = vm.materialize(vm.use(args[0]))
    fn = type_lookup(type(obj), "__len__")
    if type(fn) is types.FunctionType and is_user_code(fn.__code__):
        return vm.call_value(fn, (obj,))
    return vm._apply(len, (obj,), {})


def _iter(vm, frames, args, kwargs):
    if len(args) != 1:
        return vm.library_call(iter, args, kwargs)
    return vm.get_iter(args[0])


def _next(vm, frames, args, kwargs):
    it = vm.use(args[0])
    if not isinstance(it, ListIterator):
        it = vm.get_iter(it)
    x = vm.next_item(it)
    if x is EXHAUSTED:
        if len(args) > 1:
            return args[1]
        raise StopIteration
    return x


def _sequence(vm, frames, args, kwargs, kind):
    if kwargs or len(args) > 1:
        return vm.library_call(kind, args, kwargs)
    return vm.new_local(kind(vm.items_of(args[0])) if args else kind())


def _enumerate(vm, frames, args, kwargs):
    start = vm.use(kwargs.get("start", args[1] if len(args) > 1 else 0))
    items = vm.items_of(args[0])
    return vm.tuple_like(vm.new_local(ListIterator([vm.new_local((start + i, x)) for i, x in enumerate(items)])))


def _zip(vm, frames, args, kwargs):
    if kwargs.get("strict"):
        return vm.library_call(zip, args, kwargs)
    columns = [vm.items_of(a) for a in args]
    return vm.tuple_like(vm.new_local(ListIterator([vm.new_local(row) for row in zip(*columns)])))


def _reversed(vm, frames, args, kwargs):
    obj = vm.use(args[0])
    if isinstance(obj, range):
        return vm.new_local(ListIterator(list(reversed(obj))))
    return vm.new_local(ListIterator(vm.items_of(obj)[::-1]))


def _map(vm, frames, args, kwargs):
    fn, columns = args[0], [vm.items_of(a) for a in args[1:]]
    return vm.tuple_like(vm.new_local(ListIterator([vm.call_value(fn, row) for row in zip(*columns)])))


def _filter(vm, frames, args, kwargs):
    fn, items = args[0], vm.items_of(args[1])
    keep = [x for x in items if vm.truth(x if vm.use(fn) is None else vm.call_value(fn, (x,)))]
    return vm.new_local(ListIterator(keep))


def _sorted(vm, frames, args, kwargs):
    items = [vm.use_deep(x) for x in vm.items_of(args[0])]
    key, reverse = kwargs.get("key"), vm.use(kwargs.get("reverse", False))
    if vm.has_dynamic(items):
        raise value_needed("sorted()")
    if key is not None and vm.use(key) is not None:
        keys = [vm.use_deep(vm.call_value(key, (x,))) for x in items]
        order = sorted(range(len(items)), key=keys.__getitem__, reverse=reverse)
        return vm.new_local([items[i] for i in order])
    return vm.new_local(sorted(items, reverse=reverse))


def _sum(vm, frames, args, kwargs):
    items = vm.items_of(args[0])
    acc = vm.use(kwargs.get("start", args[1] if len(args) > 1 else 0))
    for x in items:
        acc = vm._apply(operator.add, (acc, vm.use_deep(x)), {})
    return acc


def _reduce(vm, frames, args, kwargs):
    fn, items = args[0], vm.items_of(args[1])
    if len(args) > 2:
        acc = args[2]
    elif items:
        acc, items = items[0], items[1:]
    else:
        raise TypeError("reduce() of empty iterable with no initial value")
    for x in items:
        acc = vm.call_value(fn, (acc, x))
    return acc


def _super(vm, frames, args, kwargs):
    if args:
        return vm._run_library(super, args, kwargs)
    f = frames[-1]
    names = f.info.names
    if "__class__" not in names or not f.info.code.co_argcount:
        raise RuntimeError("super(): no arguments")
    cls = f.lp[names.index("__class__")].cell_contents
    first = f.lp[0]
    if type(first) is types.CellType:   # `self` captured by a closure
        first = first.cell_contents
    return super(cls, vm.use(first))


for _fn, _handler in (
    (builtins.print, _print), (builtins.getattr, _getattr), (builtins.hasattr, _hasattr),
    (builtins.setattr, _setattr), (builtins.isinstance, _isinstance), (builtins.type, _type),
    (builtins.len, _len), (builtins.iter, _iter), (builtins.next, _next),
    (builtins.list, functools.partial(_sequence, kind=list)), (builtins.tuple, functools.partial(_sequence, kind=tuple)),
    (builtins.enumerate, _enumerate), (builtins.zip, _zip), (builtins.reversed, _reversed), (builtins.map, _map),
    (builtins.filter, _filter), (builtins.sorted, _sorted), (builtins.sum, _sum), (functools.reduce, _reduce),
    (builtins.super, _super)):
    register_builtin(_fn, "bytecode", _handler)
SPECIAL: dict[int, tuple[Any, Any]] = handlers("bytecode")
