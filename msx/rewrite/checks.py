"""Argument checks of the rewrite API, worded as MindSpore's `_checkparam` words them (TypeError naming the
class, the argument and the type it got), so a port's error handling and messages carry over."""
from __future__ import annotations

from typing import Any, Iterable


def _type_names(types: Iterable[type]) -> list[str]:
    return [t.__name__ for t in types]


def check_type(owner: str, arg_name: str, value: Any, types: Iterable[type], hint: str = "") -> None:
    """TypeError unless `value` is one of `types` (a bool is not an int here, as in MindSpore); `hint` follows
    MindSpore's wording."""
    types = tuple(types)
    if isinstance(value, bool) and bool not in types:
        ok = False
    else:
        ok = isinstance(value, types)
    if not ok:
        names = _type_names(types)
        want = f"'{names[0]}'" if len(names) == 1 else f"one of '{names}'"
        raise TypeError(f"For '{owner}', the type of '{arg_name}' should be {want}, but got type "
                        f"'{type(value).__name__}'." + (f" {hint}" if hint else ""))


def check_elements(owner: str, arg_name: str, values: Any, types: Iterable[type],
                   containers: tuple = (list, tuple)) -> None:
    """TypeError unless `values` is a list/tuple whose every element is one of `types`."""
    types = tuple(types)
    if not isinstance(values, containers):
        raise TypeError(f"For '{owner}', the type of '{arg_name}' should be one of "
                        f"'{_type_names(containers)}', but got type '{type(values).__name__}'.")
    for item in values:
        if not isinstance(item, types) or (isinstance(item, bool) and bool not in types):
            raise TypeError(f"For '{owner}', the type of '{arg_name}' should be one of {_type_names(types)}, "
                            f"but got '{item}' with type '{type(item).__name__}'.")
