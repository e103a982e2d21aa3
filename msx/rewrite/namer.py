"""Unique names within one symbol tree: node names (`dense`, `dense_1`), targets made by flattening
(`relu_var`, `relu_var_1`) and fields of inserted cells. The numbering follows MindSpore's rewrite, so a
node found by name there (`stree.get_node("binop_add_1")`) is found by the same name here."""
from __future__ import annotations


def _split_suffix(name: str) -> tuple[str, int | None]:
    """'x_3' -> ('x', 3); 'x' -> ('x', None)."""
    base, sep, tail = name.rpartition("_")
    if sep and base and tail.isdigit():
        return base, int(tail)
    return name, None


class Namer:
    """Hands out names not handed out before: the first request for a base gets it unchanged, later ones get
    `base_1`, `base_2`, ... skipping names already taken in their own right."""

    def __init__(self) -> None:
        self._count: dict[str, int] = {}

    def add_name(self, name: str) -> None:
        """Marks `name` as taken (a target a node brings with it)."""
        self._count.setdefault(name, 1)

    def get_name(self, name: str) -> str:
        """A name not taken yet, derived from `name`."""
        if name == "_":
            return name
        count = self._count.get(name)
        if count is None:
            self._count[name] = 1
            base, suffix = _split_suffix(name)
            if not suffix or self._count.get(base, -1) <= suffix:
                return name
            count = 1
        while True:
            candidate = f"{name}_{count}"
            count += 1
            self._count[name] = count
            if candidate not in self._count:
                self._count[candidate] = 1
                return candidate

    def taken(self, name: str) -> bool:
        return name in self._count
