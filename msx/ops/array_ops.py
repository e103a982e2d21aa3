"""Shape, indexing and utility primitives.

The creation primitives (`Fill`, `FillLike`, `Eye`, `Range`), `Split` and `BroadcastTo` are declared beside
their class forms in `layout_ops.py`, `Scatter` and `Gather` in `scatter_ops.py`; those only hand-written
wrappers run (`Stack`, `Flatten`, `GatherD`, `OneHot`, `Pad`, `TopK`) beside them in `functional_array.py`, and
`Einsum` in `functional_math.py`. The hand-written forms of the primitives kept here sit beside them
(`ops.ParallelConcat`, `ops.IdentityN`, `ops.stop_gradient_`)."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .. import dtype as mstype
from ..errors import OpIndexError, OpTypeError
from . import bounds
from .api import REQUIRED, SURFACE, Api, Attr, expose
from .attr_converters import to_dtype, to_ints, to_shape
from .float_to_int import float_to_int
from .math_ops import _axis
from .primitive import apply, describe, primitive
from ..tensor import Tensor
from ..sizes import check_size


def _shape(x) -> tuple:
    return tuple(getattr(x, "shape", ()))


@primitive("Cast", attrs=("dtype",), category="elementwise",
           api=Api("cast", attrs=(Attr("dtype", REQUIRED, to_dtype),), cls="Cast"))
def cast(x, *, dtype):
    x, target = jnp.asarray(x), mstype.to_np(dtype)
    if jnp.issubdtype(x.dtype, jnp.floating) and not jnp.issubdtype(target, jnp.inexact):
        return float_to_int(x, target)  # out of range and NaN: MindSpore's CPU answers, in every mode
    return x.astype(target)


def _reshape_check(x, *, shape) -> str | None:
    size = int(np.prod(_shape(x)))
    known = [d for d in shape if d != -1]
    if list(shape).count(-1) > 1:
        return f"at most one -1 allowed in shape {shape}"
    total = int(np.prod(known)) if known else 1
    if (-1 in shape and (total == 0 or size % total)) or (-1 not in shape and total != size):
        return f"cannot reshape {size} elements of shape {_shape(x)} into shape {tuple(shape)}"
    return None


@primitive("Reshape", attrs=("shape",), category="shape", check=_reshape_check,
           api=(Api("reshape", attrs=(Attr("shape", REQUIRED, to_shape),), cls="Reshape", mint="reshape"),))
def reshape(x, *, shape):
    return jnp.reshape(x, shape)


@primitive("Transpose", attrs=("perm",), category="shape",
           api=(Api("transpose", attrs=(Attr("dims", REQUIRED, to_ints, to="perm"),)),
                Api("permute", attrs=(Attr("axis", REQUIRED, to_ints, to="perm"),)),
                Api(attrs=(Attr("dims", REQUIRED, to_ints, to="perm"),), mint="permute"),
                Api(attrs=(Attr("input_perm", REQUIRED, to_ints, to="perm"),), cls="Transpose")))
def transpose(x, *, perm=None):
    return jnp.transpose(x, perm)


@primitive("Concat", attrs=("axis",), category="shape")
def concat(*xs, axis=0):
    return jnp.concatenate(xs, axis=axis)


@expose(cls="ParallelConcat", prim="Concat")
def _parallel_concat(values):
    return apply(concat, tuple(values), {"axis": 0})


@primitive("Squeeze", attrs=("axis",), category="shape",
           api=(Api("squeeze", attrs=(Attr("axis", None, _axis),), cls="Squeeze", init=(("axis", (), "axis"),)),
                Api(attrs=(Attr("dim", None, _axis, to="axis"),), mint="squeeze")))
def squeeze(x, *, axis=None):
    return jnp.squeeze(x, axis)


@primitive("ExpandDims", attrs=("axis",), category="shape",
           api=(Api("expand_dims", args=("input_x",), attrs=(Attr("axis", REQUIRED, int),), cls="ExpandDims",
                    tensor="expand_dims"),
                Api("unsqueeze", attrs=(Attr("dim", REQUIRED, int, to="axis"),), tensor="unsqueeze", mint="unsqueeze")))
def expand_dims(x, *, axis):
    return jnp.expand_dims(x, axis)


@primitive("Tile", attrs=("multiples",), category="shape",
           api=Api("tile", attrs=(Attr("dims", REQUIRED, to_ints, to="multiples"),), cls="Tile", tensor="tile",
                   mint="tile"))
def tile(x, *, multiples):
    if any(m < 0 for m in multiples):
        raise ValueError("dims must not contain a negative number")
    lead = (1,) * max(len(multiples) - x.ndim, 0) + tuple(x.shape)
    reps = (1,) * max(x.ndim - len(multiples), 0) + tuple(multiples)
    check_size("Tile", tuple(a * b for a, b in zip(lead, reps)), x.dtype)
    return jnp.tile(x, multiples)


@primitive("Sort", attrs=("axis", "descending"), multiple_results=True,
           api=Api("sort", args=("input_x",), attrs=(Attr("axis", -1, int), Attr("descending", False, bool)), cls="Sort",
                   init=("axis", "descending")))
def sort(x, *, axis=-1, descending=False):
    idx = jnp.argsort(-x if descending else x, axis=axis, stable=True)
    return jnp.take_along_axis(x, idx, axis=axis), idx.astype(jnp.int32)  # MindSpore 2.10: int32 indices


# ---------------------------------------------------------------- indexing
# An index is stored as plain data: a tuple of items, each one of
#   ("int", i) ("slice", start, stop, step) ("none",) ("ellipsis",) ("tensor", k) ("bool", b)
# where ("tensor", k) refers to the k-th extra input of the node.

def encode_index(index) -> tuple[tuple, list]:
    """Split a Python index into (static spec, tensor inputs)."""
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


def check_index(x, spec: tuple, op: str) -> None:
    """Raise for a static int index out of range: jax would silently clamp it."""
    reason = _index_check(x, index=spec)
    if reason is not None:
        raise OpIndexError(f"{op}: {reason}; got ({describe(x)}, index={decode_index(spec, ['<tensor>'] * len(spec))!r})")


@primitive("GetItem", attrs=("index",), category="shape", check=_index_check, values=bounds.getitem,
           internal=("Tensor.__getitem__ (tensor_methods.py) once msx.ops.bounds has normalised the index; MindIR's "
                     "getitem reads into it"))
def getitem(x, *tensors, index):
    """Inside a compiled graph an out-of-range Tensor index reads a fill value (NaN for floats), not a clamped
    row; eagerly it is refused before this runs (`bounds.getitem`)."""
    if not tensors or any(jnp.issubdtype(t.dtype, jnp.bool_) for t in tensors):
        return x[decode_index(index, tensors)]
    return x.at[decode_index(index, tensors)].get(mode="fill", fill_value=_fill(x.dtype))


def _fill(dtype):
    """What an out-of-range read gives inside a compiled graph: NaN for floats, jax's default otherwise."""
    return np.nan if jnp.issubdtype(dtype, jnp.inexact) else None


