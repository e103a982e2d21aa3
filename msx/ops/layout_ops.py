"""Shape, splitting, repeating, diagonal and creation ops under MindSpore's names (functional and class forms).

Most are thin views over existing primitives (Concat, Reshape, and the ones declared here beside their class
forms: Split, BroadcastTo, Fill, FillLike, Eye, Range); the other primitives here carry computations no
existing one expresses (diag_embed, repeat_interleave, reverse_sequence...).
Shape queries (`ops.shape`, `ops.rank`, `ops.size`) answer Python values, as in MindSpore.
"""
from __future__ import annotations

import builtins

import jax.numpy as jnp
import numpy as np

from .. import dtype as mstype
from ..sizes import check_size
from ..tensor import Tensor
from . import array_ops as A
from .api import REQUIRED, Api, Attr, SURFACE, expose
from .array_ops import _np_dtype
from .attr_converters import scalar, to_dtype, to_ints, to_shape
from .primitive import apply, primitive

_F = SURFACE["ops"]  # the functional table; looked up at call time (functional.py registers after this module)


def _shape(x) -> tuple:
    return tuple(getattr(x, "shape", ()))


def _axis(axis: int, rank: int, op: str) -> int:
    if not -rank <= axis < max(rank, 1):
        raise ValueError(f"{op}: axis {axis} is out of range for a tensor of rank {rank}")
    return axis % max(rank, 1)


# ---------------------------------------------------------------- splitting
@primitive("Split", attrs=("indices_or_sections", "axis"), category="shape", multiple_results=True)
def split(x, *, indices_or_sections, axis=0):
    return tuple(jnp.split(x, indices_or_sections, axis=axis))


def _split_at(x, points, axis: int) -> tuple:
    return apply(split, (x,), {"indices_or_sections": tuple(points), "axis": axis})


