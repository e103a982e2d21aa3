"""Tensor interop at MindSpore's top level: DLPack exchange (`from_dlpack`, `to_dlpack`), `frombuffer`, and
`swap_tensors` (two Tensor objects exchange their contents)."""
from __future__ import annotations

from typing import Any

import jax
import numpy as np

from .. import dtype as mstype
from ..tensor import Tensor


class _Capsule:
    """A bare DLPack capsule given the `__dlpack__` protocol jax reads (the capsule holds memory of the current
    device, as `to_dlpack` of an msx Tensor made it)."""

    def __init__(self, capsule: Any) -> None:
        self.capsule = capsule

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        device = jax.config.jax_default_device or jax.devices()[0]
        return (1, 0) if device.platform == "cpu" else (2, device.id)


def from_dlpack(dlpack: Any) -> Tensor:
    """A Tensor sharing memory with a DLPack capsule or any object with `__dlpack__` (numpy, torch, jax)."""
    if type(dlpack).__name__ != "PyCapsule" and not hasattr(dlpack, "__dlpack__"):
        raise TypeError(f"from_dlpack: expected a DLPack capsule or an object with __dlpack__, "
                        f"got {type(dlpack).__name__}")
    source = dlpack if hasattr(dlpack, "__dlpack__") else _Capsule(dlpack)
    return Tensor._from(jax.dlpack.from_dlpack(source))


def to_dlpack(tensor: Tensor):
    """A DLPack capsule of `tensor`'s memory (consumable once, e.g. by `torch.utils.dlpack.from_dlpack`)."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"to_dlpack: expected a Tensor, got {type(tensor).__name__}")
    return tensor._data.__dlpack__()


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
