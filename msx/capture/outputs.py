"""What a captured function returns: lazy Python iterables become the tuples and lists of MindSpore's graph mode.

MindSpore's static-graph syntax gives `map`, `zip`, `range` and `enumerate` as
tuples and `filter` and generator expressions as lists (checked against
MindSpore 2.10 in GRAPH_MODE); a graph cannot return a lazy iterator, which
would run user code after the graph finished. Every capture mode converts the
returned value with `as_returned` before flattening it into graph outputs.
"""
from __future__ import annotations

import types
from typing import Any, Callable

from ..runtime.list_iterator import ListIterator

AS_TUPLE = (map, zip, enumerate, range)
AS_LIST = (filter, types.GeneratorType, type(iter([])), type(iter(())), ListIterator)
MAX_DEPTH = 32


def _never(value: Any) -> bool:
    return False


def as_returned(value: Any, items_of: Callable[[Any], list] = list, made: Callable[[Any], Any] = lambda c: c,
                is_tuple: Callable[[Any], bool] = _never, depth: int = 0) -> Any:
    """`value` with every lazy iterable in it (inside tuples, lists and dicts too) made a tuple or a list.

    `items_of(iterable)` reads an iterable's remaining items, `made(container)` is told of each new
    container, and `is_tuple(iterator)` says which materialised iterators came from `map`/`zip`/`enumerate`
    (bytecode capture reads through its interpreter, which keeps these)."""
    if depth > MAX_DEPTH:
        return value
    again = lambda x: as_returned(x, items_of, made, is_tuple, depth + 1)  # noqa: E731
    if isinstance(value, AS_TUPLE) or is_tuple(value):
        return made(tuple(again(x) for x in items_of(value)))
    if isinstance(value, AS_LIST):
        return made([again(x) for x in items_of(value)])
    kind = type(value)
    if kind is list or kind is tuple:
        items = [again(x) for x in value]
        return value if all(a is b for a, b in zip(items, value)) else made(kind(items))
    if kind is dict:
        items = {k: again(x) for k, x in value.items()}
        return value if all(items[k] is x for k, x in value.items()) else made(items)
    return value
