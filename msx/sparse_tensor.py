"""`RowTensor`, `COOTensor`, `CSRTensor` (and the deprecated `SparseTensor`): MindSpore's sparse values.

`RowTensor` is MindSpore's row-sparse value (`mindspore.RowTensor`, `mindspore.common.sparse_tensor`);
`RowTensorInner` (`mindspore.common.RowTensorInner`) is its base class, the same value without the
deprecation warning, which MindSpore's own code builds. A RowTensor is a RowTensorInner, and either can be
made from the other with `row_tensor=`.

A RowTensor stands for a dense tensor of shape `dense_shape` whose rows `indices[i]` hold `values[i]` and
whose other rows are zero. MindSpore produces it for the gradient of a sparse embedding lookup and libraries
(mindcv's `TrainStep`) dispatch on it in `MultitypeFuncGraph` under the type name "RowTensor". msx's
gradients are always dense, so msx itself never makes one; a RowTensor that user code builds is honoured:
it holds its three parts, checks that they agree (MindSpore 2.10 accepts mismatched parts and fails later),
and `to_dense()` gives the dense Tensor it stands for. It is plain data, so it passes through every capture
mode as a Python value whose parts are Tensors.
"""
from __future__ import annotations

import warnings

import jax.numpy as jnp
import numpy as np

from .tensor import Tensor


class RowTensorInner:
    """`RowTensorInner(indices, values, shape)` or `RowTensorInner(row_tensor=other)` (MindSpore 2.10's
    signature); `other` is any RowTensorInner (a RowTensor is one)."""

    def __init__(self, indices: Tensor | None = None, values: Tensor | None = None,
                 shape: tuple | None = None, row_tensor: "RowTensorInner | None" = None) -> None:
        owner = type(self).__name__
        if row_tensor is not None:
            if not isinstance(row_tensor, RowTensorInner):
                raise TypeError(f"{owner}: Expect input `row_tensor` to be a RowTensor, but got "
                                f"{type(row_tensor)}")
            if not (indices is None and values is None and shape is None):
                raise TypeError(f"{owner}: If input `row_tensor` is provided, `indices`, `values`, `shapes` "
                                f"should all be `None`")
            indices, values, shape = row_tensor.indices, row_tensor.values, row_tensor.dense_shape
        self._indices, self._values, self._shape = _checked(indices, values, shape)

    @property
    def indices(self) -> Tensor:
        """The rows of the dense tensor that `values` fill (1-D, integer)."""
        return self._indices

    @property
    def values(self) -> Tensor:
        """`values[i]` is row `indices[i]` of the dense tensor."""
        return self._values

    @property
    def dense_shape(self) -> tuple:
        """The shape of the dense tensor this stands for."""
        return self._shape

    @property
    def dtype(self):
        return self._values.dtype

    def to_dense(self) -> Tensor:
        """The dense Tensor: zeros with `values` added at rows `indices` (repeated indices add up, as a
        sparse gradient does)."""
        dense = jnp.zeros(self._shape, self._values._data.dtype)
        return Tensor(dense.at[self._indices._data].add(self._values._data))

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(shape={list(self._shape)}, dtype={self._values.dtype}, "
                f"indices={self._indices!r}, values={self._values!r})")


class RowTensor(RowTensorInner):
    """`RowTensor(indices, values, shape)` or `RowTensor(row_tensor=other)` (MindSpore 2.10's signature):
    a RowTensorInner that warns, as MindSpore's does, that the public name is deprecated."""

    def __init__(self, indices: Tensor | None = None, values: Tensor | None = None,
                 shape: tuple | None = None, row_tensor: RowTensorInner | None = None) -> None:
        warnings.warn("'RowTensor' is deprecated from version 1.7 and will be removed in a future version "
                      "(MindSpore's own warning).", DeprecationWarning, stacklevel=2)
        super().__init__(indices, values, shape, row_tensor)


