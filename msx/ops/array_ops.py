"""Shape, creation, indexing and utility primitives."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .. import dtype as mstype
from ..errors import OpError
from .primitive import describe, primitive


def _shape(x) -> tuple:
    return tuple(getattr(x, "shape", ()))


@primitive("Cast", attrs=("dtype",), category="elementwise")
def cast(x, *, dtype):
    return jnp.asarray(x).astype(mstype.to_np(dtype))


def _reshape_check(x, *, shape) -> str | None:
    size = int(np.prod(_shape(x)))
    known = [d for d in shape if d != -1]
    if list(shape).count(-1) > 1:
        return f"at most one -1 allowed in shape {shape}"
    total = int(np.prod(known)) if known else 1
    if (-1 in shape and (total == 0 or size % total)) or (-1 not in shape and total != size):
        return f"cannot reshape {size} elements of shape {_shape(x)} into shape {tuple(shape)}"
    return None


@primitive("Reshape", attrs=("shape",), category="shape", check=_reshape_check)
def reshape(x, *, shape):
    return jnp.reshape(x, shape)


@primitive("Transpose", attrs=("perm",), category="shape")
def transpose(x, *, perm=None):
    return jnp.transpose(x, perm)


@primitive("Concat", attrs=("axis",), category="shape")
def concat(*xs, axis=0):
    return jnp.concatenate(xs, axis=axis)


@primitive("Stack", attrs=("axis",), category="shape")
def stack(*xs, axis=0):
    return jnp.stack(xs, axis=axis)


@primitive("Split", attrs=("indices_or_sections", "axis"), category="shape", multiple_results=True)
def split(x, *, indices_or_sections, axis=0):
    return tuple(jnp.split(x, indices_or_sections, axis=axis))


@primitive("Squeeze", attrs=("axis",), category="shape")
def squeeze(x, *, axis=None):
    return jnp.squeeze(x, axis)


@primitive("ExpandDims", attrs=("axis",), category="shape")
def expand_dims(x, *, axis):
    return jnp.expand_dims(x, axis)


@primitive("Flatten", attrs=("start_dim", "end_dim"), category="shape")
def flatten(x, *, start_dim=1, end_dim=-1):
    """Merge dims `start_dim..end_dim` into one."""
    shape = x.shape
    if not shape:
        return jnp.reshape(x, (1,))
    start, end = start_dim % len(shape), end_dim % len(shape)
    merged = int(np.prod(shape[start:end + 1]))
    return jnp.reshape(x, shape[:start] + (merged,) + shape[end + 1:])


@primitive("BroadcastTo", attrs=("shape",), category="shape")
def broadcast_to(x, *, shape):
    shape = tuple(s if s != -1 else x.shape[i - len(shape) + x.ndim] for i, s in enumerate(shape))
    return jnp.broadcast_to(x, shape)


@primitive("Tile", attrs=("multiples",), category="shape")
def tile(x, *, multiples):
    return jnp.tile(x, multiples)


@primitive("Pad", attrs=("paddings", "value"), category="shape")
def pad(x, *, paddings, value=0.0):
    """`paddings`: ((before, after), ...) per dim."""
    return jnp.pad(x, paddings, constant_values=value)


@primitive("Gather", attrs=("axis", "batch_dims"), category="shape")
def gather(params, indices, *, axis=0, batch_dims=0):
    """MindSpore's Gather: take slices of `params` along `axis` at `indices`."""
    if batch_dims:
        fn = lambda p, i: jnp.take(p, i, axis=axis - batch_dims)  # noqa: E731
        for _ in range(batch_dims):
            fn = jax.vmap(fn)
        return fn(params, indices)
    return jnp.take(params, indices, axis=axis)


@primitive("GatherD", attrs=("dim",), category="shape")
def gather_d(x, index, *, dim):
    """torch-style gather: out[i][j] = x[i][index[i][j]] along `dim`."""
    return jnp.take_along_axis(x, index, axis=dim)


@primitive("OneHot", attrs=("depth", "on_value", "off_value", "axis"), category="elementwise", differentiable=False)
def one_hot(indices, *, depth, on_value=1.0, off_value=0.0, axis=-1):
    hot = jax.nn.one_hot(indices, depth, axis=axis, dtype=jnp.float32)
    return hot * (on_value - off_value) + off_value


@primitive("Sort", attrs=("axis", "descending"), multiple_results=True)
def sort(x, *, axis=-1, descending=False):
    idx = jnp.argsort(-x if descending else x, axis=axis, stable=True)
    return jnp.take_along_axis(x, idx, axis=axis), idx.astype(jnp.int64)


@primitive("TopK", attrs=("k",), multiple_results=True)
def topk(x, *, k):
    values, idx = lax.top_k(x, k)
    return values, idx.astype(jnp.int64)


# ---------------------------------------------------------------- indexing
# An index is stored as plain data: a tuple of items, each one of
#   ("int", i) ("slice", start, stop, step) ("none",) ("ellipsis",) ("tensor", k) ("bool", b)
# where ("tensor", k) refers to the k-th extra input of the node.

