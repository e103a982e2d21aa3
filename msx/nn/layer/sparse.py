"""MindSpore's sparse Cells `nn.SparseToDense` (a COOTensor made dense) and `nn.SparseTensorDenseMatmul` (a
COO matrix given as indices, values and shape, times a dense matrix): the layer forms of `ops.SparseToDense`
and `ops.SparseTensorDenseMatmul` (`msx/ops/sparse_ops.py`), so values, errors and gradients are theirs."""
from __future__ import annotations

from ...ops import SparseTensorDenseMatmul as _SparseTensorDenseMatmulOp
from ...ops import SparseToDense as _SparseToDenseOp
from ...sparse_tensor import COOTensor
from ...tensor import Tensor
from ..cell import Cell


class SparseToDense(Cell):
    """`SparseToDense()(coo_tensor)`: the dense Tensor of a COOTensor (MindSpore deprecates it for
    `COOTensor.to_dense()`, which gives the same)."""

    def __init__(self) -> None:
        super().__init__()
        self.sparse_to_dense = _SparseToDenseOp()

    def construct(self, sparse_tensor: COOTensor) -> Tensor:
        if not isinstance(sparse_tensor, COOTensor):
            raise TypeError(f"SparseToDense: expected a COOTensor, got {type(sparse_tensor).__name__}")
        return self.sparse_to_dense(sparse_tensor.indices, sparse_tensor.values, tuple(sparse_tensor.shape))


class SparseTensorDenseMatmul(Cell):
    """`SparseTensorDenseMatmul(adjoint_st=False, adjoint_dt=False)(indices, values, sparse_shape, dense)`."""

    def __init__(self, adjoint_st: bool = False, adjoint_dt: bool = False) -> None:
        super().__init__()
        self.adjoint_st, self.adjoint_dt = adjoint_st, adjoint_dt
        self.matmul = _SparseTensorDenseMatmulOp(adjoint_st, adjoint_dt)

    def construct(self, indices: Tensor, values: Tensor, sparse_shape: tuple, dense: Tensor) -> Tensor:
        return self.matmul(indices, values, sparse_shape, dense)


__all__ = ["SparseToDense", "SparseTensorDenseMatmul"]
