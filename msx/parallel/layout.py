"""MindSpore's `mindspore.parallel.Layout`: a device matrix with alias names, and per tensor a tensor map.

`Layout((2, 2, 2), ("dp", "sp", "mp"))` names the axes of an 8-device matrix; calling it with one entry per
tensor dimension (`layout("dp", "None")`, `layout(("dp", "sp"), "mp")`: a tuple cuts the dimension over
several axes, "None" does not cut it) gives that tensor's layout, usable wherever a strategy tuple is
(`Primitive.shard`, `ms.shard`, `Cell.shard`, `parameter_plan`). msx lowers it to a `NamedSharding` over
the strategy mesh (`msx.parallel.sharding`): the device matrix's axes are laid, in order, onto the mesh's
prime-factor axes (an axis of 4 takes two axes of 2), so the rank order is MindSpore's (the last alias
varies fastest). A device matrix whose factors do not line up with the mesh's is refused by name.
"""
from __future__ import annotations

import math
from typing import Any

NONE = "None"


class Layout:
    """`Layout(device_matrix, alias_name, rank_list=None)`; `layout(*tensor_map)` -> the layout of a tensor."""

    def __init__(self, device_matrix, alias_name, rank_list=None) -> None:
        if not isinstance(device_matrix, tuple) or not device_matrix or not all(
                isinstance(d, int) and not isinstance(d, bool) and d >= 1 for d in device_matrix):
            raise TypeError(f"Layout: device_matrix must be a tuple of ints >= 1, got {device_matrix!r}")
        if not isinstance(alias_name, tuple) or not all(isinstance(a, str) for a in alias_name):
            raise TypeError(f"Layout: alias_name must be a tuple of str, got {alias_name!r}")
        if len(alias_name) != len(device_matrix):
            raise ValueError(f"Layout: device_matrix {device_matrix} and alias_name {alias_name} must have the same "
                             f"length")
        if NONE in alias_name:
            raise ValueError("The element of alias_name can not set 'None', because 'None' means no sharding.")
        if len(set(alias_name)) != len(alias_name):
            raise ValueError(f"Layout: alias_name {alias_name} repeats a name")
        n = math.prod(device_matrix)
        if rank_list is not None and list(rank_list) != list(range(n)):
            raise ValueError(f"Layout: rank_list={list(rank_list)!r} is not supported by msx yet (issue 35): a layout "
                             f"spans devices 0..{n - 1} of the strategy mesh")
        self._device_matrix, self._alias_name = tuple(device_matrix), tuple(alias_name)
        self._tensor_map: tuple | None = None

    def __call__(self, *tensor_map) -> "Layout":
        used: list[str] = []
        entries = []
        for entry in tensor_map:
            names = entry if isinstance(entry, tuple) else (entry,)
            for name in names:
                if not isinstance(name, str):
                    raise TypeError(f"Layout: a tensor map entry must be an alias name, 'None' or a tuple of them, "
                                    f"got {entry!r}")
                if name == NONE:
                    continue
                if name not in self._alias_name:
                    raise ValueError(f"The axis {name} is not found in {self._alias_name}")
                if name in used:
                    raise ValueError(f"The axis {name} has been set more than one in {self._alias_name}")
                used.append(name)
            entries.append(tuple(n for n in names if n != NONE))
        out = Layout(self._device_matrix, self._alias_name)
        out._tensor_map = tuple(entries)
        return out

    # -------------------------------------------------------------- what msx reads
    @property
    def device_num(self) -> int:
        return math.prod(self._device_matrix)

    def cuts(self) -> tuple[int, ...]:
        """The strategy tuple it stands for: per dimension the product of the sizes of its axes."""
        self._need_map()
        size = dict(zip(self._alias_name, self._device_matrix))
        return tuple(math.prod(size[a] for a in names) for names in self._tensor_map)

    def axes(self) -> tuple[tuple[str, int], ...]:
        """The device matrix as (alias, size) pairs, in order."""
        return tuple(zip(self._alias_name, self._device_matrix))

    def tensor_map(self) -> tuple[tuple[str, ...], ...]:
        """Per tensor dimension the aliases it is cut over (() is not cut)."""
        self._need_map()
        return self._tensor_map

    def _need_map(self) -> None:
        if self._tensor_map is None:
            raise ValueError(f"Layout{self._device_matrix}: call the layout with a tensor map first, e.g. "
                             f"layout({', '.join(repr(a) for a in self._alias_name[:2])})")

    # -------------------------------------------------------------- MindSpore's view
    def to_dict(self) -> dict[str, Any]:
        """MindSpore's dict: the tensor map counts device-matrix axes from the right, -1 is not cut."""
        index = {a: len(self._alias_name) - 1 - i for i, a in enumerate(self._alias_name)}
        tmap = tuple(-1 if not names else (index[names[0]] if len(names) == 1 else tuple(index[a] for a in names))
                     for names in (self._tensor_map or ()))
        return {"device_matrix": self._device_matrix, "tensor_map": tmap, "interleaved_parallel": False,
                "alias_name": self._alias_name, "rank_list": list(range(self.device_num))}

    def __repr__(self) -> str:
        shown = "" if self._tensor_map is None else f", tensor_map={self._tensor_map}"
        return f"Layout(device_matrix={self._device_matrix}, alias_name={self._alias_name}{shown})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Layout) and (self._device_matrix, self._alias_name, self._tensor_map) == \
            (other._device_matrix, other._alias_name, other._tensor_map)

    def __hash__(self) -> int:
        return hash((self._device_matrix, self._alias_name, self._tensor_map))