def _checked(indices, values, shape) -> tuple[Tensor, Tensor, tuple]:
    if not isinstance(indices, Tensor) or not isinstance(values, Tensor):
        raise TypeError(f"RowTensor: `indices` and `values` must be Tensors, got {type(indices).__name__} and "
                        f"{type(values).__name__}")
    if not isinstance(shape, tuple) or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0
                                               for d in shape):
        raise TypeError(f"RowTensor: `shape` must be a tuple of non-negative ints, got {shape!r}")
    if indices.ndim != 1 or not jnp.issubdtype(indices._data.dtype, jnp.integer):
        raise ValueError(f"RowTensor: `indices` must be a 1-D integer Tensor, got shape {tuple(indices.shape)} "
                         f"dtype {indices.dtype}")
    if values.ndim != len(shape) or values.ndim == 0 or values.shape[0] != indices.shape[0] \
            or tuple(values.shape[1:]) != tuple(shape[1:]):
        raise ValueError(f"RowTensor: `values` of shape {tuple(values.shape)} does not fit {indices.shape[0]} "
                         f"indices of a dense shape {shape}: it must be (len(indices), *shape[1:])")
    return indices, values, shape


def _shape_tuple(owner: str, shape) -> tuple:
    if not isinstance(shape, (tuple, list)) or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0
                                                       for d in shape):
        raise TypeError(f"{owner}: `shape` must be a tuple of non-negative ints, got {shape!r}")
    return tuple(shape)


def _as_tensor(owner: str, what: str, v) -> Tensor:
    if not isinstance(v, Tensor):
        raise TypeError(f"{owner}: `{what}` must be a Tensor, got {type(v).__name__}")
    return v


class COOTensor:
    """MindSpore's `COOTensor(indices, values, shape)`: a dense tensor of `shape` that is zero except at the
    rows of `indices` (N, ndim; int) where it holds `values` (N,). Plain data over three parts, like RowTensor;
    the `ops.coo_*` functions (msx/ops/sparse_ops.py) compute on it."""

    def __init__(self, indices: Tensor | None = None, values: Tensor | None = None, shape=None,
                 coo_tensor: "COOTensor | None" = None) -> None:
        if coo_tensor is not None:
            if not isinstance(coo_tensor, COOTensor):
                raise TypeError(f"COOTensor: `coo_tensor` must be a COOTensor, got {type(coo_tensor).__name__}")
            indices, values, shape = coo_tensor.indices, coo_tensor.values, coo_tensor.shape
        self._indices = _as_tensor("COOTensor", "indices", indices)
        self._values = _as_tensor("COOTensor", "values", values)
        self._shape = _shape_tuple("COOTensor", shape)
        if indices.ndim != 2 or indices.shape[1] != len(self._shape) or \
                not jnp.issubdtype(indices._data.dtype, jnp.integer):
            raise ValueError(f"COOTensor: `indices` must be an integer (N, {len(self._shape)}) Tensor for shape "
                             f"{self._shape}, got {indices.dtype}{tuple(indices.shape)}")
        if values.ndim != 1 or values.shape[0] != indices.shape[0]:
            raise ValueError(f"COOTensor: `values` must be 1-D with one value per index row ({indices.shape[0]}), "
                             f"got shape {tuple(values.shape)}")

    indices = property(lambda self: self._indices, doc="(N, ndim) positions of the stored values.")
    values = property(lambda self: self._values, doc="(N,) stored values.")
    shape = property(lambda self: self._shape, doc="The dense shape.")
    dtype = property(lambda self: self._values.dtype)
    size = property(lambda self: self._values.shape[0], doc="The number of stored values.")
    itemsize = property(lambda self: self._values._data.dtype.itemsize)
    ndim = property(lambda self: len(self._shape))

    def to_dense(self) -> Tensor:
        """Zeros of `shape` with `values` added at `indices` (repeated indices add up). Built with Tensor's
        methods (ops, attached above this layer), so it differentiates in `values` and runs under jit."""
        cols = tuple(self._indices[:, i] for i in range(len(self._shape)))
        return self._values.new_zeros(self._shape).index_put(cols, self._values, True)

    def to_tuple(self) -> tuple:
        return self._indices, self._values, self._shape

    def astype(self, dt) -> "COOTensor":
        return COOTensor(self._indices, self._values.astype(dt), self._shape)

    def abs(self) -> "COOTensor":
        return COOTensor(self._indices, abs(self._values), self._shape)

    def coalesce(self) -> "COOTensor":
        """The same tensor with each position stored once (repeats summed), sorted row-major."""
        return _from_dense_at(self.to_dense(), self._indices._data, self._indices._data.dtype, thresh=None)

    def add(self, other: "COOTensor", thresh: Tensor) -> "COOTensor":
        """The sum with another COOTensor of the same shape; a summed value whose magnitude is below `thresh`
        is dropped (MindSpore's SparseAdd)."""
        return coo_add(self, other, thresh)

    def to_csr(self) -> "CSRTensor":
        """The CSR form of a 2-D COOTensor (entries sorted by row, then column)."""
        if len(self._shape) != 2:
            raise ValueError(f"COOTensor.to_csr: only a 2-D COOTensor has a CSR form, got shape {self._shape}")
        idx = self._indices._data
        order = jnp.lexsort((idx[:, 1], idx[:, 0]))
        rows = idx[order, 0]
        indptr = jnp.searchsorted(rows, jnp.arange(self._shape[0] + 1), side="left").astype(idx.dtype)
        return CSRTensor(Tensor(indptr), Tensor(idx[order, 1]), Tensor(self._values._data[order]), self._shape)

    def __repr__(self) -> str:
        return f"COOTensor(shape={list(self._shape)}, dtype={self.dtype}, indices={self._indices!r}, " \
               f"values={self._values!r})"


