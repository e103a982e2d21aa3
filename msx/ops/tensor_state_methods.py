"""Tensor methods about a Tensor's runtime state rather than its value: the const-argument flag, the lazy-init
flags (`init`, `init_flag`, `is_init`), memory placement (`pin_memory`, `is_shared`, `delete_`, `data_sync`),
raw bytes (`get_bytes`), storage rebinding (`set_`), torch-style indexing (`index`, `index_copy_`) and
MindSpore's view bookkeeping (`parent_tensor_`, `index_of_parent_`). MindSpore 2.10's names, signatures and
answers on a plain CPU Tensor; merged into `Tensor` by `tensor_methods.attach`.

A Tensor is two slots (`_data`, `_placeholder`), so the few flags a user can set (`set_const_arg`,
`parent_tensor_`, ...) are kept beside it in a table by identity that empties as the Tensor goes, as
`msx.eager.tensor_hooks` keeps hooks.
"""
from __future__ import annotations

import threading
import weakref
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ..tensor import InitSpec, Parameter, Tensor

# id(Tensor) -> (a weak reference to it, {flag: value}); by identity: a Tensor's `==` is elementwise
_FLAGS: dict[int, tuple[weakref.ref, dict[str, Any]]] = {}
_LOCK = threading.Lock()


def _flags(t: Tensor) -> dict[str, Any]:
    key = id(t)
    with _LOCK:
        entry = _FLAGS.get(key)
        if entry is None or entry[0]() is not t:
            entry = _FLAGS[key] = (weakref.ref(t, lambda _r, k=key: _FLAGS.pop(k, None)), {})
        return entry[1]


def _flag(t: Tensor, name: str, default: Any) -> Any:
    entry = _FLAGS.get(id(t))
    if entry is None or entry[0]() is not t:
        return default
    return entry[1].get(name, default)


def _settable(name: str, default: Any, doc: str) -> property:
    def get(self: Tensor) -> Any:
        return _flag(self, name, default)

    def put(self: Tensor, value: Any) -> None:
        _flags(self)[name] = value

    return property(get, put, doc=doc)


def set_const_arg(self: Tensor, const_arg: bool = True) -> Tensor:
    """Mark this Tensor as a constant network argument (MindSpore's deprecated `set_const_arg`); returns it.
    msx's `jit` specialises on a Tensor argument's value only through `mutable`/`const_arg`-free rules, so the
    flag is what `const_arg` reads back."""
    if not isinstance(const_arg, bool):
        raise TypeError(f"For 'set_const_arg', the type of 'const_arg' should be 'bool', but got type "
                        f"'{type(const_arg).__name__}'.")
    _flags(self)["const_arg"] = const_arg
    return self


def data_sync(self: Tensor, wait: bool = True, /) -> None:
    """Wait until this Tensor's value is computed (MindSpore's host/device sync); returns None."""
    data = self._data
    if wait and isinstance(data, jax.Array) and not isinstance(data, jax.core.Tracer):
        data.block_until_ready()


def delete_(self: Tensor, non_blocking: bool = False) -> Tensor:
    """Release this Tensor's memory: its buffer is freed and it becomes a Tensor of zeros of the same shape
    and dtype (MindSpore's documented result, `[0, 0, 0, 0]`); assign `.data`/`set_data` to refill it."""
    if not isinstance(non_blocking, bool):
        raise TypeError(f"Tensor.delete_: non_blocking must be a bool, got {type(non_blocking).__name__}")
    data = self._data
    zeros = jnp.zeros(data.shape, data.dtype)
    if isinstance(data, jax.Array) and not isinstance(data, jax.core.Tracer):
        self._rebind(Tensor._from(zeros))
        if not data.is_deleted():
            data.delete()
        return self
    return self._rebind(Tensor._from(zeros))


def get_bytes(self: Tensor) -> bytes:
    """The raw bytes of the value, row-major (C order), as MindSpore's `get_bytes`."""
    return np.ascontiguousarray(self.asnumpy()).tobytes()


def pin_memory(self: Tensor) -> Tensor:
    """A copy of this Tensor in host memory the device can read directly. XLA's CPU buffers already are such
    memory; on a GPU the copy is placed in jax's pinned-host memory space where the backend has one."""
    data = self._data
    device = next(iter(data.devices()))
    if device.platform != "cpu":
        try:
            sharding = jax.sharding.SingleDeviceSharding(device, memory_kind="pinned_host")
            return Tensor._from(jax.device_put(data, sharding))
        except (ValueError, jax.errors.JaxRuntimeError, NotImplementedError) as exc:
            raise RuntimeError(f"Tensor.pin_memory: the {device.platform} backend has no pinned host memory "
                               f"({exc})") from None
    return Tensor._from(jnp.array(data, copy=True))


