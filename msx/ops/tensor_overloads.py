"""Tensor methods whose MindSpore 2.10 signature is not its `ops` function's: the torch-style overloads
(`t.sort(dim, descending, stable)`, `t.gather(dim, index)`, `t.topk(k, dim, largest, sorted)`,
`t.scatter_add(dim, index, src)`, `t.repeat(*repeats)`), numpy-style helpers (`ptp`, `choose`, `resize`,
`itemset`, `sum_to_size`) and the in-place forms (`index_add_`, `scatter_`, `fill_diagonal_`, ...). Each is a
composition of declared ops, so it runs eagerly and under jit and differentiates like them; merged into
`Tensor` by `tensor_methods.attach` (in-place ones through its `_in_place`, which writes the result back)."""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from . import functional as F
from .api import SURFACE
from .functional_random import keys_from
from .random_ops import draw


def _sizes(size: tuple) -> tuple:
    """`t.expand(2, 3)` and `t.expand((2, 3))` both mean (2, 3)."""
    return tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else tuple(size)


def _dim(self, dim: int, what: str) -> int:
    rank = max(self.ndim, 1)
    if not -rank <= int(dim) < rank:
        raise ValueError(f"Tensor.{what}: dim {dim} is out of range for a tensor of rank {self.ndim}")
    return int(dim) % rank


def sort(self, dim=-1, descending=False, stable=False):
    """(values, indices) along `dim`; msx's sort is always stable, which satisfies `stable=False` too."""
    return F.sort(self, dim, descending)


def topk(self, k, dim=-1, largest=True, sorted=True):  # noqa: A002  (MindSpore's argument name)
    return F.topk(self, k, dim, largest, sorted)


def split(self, split_size, dim=0):
    return F.split(self, split_size, dim)


def gather(self, dim, index):
    """torch-style gather: out[i][j] = self[index[i][j]][j] along `dim` (MindSpore's GatherD)."""
    return F.gather_elements(self, dim, index)


def where(self, condition, y):
    """`self` where `condition` holds, else `y`."""
    return F.where(condition, self, y)


def expand(self, *size):
    """A broadcast view of `self` with `size`; -1 keeps a dim."""
    size = _sizes(size)
    lead = len(size) - self.ndim
    return F.broadcast_to(self, tuple(self.shape[i - lead] if s == -1 and i >= lead else s
                                      for i, s in enumerate(size)))


def repeat(self, *repeats):
    """torch's repeat: tile `self` `repeats[i]` times along dim i (leading dims added as needed)."""
    reps = _sizes(repeats)
    if len(reps) < self.ndim:
        raise ValueError(f"Tensor.repeat: {len(reps)} repeats for a tensor of rank {self.ndim}; give at least "
                         f"one per dim")
    return F.tile(self, reps)


def trace(self, offset=0, axis1=0, axis2=1, dtype=None):
    """The sum of the `offset`-th diagonal over `axis1`/`axis2`."""
    out = F.reduce_sum(F.diagonal(self, offset, axis1, axis2), -1)
    return out if dtype is None else F.cast(out, dtype)


def searchsorted(self, v, side="left", sorter=None):
    """Where `v`'s values go in this sorted 1-D tensor to keep it sorted."""
    if side not in ("left", "right"):
        raise ValueError(f"Tensor.searchsorted: side must be 'left' or 'right', got {side!r}")
    v = v if isinstance(v, Tensor) else Tensor(np.asarray(v), dtype=self.dtype)
    return F.searchsorted(self, v, out_int32=True, side=side, sorter=sorter)  # int32, as MindSpore's method


def count_nonzero(self, dim=None):
    """The non-zero count over `dim` (every element when None), int32 as MindSpore's Tensor method answers
    (`mint.count_nonzero` answers int64)."""
    return F.count_nonzero(self, () if dim is None else dim)


def median(self, axis=-1, keepdims=False):
    return F.median(self, axis, keepdims)


def unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    return SURFACE["mint"]["unique"](self, sorted, return_inverse, return_counts, dim)


def repeat_interleave(self, repeats, dim=None, *, output_size=None):
    return SURFACE["mint"]["repeat_interleave"](self, repeats, dim, output_size=output_size)