def _from_dense_at(dense: Tensor, idx, index_dtype, thresh) -> COOTensor:
    """The entries of `dense` at the distinct positions `idx` (row-major order), dropping |v| < thresh."""
    pos = np.unique(np.asarray(idx).reshape(len(idx), -1), axis=0) if len(idx) else np.zeros((0, dense.ndim), int)
    vals = np.asarray(dense._data)[tuple(pos.T)] if len(pos) else np.zeros((0,), np.asarray(dense._data).dtype)
    if thresh is not None:
        keep = np.abs(vals) >= np.asarray(thresh._data if isinstance(thresh, Tensor) else thresh)
        pos, vals = pos[keep], vals[keep]
    return COOTensor(Tensor(jnp.asarray(pos, index_dtype).reshape(-1, dense.ndim)), Tensor(jnp.asarray(vals)),
                     tuple(dense.shape))


def coo_add(x1: COOTensor, x2: COOTensor, thresh: Tensor) -> COOTensor:
    """x1 + x2 over the union of their positions (sorted row-major); sums below `thresh` in magnitude are
    dropped. Eager: the result's size depends on the values."""
    if not isinstance(x1, COOTensor) or not isinstance(x2, COOTensor):
        raise TypeError("coo_add: expects two COOTensors")
    if x1.shape != x2.shape:
        raise ValueError(f"coo_add: shapes differ: {x1.shape} and {x2.shape}")
    dense = Tensor(x1.to_dense()._data + x2.to_dense()._data.astype(x1.values._data.dtype))
    idx = jnp.concatenate([x1.indices._data, x2.indices._data.astype(x1.indices._data.dtype)])
    return _from_dense_at(dense, idx, x1.indices._data.dtype, thresh)


class SparseTensor(COOTensor):
    """MindSpore's deprecated `SparseTensor(indices, values, shape)`: a COOTensor."""

    def __init__(self, indices: Tensor, values: Tensor, shape) -> None:
        warnings.warn("'SparseTensor' is deprecated from version 1.7 and will be removed in a future version; "
                      "use 'COOTensor' (MindSpore's own warning).", DeprecationWarning, stacklevel=2)
        super().__init__(indices, values, shape)