@expose(ops="tensor_split", tensor="tensor_split")
def tensor_split(input, indices_or_sections, axis=0):
    """numpy's array_split: an int gives that many nearly equal parts, a sequence the split points."""
    axis = _axis(axis, len(input.shape), "tensor_split")
    n = input.shape[axis]
    if isinstance(indices_or_sections, (int, np.integer)):
        k = int(indices_or_sections)
        if k <= 0:
            raise ValueError(f"tensor_split: the number of sections must be > 0, got {k}")
        sizes = [n // k + (1 if i < n % k else 0) for i in range(k)]
        points = list(np.cumsum(sizes)[:-1])
    else:
        points = list(to_ints(indices_or_sections))
    return _split_at(input, [int(p) for p in points], axis)


def _split_min(op: str, input, indices_or_sections, axis: int, rank: int):
    if len(input.shape) < rank:
        raise ValueError(f"{op}: the input must have rank >= {rank}, got shape {tuple(input.shape)}")
    if isinstance(indices_or_sections, int) and input.shape[axis] % indices_or_sections:
        raise ValueError(f"{op}: dim {axis} of size {input.shape[axis]} does not split into {indices_or_sections} "
                         f"equal parts")
    return tensor_split(input, indices_or_sections, axis)


@expose(ops="dsplit", tensor="dsplit")
def dsplit(input, indices_or_sections):
    return _split_min("dsplit", input, indices_or_sections, 2, 3)


@expose(ops="hsplit", tensor="hsplit")
def hsplit(input, indices_or_sections):
    return _split_min("hsplit", input, indices_or_sections, 1 if len(input.shape) > 1 else 0, 1)


@expose(ops="vsplit", tensor="vsplit")
def vsplit(input, indices_or_sections):
    return _split_min("vsplit", input, indices_or_sections, 0, 2)


@expose(cls="Split", init=("axis", "output_num"), prim="Split")
def _split_cls(input_x, *, axis=0, output_num=1):
    axis = _axis(axis, len(input_x.shape), "Split")
    if input_x.shape[axis] % output_num:
        raise ValueError(f"Split: dim {axis} of size {input_x.shape[axis]} is not divisible by output_num "
                         f"{output_num}")
    step = input_x.shape[axis] // output_num
    return _split_at(input_x, range(step, input_x.shape[axis], step)[:output_num - 1], axis)


@expose(cls="SplitV", init=("size_splits", "split_dim", "num_split"), prim="Split")
def _split_v(input_x, *, size_splits, split_dim, num_split):
    axis = _axis(split_dim, len(input_x.shape), "SplitV")
    sizes = list(size_splits)
    if len(sizes) != num_split:
        raise ValueError(f"SplitV: size_splits {sizes} must have num_split={num_split} entries")
    if -1 in sizes:
        sizes[sizes.index(-1)] = input_x.shape[axis] - (builtins.sum(sizes) + 1)
    if builtins.sum(sizes) != input_x.shape[axis]:
        raise ValueError(f"SplitV: size_splits {tuple(size_splits)} do not add up to dim {axis} of size "
                         f"{input_x.shape[axis]}")
    return _split_at(input_x, np.cumsum(sizes)[:-1].tolist(), axis)


@primitive("Unstack", attrs=("axis",), category="shape", multiple_results=True)
def unstack_(x, *, axis=0):
    return tuple(jnp.moveaxis(x, axis, 0))


@expose(ops="unstack")
def unstack(input_x, axis=0):
    return apply(unstack_, (input_x,), {"axis": _axis(axis, len(input_x.shape), "unstack")})


@expose(ops="unbind", mint="unbind", tensor="unbind")
def unbind(input, dim=0):
    return unstack(input, dim)


@expose(cls="Unstack", init=("axis", "num"), prim="Unstack")
def _unstack_cls(input_x, *, axis=0, num=None):
    return unstack(input_x, axis)


@expose(cls="Unpack", init=("axis",), prim="Unstack")
def _unpack_cls(input_x, *, axis=0):
    return unstack(input_x, axis)


# ---------------------------------------------------------------- at-least-n-d, stacking, expanding
def _atleast(n: int):
    def fn(inputs):
        def one(t):
            shape = tuple(t.shape)
            if len(shape) >= n:
                return t
            new = _ATLEAST[n][len(shape)](shape)
            return apply(A.reshape, (t,), {"shape": new})
        if isinstance(inputs, Tensor):
            return one(inputs)
        return tuple(one(t) for t in inputs)
    fn.__name__ = f"atleast_{n}d"
    fn.__doc__ = f"Views of the inputs with at least {n} dims (a tensor for a tensor, a tuple for a sequence)."
    return fn


_ATLEAST = {1: {0: lambda s: (1,)},
            2: {0: lambda s: (1, 1), 1: lambda s: (1,) + s},
            3: {0: lambda s: (1, 1, 1), 1: lambda s: (1,) + s + (1,), 2: lambda s: s + (1,)}}
for _n in (1, 2, 3):
    expose(ops=f"atleast_{_n}d")(_atleast(_n))


@expose(ops="row_stack")
def row_stack(tensors):
    return _F["vstack"](tensors)


@primitive("BroadcastTo", attrs=("shape",), category="shape",
           api=Api("broadcast_to", attrs=(Attr("shape", REQUIRED, to_shape),), cls="BroadcastTo", init=("shape",),
                   tensor="broadcast_to", mint="broadcast_to"))
def broadcast_to(x, *, shape):
    shape = tuple(s if s != -1 else x.shape[i - len(shape) + x.ndim] for i, s in enumerate(shape))
    check_size("BroadcastTo", shape, x.dtype)
    return jnp.broadcast_to(x, shape)


def A_broadcast(x, size):
    return apply(broadcast_to, (x,), {"shape": to_shape(size)})


@expose(ops="expand")
def expand(input_x, size):
    return A_broadcast(input_x, size)


@expose(cls="Expand", prim="BroadcastTo")
def _expand_cls(x, shape):
    return A_broadcast(x, shape)


@expose(ops="expand_as", tensor="expand_as")
def expand_as(input, other):
    return A_broadcast(input, tuple(other.shape))


@expose(ops="view_as")
def view_as(input, other):
    return apply(A.reshape, (input,), {"shape": tuple(other.shape)})


@expose(ops="reshape_")
def reshape_(input, shape):
    """In-place reshape: `input` now holds the reshaped value (MindSpore's `ops.reshape_`)."""
    return input._rebind(apply(A.reshape, (input,), {"shape": to_shape(shape)}))


@primitive("RepeatInterleave", attrs=("repeats", "axis"), category="shape")
def repeat_interleave_(x, *, repeats, axis):
    if axis is None:
        x, axis = x.reshape(-1), 0
    reps = repeats[0] if len(repeats) == 1 else np.asarray(repeats)
    return jnp.repeat(x, reps, axis=axis, total_repeat_length=int(np.sum(np.broadcast_to(reps, (x.shape[axis],)))))


@expose(ops="repeat_interleave")
def repeat_interleave(input, repeats, axis=None):
    reps = to_ints(repeats.asnumpy() if isinstance(repeats, Tensor) else repeats)
    if any(r < 0 for r in reps):
        raise ValueError(f"repeat_interleave: repeats must be >= 0, got {reps}")
    if axis is not None:
        axis = _axis(axis, len(input.shape), "repeat_interleave")
        if len(reps) not in (1, input.shape[axis]):
            raise ValueError(f"repeat_interleave: {len(reps)} repeats for dim {axis} of size {input.shape[axis]}")
    return apply(repeat_interleave_, (input,), {"repeats": reps, "axis": axis})


@expose(mint="repeat_interleave", prim="RepeatInterleave")
def repeat_interleave_ext(input, repeats, dim=None, *, output_size=None):
    """`mint.repeat_interleave`; `output_size`, when given, must be the length the repeats give."""
    out = repeat_interleave(input, repeats, dim)
    if output_size is not None and int(output_size) != (out.shape[0] if dim is None else out.shape[dim]):
        raise ValueError(f"mint.repeat_interleave: output_size={output_size} but the repeats give "
                         f"{out.shape[0] if dim is None else out.shape[dim]}")
    return out


@expose(ops="repeat_elements")
def repeat_elements(x, rep, axis=0):
    if not isinstance(rep, int) or rep < 1:
        raise ValueError(f"repeat_elements: rep must be an int >= 1, got {rep!r}")
    return repeat_interleave(x, rep, axis)


@expose(ops="reverse", tensor="reverse")
def reverse(x, axis):
    return apply(A.flip, (x,), {"dims": to_ints(axis)})


@primitive("ReverseSequence", attrs=("seq_dim", "batch_dim"), category="shape")
def reverse_sequence_(x, seq_lengths, *, seq_dim, batch_dim=0):
    """Per batch row, reverse the first `seq_lengths[b]` elements along `seq_dim`."""
    n = x.shape[seq_dim]
    pos = jnp.arange(n)
    lengths = seq_lengths.astype(jnp.int32)
    idx = jnp.where(pos[None, :] < lengths[:, None], lengths[:, None] - 1 - pos[None, :], pos[None, :])
    shape = [1] * x.ndim
    shape[batch_dim], shape[seq_dim] = x.shape[batch_dim], n
    return jnp.take_along_axis(x, jnp.broadcast_to(idx.reshape(shape) if batch_dim < seq_dim else
                                                   idx.T.reshape(shape), x.shape), axis=seq_dim)


@expose(ops="reverse_sequence", tensor="reverse_sequence")
def reverse_sequence(x, seq_lengths, seq_dim, batch_dim=0):
    rank = len(x.shape)
    return apply(reverse_sequence_, (x, seq_lengths), {"seq_dim": _axis(seq_dim, rank, "reverse_sequence"),
                                                       "batch_dim": _axis(batch_dim, rank, "reverse_sequence")})


@expose(cls="ReverseSequence", init=("seq_dim", "batch_dim"), prim="ReverseSequence")
def _reverse_sequence_cls(x, seq_lengths, *, seq_dim, batch_dim=0):
    return reverse_sequence(x, seq_lengths, seq_dim, batch_dim)


# ---------------------------------------------------------------- diagonals
@primitive("DiagEmbed", attrs=("offset", "dim1", "dim2"), category="shape")
def diag_embed_(x, *, offset=0, dim1=-2, dim2=-1):
    n = x.shape[-1] + abs(offset)
    out = jnp.zeros(x.shape[:-1] + (n, n), x.dtype)
    i = jnp.arange(x.shape[-1])
    out = out.at[..., i + max(-offset, 0), i + max(offset, 0)].set(x)
    rank = x.ndim + 1
    return jnp.moveaxis(out, (rank - 2, rank - 1), (dim1 % rank, dim2 % rank))


@expose(ops="diag_embed", prim="DiagEmbed")
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    rank = len(input.shape) + 1
    d1, d2 = _axis(dim1, rank, "diag_embed"), _axis(dim2, rank, "diag_embed")
    if d1 == d2:
        raise ValueError(f"diag_embed: dim1 and dim2 must differ, got {dim1} and {dim2}")
    return apply(diag_embed_, (input,), {"offset": int(offset), "dim1": d1, "dim2": d2})


@expose(ops="diagflat", tensor="diagflat")
def diagflat(input, offset=0):
    return diag_embed(apply(A.reshape, (input,), {"shape": (-1,)}), offset)


@primitive("DiagPart", category="shape", api=Api(cls="DiagPart", args=("input_x",)))
def diag_part(x):
    """The diagonal of a rank-2k tensor over its paired dims (the inverse of Diag)."""
    k = x.ndim // 2
    n = int(np.prod(x.shape[:k]))
    return jnp.diagonal(x.reshape(n, n)).reshape(x.shape[:k])


@primitive("FillDiagonal", attrs=("fill_value", "wrap"), category="shape")
def fill_diagonal_(x, *, fill_value, wrap=False):
    rows, cols = x.shape[0], x.shape[1]
    if x.ndim > 2:  # every dim equal: the main diagonal of the hypercube
        i = jnp.arange(rows)
        return x.at[(i,) * x.ndim].set(fill_value)
    if wrap and rows > cols:
        i = np.arange(rows)  # static: the shape decides which cells are on a wrapped diagonal
        keep = (i % (cols + 1)) < cols
        r, c = i[keep], (i % (cols + 1))[keep]
        return x.at[r, c].set(fill_value)
    i = jnp.arange(min(rows, cols))
    return x.at[i, i].set(fill_value)


@expose(cls="FillDiagonal", init=("fill_value", "wrap"), prim="FillDiagonal")
def _fill_diagonal_cls(input_x, *, fill_value, wrap=False):
    shape = tuple(input_x.shape)
    if len(shape) < 2 or (len(shape) > 2 and len(set(shape)) != 1):
        raise ValueError(f"FillDiagonal: the input must be 2-D, or have all dims equal, got shape {shape}")
    return apply(fill_diagonal_, (input_x,), {"fill_value": float(fill_value), "wrap": bool(wrap)})


# ---------------------------------------------------------------- creation
def fill_default(value) -> type:
    """The dtype `Fill` gives `value` when none is asked for."""
    return np.float32 if isinstance(value, float) else np.bool_ if isinstance(value, bool) else np.int64


@primitive("Fill", attrs=("shape", "value", "dtype"), category="other", differentiable=False)
def fill_(*, shape, value, dtype=None):
    dtype = _np_dtype(dtype, fill_default(value))
    check_size("Fill", shape, dtype)  # XLA aborts the process for a shape whose size overflows
    return jnp.full(shape, value, dtype)


@primitive("Range", attrs=("start", "end", "step", "dtype"), category="other", differentiable=False)
def arange(*, start, end, step, dtype=None):
    if step == 0:
        raise ValueError("step must not be 0")  # (jnp.arange divides by it: a raw ZeroDivisionError)
    default = np.float32 if any(isinstance(v, float) for v in (start, end, step)) else np.int64
    return jnp.arange(start, end, step, dtype=_np_dtype(dtype, default))


@primitive("Eye", attrs=("n", "m", "dtype"), category="other", differentiable=False)
def eye(*, n, m=None, dtype=None):
    check_size("Eye", (n, n if m is None else m), _np_dtype(dtype, np.float32))
    return jnp.eye(n, m, dtype=_np_dtype(dtype, np.float32))


@primitive("FillLike", attrs=("value", "dtype"), category="elementwise", differentiable=False)
def fill_like(x, *, value, dtype=None):
    return jnp.full(x.shape, value, mstype.to_np(dtype) if dtype is not None else x.dtype)


def _fill(shape, value, dtype):
    return apply(fill_, (), {"shape": to_shape(shape), "value": scalar(value), "dtype": to_dtype(dtype)})


@expose(ops="fill")
def fill(type, shape, value):  # noqa: A002  (MindSpore's names)
    return _fill(shape, value, type)


@expose(cls="Fill", prim="Fill")
def _fill_cls(dtype, dims, x):
    return _fill(dims, x, dtype)


@expose(ops="fills", tensor="fills")
def fills(x, value):
    return apply(fill_like, (x,), {"value": scalar(value), "dtype": None})


@expose(cls="Fills", prim="FillLike")
def _fills_cls(x, value):
    return fills(x, value)


@expose(cls="FillV2", prim="Fill")
def _fill_v2(shape, value):
    """`shape` (tuple or 1-D Tensor) filled with the one-element Tensor `value`, in value's dtype."""
    dtype = value.dtype if isinstance(value, Tensor) else mstype.float32 if isinstance(value, float) else mstype.int64
    return _fill(shape, value, dtype)


@expose(cls="Ones", prim="Fill")
def _ones_cls(shape, dtype=None):
    return _fill(shape, 1, dtype or mstype.float32)


@expose(cls="Zeros", prim="Fill")
def _zeros_cls(size, dtype=None):
    return _fill(size, 0, dtype or mstype.float32)


@expose(cls="Eye", prim="Eye")
def _eye_cls(n, m, dtype):
    return apply(eye, (), {"n": int(n), "m": int(m), "dtype": to_dtype(dtype)})


@primitive("Meshgrid", attrs=("indexing",), category="shape", multiple_results=True)
def meshgrid_(*xs, indexing="xy"):
    return tuple(jnp.meshgrid(*xs, indexing=indexing))


@expose(ops="meshgrid")
def meshgrid(*inputs, indexing="xy"):
    if len(inputs) == 1 and isinstance(inputs[0], (tuple, list)):
        inputs = tuple(inputs[0])
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    for t in inputs:
        if len(t.shape) != 1:
            raise ValueError(f"meshgrid: every input must be 1-D, got shape {tuple(t.shape)}")
    return apply(meshgrid_, tuple(inputs), {"indexing": indexing})


@expose(mint="meshgrid", prim="Meshgrid")
def meshgrid_ext(*tensors, indexing=None):
    """`mint.meshgrid`: torch's default indexing, 'ij' (None means 'ij')."""
    return meshgrid(*tensors, indexing="ij" if indexing is None else indexing)


@expose(cls="Meshgrid", init=("indexing",), prim="Meshgrid")
def _meshgrid_cls(inputs, *, indexing="xy"):
    return meshgrid(*inputs, indexing=indexing)


@expose(ops="range")
def range_(start, end, step, maxlen=1000000):
    """`[start, end)` by `step` (Tensors or numbers): int64 for integers, float32 otherwise (MindSpore's CPU)."""
    values = [scalar(v) for v in (start, end, step)]
    if values[2] == 0:
        raise ValueError("range: step must not be 0")
    if (values[1] - values[0]) * values[2] < 0:
        raise ValueError(f"range: step {values[2]} moves away from end {values[1]} (start {values[0]})")
    n = int(np.ceil((values[1] - values[0]) / values[2]))
    if n > maxlen:
        raise ValueError(f"range: {n} elements exceed maxlen={maxlen}")
    return apply(arange, (), {"start": values[0], "end": values[1], "step": values[2], "dtype": None})


@expose(cls="Range", init=("maxlen",), prim="Range")
def _range_cls(start, end, step, *, maxlen=1000000):
    return range_(start, end, step, maxlen)


@primitive("SequenceMask", attrs=("maxlen",), category="shape", differentiable=False)
def sequence_mask_(lengths, *, maxlen):
    return jnp.arange(maxlen) < lengths[..., None]


@expose(ops="sequence_mask", prim="SequenceMask")
def sequence_mask(lengths, maxlen=None):
    if maxlen is None:
        maxlen = int(np.max(lengths.asnumpy())) if lengths.size else 0
    if int(maxlen) <= 0:
        raise ValueError(f"sequence_mask: maxlen must be > 0, got {maxlen}")
    return apply(sequence_mask_, (lengths,), {"maxlen": int(maxlen)})


# ---------------------------------------------------------------- shape queries
@expose(ops="shape")
def shape(input_x):
    return tuple(input_x.shape)


@expose(ops="rank")
def rank(input_x):
    return len(input_x.shape)


@expose(cls="Rank", name="Rank")
def _rank_cls(x):
    return rank(x)


@expose(ops="size")
def size(input_x):
    return int(np.prod(tuple(input_x.shape)))


@expose(ops="numel")
def numel(input):
    return size(input)


@expose(cls="Size", name="Size")
def _size_cls(input_x):
    return size(input_x)


@expose(ops="dyn_shape")
def dyn_shape(input_x):
    return Tensor(np.asarray(tuple(input_x.shape), np.int64))


@expose(cls="TensorShape", name="TensorShape")
def _tensor_shape_cls(input_x):
    return dyn_shape(input_x)


@expose(cls="DynamicShape", init=("dtype",), name="TensorShape")
def _dynamic_shape_cls(input_x, *, dtype=9):
    return dyn_shape(input_x)


@expose(ops="is_tensor")
def is_tensor(obj):
    return isinstance(obj, Tensor)


@expose(ops="is_floating_point", tensor="is_floating_point")
def is_floating_point(input):
    return bool(input.dtype.is_floating)


@expose(ops="is_complex", tensor="is_complex")
def is_complex(input):
    return input.dtype in (mstype.complex64, mstype.complex128)


@expose(ops="is_nonzero")
def is_nonzero(input):
    if input.size != 1:
        raise RuntimeError(f"is_nonzero: the input must have exactly one element, got shape {tuple(input.shape)}")
    return bool(input.asnumpy().reshape(()) != 0)


_FORMATS = ("NHWC", "NCHW")


def _format_reason(src_format, dst_format) -> str | None:
    for name, f in (("src_format", src_format), ("dst_format", dst_format)):
        if f not in _FORMATS:
            return f"{name} must be 'NHWC' or 'NCHW', got {f!r}"
    return None


def _dim_map_check(input_x, *, src_format="NHWC", dst_format="NCHW") -> str | None:
    if np.dtype(input_x.dtype) != np.dtype("int32"):
        return f"input_x dtype must be int32, got {np.dtype(input_x.dtype).name}"
    return _format_reason(src_format, dst_format)


@primitive("DataFormatDimMap", attrs=("src_format", "dst_format"), check=_dim_map_check, differentiable=False,
           api=Api(args=("input_x",), attrs=(Attr("src_format", "NHWC"), Attr("dst_format", "NCHW")),
                   cls="DataFormatDimMap", init=("src_format", "dst_format")))
def data_format_dim_map(input_x, *, src_format="NHWC", dst_format="NCHW"):
    """`src_format.index(dst_format[x])` for each `x` in [-4, 4) (MindSpore's CPU kernel: NHWC -> NCHW maps
    0, 1, 2, 3 to 0, 3, 1, 2)."""
    reason = _dim_map_check(input_x, src_format=src_format, dst_format=dst_format)
    if reason is not None:
        raise (TypeError if "dtype" in reason else ValueError)(reason)
    table = jnp.asarray([src_format.index(c) for c in dst_format], input_x.dtype)
    return table[jnp.mod(input_x, 4)]


def _vec_permute_check(input_x, *, src_format="NHWC", dst_format="NCHW") -> str | None:
    if np.dtype(input_x.dtype).name not in ("int32", "int64"):
        return f"input_x dtype must be int32 or int64, got {np.dtype(input_x.dtype).name}"
    if tuple(input_x.shape) not in ((4,), (4, 2)):
        return f"input_x must have shape (4,) or (4, 2), got {tuple(input_x.shape)}"
    return _format_reason(src_format, dst_format)


@primitive("DataFormatVecPermute", attrs=("src_format", "dst_format"), check=_vec_permute_check,
           differentiable=False,
           api=Api(args=("input_x",), attrs=(Attr("src_format", "NHWC"), Attr("dst_format", "NCHW")),
                   cls="DataFormatVecPermute", init=("src_format", "dst_format")))
def data_format_vec_permute(input_x, *, src_format="NHWC", dst_format="NCHW"):
    """The rows of `input_x` (one per dimension of `src_format`) reordered as `dst_format`'s dimensions."""
    reason = _vec_permute_check(input_x, src_format=src_format, dst_format=dst_format)
    if reason is not None:
        raise (TypeError if "dtype" in reason else ValueError)(reason)
    return input_x[jnp.asarray([src_format.index(c) for c in dst_format])]


def _raise_if(reason: str | None, kind: type) -> None:
    """The impl's own check (the registry words the error: op name, inputs, this reason)."""
    if reason is not None:
        raise kind(reason)


def _padding_check(x, *, pad_dim_size) -> str | None:
    if len(x.shape) < 1 or x.shape[-1] != 1:
        return f"the last dimension of x must be 1, got shape {tuple(x.shape)}"
    if pad_dim_size < 1:
        return f"pad_dim_size must be a positive int, got {pad_dim_size}"
    return None


def _positive_int(v):
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"Padding: pad_dim_size must be an int, got {type(v).__name__}")
    return v


@primitive("Padding", attrs=("pad_dim_size",), check=_padding_check,
           api=Api(("padding",), args=("x",), attrs=(Attr("pad_dim_size", 8, _positive_int),), cls="Padding",
                   init=("pad_dim_size",)))
def padding(x, *, pad_dim_size=8):
    """x (..., 1) -> (..., pad_dim_size): x's value first, zeros after (MindSpore's `Padding`)."""
    _raise_if(_padding_check(x, pad_dim_size=pad_dim_size), ValueError)
    zeros = jnp.zeros(x.shape[:-1] + (pad_dim_size - 1,), x.dtype)
    return jnp.concatenate([x, zeros], axis=-1)
