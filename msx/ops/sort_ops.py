"""Searching, top-k, unique, counting and rearranging ops under MindSpore's names.

`unique`, `unique_consecutive`, `bincount` and `ListDiff` have value-dependent result shapes: they run
eagerly (inside `jit(capture_mode="ast")` they raise, naming why; see `index_ops.eager_only`). The
others have static shapes and run in every mode.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtype as mstype
from ..tensor import Tensor
from . import array_ops as A
from .api import SURFACE, expose
from .attr_converters import to_dtype
from .index_ops import eager_only
from .primitive import apply, primitive


def _t(x):
    return x if isinstance(x, Tensor) else Tensor(np.asarray(x))


# ---------------------------------------------------------------- sorted search
@primitive("SearchSorted", attrs=("right", "dtype"), category="other", differentiable=False)
def search_sorted(seq, values, *, right=False, dtype=mstype.int64):
    """Insertion points of `values` into the last dim of `seq` (1-D, or row-wise for matching leading dims)."""
    side = "right" if right else "left"
    if seq.ndim == 1:
        out = jnp.searchsorted(seq, values, side=side)
    else:
        fn = lambda s, v: jnp.searchsorted(s, v, side=side)  # noqa: E731
        lead = seq.shape[:-1]
        out = jax.vmap(fn)(seq.reshape((-1, seq.shape[-1])), values.reshape((int(np.prod(lead)), -1)))
        out = out.reshape(values.shape)
    return out.astype(mstype.to_np(dtype))


def _search(op: str, seq, values, right: bool, dtype):
    if len(seq.shape) > 1 and tuple(seq.shape[:-1]) != tuple(values.shape[:-1]):
        raise ValueError(f"{op}: the leading dims of sorted_sequence {tuple(seq.shape)} and values "
                         f"{tuple(values.shape)} must match")
    return apply(search_sorted, (seq, _t(values)), {"right": bool(right), "dtype": to_dtype(dtype)})


@expose(ops="searchsorted", mint="searchsorted", prim="SearchSorted")
def searchsorted(sorted_sequence, values, *, out_int32=False, right=False, side=None, sorter=None):
    if side is not None:
        if side not in ("left", "right") or (side == "left" and right):
            raise ValueError(f"searchsorted: side must be 'left' or 'right' and agree with right={right}, got {side!r}")
        right = side == "right"
    if sorter is not None:
        sorted_sequence = SURFACE_OPS()["gather_elements"](sorted_sequence, -1, sorter)
    return _search("searchsorted", sorted_sequence, values, right, mstype.int32 if out_int32 else mstype.int64)


def SURFACE_OPS():  # noqa: N802  (the functional table, filled after this module)
    return SURFACE["ops"]


@expose(cls="SearchSorted", init=("dtype", "right"), prim="SearchSorted")
def _search_sorted_cls(sorted_sequence, values, sorter=None, *, dtype=mstype.int64, right=False):
    if sorter is not None:
        sorted_sequence = SURFACE_OPS()["gather_elements"](sorted_sequence, -1, sorter)
    return _search("SearchSorted", sorted_sequence, values, right, dtype)


@expose(ops="bucketize", prim="SearchSorted")
def bucketize(input, boundaries, *, right=False):
    """The bucket of each element among the sorted `boundaries` (a list): int64, as searchsorted."""
    b = Tensor(np.asarray(boundaries, np.float32 if input.dtype.is_floating else np.int64))
    return apply(search_sorted, (b, input), {"right": bool(right), "dtype": mstype.int64})


@expose(cls="Bucketize", init=("boundaries",), prim="SearchSorted")
def _bucketize_cls(input, *, boundaries):
    b = Tensor(np.asarray(boundaries, np.float32 if input.dtype.is_floating else np.int64))
    return apply(search_sorted, (b, input), {"right": True, "dtype": mstype.int32})


@expose(cls="LowerBound", init=("out_type",), prim="SearchSorted")
def _lower_bound(sorted_x, values, *, out_type=mstype.int32):
    return _search("LowerBound", sorted_x, values, False, out_type)


@expose(cls="UpperBound", init=("out_type",), prim="SearchSorted")
def _upper_bound(sorted_x, values, *, out_type=mstype.int32):
    return _search("UpperBound", sorted_x, values, True, out_type)


# ---------------------------------------------------------------- top-k and n-th element
@primitive("TopKInt32", attrs=("k", "sorted"), category="other", multiple_results=True)
def top_k_(x, *, k, sorted=True):
    values, idx = jax.lax.top_k(x, k)
    return values, idx.astype(jnp.int32)


@expose(ops="top_k", tensor="top_k", prim="TopKInt32")
def top_k(input_x, k, sorted=True):
    k = int(k)
    if not 0 <= k <= input_x.shape[-1]:
        raise ValueError(f"top_k: k={k} must be in [0, {input_x.shape[-1]}] for the last dim")
    return apply(top_k_, (input_x,), {"k": k, "sorted": bool(sorted)})


@expose(cls="TopK", init=("sorted",), prim="TopKInt32")
def _top_k_cls(input_x, k, *, sorted=True):
    return top_k(input_x, k, sorted)


@primitive("NthElement", attrs=("n", "reverse"), category="other")
def nth_element_(x, *, n, reverse=False):
    s = jnp.sort(x, axis=-1)
    return s[..., -1 - n] if reverse else s[..., n]


@expose(cls="NthElement", init=("reverse",), prim="NthElement")
def _nth_element_cls(input, n, *, reverse=False):
    n = int(n)
    if not 0 <= n < input.shape[-1]:
        raise ValueError(f"NthElement: n={n} must be in [0, {input.shape[-1]}) for the last dim")
    return apply(nth_element_, (input,), {"n": n, "reverse": bool(reverse)})


# ---------------------------------------------------------------- unique
@primitive("UniqueWithPad", attrs=("pad",), category="other", multiple_results=True, differentiable=False)
def unique_with_pad_(x, *, pad):
    """(the distinct values in order of first appearance, padded to x's length; each element's index)."""
    n = x.shape[0]
    eq = x[:, None] == x[None, :]
    first_pos = jnp.argmax(eq, axis=1)
    is_first = first_pos == jnp.arange(n)
    rank = jnp.cumsum(is_first) - 1
    inverse = rank[first_pos].astype(x.dtype if jnp.issubdtype(x.dtype, jnp.integer) else jnp.int32)
    slots = jnp.where(is_first, rank, n)
    values = jnp.full((n + 1,), pad, x.dtype).at[slots].set(x)[:n]
    return values, inverse


@expose(ops="unique_with_pad", tensor="unique_with_pad", prim="UniqueWithPad")
def unique_with_pad(x, pad_num):
    if len(x.shape) != 1:
        raise ValueError(f"unique_with_pad: x must be 1-D, got shape {tuple(x.shape)}")
    return apply(unique_with_pad_, (x,), {"pad": pad_num})


@expose(cls="UniqueWithPad", prim="UniqueWithPad")
def _unique_with_pad_cls(x, pad_num):
    return unique_with_pad(x, pad_num)


@expose(ops="unique", prim="UniqueWithPad")
def unique(input):
    """(distinct values in order of first appearance, the index of each element's value in them)."""
    flat = apply(A.reshape, (input,), {"shape": (-1,)})
    values, inverse = apply(unique_with_pad_, (flat,), {"pad": 0})
    eager_only("Unique", values._data)
    count = int(np.unique(input.asnumpy()).size)
    return apply(A.narrow, (values,), {"axis": 0, "start": 0, "length": count}), \
        apply(A.reshape, (inverse,), {"shape": tuple(input.shape)})


@primitive("Unique2", attrs=("sorted",), category="other", multiple_results=True, differentiable=False)
def unique2_(x, *, sorted=True):  # noqa: A002  (MindSpore's argument name)
    """(distinct values, each element's index into them (x's shape), each value's count), all int64 but the
    values; sorted ascending (msx always sorts: `sorted=False` leaves the order unspecified in MindSpore)."""
    eager_only("Unique2", x)
    values, inverse, counts = np.unique(np.asarray(x), return_inverse=True, return_counts=True)
    return (jnp.asarray(values, x.dtype), jnp.asarray(inverse.reshape(x.shape), jnp.int64),
            jnp.asarray(counts, jnp.int64))


@expose(mint="unique", prim="Unique2")
def unique_ext(input, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    """`mint.unique`: the distinct values of the flattened input, sorted; with the inverse indices and counts
    when asked (a tuple then)."""
    if dim is not None:
        raise ValueError("mint.unique: only dim=None (the flattened input) is supported in msx")
    values, inverse, counts = apply(unique2_, (input,), {"sorted": bool(sorted)})
    if not (return_inverse or return_counts):
        return values
    return (values,) + ((inverse,) if return_inverse else ()) + ((counts,) if return_counts else ())


@expose(cls="Unique", prim="UniqueWithPad")
def _unique_cls(input_x):
    return unique(input_x)


@primitive("UniqueConsecutive", category="other", multiple_results=True, differentiable=False)
def unique_consecutive_(x):
    eager_only("UniqueConsecutive", x)
    flat = x.reshape(-1)
    starts = jnp.concatenate([jnp.array([True]), flat[1:] != flat[:-1]]) if flat.size else jnp.zeros((0,), bool)
    pos = np.flatnonzero(np.asarray(starts))
    inverse = (jnp.cumsum(starts) - 1).astype(jnp.int64).reshape(x.shape)
    counts = jnp.diff(jnp.asarray(np.append(pos, flat.size))).astype(jnp.int64)
    return flat[pos], inverse, counts


@expose(ops="unique_consecutive", mint="unique_consecutive", tensor="unique_consecutive",
        prim="UniqueConsecutive")
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    if dim is not None:
        raise ValueError("unique_consecutive: only dim=None (the flattened input) is supported")
    out, inverse, counts = apply(unique_consecutive_, (input,))
    if not (return_inverse or return_counts):
        return out
    return (out,) + ((inverse,) if return_inverse else ()) + ((counts,) if return_counts else ())


@expose(cls="UniqueConsecutive", init=("return_inverse", "return_counts", "dim"), prim="UniqueConsecutive")
def _unique_consecutive_cls(input, *, return_inverse=False, return_counts=False, dim=None):
    """The class form always returns (output, inverse, counts), as MindSpore's."""
    if dim is not None:
        raise ValueError("UniqueConsecutive: only dim=None (the flattened input) is supported")
    return apply(unique_consecutive_, (input,))


@primitive("ListDiff", attrs=("out_idx",), category="other", multiple_results=True, differentiable=False)
def list_diff_(x, y, *, out_idx=mstype.int32):
    eager_only("ListDiff", x, y)
    keep = np.flatnonzero(~np.isin(np.asarray(x), np.asarray(y)))
    return x[keep], jnp.asarray(keep).astype(mstype.to_np(out_idx))


@expose(cls="ListDiff", init=("out_idx",), prim="ListDiff")
def _list_diff_cls(x, y, *, out_idx=mstype.int32):
    return apply(list_diff_, (x, y), {"out_idx": to_dtype(out_idx)})


# ---------------------------------------------------------------- counting
@primitive("Bincount", attrs=("length",), category="other", differentiable=False)
def bincount_(x, *w, length):
    weights = w[0] if w else jnp.ones(x.shape, jnp.float32)
    return jnp.zeros((length,), weights.dtype).at[x.reshape(-1)].add(weights.reshape(-1), mode="drop")


@expose(ops="bincount", tensor="bincount", prim="Bincount")
def bincount(input, weights=None, minlength=0):
    eager_only("bincount", input._data)
    values = input.asnumpy()
    if values.size and values.min() < 0:
        raise ValueError(f"bincount: input must be non-negative, got {int(values.min())}")
    length = max(int(values.max()) + 1 if values.size else 0, int(minlength))
    return apply(bincount_, (input,) + (() if weights is None else (weights,)), {"length": length})


@expose(mint="bincount", prim="Bincount")
def bincount_ext(input, weights=None, minlength=0):
    """`mint.bincount`: int64 counts without `weights` (torch's dtype; `ops.bincount` answers float32)."""
    out = bincount(input, weights, minlength)
    return out if weights is not None else apply(A.cast, (out,), {"dtype": mstype.int64})


@expose(cls="Bincount", prim="Bincount")
def _bincount_cls(array, size, weights):
    return apply(bincount_, (array, weights), {"length": int(size.asnumpy() if isinstance(size, Tensor) else size)})


# ---------------------------------------------------------------- permutations and indices
@expose(cls="InvertPermutation", name="InvertPermutation")
def _invert_permutation(input_x):
    values = list(input_x.asnumpy().reshape(-1) if isinstance(input_x, Tensor) else input_x)
    if sorted(values) != list(range(len(values))):
        raise ValueError(f"InvertPermutation: input_x must be a permutation of 0..{len(values) - 1}, got {values}")
    inverse = [0] * len(values)
    for i, v in enumerate(values):
        inverse[int(v)] = i
    return Tensor(np.asarray(inverse, np.int32)) if isinstance(input_x, Tensor) else tuple(inverse)


@primitive("UnravelIndex", attrs=("dims",), category="other", differentiable=False)
def unravel_index_(indices, *, dims):
    return jnp.stack(jnp.unravel_index(indices, dims), axis=0).astype(indices.dtype)


@expose(cls="UnravelIndex", prim="UnravelIndex")
def _unravel_index_cls(indices, dims):
    dims = tuple(int(d) for d in (dims.asnumpy() if isinstance(dims, Tensor) else dims))
    values = indices.asnumpy()
    if values.size and (values.min() < 0 or values.max() >= int(np.prod(dims))):
        raise ValueError(f"UnravelIndex: indices must be in [0, {int(np.prod(dims))}) for dims {dims}")
    return apply(unravel_index_, (indices,), {"dims": dims})


# ---------------------------------------------------------------- channel and pixel rearrangements
@primitive("ChannelShuffle", attrs=("groups",), category="shape")
def channel_shuffle_(x, *, groups):
    n, c = x.shape[0], x.shape[1]
    y = x.reshape((n, groups, c // groups) + x.shape[2:])
    return jnp.swapaxes(y, 1, 2).reshape(x.shape)


@expose(ops="channel_shuffle", prim="ChannelShuffle")
def channel_shuffle(x, groups):
    if groups <= 0 or len(x.shape) < 3 or x.shape[1] % groups:
        raise ValueError(f"channel_shuffle: channels ({tuple(x.shape)}) must split into groups={groups}")
    return apply(channel_shuffle_, (x,), {"groups": int(groups)})


@expose(cls="ChannelShuffle", init=("group",), prim="ChannelShuffle")
def _channel_shuffle_cls(x, *, group):
    return channel_shuffle(x, group)


@primitive("PixelShuffle", attrs=("r", "inverse", "block_major"), category="shape")
def pixel_shuffle_(x, *, r, inverse=False, block_major=False):
    """(.., C*r*r, H, W) -> (.., C, H*r, W*r), or back with `inverse` (pixel_unshuffle / SpaceToDepth).

    pixel_shuffle numbers the depth channel-major (c*r*r + i*r + j); DepthToSpace/SpaceToDepth block-major
    ((i*r + j)*C + c), TensorFlow's DCR order."""
    *lead, c, h, w = x.shape
    k = len(lead)
    if not inverse:
        if block_major:
            y = x.reshape(*lead, r, r, c // (r * r), h, w)
            perm = (2, 3, 0, 4, 1)
        else:
            y = x.reshape(*lead, c // (r * r), r, r, h, w)
            perm = (0, 3, 1, 4, 2)  # C, H, r, W, r
        y = jnp.transpose(y, tuple(range(k)) + tuple(k + i for i in perm))
        return y.reshape(*lead, c // (r * r), h * r, w * r)
    y = x.reshape(*lead, c, h // r, r, w // r, r)
    perm = (2, 4, 0, 1, 3) if block_major else (0, 2, 4, 1, 3)  # (r, r, C | C, r, r), H/r, W/r
    y = jnp.transpose(y, tuple(range(k)) + tuple(k + i for i in perm))
    return y.reshape(*lead, c * r * r, h // r, w // r)


def _pixel(op: str, x, r: int, inverse: bool, block_major: bool = False):
    shape = tuple(x.shape)
    if len(shape) < 3 or r <= 0:
        raise ValueError(f"{op}: the input must have rank >= 3 and the factor must be > 0, got {shape}, {r}")
    if (not inverse and shape[-3] % (r * r)) or (inverse and (shape[-2] % r or shape[-1] % r)):
        raise ValueError(f"{op}: shape {shape} does not divide by the factor {r}")
    return apply(pixel_shuffle_, (x,), {"r": int(r), "inverse": inverse, "block_major": block_major})


@expose(cls="DepthToSpace", init=("block_size",), prim="PixelShuffle")
def _depth_to_space(x, *, block_size):
    return _pixel("DepthToSpace", x, block_size, False, True)


@expose(cls="SpaceToDepth", init=("block_size",), prim="PixelShuffle")
def _space_to_depth(x, *, block_size):
    return _pixel("SpaceToDepth", x, block_size, True, True)