class CSRTensor:
    """MindSpore's `CSRTensor(indptr, indices, values, shape)`: a 2-D (or batched) dense tensor stored by rows:
    row i's values are `values[indptr[i]:indptr[i + 1]]` at columns `indices[...]` of the same slice."""

    def __init__(self, indptr: Tensor | None = None, indices: Tensor | None = None, values: Tensor | None = None,
                 shape=None, csr_tensor: "CSRTensor | None" = None) -> None:
        if csr_tensor is not None:
            if not isinstance(csr_tensor, CSRTensor):
                raise TypeError(f"CSRTensor: `csr_tensor` must be a CSRTensor, got {type(csr_tensor).__name__}")
            indptr, indices, values, shape = csr_tensor.indptr, csr_tensor.indices, csr_tensor.values, \
                csr_tensor.shape
        self._indptr = _as_tensor("CSRTensor", "indptr", indptr)
        self._indices = _as_tensor("CSRTensor", "indices", indices)
        self._values = _as_tensor("CSRTensor", "values", values)
        self._shape = _shape_tuple("CSRTensor", shape)
        if len(self._shape) < 2 or indptr.ndim != 1 or indptr.shape[0] != self._shape[0] + 1:
            raise ValueError(f"CSRTensor: `indptr` must be 1-D of length shape[0] + 1 = "
                             f"{self._shape[0] + 1 if self._shape else '?'} for shape {self._shape}, got "
                             f"{tuple(indptr.shape)}")
        if indices.ndim != 1 or values.shape[:1] != indices.shape:
            raise ValueError(f"CSRTensor: `indices` (1-D) and `values` must have one entry per stored value, got "
                             f"shapes {tuple(indices.shape)} and {tuple(values.shape)}")

    indptr = property(lambda self: self._indptr, doc="Row i's entries are indptr[i]:indptr[i + 1].")
    indices = property(lambda self: self._indices, doc="The column of each stored value.")
    values = property(lambda self: self._values, doc="The stored values, row by row.")
    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._values.dtype)
    size = property(lambda self: self._values.shape[0], doc="The number of stored values.")
    itemsize = property(lambda self: self._values._data.dtype.itemsize)
    ndim = property(lambda self: len(self._shape))

    def rows(self) -> Tensor:
        """The row of each stored value (from `indptr`), of indptr's dtype."""
        nnz = Tensor(np.arange(self._indices.shape[0]), dtype=self._indptr.dtype)
        return (self._indptr.searchsorted(nnz, side="right") - 1).astype(self._indptr.dtype)

    def to_dense(self) -> Tensor:
        """Zeros of `shape` with each row's values at their columns (Tensor methods, as COOTensor.to_dense)."""
        return self._values.new_zeros(self._shape).index_put((self.rows(), self._indices), self._values, True)

    def to_coo(self) -> COOTensor:
        rows = self.rows()
        return COOTensor(Tensor(jnp.stack([rows._data, self._indices._data.astype(rows._data.dtype)], 1)),
                         self._values, self._shape)

    def to_tuple(self) -> tuple:
        return self._indptr, self._indices, self._values, self._shape

    def astype(self, dt) -> "CSRTensor":
        return CSRTensor(self._indptr, self._indices, self._values.astype(dt), self._shape)

    def abs(self) -> "CSRTensor":
        return CSRTensor(self._indptr, self._indices, abs(self._values), self._shape)

    def mv(self, dense_vector: Tensor) -> Tensor:
        """This matrix times a dense (n, 1) vector: a dense (m, 1) Tensor."""
        return self.to_dense() @ dense_vector

    def mm(self, matrix: Tensor) -> Tensor:
        """This matrix times a dense matrix: a dense Tensor."""
        return self.to_dense() @ matrix

    def sum(self, axis: int) -> Tensor:
        """The dense sum over `axis`, keeping it (MindSpore's CSRReduceSum)."""
        return self.to_dense().sum(axis, keepdims=True)

    def _at_values(self, other) -> Tensor:
        """`other` (a Tensor or number) broadcast to this matrix's shape, read where values are stored."""
        dense = other if isinstance(other, Tensor) else Tensor(other, dtype=self._values.dtype)
        full = jnp.broadcast_to(dense._data, tuple(self._shape))
        return Tensor(full[self.rows()._data, self._indices._data])

    def __mul__(self, other) -> "CSRTensor":
        """Elementwise by a dense Tensor (broadcast): MindSpore's `csr * dense`, ops.csr_mul."""
        return CSRTensor(self._indptr, self._indices, self._values * self._at_values(other), self._shape)

    def __truediv__(self, other) -> "CSRTensor":
        """Elementwise division by a dense Tensor (broadcast): MindSpore's `csr / dense`, ops.csr_div."""
        return CSRTensor(self._indptr, self._indices, self._values / self._at_values(other), self._shape)

    def __neg__(self) -> "CSRTensor":
        return CSRTensor(self._indptr, self._indices, -self._values, self._shape)

    def __repr__(self) -> str:
        return f"CSRTensor(shape={list(self._shape)}, dtype={self.dtype}, indptr={self._indptr!r}, " \
               f"indices={self._indices!r}, values={self._values!r})"
