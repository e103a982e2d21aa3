"""`ListIterator`: an iterator whose remaining length a guard can check (bytecode capture materialises
Python iterators into these so that a cache entry can assume how many items are left)."""
from __future__ import annotations

from typing import Any


class ListIterator:
    """A materialised iterator: `items[index:]` are still to come."""

    __slots__ = ("items", "index")

    def __init__(self, items: list, index: int = 0) -> None:
        self.items = items
        self.index = index

    def __iter__(self) -> "ListIterator":
        return self

    def __next__(self) -> Any:
        if self.index >= len(self.items):
            raise StopIteration
        self.index += 1
        return self.items[self.index - 1]

    def __repr__(self) -> str:
        return f"ListIterator({len(self.items) - self.index} left)"