@primitive("SetItem", attrs=("index",), category="shape", check=lambda x, v, *t, index: _index_check(x, *t, index=index),
           values=bounds.setitem,
           internal="Tensor.__setitem__ (tensor_methods.py) and the bytecode capture's STORE_SUBSCR write through it")
def setitem(x, value, *tensors, index):
    """A copy of `x` with `x[index] = value` (Tensor `__setitem__` rebinds the object to it).

    `x[mask] = v` with one boolean mask and a `v` that broadcasts to one selected element is `where(mask, v, x)`:
    the same numbers as numpy's masked assignment, and no data-dependent shape, so it also works under jit."""
    value = jnp.asarray(value, dtype=x.dtype)
    if len(index) == 1 and index[0][0] == "tensor":
        mask = jnp.asarray(tensors[index[0][1]])
        if mask.dtype == jnp.bool_ and 0 < mask.ndim <= x.ndim and value.ndim <= x.ndim - mask.ndim:
            if tuple(mask.shape) != tuple(x.shape[:mask.ndim]):
                raise IndexError(f"boolean mask of shape {tuple(mask.shape)} does not match the leading dims of "
                                 f"the tensor's shape {tuple(x.shape)}")
            return jnp.where(mask.reshape(mask.shape + (1,) * (x.ndim - mask.ndim)), value, x)
        if mask.dtype == jnp.bool_ and isinstance(mask, jax.core.Tracer):
            raise ValueError(f"x[mask] = value under jit needs a value that broadcasts to one selected element "
                             f"(shape {tuple(x.shape[mask.ndim:])}), got shape {tuple(value.shape)}: how many "
                             f"elements the mask selects is only known when the graph runs")
    return x.at[decode_index(index, tensors)].set(value)