def scatter_add(self, dim, index, src):
    """out = self, then out[index[i][j]][j] += src[i][j] along `dim`."""
    return SURFACE["mint"]["scatter_add"](self, dim, index, src)


def bernoulli(self, *, generator=None):
    return SURFACE["mint"]["bernoulli"](self, generator=generator)


def uniform(self, from_=0.0, to=1.0, generator=None):
    """A new tensor of this shape and dtype, uniform in [from_, to)."""
    if not from_ < to:
        raise ValueError(f"Tensor.uniform: from_ ({from_}) must be less than to ({to})")
    with keys_from(generator, "Tensor.uniform"):
        return draw("uniform", self.shape, (float(from_), float(to)), self.dtype)


def cauchy(self, median=0.0, sigma=1.0):
    """A new tensor of this shape and dtype drawn from Cauchy(median, sigma)."""
    return draw("cauchy", self.shape, (float(median), float(sigma)), self.dtype)


def log_normal(self, mean=1.0, std=2.0):
    """A new tensor of this shape and dtype drawn from exp(N(mean, std))."""
    return draw("lognormal", self.shape, (float(mean), float(std)), self.dtype)


def ptp(self, axis=None, keepdims=False):
    """max - min over `axis` (every element when None)."""
    return F.sub(F.amax(self, axis, keepdims), F.amin(self, axis, keepdims))


def sum_to_size(self, *size):
    """Sum `self` down to `size`, a shape it broadcasts from (dims of size 1 are summed, keeping them)."""
    size = _sizes(size)
    lead = self.ndim - len(size)
    if lead < 0 or any(s not in (1, n) for s, n in zip(size, self.shape[lead:])):
        raise ValueError(f"Tensor.sum_to_size: size {size} is not broadcastable to the tensor's shape "
                         f"{tuple(self.shape)}")
    out = F.reduce_sum(self, tuple(range(lead)), False) if lead else self
    axes = tuple(i for i, (s, n) in enumerate(zip(size, out.shape)) if s == 1 and n != 1)
    return F.reduce_sum(out, axes, True) if axes else out


def resize(self, *new_shape):
    """numpy's resize: the elements in row-major order, cut or padded with zeros to `new_shape`."""
    shape = _sizes(new_shape)
    n = int(np.prod(shape))
    flat = F.reshape(self, (-1,))
    if n > flat.shape[0]:
        flat = F.concat((flat, F.zeros((n - flat.shape[0],), self.dtype)))
    return F.reshape(flat[:n], shape)


def choose(self, choices, mode="clip"):
    """numpy's choose: out[i] = choices[self[i]][i] (indices clipped to range, or wrapped with mode='wrap')."""
    if mode not in ("clip", "wrap"):
        raise ValueError(f"Tensor.choose: mode must be 'clip' or 'wrap', got {mode!r}")
    stacked = F.stack([c if isinstance(c, Tensor) else Tensor(np.asarray(c)) for c in choices])
    n = stacked.shape[0]
    idx = F.clamp(self, 0, n - 1) if mode == "clip" else F.remainder(self, n)
    shape = tuple(np.broadcast_shapes(tuple(idx.shape), tuple(stacked.shape[1:])))
    idx = F.expand_dims(F.broadcast_to(F.cast(idx, "int64"), shape), 0)
    return F.squeeze(F.gather_elements(F.broadcast_to(stacked, (n,) + shape), 0, idx), 0)


def itemset(self, *args):
    """numpy's itemset: `t.itemset(value)` for a one-element tensor, `t.itemset(i, value)` /
    `t.itemset((i, j), value)` at a flat or full index. Writes into `self`."""
    if not args or len(args) > 2:
        raise TypeError(f"Tensor.itemset: expected (value) or (index, value), got {len(args)} arguments")
    if len(args) == 1:
        if self.size != 1:
            raise ValueError("Tensor.itemset(value) needs a one-element tensor")
        index = (0,) * self.ndim
    else:
        index = args[0] if isinstance(args[0], tuple) else tuple(int(i) for i in np.unravel_index(args[0], self.shape))
    self[index] = args[-1]
    return self


# ---------------------------------------------------------------- computed, then written into self
def _index_add(self, dim, index, source, *, alpha=1):
    return SURFACE["mint"]["index_add"](self, dim, index, source, alpha=alpha)