def is_pinned(self: Tensor) -> bool:
    """Whether the value lives in pinned host memory (what `pin_memory` makes on a GPU)."""
    data = self._data
    if isinstance(data, jax.core.Tracer):
        return False
    return getattr(data.sharding, "memory_kind", None) == "pinned_host"


def is_shared(self: Tensor) -> bool:
    """Whether the value is in inter-process shared memory: msx's buffers never are (MindSpore's CPU answer)."""
    return False


def requires_grad_(self: Tensor, requires_grad: bool = True, /) -> None:
    """MindSpore's `requires_grad_`: returns None. On a Parameter it sets `requires_grad` (what msx's optimizers
    and `grad(weights=...)` read); a plain Tensor keeps the flag only as a record, since msx differentiates the
    inputs `grad(grad_position=...)` names."""
    if isinstance(self, Parameter):
        self.requires_grad = bool(requires_grad)
    else:
        _flags(self)["requires_grad"] = bool(requires_grad)


def flush_from_cache(self: Tensor) -> None:
    """Flush a cache-enabled Tensor to the host: msx keeps no device cache of host tensors, so there is nothing to
    flush; returns None as MindSpore does on a Tensor without a cache."""
    return None


def _check_sizes(what: str, values, name: str) -> tuple[int, ...]:
    if not isinstance(values, (tuple, list)) or not all(isinstance(v, int) and not isinstance(v, bool)
                                                        for v in values):
        raise TypeError(f"Tensor.set_: {name} must be a tuple or list of int, got {values!r}")
    if any(v < 0 for v in values):
        raise RuntimeError(f"Tensor.set_: {what} {name} {tuple(values)} has a value less than 0")
    return tuple(values)


def set_(self: Tensor, source: Tensor | None = None, storage_offset: int = 0, size=None, stride=None) -> Tensor:
    """MindSpore's `set_`: make this Tensor the value of `source` (or an empty Tensor with no source), or the
    strided window `size`/`stride` of `source`'s storage from `storage_offset`. msx Tensors are values, not
    views: after `set_` this Tensor holds `source`'s elements, but a later in-place write to one of the two is
    not seen by the other (jax arrays share no mutable storage)."""
    if source is None:
        if size is not None or stride is not None or storage_offset != 0:
            raise TypeError("Tensor.set_: size, stride and storage_offset need a source Tensor")
        return self._rebind(Tensor._from(jnp.zeros((0,), self._data.dtype)))
    if not isinstance(source, Tensor):
        raise TypeError(f"Failed calling set_ with \"set_({type(source).__name__})\": source must be a Tensor")
    if source.dtype != self.dtype:
        raise RuntimeError(f"Could not set tensor of type {source.dtype} to a tensor of type {self.dtype}")
    if size is None:
        if stride is not None or storage_offset != 0:
            raise TypeError("Tensor.set_: storage_offset and stride need size (set_(source, storage_offset, size, "
                            "stride=None))")
        return self._rebind(source)
    if not isinstance(storage_offset, int) or isinstance(storage_offset, bool):
        raise TypeError(f"Tensor.set_: storage_offset must be an int, got {type(storage_offset).__name__}")
    if storage_offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {storage_offset}")
    size = _check_sizes("the", size, "size")
    if stride is None:
        stride = tuple(int(np.prod(size[i + 1:])) for i in range(len(size)))
    stride = _check_sizes("the", stride, "stride")
    if len(size) != len(stride):
        raise RuntimeError(f"Tensor.set_: size {size} and stride {stride} have different lengths")
    if len(size) > 8:
        raise RuntimeError(f"Tensor.set_: size {size} has more than 8 dimensions")
    index = np.full(size, storage_offset, np.int64)
    for axis, (n, st) in enumerate(zip(size, stride)):
        index = index + (np.arange(n, dtype=np.int64) * st).reshape((1,) * axis + (n,) + (1,) * (len(size) - axis - 1))
    if index.size and int(index.max()) >= source.size:
        raise RuntimeError(f"Tensor.set_: the window (offset {storage_offset}, size {size}, stride {stride}) "
                           f"reaches element {int(index.max())} of a source of {source.size} elements")
    flat = source.reshape(-1)
    out = flat[Tensor(index)] if index.size else Tensor._from(jnp.zeros(size, source._data.dtype))
    return self._rebind(out)


