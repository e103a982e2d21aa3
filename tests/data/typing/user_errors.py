"""Deliberate type errors: `mypy --strict` must report each, on its line (tests/test_typing.py), which it can
only do when msx's types reach it (with `Any` every line here would pass)."""
from __future__ import annotations

import msx as ms
from msx import Tensor, nn, ops

x = Tensor([1.0, 2.0])
count: int = ops.sin(x)  # error: a Tensor is not an int
x.no_such_method()  # error: Tensor has no such attribute
ops.no_such_op(x)  # error: msx.ops has no such name
label: str = x.exp() + 1  # error: a Tensor operator gives a Tensor
nn.Dense("4", 8)  # error: in_channels is an int


@ms.jit
def step(t: Tensor) -> Tensor:
    return t * 2


step(x, x)  # error: jit keeps step's signature (one argument)
