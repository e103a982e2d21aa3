"""Tensor interop at MindSpore's top level: DLPack exchange (`from_dlpack`, `to_dlpack`), `frombuffer`, and
`swap_tensors` (two Tensor objects exchange their contents)."""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtype as mstype
from ..ops.tensor_own_methods import from_dlpack, to_dlpack  # noqa: F401  (the Tensor methods' own)
from ..tensor import Tensor


def frombuffer(buffer: Any, dtype, count: int = -1, offset: int = 0) -> Tensor:
    """A 1-D Tensor of `count` items of `dtype` read from a buffer-protocol object from byte `offset`
    (a copy: XLA arrays own their memory)."""
    np_dtype = mstype.to_np(mstype.to_msx(dtype))
    try:
        array = np.frombuffer(buffer, dtype=np_dtype, count=count, offset=offset)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"frombuffer: cannot read {count} item(s) of {dtype} at offset {offset}: {exc}") from None
    return Tensor(array.copy())


def swap_tensors(t1: Tensor, t2: Tensor) -> None:
    """Exchange the contents (values, shape, dtype) of two Tensors in place."""
    if not isinstance(t1, Tensor) or not isinstance(t2, Tensor):
        raise TypeError(f"swap_tensors: expected two Tensors, got {type(t1).__name__} and {type(t2).__name__}")
    a, b = Tensor._from(t1._data), Tensor._from(t2._data)
    t1._rebind(b)
    t2._rebind(a)
