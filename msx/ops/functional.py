"""`msx.ops.functional` (MindSpore's `ops.functional`, `F`): every functional op with MindSpore's names.

Ops without argument logic are generated from their primitive's declaration (`api.Api`, next to the
primitive in math_ops/array_ops/nn_ops); the wrappers that do real work on their arguments live in small
modules by concern (`functional_math`, `functional_array`, `functional_nn`, `functional_random`), each
registered with `expose` under its public names. This module imports them and is the whole surface:
`__all__` is every functional op. New hand-written ops go in a new module registered with `expose`.
"""
from __future__ import annotations

from .api import SURFACE
from . import functional_math, functional_array, functional_random, functional_nn  # noqa: F401  (register)
from .convert import to_pair as _pair  # noqa: F401  (classes.py normalises pool attributes with F._pair)
from .functional_random import _next_key  # noqa: F401  (nn.initializer draws keys through F)

globals().update(SURFACE["ops"])  # every functional op is a name of this module
__all__ = sorted(SURFACE["ops"])
