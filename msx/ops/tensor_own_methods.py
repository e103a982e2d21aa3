"""Tensor methods that are about the Tensor itself rather than an op: dtype casts by name (`t.double()`),
`new_*` constructors, `*_as` shape/dtype borrowing, matrix transposes (`mT`, `mH`, `H`), queries
(`ndimension`, `nelement`, `is_signed`, `device`), backward hooks (`register_hook`) and DLPack exchange. MindSpore 2.10's names and
signatures; merged into `Tensor` by `tensor_methods.attach`."""
from __future__ import annotations

import jax
import jax.numpy as jnp

from .. import dtype as mstype
from ..recording import recording
from ..eager import tape as tape_mod, tensor_hooks
from ..ignored_args import not_honoured
from ..tensor import InitSpec, Tensor, fill_if_deferred
from . import functional as F


def _size(size: tuple) -> tuple:
    """`new_zeros((2, 3))` and `new_zeros(2, 3)` both mean shape (2, 3)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    if not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in size):
        raise TypeError(f"new tensor: size must be non-negative ints, got {size!r}")
    return tuple(size)


def _new(self, size, fill, dtype) -> Tensor:
    dt = self._data.dtype if dtype is None else mstype.to_np(mstype.to_msx(dtype))
    return Tensor._from(jnp.full(_size(size), fill, dt))


def new_full(self, size, fill_value, *, dtype=None) -> Tensor:
    """A Tensor of `size` filled with `fill_value`, of this Tensor's dtype unless `dtype` is given."""
    return _new(self, (size,), fill_value, dtype)


def new_zeros(self, *size, dtype=None) -> Tensor:
    return _new(self, size, 0, dtype)


def new_ones(self, *size, dtype=None) -> Tensor:
    return _new(self, size, 1, dtype)


def new_empty(self, *size, dtype=None, device=None) -> Tensor:
    """An uninitialised Tensor in torch's sense; XLA has no uninitialised memory, so it holds zeros."""
    not_honoured("Tensor.new_empty", "device", device, None, "the tensor is created on the context's device_target")
    return _new(self, size, 0, dtype)


def _matrix_t(self, conj: bool) -> Tensor:
    if self.ndim < 2:
        raise ValueError(f"Tensor.mT/mH: the tensor must be at least 2-D, got shape {self.shape}")
    perm = tuple(range(self.ndim - 2)) + (self.ndim - 1, self.ndim - 2)
    out = F.transpose(self, perm)
    return F.conj(out) if conj and jnp.iscomplexobj(self._data) else out


def _h(self) -> Tensor:
    if self.ndim != 2:
        raise ValueError(f"Tensor.H: the tensor must be 2-D, got shape {self.shape}")
    return _matrix_t(self, True)


def type_(self, dtype=None):
    """`t.type()` is the dtype's name (MindSpore's 'Float32'); `t.type(dtype)` casts."""
    return str(self.dtype) if dtype is None else F.cast(self, dtype)


def set_dtype(self, dtype) -> Tensor:
    """Cast this Tensor in place to `dtype` (MindSpore's `set_dtype`)."""
    return self._rebind(F.cast(self, dtype))


def _device(self) -> str:
    platform = next(iter(self._data.devices())).platform
    return {"cpu": "CPU", "gpu": "GPU", "cuda": "GPU", "rocm": "GPU", "tpu": "TPU"}.get(platform, platform.upper())


def _is_signed(self) -> bool:
    return not (jnp.issubdtype(self._data.dtype, jnp.unsignedinteger) or self._data.dtype == jnp.bool_)


class _Capsule:
    """A bare DLPack capsule given the `__dlpack__` protocol jax reads (the capsule holds memory of the current
    device, as `to_dlpack` of an msx Tensor made it)."""

    def __init__(self, capsule) -> None:
        self.capsule = capsule

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        device = jax.config.jax_default_device or jax.devices()[0]
        return (1, 0) if device.platform == "cpu" else (2, device.id)


