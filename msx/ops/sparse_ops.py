"""MindSpore's sparse functions over `COOTensor` / `CSRTensor` (`msx.sparse_tensor`): `coo_*`, `csr_*`, the
converters (`dense_to_sparse_coo`, `coo2csr`, `csr_to_dense`, ...) and the constructor/getter functions
(`make_coo_tensor`, `csr_tensor_get_indptr`, `row_tensor_add`, ...).

An elementwise `coo_<op>` / `csr_<op>` applies the dense op to the stored values and keeps the positions, as
MindSpore does (so `coo_cos` of an implicit zero stays implicit). The products and reductions compute on the
dense form with the declared ops, so they differentiate and run under jit; the conversions from dense whose
result size depends on the values run eagerly (jit refuses them by name, as for `nonzero`).
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from .. import dtype as mstype
from ..sparse_tensor import COOTensor, CSRTensor, RowTensor, coo_add as _coo_add
from ..tensor import Tensor
from .api import SURFACE, expose
from .index_ops import eager_only

_ELEMENTWISE = ("abs acos acosh asin asinh atan atanh ceil cos cosh exp expm1 floor inv isfinite isinf isnan log "
                "log1p neg relu relu6 round sigmoid sin sinh softsign sqrt square tan tanh").split()


def _op(name: str):
    return SURFACE["ops"][name]


def _coo(name: str, x) -> COOTensor:
    if not isinstance(x, COOTensor):
        raise TypeError(f"{name}: expects a COOTensor, got {type(x).__name__}")
    return x


def _csr(name: str, x) -> CSRTensor:
    if not isinstance(x, CSRTensor):
        raise TypeError(f"{name}: expects a CSRTensor, got {type(x).__name__}")
    return x


def _coo_unary(op: str):
    def fn(x: COOTensor) -> COOTensor:
        x = _coo(f"coo_{op}", x)
        return COOTensor(x.indices, _op(op)(x.values), x.shape)
    fn.__name__ = fn.__qualname__ = f"coo_{op}"
    fn.__doc__ = f"`{op}` of the stored values of a COOTensor (positions kept)."
    return fn


def _csr_unary(op: str):
    def fn(x: CSRTensor) -> CSRTensor:
        x = _csr(f"csr_{op}", x)
        return CSRTensor(x.indptr, x.indices, _op(op)(x.values), x.shape)
    fn.__name__ = fn.__qualname__ = f"csr_{op}"
    fn.__doc__ = f"`{op}` of the stored values of a CSRTensor (positions kept)."
    return fn


for _name in _ELEMENTWISE:
    expose(ops=f"coo_{_name}")(_coo_unary(_name))
    expose(ops=f"csr_{_name}")(_csr_unary(_name))


# ---------------------------------------------------------------- COO
@expose(ops="coo_add")
def coo_add(x1: COOTensor, x2: COOTensor, thresh: Tensor) -> COOTensor:
    """x1 + x2 over the union of their positions, sorted row-major; sums whose magnitude is below `thresh`
    are dropped (MindSpore's SparseAdd). Eager: the result's size depends on the values."""
    eager_only("coo_add", x1.values._data, x2.values._data)
    return _coo_add(x1, x2, thresh)


@expose(ops="coo_concat")
def coo_concat(sp_input, concat_dim: int = 0) -> COOTensor:
    """The COOTensors of `sp_input` joined along `concat_dim` (other dims equal), entries sorted row-major."""
    parts = [_coo("coo_concat", x) for x in sp_input]
    if len(parts) < 2:
        raise ValueError(f"coo_concat: expects at least 2 COOTensors, got {len(parts)}")
    nd = parts[0].ndim
    dim = int(concat_dim) % nd
    if any(p.ndim != nd or p.shape[:dim] + p.shape[dim + 1:] != parts[0].shape[:dim] + parts[0].shape[dim + 1:]
           for p in parts):
        raise ValueError(f"coo_concat: shapes {[p.shape for p in parts]} differ outside dim {dim}")
    for p in parts:
        eager_only("coo_concat", p.indices._data)
    offset, idx = 0, []
    for p in parts:
        i = np.asarray(p.indices._data).copy()
        i[:, dim] += offset
        idx.append(i)
        offset += p.shape[dim]
    idx = np.concatenate(idx)
    vals = np.concatenate([np.asarray(p.values._data) for p in parts])
    order = np.lexsort(idx.T[::-1])
    shape = parts[0].shape[:dim] + (offset,) + parts[0].shape[dim + 1:]
    return COOTensor(Tensor(jnp.asarray(idx[order], parts[0].indices._data.dtype)), Tensor(jnp.asarray(vals[order])),
                     shape)


@expose(ops="coo_tensor_get_indices")
def coo_tensor_get_indices(x: COOTensor) -> Tensor:
    return _coo("coo_tensor_get_indices", x).indices


@expose(ops="coo_tensor_get_values")
def coo_tensor_get_values(x: COOTensor) -> Tensor:
    return _coo("coo_tensor_get_values", x).values


@expose(ops="coo_tensor_get_dense_shape")
def coo_tensor_get_dense_shape(x: COOTensor) -> tuple:
    return _coo("coo_tensor_get_dense_shape", x).shape


@expose(ops="make_coo_tensor")
def make_coo_tensor(indices: Tensor, values: Tensor, dense_shape) -> COOTensor:
    return COOTensor(indices, values, tuple(dense_shape))


@expose(ops="make_sparse_tensor")
def make_sparse_tensor(indices: Tensor, values: Tensor, dense_shape) -> COOTensor:
    return COOTensor(indices, values, tuple(dense_shape))


@expose(ops="dense_to_sparse_coo")
def dense_to_sparse_coo(tensor: Tensor) -> COOTensor:
    """The non-zero entries of a 1-D or 2-D tensor as a COOTensor (int32 indices, row-major)."""
    if not isinstance(tensor, Tensor) or tensor.ndim > 2:
        raise ValueError("dense_to_sparse_coo: expects a Tensor of at most 2 dims")
    idx = _op("cast")(_op("argwhere")(tensor), mstype.int32)
    return COOTensor(idx, _op("gather_nd")(tensor, idx), tuple(tensor.shape))


# ---------------------------------------------------------------- CSR
@expose(ops="csr_tensor_get_indptr")
def csr_tensor_get_indptr(x: CSRTensor) -> Tensor:
    return _csr("csr_tensor_get_indptr", x).indptr


@expose(ops="csr_tensor_get_indices")
def csr_tensor_get_indices(x: CSRTensor) -> Tensor:
    return _csr("csr_tensor_get_indices", x).indices


@expose(ops="csr_tensor_get_values")
def csr_tensor_get_values(x: CSRTensor) -> Tensor:
    return _csr("csr_tensor_get_values", x).values


@expose(ops="csr_tensor_get_dense_shape")
def csr_tensor_get_dense_shape(x: CSRTensor) -> tuple:
    return _csr("csr_tensor_get_dense_shape", x).shape


@expose(ops="make_csr_tensor")
def make_csr_tensor(indptr: Tensor, indices: Tensor, values: Tensor, dense_shape) -> CSRTensor:
    return CSRTensor(indptr, indices, values, tuple(dense_shape))


@expose(ops="csr_to_dense")
def csr_to_dense(csr_tensor: CSRTensor) -> Tensor:
    return _csr("csr_to_dense", csr_tensor).to_dense()


@expose(ops="csr_to_coo")
def csr_to_coo(tensor: CSRTensor) -> COOTensor:
    return _csr("csr_to_coo", tensor).to_coo()


@expose(ops="dense_to_sparse_csr")
def dense_to_sparse_csr(tensor: Tensor) -> CSRTensor:
    """The non-zero entries of a 2-D tensor as a CSRTensor."""
    if not isinstance(tensor, Tensor) or tensor.ndim != 2:
        raise ValueError("dense_to_sparse_csr: expects a 2-D Tensor")
    return dense_to_sparse_coo(tensor).to_csr()


@expose(ops="coo2csr")
def coo2csr(coo_row_indices: Tensor, height: int) -> Tensor:
    """`indptr` (length height + 1) of the sorted COO row indices."""
    rows = coo_row_indices._data
    return Tensor(jnp.searchsorted(rows, jnp.arange(int(height) + 1), side="left").astype(rows.dtype))


@expose(ops="csr2coo")
def csr2coo(indptr: Tensor, nnz: int) -> Tensor:
    """The row of each of the `nnz` stored values."""
    ptr = indptr._data
    return Tensor((jnp.searchsorted(ptr, jnp.arange(int(nnz)), side="right") - 1).astype(ptr.dtype))


def _at(x: CSRTensor, dense: Tensor) -> Tensor:
    """The entries of `dense` (broadcast to x's shape) at x's stored positions."""
    full = _op("broadcast_to")(dense, x.shape)
    idx = _op("stack")((x.rows(), _op("cast")(x.indices, x.indptr.dtype)), -1)
    return _op("gather_nd")(full, idx)


@expose(ops="csr_gather")
def csr_gather(indptr: Tensor, indices: Tensor, dense: Tensor, sparse_shape) -> Tensor:
    """The values of `dense` at the positions (indptr, indices) describe."""
    pattern = CSRTensor(indptr, indices, indices, tuple(sparse_shape))
    return _at(pattern, dense)


@expose(ops="csr_mul")
def csr_mul(x: CSRTensor, y: Tensor) -> CSRTensor:
    """x * y at x's stored positions (y broadcast to x's shape)."""
    x = _csr("csr_mul", x)
    return CSRTensor(x.indptr, x.indices, _op("mul")(x.values, _at(x, y)), x.shape)


@expose(ops="csr_div")
def csr_div(x: CSRTensor, y: Tensor) -> CSRTensor:
    """x / y at x's stored positions (y broadcast to x's shape)."""
    x = _csr("csr_div", x)
    return CSRTensor(x.indptr, x.indices, _op("div")(x.values, _at(x, y)), x.shape)


@expose(ops="csr_add")
def csr_add(a: CSRTensor, b: CSRTensor, alpha: Tensor, beta: Tensor) -> CSRTensor:
    """alpha * a + beta * b, over the union of their positions. Eager: the result's size depends on them."""
    a, b = _csr("csr_add", a), _csr("csr_add", b)
    dense = _op("add")(_op("mul")(a.to_dense(), alpha), _op("mul")(b.to_dense(), beta))
    eager_only("csr_add", dense._data)
    idx = jnp.concatenate([a.to_coo().indices._data, b.to_coo().indices._data.astype(a.indptr._data.dtype)])
    pos = np.unique(np.asarray(idx), axis=0)
    coo = COOTensor(Tensor(jnp.asarray(pos, a.indptr._data.dtype)), Tensor(dense._data[tuple(pos.T)]), a.shape)
    return coo.to_csr()