def encode_index(index) -> tuple[tuple, list]:
    """Split a Python index into (static spec, tensor inputs)."""
    from ..tensor import Tensor

    items = index if isinstance(index, tuple) else (index,)
    spec, tensors = [], []
    for it in items:
        if isinstance(it, Tensor) or isinstance(it, (jax.Array, np.ndarray)):
            spec.append(("tensor", len(tensors)))
            tensors.append(it if isinstance(it, Tensor) else Tensor(it))
        elif isinstance(it, (bool, np.bool_)):
            spec.append(("bool", bool(it)))
        elif isinstance(it, (int, np.integer)):
            spec.append(("int", int(it)))
        elif isinstance(it, slice):
            spec.append(("slice", _int_or_none(it.start), _int_or_none(it.stop), _int_or_none(it.step)))
        elif it is None:
            spec.append(("none",))
        elif it is Ellipsis:
            spec.append(("ellipsis",))
        elif isinstance(it, (list, tuple)):
            spec.append(("tensor", len(tensors)))
            tensors.append(Tensor(np.asarray(it)))
        else:
            raise TypeError(f"GetItem: unsupported index {it!r} of type {type(it).__name__}")
    return tuple(spec), tensors


def _int_or_none(v):
    return None if v is None else int(v)


def decode_index(spec: tuple, tensors) -> tuple:
    out = []
    for item in spec:
        kind = item[0]
        if kind == "int" or kind == "bool":
            out.append(item[1])
        elif kind == "slice":
            out.append(slice(item[1], item[2], item[3]))
        elif kind == "none":
            out.append(None)
        elif kind == "ellipsis":
            out.append(Ellipsis)
        else:
            out.append(tensors[item[1]])
    return tuple(out)


def _index_check(x, *tensors, index) -> str | None:
    shape = _shape(x)
    consumed = sum(1 for item in index if item[0] in ("int", "slice", "tensor"))
    if consumed > len(shape):
        return f"too many indices ({consumed}) for a tensor of rank {len(shape)}"
    dim = 0
    for item in index:
        if item[0] == "int":
            if not -shape[dim] <= item[1] < shape[dim]:
                return f"index {item[1]} is out of bounds for dim {dim} of shape {shape}"
            dim += 1
        elif item[0] in ("slice", "tensor"):
            dim += 1
        elif item[0] == "ellipsis":
            dim += len(shape) - consumed
    return None


class IndexOpError(OpError, IndexError):
    """An index out of range for the tensor's shape (an `IndexError`, as in MindSpore and numpy)."""


def check_index(x, spec: tuple, op: str) -> None:
    """Raise for a static int index out of range: jax would silently clamp it."""
    reason = _index_check(x, index=spec)
    if reason is not None:
        raise IndexOpError(f"{op}: {reason}; got ({describe(x)}, index={decode_index(spec, ['<tensor>'] * len(spec))!r})")


@primitive("GetItem", attrs=("index",), category="shape", check=_index_check)
def getitem(x, *tensors, index):
    return x[decode_index(index, tensors)]


@primitive("SetItem", attrs=("index",), category="shape", check=lambda x, v, *t, index: _index_check(x, *t, index=index))
def setitem(x, value, *tensors, index):
    """A copy of `x` with `x[index] = value` (Tensor `__setitem__` rebinds the object to it)."""
    return x.at[decode_index(index, tensors)].set(jnp.asarray(value, dtype=x.dtype))


# ---------------------------------------------------------------- creation
def _np_dtype(dtype, default):
    return mstype.to_np(dtype) if dtype is not None else np.dtype(default)


@primitive("Fill", attrs=("shape", "value", "dtype"), category="other", differentiable=False)
def fill(*, shape, value, dtype=None):
    default = np.float32 if isinstance(value, float) else np.bool_ if isinstance(value, bool) else np.int64
    return jnp.full(shape, value, _np_dtype(dtype, default))


@primitive("Range", attrs=("start", "end", "step", "dtype"), category="other", differentiable=False)
def arange(*, start, end, step, dtype=None):
    default = np.float32 if any(isinstance(v, float) for v in (start, end, step)) else np.int64
    return jnp.arange(start, end, step, dtype=_np_dtype(dtype, default))


@primitive("Eye", attrs=("n", "m", "dtype"), category="other", differentiable=False)
def eye(*, n, m=None, dtype=None):
    return jnp.eye(n, m, dtype=_np_dtype(dtype, np.float32))


@primitive("FillLike", attrs=("value", "dtype"), category="elementwise", differentiable=False)
def fill_like(x, *, value, dtype=None):
    return jnp.full(x.shape, value, mstype.to_np(dtype) if dtype is not None else x.dtype)


# ---------------------------------------------------------------- autodiff and debugging
@primitive("StopGradient", category="elementwise")
def stop_gradient(x):
    return lax.stop_gradient(x)


@primitive("Identity", category="elementwise")
def identity(x):
    return x


@primitive("Print", attrs=("template", "sep"), multiple_results=True, differentiable=False)
def print_(*xs, template, sep=" "):
    """Print `template` (a tuple of str pieces, None where a tensor goes), joined by `sep`, at run time, in order."""
    def emit(*values):
        it = iter(values)
        print(sep.join(str(np.asarray(next(it))) if piece is None else piece for piece in template), flush=True)

    jax.debug.callback(emit, *xs, ordered=True)
    return ()
