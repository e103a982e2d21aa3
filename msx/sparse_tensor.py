"""`RowTensor`: MindSpore's row-sparse value (`mindspore.RowTensor`, `mindspore.common.sparse_tensor`).

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

from .tensor import Tensor


class RowTensor:
    """`RowTensor(indices, values, shape)` or `RowTensor(row_tensor=other)` (MindSpore 2.10's signature)."""

    def __init__(self, indices: Tensor | None = None, values: Tensor | None = None,
                 shape: tuple | None = None, row_tensor: "RowTensor | None" = None) -> None:
        warnings.warn("'RowTensor' is deprecated from version 1.7 and will be removed in a future version "
                      "(MindSpore's own warning).", DeprecationWarning, stacklevel=2)
        if row_tensor is not None:
            if not isinstance(row_tensor, RowTensor):
                raise TypeError(f"RowTensor: `row_tensor` must be a RowTensor, got {type(row_tensor).__name__}")
            if not (indices is None and values is None and shape is None):
                raise TypeError("RowTensor: if `row_tensor` is given, `indices`, `values` and `shape` must all "
                                "be None")
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
        return (f"RowTensor(shape={list(self._shape)}, dtype={self._values.dtype}, indices={self._indices!r}, "
                f"values={self._values!r})")


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