def from_dlpack(dlpack) -> Tensor:
    """A Tensor sharing memory with a DLPack capsule or any object with `__dlpack__` (numpy, torch, jax)."""
    if type(dlpack).__name__ != "PyCapsule" and not hasattr(dlpack, "__dlpack__"):
        raise TypeError(f"from_dlpack: expected a DLPack capsule or an object with __dlpack__, "
                        f"got {type(dlpack).__name__}")
    return Tensor._from(jax.dlpack.from_dlpack(dlpack if hasattr(dlpack, "__dlpack__") else _Capsule(dlpack)))


def to_dlpack(tensor: Tensor):
    """A DLPack capsule of `tensor`'s memory (consumable once, e.g. by `torch.utils.dlpack.from_dlpack`)."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"to_dlpack: expected a Tensor, got {type(tensor).__name__}")
    return tensor._data.__dlpack__()


def register_hook(self, hook) -> tensor_hooks.TensorHookHandle:
    """MindSpore's `Tensor.register_hook(hook)`: `hook(grad)` sees this Tensor's gradient and may return a
    replacement. Eagerly it is kept beside the Tensor (`msx.eager.tensor_hooks`: it sees the gradient of every
    use); inside a capture (`GraphBuilder.grad_hook`: a `GradHook` node) or a jax transform the Tensor is
    rebound to an identity whose backward runs the hook, so it must be registered before the Tensor is used
    (MindSpore's graph-mode rule, checked here)."""
    if not callable(hook):
        raise TypeError(f"Tensor.register_hook: expected a callable hook function, but got {type(hook).__name__}")
    recorder = recording.recorder
    if recorder is None and not isinstance(self._data, jax.core.Tracer):
        handle = tensor_hooks.add(self, hook)
        tape = tape_mod.STATE.tape
        if tape is not None:  # a grad is being taken: the tape keeps the hooks of a Tensor local to it
            tape.hook(self._data, tensor_hooks.table(self))
        return handle
    if recorder is not None:  # the graph's GradHook node, for the compiled graph
        recorder.grad_hook(self, hook)
    handle = tensor_hooks.GraphHookHandle(self)
    if isinstance(self._data, jax.core.Tracer):  # differentiated by jax now (msx.grad's jax path, a trace
        self._data = tensor_hooks.hooked_array(self._data, hook, handle)  # capture's run): hook in its backward
    return handle


def remove_hook(self, hook_id: int) -> None:
    """Take back the hook whose handle has `hook_id` (`handle.id`)."""
    tensor_hooks.remove(self, hook_id)


METHODS = {
    "new_full": new_full, "new_zeros": new_zeros, "new_ones": new_ones, "new_empty": new_empty,
    "bfloat16": lambda self: F.cast(self, "bfloat16"), "byte": lambda self: F.cast(self, "uint8"),
    "short": lambda self: F.cast(self, "int16"), "double": lambda self: F.cast(self, "float64"),
    "type": type_, "type_as": lambda self, other: F.cast(self, other.dtype), "set_dtype": set_dtype,
    "reshape_as": lambda self, other: F.reshape(self, tuple(other.shape)),
    "view_as": lambda self, other: F.reshape(self, tuple(other.shape)),
    "mT": property(lambda self: _matrix_t(self, False)), "mH": property(lambda self: _matrix_t(self, True)),
    "H": property(_h),
    "ndimension": lambda self: self.ndim, "nelement": lambda self: self.size, "is_signed": _is_signed,
    "device": property(_device), "is_meta": property(lambda self: False),
    "value": lambda self: self, "data": property(lambda self: Tensor._from(self._data)),
    "has_init": property(lambda self: type(self._placeholder) is InitSpec),
    "init_data": lambda self, slice_index=None, shape=None, opt_shard_group=None: fill_if_deferred(self),
    "to_dlpack": to_dlpack,
    "register_hook": register_hook, "remove_hook": remove_hook, "hooks": tensor_hooks.hooks,
}


def attach_static() -> None:
    """`Tensor.from_dlpack(capsule)` is a static method."""
    Tensor.from_dlpack = staticmethod(from_dlpack)
