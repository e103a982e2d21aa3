"""Oracle cases of helper w22c (issue 22): Tensor methods about the Tensor itself, mint / mint.nn.functional
views. Pulled into cases.py by one line; same rules as cases.py."""
from __future__ import annotations

from .cases import Case, Dt, In, add  # noqa: E402  (cases.py imports this module last)

_X = In()
add(Case("Tensor.byte", "Tensor.byte", (In("float32", (2, 3), 0, 200),), grad=False))
add(Case("Tensor.short", "Tensor.short", (In("float32", (2, 3), -300, 300),), grad=False))
add(Case("Tensor.double", "Tensor.double", (_X,)))
add(Case("Tensor.type_as", "Tensor.type_as", (_X, In("int32", (1,), 0, 3)), grad=False))
add(Case("Tensor.reshape_as", "Tensor.reshape_as", (_X, In(shape=(3, 2)))))
add(Case("Tensor.view_as", "Tensor.view_as", (_X, In(shape=(6,)))))
add(Case("Tensor.type[cast]", "Tensor.type", (_X, Dt("int32")), grad=False))
add(Case("Tensor.new_zeros", "Tensor.new_zeros", (_X, (2, 2)), grad=False))
add(Case("Tensor.new_full", "Tensor.new_full", (_X, (3,), 1.5), grad=False))
