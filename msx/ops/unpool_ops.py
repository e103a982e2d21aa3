"""Max unpooling, the inverse of max pooling with indices: `ops.max_unpool1d/2d/3d`, the class ops
`ops.MaxUnpool2D` / `ops.MaxUnpool3D` (MindSpore's `ksize`, `strides`, `pads`, `output_shape`), and the
function `mint.nn.functional.max_unpool2d` and the `nn.MaxUnpool*d` / `mint.nn.MaxUnpool2d` layers call.

Each value is put at its flat index within its (N, C) plane of the output, whose spatial size is
`(in - 1) * stride - 2 * padding + kernel_size` (or `output_size`); every other element is zero. The writes
go through `tensor_scatter_elements`; an index outside the plane is refused by name (`OpIndexError`) where
its value is known (eagerly, as MindSpore does); under jit, where it is not, it is dropped as every
out-of-range scatter index is (docs/errors.md).
"""
from __future__ import annotations

import jax
import numpy as np

from ..errors import OpIndexError
from .api import expose
from .primitive import known_value
from . import functional as F


def _ints(name: str, what: str, v, n: int, low: int) -> tuple[int, ...]:
    out = (int(v),) * n if not isinstance(v, (tuple, list)) else tuple(int(x) for x in v)
    if len(out) == 1 and n > 1:
        out = out * n
    if len(out) != n or min(out) < low:
        raise ValueError(f"{name}: {what} must be an int >= {low} or {n} of them, got {v!r}")
    return out


def max_unpool(name: str, x, indices, dims: int, kernel_size, stride=None, padding=0, output_size=None):
    """The `dims`-D unpooling of (N, C, *spatial) or (C, *spatial) `x` at `indices` (same shape)."""
    kernel = _ints(name, "kernel_size", kernel_size, dims, 1)
    stride = kernel if stride is None or stride == 0 else _ints(name, "stride", stride, dims, 1)
    padding = _ints(name, "padding", padding, dims, 0)
    if x.ndim not in (dims + 1, dims + 2) or tuple(indices.shape) != tuple(x.shape):
        raise ValueError(f"{name}: expected a {dims + 1}-D or {dims + 2}-D input and indices of its shape, got "
                         f"input {tuple(x.shape)} and indices {tuple(indices.shape)}")
    batched = x.ndim == dims + 2
    xb = x if batched else F.expand_dims(x, 0)
    ib = indices if batched else F.expand_dims(indices, 0)
    if output_size is None or len(tuple(output_size)) == 0:
        out = tuple((n - 1) * s - 2 * p + k for n, s, p, k in zip(xb.shape[2:], stride, padding, kernel))
    else:
        out = tuple(int(v) for v in tuple(output_size)[-dims:])
    n, c = xb.shape[0], xb.shape[1]
    size = 1
    for d in out:
        size *= d
    seen = known_value(ib)
    if not isinstance(seen, jax.ShapeDtypeStruct) and np.size(seen):
        low, high = int(np.min(np.asarray(seen))), int(np.max(np.asarray(seen)))
        if low < 0 or high >= size:
            raise OpIndexError(f"{name}: indices must lie in [0, {size}) (the output plane {out}), got values in "
                               f"[{low}, {high}]")
    zeros = F.zeros((n, c, size), xb.dtype)
    y = F.tensor_scatter_elements(zeros, F.reshape(F.cast(ib, "int64"), (n, c, -1)), F.reshape(xb, (n, c, -1)), 2)
    y = F.reshape(y, (n, c) + out)
    return y if batched else F.squeeze(y, 0)


@expose(ops="max_unpool1d")
def max_unpool1d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    return max_unpool("max_unpool1d", x, indices, 1, kernel_size, stride, padding, output_size)


@expose(ops="max_unpool2d")
def max_unpool2d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    return max_unpool("max_unpool2d", x, indices, 2, kernel_size, stride, padding, output_size)


@expose(mintf="max_unpool2d")
def mint_max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """`mint.nn.functional.max_unpool2d`: the same, with torch's argument name `input`."""
    return max_unpool("max_unpool2d", input, indices, 2, kernel_size, stride, padding, output_size)


@expose(ops="max_unpool3d")
def max_unpool3d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    return max_unpool("max_unpool3d", x, indices, 3, kernel_size, stride, padding, output_size)


def _data_format(name: str, data_format: str, allowed: tuple[str, ...]) -> None:
    if data_format not in allowed:
        raise ValueError(f"{name}: data_format must be one of {allowed}, got {data_format!r}")


@expose(cls="MaxUnpool2D", init=("ksize", "strides", "pads", "output_shape", "data_format"))
def max_unpool2d_class(x, argmax, ksize, strides=0, pads=0, output_shape=(), data_format="NCHW"):
    """`ops.MaxUnpool2D(ksize, strides=0, pads=0, output_shape=(), data_format)(x, argmax)`: strides 0 means
    the kernel size; NHWC inputs are unpooled in NCHW and transposed back."""
    _data_format("MaxUnpool2D", data_format, ("NCHW", "NHWC"))
    if data_format == "NHWC":
        x, argmax = F.transpose(x, (0, 3, 1, 2)), F.transpose(argmax, (0, 3, 1, 2))
        shape = tuple(output_shape)
        y = max_unpool("MaxUnpool2D", x, argmax, 2, ksize, strides, pads, (shape[1], shape[2]) if shape else None)
        return F.transpose(y, (0, 2, 3, 1))
    return max_unpool("MaxUnpool2D", x, argmax, 2, ksize, strides, pads, output_shape)


@expose(cls="MaxUnpool3D", init=("ksize", "strides", "pads", "output_shape", "data_format"))
def max_unpool3d_class(x, argmax, ksize, strides=0, pads=0, output_shape=(), data_format="NCDHW"):
    """`ops.MaxUnpool3D(ksize, strides=0, pads=0, output_shape=(), data_format)(x, argmax)`."""
    _data_format("MaxUnpool3D", data_format, ("NCDHW",))
    return max_unpool("MaxUnpool3D", x, argmax, 3, ksize, strides, pads, output_shape)


__all__ = ["max_unpool", "max_unpool1d", "max_unpool2d", "max_unpool3d"]