@expose(ops="csr_mv")
def csr_mv(csr_tensor: CSRTensor, dense: Tensor) -> Tensor:
    """The dense product of a CSR matrix with a dense (n, 1) vector."""
    return _op("matmul")(_csr("csr_mv", csr_tensor).to_dense(), dense)


@expose(ops="csr_mm")
def csr_mm(a: CSRTensor, b, trans_a: bool = False, trans_b: bool = False, adjoint_a: bool = False,
           adjoint_b: bool = False):
    """a @ b: a dense Tensor for a dense `b`; for a CSRTensor `b`, the CSR product (after the transposes /
    adjoints asked)."""
    def dense_of(m, trans, adjoint):
        d = m.to_dense() if isinstance(m, CSRTensor) else m
        if trans or adjoint:
            d = _op("swapaxes")(d, -1, -2)
            d = _op("conj")(d) if adjoint and d.dtype in (mstype.complex64, mstype.complex128) else d
        return d

    out = _op("matmul")(dense_of(_csr("csr_mm", a), trans_a, adjoint_a), dense_of(b, trans_b, adjoint_b))
    return dense_to_sparse_csr(out) if isinstance(b, CSRTensor) else out


@expose(ops="csr_reduce_sum")
def csr_reduce_sum(csr_tensor: CSRTensor, axis: int) -> Tensor:
    """The dense sum over `axis`, keeping it."""
    return _op("reduce_sum")(_csr("csr_reduce_sum", csr_tensor).to_dense(), int(axis), True)