def _index_fill(self, dim, index, value):
    return F.index_fill(self, dim, index, value)


def _scatter(self, dim, index, src):
    return F.scatter(self, dim, index, src if isinstance(src, Tensor) else F.full_like(index, src, dtype=self.dtype))


def _fill_diagonal(self, fill_value, wrap=False):
    """The main diagonal (every dim's index equal) set to `fill_value`; for a tall 2-D matrix with `wrap`,
    the diagonal restarts every ncols + 1 rows (numpy's fill_diagonal)."""
    if self.ndim < 2 or (self.ndim > 2 and len(set(self.shape)) != 1):
        raise ValueError(f"Tensor.fill_diagonal_: expected a 2-D tensor or one with all dims equal, got shape "
                         f"{tuple(self.shape)}")
    mask = np.zeros(self.shape, bool)
    if self.ndim == 2:
        rows, cols = self.shape
        step = cols + 1
        flat = np.arange(0, rows * cols if wrap else min(rows, cols) * cols, step)
        mask.reshape(-1)[flat] = True
    else:
        mask[(np.arange(self.shape[0]),) * self.ndim] = True
    return F.masked_fill(self, Tensor(mask), fill_value)


def _masked_scatter(self, mask, source):
    """`self` with its elements where `mask` (broadcast) holds taken from `source`, in order."""
    m = F.broadcast_to(mask, self.shape)
    pos = F.cumsum(F.cast(F.reshape(m, (-1,)), "int32"), 0) - 1
    taken = F.gather(F.reshape(source, (-1,)), F.clamp(pos, 0, None), 0)
    return F.where(m, F.reshape(taken, self.shape), self)


def _index_put(self, indices, values, accumulate=False):
    """`self` with `values` put at the positions the index tensors `indices` name (added with `accumulate`)."""
    idx = F.stack([F.cast(i, "int64") for i in indices], -1)
    vals = F.broadcast_to(values, tuple(idx.shape[:-1]) + tuple(self.shape[len(indices):]))
    return (F.tensor_scatter_add if accumulate else F.tensor_scatter_update)(self, idx, vals)


def _put(self, index, source, accumulate=False):
    """`self` with `source` put at the flat `index` positions (added with `accumulate`)."""
    flat = F.reshape(self, (-1,))
    idx = F.reshape(F.cast(index, "int64"), (-1, 1))
    n = flat.shape[0]
    idx = F.where(idx < 0, idx + n, idx)
    src = F.reshape(source, (-1,))
    out = (F.tensor_scatter_add if accumulate else F.tensor_scatter_update)(flat, idx, src)
    return F.reshape(out, self.shape)


def _addmm(self, mat1, mat2, *, beta=1, alpha=1):
    return F.addmm(self, mat1, mat2, beta=beta, alpha=alpha)


METHODS = {
    "sort": sort, "topk": topk, "split": split, "gather": gather, "where": where, "expand": expand,
    "repeat": repeat, "trace": trace, "searchsorted": searchsorted, "count_nonzero": count_nonzero,
    "median": median, "unique": unique, "repeat_interleave": repeat_interleave, "scatter_add": scatter_add,
    "bernoulli": bernoulli, "uniform": uniform, "cauchy": cauchy, "log_normal": log_normal, "ptp": ptp,
    "sum_to_size": sum_to_size, "resize": resize, "choose": choose, "itemset": itemset,
    "diag": lambda self: F.diag(self), "to_coo": lambda self: SURFACE["ops"]["dense_to_sparse_coo"](self),
    "to_csr": lambda self: SURFACE["ops"]["dense_to_sparse_csr"](self), "fill_diagonal": _fill_diagonal, "index_put": _index_put,
    "index_add": lambda self, indices, y, axis, use_lock=True, check_index_bound=True:
        F.index_add(self, indices, y, axis, use_lock, check_index_bound),
}
IN_PLACE = {
    "index_add_": _index_add, "index_fill_": _index_fill, "scatter_": _scatter, "scatter_add_": scatter_add,
    "fill_diagonal_": _fill_diagonal, "masked_scatter_": _masked_scatter, "index_put_": _index_put,
    "put_": _put, "addmm_": _addmm,
}