# ---------------------------------------------------------------- the dtype rule of the creation ops
def _np_dtype(dtype, default):
    return mstype.to_np(dtype) if dtype is not None else np.dtype(default)


# ---------------------------------------------------------------- autodiff and debugging
@primitive("StopGradient", category="elementwise",
           api=Api("stop_gradient", args=("value",), cls="StopGradient"))
def stop_gradient(x):
    return lax.stop_gradient(x)


@expose(ops="stop_gradient_", prim="StopGradient")
def stop_gradient_(input: Tensor) -> None:  # noqa: A002
    """Detach `input` in place: later uses of this Tensor (and a function returning it) pass no gradient back
    through it. Returns None, as MindSpore's does."""
    if not isinstance(input, Tensor):
        raise OpTypeError(f"stop_gradient_: input must be a Tensor, got {type(input).__name__}")
    input._rebind(SURFACE["ops"]["stop_gradient"](input))


@primitive("Identity", category="elementwise", api=(Api("identity", args=("x",), cls="Identity"),
                                                                  Api(mint="clone")))
def identity(x):
    return x


@expose(cls="IdentityN", prim="Identity")
def _identity_n(x):
    return tuple(apply(identity, (t,)) for t in x)


# ---------------------------------------------------------------- more shape ops
@primitive("ReverseV2", attrs=("dims",), category="shape",
           api=(Api("flip", attrs=(Attr("dims", REQUIRED, to_ints),), tensor="flip", mint="flip"),
                Api(attrs=(Attr("axis", REQUIRED, to_ints, to="dims"),), cls="ReverseV2", init=("axis",))))
def flip(x, *, dims):
    return jnp.flip(x, dims)


@primitive("Roll", attrs=("shifts", "dims"), category="shape",
           api=Api("roll", attrs=(Attr("shifts", REQUIRED, to_ints), Attr("dims", None, lambda d: d if d is None
                                                                           else to_ints(d))),
                   cls="Roll", init=("shifts", "dims"), tensor="roll", mint="roll"))
def roll(x, *, shifts, dims=None):
    if dims is None:
        return jnp.roll(x.reshape(-1), shifts).reshape(x.shape)
    return jnp.roll(x, shifts, dims)


@primitive("Tril", attrs=("diagonal",), category="shape",
           api=Api("tril", attrs=(Attr("diagonal", 0, int),), cls="Tril", init=("diagonal",), tensor="tril",
                   mint="tril"))
def tril(x, *, diagonal=0):
    return jnp.tril(x, diagonal)


@primitive("Triu", attrs=("diagonal",), category="shape",
           api=Api("triu", attrs=(Attr("diagonal", 0, int),), cls="Triu", init=("diagonal",), tensor="triu",
                   mint="triu"))
def triu(x, *, diagonal=0):
    return jnp.triu(x, diagonal)


@primitive("Trace", category="reduce", api=Api("trace", cls="Trace", mint="trace"))
def trace(x):
    """Sum of the main diagonal of a 2-D tensor."""
    return jnp.trace(x)


@primitive("Diagonal", attrs=("offset", "dim1", "dim2"), category="shape",
           api=(Api("diagonal", attrs=(Attr("offset", 0, int), Attr("dim1", 0, int), Attr("dim2", 1, int))),
                Api(attrs=(Attr("offset", 0, int), Attr("axis1", 0, int, to="dim1"), Attr("axis2", 1, int, to="dim2")),
                    tensor="diagonal")))
def diagonal(x, *, offset=0, dim1=0, dim2=1):
    """The diagonal of every 2-D slice over `dim1`/`dim2`, as the last dim."""
    return jnp.diagonal(x, offset, dim1, dim2)


@primitive("Diag", category="shape", api=Api("diag", cls="Diag"))
def diag(x):
    """MindSpore's Diag: a tensor of rank 2k whose diagonal (over paired dims) holds `x`."""
    n = int(np.prod(x.shape))
    return jnp.diag(x.reshape(-1)).reshape(x.shape + x.shape) if x.ndim else x.reshape(()) if n == 1 else x


def _diag_ext_check(x, *, diagonal=0) -> str | None:
    return None if x.ndim in (1, 2) else f"expected a 1-D or 2-D input, got shape {x.shape}"