@expose(ops="csr_softmax")
def csr_softmax(logits: CSRTensor, dtype=mstype.float32) -> CSRTensor:
    """The softmax of each row's stored values (the implicit zeros take no part), in `dtype`."""
    x = _csr("csr_softmax", logits)
    rows = x.rows()
    v = _op("cast")(x.values, dtype)
    n = x.shape[0]
    peak = _op("unsorted_segment_max")(v, rows, n)
    e = _op("exp")(_op("sub")(v, _op("gather")(peak, rows, 0)))
    total = _op("unsorted_segment_sum")(e, rows, n)
    return CSRTensor(x.indptr, x.indices, _op("div")(e, _op("gather")(total, rows, 0)), x.shape)


# ---------------------------------------------------------------- RowTensor
@expose(ops="make_row_tensor")
def make_row_tensor(indices: Tensor, values: Tensor, dense_shape) -> RowTensor:
    return RowTensor(indices, values, tuple(dense_shape))


@expose(ops="make_row_tensor_inner")
def make_row_tensor_inner(indices: Tensor, values: Tensor, dense_shape) -> RowTensor:
    return RowTensor(indices, values, tuple(dense_shape))


@expose(ops="row_tensor_get_indices")
def row_tensor_get_indices(x: RowTensor) -> Tensor:
    return x.indices


@expose(ops="row_tensor_get_values")
def row_tensor_get_values(x: RowTensor) -> Tensor:
    return x.values


@expose(ops="row_tensor_get_dense_shape")
def row_tensor_get_dense_shape(x: RowTensor) -> tuple:
    return x.dense_shape


@expose(ops="row_tensor_add")
def row_tensor_add(x: RowTensor, y: Tensor) -> RowTensor:
    """The RowTensor with `y` (broadcast over its rows) added to each stored row."""
    return RowTensor(x.indices, _op("add")(x.values, y), x.dense_shape)
