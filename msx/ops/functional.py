"""`msx.ops.functional` (MindSpore's `ops.functional`, `F`): every functional op with MindSpore's names.

Ops without argument logic are generated from their primitive's declaration (`api.Api`, next to the
primitive in math_ops/array_ops/nn_ops); the wrappers that do real work on their arguments live in small
modules by concern (`functional_math`, `functional_array`, `functional_nn`, `functional_random`), each
registered with `expose` under its public names. The namespace is `api.SURFACE["ops"]`: while msx.ops is
being built a name resolves through the table (`__getattr__`, so import order never hides one), and
`publish()` - called once by `msx.ops` after every declaring module ran - makes them module attributes and
sets `__all__`.
"""
from __future__ import annotations

from typing import Any

from .api import SURFACE
from . import functional_math, functional_array, functional_random, functional_nn  # noqa: F401  (register)
from .attr_converters import to_pair as _pair  # noqa: F401  (classes.py normalises pool attributes with F._pair)
from .functional_random import _next_key  # noqa: F401  (nn.initializer draws keys through F)


def __getattr__(name: str) -> Any:
    try:
        return SURFACE["ops"][name]
    except KeyError:
        raise AttributeError(f"module 'msx.ops.functional' has no attribute {name!r}") from None


def publish() -> None:
    """Every functional op as a module attribute, and `__all__` (msx.ops calls this once)."""
    global __all__
    globals().update(SURFACE["ops"])
    __all__ = sorted(SURFACE["ops"])