@primitive("DiagExt", attrs=("diagonal",), category="shape", check=_diag_ext_check,
           api=Api(mint="diag", attrs=(Attr("diagonal", 0, int),)))
def diag_ext(x, *, diagonal=0):
    """torch's diag: a 1-D input becomes the `diagonal`-th diagonal of a square matrix; a 2-D input gives its
    `diagonal`-th diagonal (above the main one for > 0, below for < 0)."""
    return jnp.diag(x, diagonal)


@primitive("MoveDim", attrs=("source", "destination"), category="shape",
           api=Api("movedim moveaxis", args=("x",), attrs=(Attr("source", REQUIRED, to_ints),
                                                         Attr("destination", REQUIRED, to_ints)),
                   cls="", tensor="movedim moveaxis"))
def movedim(x, *, source, destination):
    return jnp.moveaxis(x, source, destination)


@primitive("SwapAxes", attrs=("axis0", "axis1"), category="shape",
           api=(Api("swapaxes", attrs=(Attr("axis0", REQUIRED, int), Attr("axis1", REQUIRED, int)),
                    tensor="swapaxes", mint="swapaxes"),
                Api("swapdims", attrs=(Attr("dim0", REQUIRED, int, to="axis0"), Attr("dim1", REQUIRED, int, to="axis1")),
                    tensor="swapdims")))
def swapaxes(x, *, axis0, axis1):
    return jnp.swapaxes(x, axis0, axis1)


@primitive("T", category="shape", api=Api("t", tensor="t", mint="t"))
def t(x):
    """Transpose of a tensor of rank <= 2."""
    if x.ndim > 2:
        raise ValueError(f"t: the input must have rank <= 2, got shape {x.shape}")
    return x.T


@primitive("Ravel", category="shape", api=Api("ravel", tensor="ravel", mint="ravel"))
def ravel(x):
    return jnp.ravel(x)


@primitive("Narrow", attrs=("axis", "start", "length"), category="shape",
           api=(Api("narrow", attrs=(Attr("axis", REQUIRED, int), Attr("start", REQUIRED, int),
                                     Attr("length", REQUIRED, int))),
                Api(attrs=(Attr("dim", REQUIRED, int, to="axis"), Attr("start", REQUIRED, int),
                           Attr("length", REQUIRED, int)), tensor="narrow", mint="narrow")))
def narrow(x, *, axis, start, length):
    """`length` elements of `x` along `axis` from `start`."""
    size = x.shape[axis]
    start = start + size if start < 0 else start
    if not 0 <= start <= size or start + length > size or length < 0:
        raise ValueError(f"narrow: start {start} and length {length} do not fit dim {axis} of size {size}")
    return lax.slice_in_dim(x, start, start + length, axis=axis)


@primitive("SelectView", attrs=("axis", "index"), category="shape",
           api=Api(attrs=(Attr("dim", REQUIRED, int, to="axis"), Attr("index", REQUIRED, int)), tensor="select",
                   mint="select"))
def select_index(x, *, axis, index):
    """The slice of `x` at `index` along `axis` (that dim removed): torch's `select`."""
    size = x.shape[axis]
    if not -size <= index < size:
        raise ValueError(f"select: index {index} is out of range for dim {axis} of size {size}")
    return jnp.take(x, index % size, axis=axis)


@primitive("MaskedFill", category="elementwise",
           api=(Api("masked_fill", args=("input_x", "mask", "value"), cls="MaskedFill", tensor="masked_fill"),))
def masked_fill(x, mask, value):
    """`value` where `mask` holds, else `x` (value cast to x's dtype)."""
    return jnp.where(mask, jnp.asarray(value, x.dtype), x)


@primitive("Outer", category="matmul", api=(Api("outer", args=("input", "vec2"), tensor="outer", mint="outer"),
                                            Api("ger", args=("input", "vec2"), cls="Ger", tensor="ger")))
def outer(x, y):
    return jnp.outer(x, y)


@primitive("Inner", category="matmul", api=Api("inner", args=("input", "other"), tensor="inner"))
def inner(x, y):
    return jnp.inner(x, y)


@primitive("Kron", category="matmul", api=Api("kron", args=("input", "other"), cls="", tensor=""))
def kron(x, y):
    return jnp.kron(x, y)


