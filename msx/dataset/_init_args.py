"""Keeping a constructor's arguments (what `serializer.serialize` stores of transforms and readers)."""
from __future__ import annotations

import inspect
from typing import Any


def record_init(cls: type) -> None:
    """Wrap `cls.__init__` to keep the outermost constructor call's arguments as `_init_args` (what serialize
    stores); None when they do not bind to the signature."""
    if "__init__" not in cls.__dict__:
        return
    orig = cls.__init__
    sig = inspect.signature(orig)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "_init_args" not in self.__dict__:
            try:
                bound = sig.bind(self, *args, **kwargs)
                recorded = dict(list(bound.arguments.items())[1:])
            except TypeError:
                recorded = None
            self.__dict__["_init_args"] = recorded
            self.__dict__["_init_sig"] = sig
        orig(self, *args, **kwargs)

    __init__.__wrapped__ = orig  # type: ignore[attr-defined]
    __init__.__doc__, __init__.__qualname__ = orig.__doc__, orig.__qualname__
    cls.__init__ = __init__
