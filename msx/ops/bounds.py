"""Range checks on index and label *values* (Primitive `values` rules).

jax never raises for an out-of-range index: `take` fills with NaN, indexing clamps, `take_along_axis` reads
garbage. MindSpore's CPU kernels raise instead, naming the op, the value and the range. These rules restore that
wherever the values are on hand: an eager call, and the call being captured by `msx.jit`. They read the index
from the device (what MindSpore's PyNative does too), so they run only for Tensor indices; a Python int index
is checked from the op's static attributes at no cost. Inside a compiled graph the values are unknown until it
runs: docs/errors.md says what msx returns there.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ..errors import OpIndexError


def concrete(a) -> np.ndarray | None:
    """`a`'s values as numpy when they are known now (not a tracer, not a placeholder), else None."""
    if isinstance(a, jax.core.Tracer) or not isinstance(a, (jax.Array, np.ndarray)):
        return None
    if not jnp.issubdtype(a.dtype, jnp.integer):
        return None  # float or bool indices are the shape rule's business (or a mask)
    return np.asarray(a)


def outside(values: np.ndarray, low: int, high: int, allowed: int | None = None) -> int | None:
    """The first value not in [low, high) (and not `allowed`), or None."""
    if values.size == 0:
        return None
    bad = (values < low) | (values >= high)
    if allowed is not None:
        bad &= values != allowed
    if not bad.any():
        return None
    return int(values[bad].reshape(-1)[0])


def _along(x, axis: int) -> int:
    shape = getattr(x, "shape", ())
    return shape[axis] if -len(shape) <= axis < len(shape) else 0


def gather(params, indices, *, axis=0, batch_dims=0) -> str | None:
    values = concrete(indices)
    if values is None:
        return None
    n = _along(params, axis)
    bad = outside(values, 0, n)
    return None if bad is None else f"input_indices value {bad} is out of range [0, {n}) along axis {axis}"


def gather_d(x, index, *, dim) -> str | None:
    values = concrete(index)
    if values is None:
        return None
    n = _along(x, dim)
    bad = outside(values, -n, n)
    return None if bad is None else f"index value {bad} is out of range [{-n}, {n}) along dim {dim}"


def gather_nd(x, indices) -> str | None:
    return _nd_outside(tuple(getattr(x, "shape", ())), indices)


def _nd_outside(shape: tuple, indices) -> str | None:
    """Why an index tuple in the last dim of `indices` does not address a tensor of `shape`, or None."""
    values = concrete(indices)
    if values is None or values.ndim == 0:
        return None
    for k in range(min(values.shape[-1], len(shape))):
        bad = outside(values[..., k], 0, shape[k])
        if bad is not None:
            return f"indices value {bad} is out of range [0, {shape[k]}) for dim {k} of shape {tuple(shape)}"
    return None


def scatter_nd_into(x, indices, updates) -> str | None:
    """`tensor_scatter_*`: each index tuple must address `x` (jax would drop the update silently; MindSpore
    raises "indices out of range")."""
    return gather_nd(x, indices)


def scatter_nd(indices, updates, *, shape) -> str | None:
    """`scatter_nd`: each index tuple must address a tensor of `shape`."""
    return _nd_outside(tuple(shape), indices)


def take(x, index) -> str | None:
    values = concrete(index)
    if values is None:
        return None
    n = int(np.prod(getattr(x, "shape", ())))
    bad = outside(values, -n, n)
    return None if bad is None else f"index value {bad} is out of range [{-n}, {n}) of the {n} elements"


def getitem(x, *tensors, index) -> str | None:
    """Integer Tensor indices (`x[Tensor(9)]`), each checked against the dim it indexes."""
    if not tensors:
        return None  # Python ints were checked from the spec before the call (array_ops.check_index)
    shape = getattr(x, "shape", ())
    consumed = sum(1 for item in index if item[0] in ("int", "slice", "tensor"))
    dim = 0
    for item in index:
        if item[0] == "tensor":
            values = concrete(tensors[item[1]])
            if values is not None and dim < len(shape):
                bad = outside(values, -shape[dim], shape[dim])
                if bad is not None:
                    return (f"index {bad} is out of range [{-shape[dim]}, {shape[dim]}) for dim {dim} of shape "
                            f"{tuple(shape)}")
            dim += 1
        elif item[0] in ("int", "slice"):
            dim += 1
        elif item[0] == "ellipsis":
            dim += len(shape) - consumed
    return None


getitem.reads_from = 1  # only the Tensor indices' values (msx.eager.lazy may defer it while `x` is pending)


def setitem(x, value, *tensors, index) -> str | None:
    return getitem(x, *tensors, index=index)


setitem.reads_from = 2  # only the Tensor indices' values, after the input and the value written


def class_labels(logits, target, *weight, ignore_index=-100, **_) -> str | None:
    """Class-index targets of a loss: each in [0, C) or equal to `ignore_index`."""
    values = concrete(target)
    if values is None:
        return None
    shape = getattr(logits, "shape", ())
    n = shape[1] if len(shape) > 1 else shape[0] if shape else 0
    bad = outside(values, 0, n, allowed=ignore_index)
    return None if bad is None else (f"target label {bad} is out of range [0, {n}) for {n} classes "
                                     f"(ignore_index={ignore_index})")


def require(op: str, reason: str | None) -> None:
    """Raise for a rule's `reason`, in the name of `op` (a layer or a function built on the primitive)."""
    if reason is not None:
        raise OpIndexError(f"{op}: {reason}")
