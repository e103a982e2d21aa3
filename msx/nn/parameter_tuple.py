"""`ParameterTuple`: MindSpore's tuple of Parameters (optimizers' parameter lists and state buffers)."""
from __future__ import annotations

from typing import Any

from ..tensor import Parameter, Tensor


class ParameterTuple(tuple):
    """MindSpore's ParameterTuple: a tuple of Parameters."""

    def __new__(cls, iterable):
        items = tuple(iterable)
        bad = [type(p).__name__ for p in items if not isinstance(p, Parameter)]
        if bad:
            raise TypeError(f"ParameterTuple holds Parameters only, got {bad[0]}")
        return super().__new__(cls, items)

    def clone(self, prefix: str, init: Any = "same") -> "ParameterTuple":
        """New Parameters named `prefix.<name>`: copies of these (`init='same'`) or made by `init` (an
        initializer name, Initializer or Tensor) with the same shapes and dtypes (optimizer state buffers)."""
        from .initializer import initializer

        if not isinstance(prefix, str) or not prefix:
            raise ValueError(f"ParameterTuple.clone: prefix must be a non-empty str, got {prefix!r}")
        out = []
        for p in self:
            data = Tensor(p) if init == "same" else initializer(init, p.shape, p.dtype)
            out.append(Parameter(data, name=f"{prefix}.{p.name}", requires_grad=p.requires_grad))
        return ParameterTuple(out)