def index(self: Tensor, indices, /) -> Tensor:
    """torch's `aten::index`: advanced indexing by a tuple (or list) of index Tensors, one per leading axis
    (`t.index((rows, cols))` is `t[rows, cols]`). MindSpore's CPU build refuses it (Ascend only); msx runs it
    everywhere."""
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"index(): argument 'indices' (position 1) must be tuple of Tensor, not "
                        f"{type(indices).__name__}.")
    for i, ix in enumerate(indices):
        if not isinstance(ix, Tensor):
            raise TypeError(f"index(): argument 'indices' (position 1) must be tuple of Tensor but found type of "
                            f"{type(ix).__name__} at pos {i}.")
    if len(indices) > self.ndim:
        raise IndexError(f"index(): too many indices ({len(indices)}) for a tensor of shape {self.shape}")
    return self[tuple(indices)]


def index_copy_(self: Tensor, dim: int, index: Tensor, tensor: Tensor, /) -> Tensor:
    """Copy the slices of `tensor` into this Tensor at positions `index` along `dim` (torch's `index_copy_`);
    returns this Tensor. MindSpore's CPU build has no kernel (Ascend only); msx runs it everywhere."""
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise TypeError(f"Tensor.index_copy_: dim must be an int, got {type(dim).__name__}")
    if not -max(self.ndim, 1) <= dim < max(self.ndim, 1):
        raise ValueError(f"Tensor.index_copy_: dim {dim} is out of range for a tensor of shape {self.shape}")
    dim = dim % max(self.ndim, 1)
    if not isinstance(index, Tensor) or index.ndim > 1 or index.dtype not in ("int32", "int64"):
        raise TypeError(f"Tensor.index_copy_: index must be a 1-D int32/int64 Tensor, got "
                        f"{getattr(index, 'shape', type(index).__name__)} {getattr(index, 'dtype', '')}")
    if not isinstance(tensor, Tensor):
        raise TypeError(f"Tensor.index_copy_: tensor must be a Tensor, got {type(tensor).__name__}")
    n = index.size
    want = self.shape[:dim] + (n,) + self.shape[dim + 1:] if self.ndim else (n,)
    if tuple(tensor.shape) != want and not (self.ndim == 0 and tensor.size == n):
        raise ValueError(f"Tensor.index_copy_: tensor of shape {tensor.shape} does not fit {n} index entries "
                         f"along dim {dim} of a tensor of shape {self.shape} (expected {want})")
    value = tensor.astype(self.dtype) if tensor.dtype != self.dtype else tensor
    if self.ndim == 0:
        self._rebind(value.reshape(()))
        return self
    self[(slice(None),) * dim + (index.reshape(-1),)] = value
    return self


METHODS = {
    "const_arg": property(lambda self: _flag(self, "const_arg", False),
                          doc="Whether the Tensor is a constant network argument (`set_const_arg`)."),
    "set_const_arg": set_const_arg, "data_sync": data_sync, "delete_": delete_, "get_bytes": get_bytes,
    "pin_memory": pin_memory, "is_pinned": is_pinned, "is_shared": is_shared, "requires_grad_": requires_grad_,
    "flush_from_cache": flush_from_cache, "set_": set_, "index": index, "index_copy_": index_copy_,
    # lazy initialisation: a plain Tensor (msx fills a Tensor when it is made) is initialised and has no pending init
    "init": property(lambda self: self._placeholder.init if type(self._placeholder) is InitSpec else None,
                     doc="The Initializer of a Tensor not filled yet (`nn.no_init_parameters`); None once filled."),
    "init_finished": property(lambda self: True, doc="Whether the Tensor's initialisation is finished."),
    "init_flag": _settable("init_flag", False, "MindSpore's init flag of a Tensor (False unless set)."),
    "is_init": lambda self: bool(_flag(self, "init_flag", False)),
    "param_info": property(lambda self: None, doc="A plain Tensor has no ParamInfo (a Parameter's own state)."),
    "symbolic_shape": _settable("symbolic_shape", None, "The symbolic shape set for dynamic-shape compiling."),
    "virtual_flag": _settable("virtual_flag", False, "MindSpore's virtual-Tensor flag (False unless set)."),
    "delta_seed": 0,
    # views: msx's indexing makes new values, not views, so no Tensor has a parent unless one is set
    "parent_tensor_": _settable("parent_tensor_", None, "The Tensor this one is an index value of, if set."),
    "index_of_parent_": _settable("index_of_parent_", None, "The index into `parent_tensor_`, if set."),
}