@primitive("Cross", attrs=("dim",), category="matmul",
           api=Api("cross", args=("input", "other"), attrs=(Attr("dim", None),), tensor="cross", mint="cross"))
def cross(x, y, *, dim=None):
    """Cross product along `dim` (default: the first dim of size 3)."""
    if dim is None:
        dim = next(i for i, n in enumerate(jnp.broadcast_shapes(x.shape, y.shape)) if n == 3)
    return jnp.cross(x, y, axis=dim)


@primitive("BatchMatMulExt", category="matmul",
           api=(Api("bmm", args=("input_x", "mat2"), cls="", tensor="bmm"), Api(args=("input", "mat2"), mint="bmm"),
                Api("mm", args=("input", "mat2"), cls="", tensor="mm", mint="mm")))
def bmm(x, y):
    return jnp.matmul(x, y)


@primitive("Addmm", attrs=("beta", "alpha"), category="matmul",
           api=Api("addmm", args=("input", "mat1", "mat2"), attrs=(Attr("beta", 1, kw_only=True),
                                                                   Attr("alpha", 1, kw_only=True)),
                   cls="", tensor="addmm", mint="addmm"))
def addmm(c, a, b, *, beta=1, alpha=1):
    """`beta * input + alpha * (mat1 @ mat2)`."""
    return beta * c + alpha * jnp.matmul(a, b)


@primitive("Rot90", attrs=("k", "dims"), category="shape",
           api=Api("rot90", attrs=(Attr("k", REQUIRED, int), Attr("dims", REQUIRED, to_ints)), tensor="rot90"))
def rot90(x, *, k, dims):
    return jnp.rot90(x, k, dims)


@primitive("Argsort", attrs=("axis", "descending"), category="shape", differentiable=False,
           api=(Api("argsort", attrs=(Attr("axis", -1, int), Attr("descending", False, bool)), tensor="argsort"),
))
def argsort(x, *, axis=-1, descending=False):
    return jnp.argsort(-x if descending else x, axis=axis, stable=True).astype(jnp.int32)  # as MindSpore


@primitive("Take", category="shape", api=Api("take", args=("input", "index"), tensor="take", mint="take"),
           values=bounds.take)
def take(x, index):
    """Elements of the flattened input at `index` (output has index's shape)."""
    return jnp.take(x.reshape(-1), index)


@primitive("GatherNd", category="shape", api=Api("gather_nd", args=("input_x", "indices"), cls="GatherNd",
                                                 tensor="gather_nd"), values=bounds.gather_nd)
def gather_nd(x, indices):
    """Slices of `x` at the index tuples in the last dim of `indices`."""
    return x.at[tuple(jnp.moveaxis(indices, -1, 0))].get(mode="fill", fill_value=_fill(x.dtype))


@primitive("ScatterNd", attrs=("shape",), category="shape", values=bounds.scatter_nd,
           api=Api("scatter_nd", args=("indices", "updates"), attrs=(Attr("shape", REQUIRED, to_shape),),
                   cls="ScatterNd"))
def scatter_nd(indices, updates, *, shape):
    """A zero tensor of `shape` with `updates` added at `indices` (duplicates accumulate)."""
    return jnp.zeros(shape, updates.dtype).at[tuple(jnp.moveaxis(indices, -1, 0))].add(updates)


@primitive("TensorScatterUpdate", category="shape", values=bounds.scatter_nd_into,
           api=Api("tensor_scatter_update", args=("input_x", "indices", "updates"), cls="TensorScatterUpdate"))
def tensor_scatter_update(x, indices, updates):
    return x.at[tuple(jnp.moveaxis(indices, -1, 0))].set(updates.astype(x.dtype))


@primitive("TensorScatterAdd", category="shape", values=bounds.scatter_nd_into,
           api=Api("tensor_scatter_add", args=("input_x", "indices", "updates"), cls="TensorScatterAdd"))
def tensor_scatter_add(x, indices, updates):
    return x.at[tuple(jnp.moveaxis(indices, -1, 0))].add(updates.astype(x.dtype))


@primitive("LinSpace", attrs=("start", "end", "steps"), category="other", differentiable=False,
           api=Api("linspace", args=(), attrs=(Attr("start", REQUIRED, float), Attr("end", REQUIRED, float),
                                               Attr("steps", REQUIRED, int)), cls=""))
def linspace(*, start, end, steps):
    return jnp.linspace(start, end, steps, dtype=jnp.float32)
