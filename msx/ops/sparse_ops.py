"""MindSpore's sparse functions over `COOTensor` / `CSRTensor` (`msx.sparse_tensor`): `coo_*`, `csr_*`, the
converters (`dense_to_sparse_coo`, `coo2csr`, `csr_to_dense`, ...) and the constructor/getter functions
(`make_coo_tensor`, `csr_tensor_get_indptr`, `row_tensor_add`, ...).

An elementwise `coo_<op>` / `csr_<op>` applies the dense op to the stored values and keeps the positions, as
MindSpore does (so `coo_cos` of an implicit zero stays implicit). The products and reductions compute on the
dense form with the declared ops, so they differentiate and run under jit; the conversions from dense whose
result size depends on the values run eagerly (jit refuses them by name, as for `nonzero`).

The class ops over a sparse tensor given as its parts (`indices`, `values`, shape): `ops.SparseToDense`
(a duplicated position keeps its last value), `ops.SparseTensorDenseAdd` and `ops.SparseTensorDenseMatmul`
(duplicates add up), as MindSpore 2.10's CPU kernels do; an index outside the shape is refused by name where
its values are known (eagerly, or a capture's constant; inside a compiled graph it is dropped).
`ops.SparseSlice` runs eagerly (its result size depends on the values).
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from .. import dtype as mstype
from ..errors import OpError, OpIndexError, OpTypeError
from ..sparse_tensor import COOTensor, CSRTensor, RowTensor
from ..sparse_tensor import coo_add as _coo_add
from ..tensor import Tensor
from . import bounds
from .api import SURFACE, expose
from .apply_prim import apply, describe, known_value
from .index_ops import eager_only
from .primitive import primitive

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


# ---------------------------------------------------------------- class ops over (indices, values, shape)
_INDEX_DTYPES = ("int32", "int64")
_MM_DTYPES = ("float16", "float32", "float64", "int32", "int64", "complex64", "complex128")


def _np_dtype(t) -> np.dtype:
    return np.dtype(t._data.dtype)


def _got(names, args) -> str:
    return ", ".join(f"{n}={describe(a)}" for n, a in zip(names, args))


def _shape_arg(op: str, name: str, shape, got: str) -> tuple | None:
    """A static shape from a tuple/list of ints, or from a Tensor whose values are known now (None if not)."""
    if isinstance(shape, Tensor):
        if _np_dtype(shape) not in (np.dtype("int32"), np.dtype("int64")) or shape.ndim != 1:
            raise OpTypeError(f"{op}: {name} must be a 1-D int32/int64 Tensor, got {describe(shape)}; got ({got})")
        values = bounds.concrete(known_value(shape))
        return None if values is None else tuple(int(v) for v in values)
    if not isinstance(shape, (tuple, list)) or not all(isinstance(d, (int, np.integer)) and not isinstance(d, bool)
                                                         for d in shape):
        raise OpTypeError(f"{op}: {name} must be a tuple of ints, got {shape!r}; got ({got})")
    if any(d <= 0 for d in shape):
        raise OpError(f"{op}: {name} must hold positive sizes, got {tuple(shape)}; got ({got})")
    return tuple(int(d) for d in shape)


def _check_parts(op: str, names, args, shape: tuple | None, got: str, value_dtypes=None) -> None:
    indices, values = args[0], args[1]
    for name, a in zip(names[:2], (indices, values)):
        if not isinstance(a, Tensor):
            raise OpTypeError(f"{op}: {name} must be a Tensor, got {type(a).__name__}; got ({got})")
    if _np_dtype(indices).name not in _INDEX_DTYPES:
        raise OpTypeError(f"{op}: {names[0]} must be int32 or int64, got {_np_dtype(indices).name}; got ({got})")
    if value_dtypes is not None and _np_dtype(values).name not in value_dtypes:
        raise OpTypeError(f"{op}: {names[1]} must be one of {', '.join(value_dtypes)}, got {_np_dtype(values).name}; "
                          f"got ({got})")
    if indices.ndim != 2 or values.ndim != 1 or indices.shape[0] != values.shape[0]:
        raise OpError(f"{op}: {names[0]} must be 2-D (n, ndim) and {names[1]} 1-D (n,), got {names[0]} "
                      f"{tuple(indices.shape)} and {names[1]} {tuple(values.shape)}; got ({got})")
    if shape is not None and indices.shape[1] != len(shape):
        raise OpError(f"{op}: {names[0]} has {indices.shape[1]} columns but the shape {shape} has {len(shape)} "
                      f"dims; got ({got})")
    known = bounds.concrete(known_value(indices))
    if known is not None and shape is not None and known.size:
        bad = (known < 0) | (known >= np.asarray(shape))
        if bad.any():
            row, dim = (int(i) for i in np.argwhere(bad)[0])
            raise OpIndexError(f"{op}: {names[0]}[{row}] = {known[row].tolist()} is out of bounds of the shape "
                               f"{shape} (dim {dim}); got ({got})")


def _linear(indices, shape):
    """Row-major positions of `indices` in `shape`; an index outside it becomes `size` (dropped by mode="drop")."""
    idx = indices.astype(jnp.int64 if indices.dtype == jnp.int64 else jnp.int32)
    dims = jnp.asarray(shape, idx.dtype)
    ok = jnp.all((idx >= 0) & (idx < dims), axis=1)
    strides = np.cumprod((1,) + tuple(shape[:0:-1]))[::-1].astype(np.int64)
    lin = jnp.sum(idx * jnp.asarray(strides, idx.dtype), axis=1)
    return jnp.where(ok, lin, int(np.prod(shape)))


@primitive("SparseToDense", attrs=("sparse_shape",))
def sparse_to_dense_(indices, values, *, sparse_shape):
    """The dense tensor of `sparse_shape` holding `values` at `indices`; a duplicated position keeps the last value
    (MindSpore's CPU kernel writes them in order)."""
    size = int(np.prod(sparse_shape))
    lin = _linear(indices, sparse_shape)
    order = jnp.arange(lin.shape[0], dtype=jnp.int32)
    last = jnp.full((size,), -1, jnp.int32).at[lin].max(order, mode="drop")
    keep = jnp.where(last.at[lin].get(mode="fill", fill_value=-1) == order, lin, size)
    return jnp.zeros((size,), values.dtype).at[keep].set(values, mode="drop").reshape(sparse_shape)


@expose(cls="SparseToDense", prim="SparseToDense")
def sparse_to_dense(indices, values, sparse_shape):
    op = "SparseToDense"
    got = _got(("indices", "values", "sparse_shape"), (indices, values, sparse_shape))
    shape = _shape_arg(op, "sparse_shape", sparse_shape, got)
    if shape is None:
        raise OpError(f"{op}: sparse_shape must be known when the op is built (a tuple, or a constant Tensor); "
                      f"got ({got})")
    _check_parts(op, ("indices", "values"), (indices, values), shape, got)
    return apply(sparse_to_dense_, (indices, values), {"sparse_shape": shape})


@primitive("SparseTensorDenseAdd")
def sparse_tensor_dense_add_(x1_indices, x1_values, x2):
    """`x2` plus the sparse tensor (duplicated positions add up)."""
    lin = _linear(x1_indices, x2.shape)
    return x2.reshape(-1).at[lin].add(x1_values.astype(x2.dtype), mode="drop").reshape(x2.shape)


@expose(cls="SparseTensorDenseAdd", prim="SparseTensorDenseAdd")
def sparse_tensor_dense_add(x1_indices, x1_values, x1_shape, x2):
    op = "SparseTensorDenseAdd"
    names = ("x1_indices", "x1_values", "x1_shape", "x2")
    got = _got(names, (x1_indices, x1_values, x1_shape, x2))
    if not isinstance(x1_shape, Tensor):
        raise OpTypeError(f"{op}: x1_shape must be a 1-D int32/int64 Tensor (as MindSpore requires), got "
                          f"{type(x1_shape).__name__}; got ({got})")
    if not isinstance(x2, Tensor):
        raise OpTypeError(f"{op}: x2 must be a Tensor, got {type(x2).__name__}; got ({got})")
    shape = _shape_arg(op, "x1_shape", x1_shape, got)
    if x1_shape.shape[0] != x2.ndim or (shape is not None and shape != tuple(x2.shape)):
        raise OpError(f"{op}: x1_shape {shape if shape is not None else tuple(x1_shape.shape)} must be x2's shape "
                      f"{tuple(x2.shape)}; got ({got})")
    if isinstance(x1_values, Tensor) and x1_values.dtype != x2.dtype:
        raise OpTypeError(f"{op}: x1_values and x2 must have one dtype, got {_np_dtype(x1_values).name} and "
                          f"{_np_dtype(x2).name}; got ({got})")
    _check_parts(op, names, (x1_indices, x1_values), tuple(x2.shape), got)
    return apply(sparse_tensor_dense_add_, (x1_indices, x1_values, x2))


@primitive("SparseTensorDenseMatmul", attrs=("sparse_shape", "adjoint_st", "adjoint_dt"))
def sparse_tensor_dense_matmul_(indices, values, dense, *, sparse_shape, adjoint_st=False, adjoint_dt=False):
    """op(A) @ op(B) for the sparse A of `sparse_shape` (duplicated positions add up); op is the conjugate
    transpose where `adjoint_st` / `adjoint_dt`."""
    rows, cols = indices[:, 0], indices[:, 1]
    n, c = sparse_shape
    ok = (rows >= 0) & (rows < n) & (cols >= 0) & (cols < c)
    if adjoint_st:
        rows, cols, n, c = cols, rows, c, n
        values = jnp.conj(values)
    b = jnp.conj(dense.T) if adjoint_dt else dense
    contrib = values[:, None] * b.at[jnp.clip(cols, 0, c - 1)].get()
    rows = jnp.where(ok, rows, n)
    return jnp.zeros((n, b.shape[1]), b.dtype).at[rows].add(contrib.astype(b.dtype), mode="drop")


@expose(cls="SparseTensorDenseMatmul", init=("adjoint_st", "adjoint_dt"), prim="SparseTensorDenseMatmul")
def sparse_tensor_dense_matmul(indices, values, sparse_shape, dense, *, adjoint_st=False, adjoint_dt=False):
    op = "SparseTensorDenseMatmul"
    names = ("indices", "values", "sparse_shape", "dense")
    got = _got(names, (indices, values, sparse_shape, dense))
    for name, flag in (("adjoint_st", adjoint_st), ("adjoint_dt", adjoint_dt)):
        if not isinstance(flag, (bool, np.bool_)):
            raise OpTypeError(f"{op}: {name} must be a bool, got {flag!r}")
    shape = _shape_arg(op, "sparse_shape", sparse_shape, got)
    if shape is None:
        raise OpError(f"{op}: sparse_shape must be known when the op is built (a tuple, or a constant Tensor); "
                      f"got ({got})")
    if len(shape) != 2:
        raise OpError(f"{op}: sparse_shape must have 2 elements, got {shape}; got ({got})")
    _check_parts(op, names, (indices, values), shape, got, value_dtypes=_MM_DTYPES)
    if not isinstance(dense, Tensor) or dense.ndim != 2 or dense.dtype != values.dtype:
        raise OpTypeError(f"{op}: dense must be a 2-D Tensor of values' dtype {_np_dtype(values).name}, got "
                          f"{describe(dense)}; got ({got})")
    inner = shape[0] if adjoint_st else shape[1]
    if (dense.shape[1] if adjoint_dt else dense.shape[0]) != inner:
        raise OpError(f"{op}: the contracted dims differ: op(sparse) is {shape[::-1] if adjoint_st else shape}, "
                      f"op(dense) is {tuple(dense.shape)[::-1] if adjoint_dt else tuple(dense.shape)}; got ({got})")
    return apply(sparse_tensor_dense_matmul_, (indices, values, dense),
                 {"sparse_shape": shape, "adjoint_st": bool(adjoint_st), "adjoint_dt": bool(adjoint_dt)})


@expose(cls="SparseSlice", name="SparseSlice")
def sparse_slice(indices, values, shape, start, size) -> tuple:
    """The entries of the sparse tensor inside [start, start + size) (clipped to `shape`), in their order, with
    indices relative to `start`: (y_indices, y_values, y_shape). Eager: the result size depends on the values."""
    op = "SparseSlice"
    names = ("indices", "values", "shape", "start", "size")
    args = (indices, values, shape, start, size)
    got = _got(names, args)
    for name, a in zip(names, args):
        if not isinstance(a, Tensor):
            raise OpTypeError(f"{op}: {name} must be a Tensor, got {type(a).__name__}; got ({got})")
    for name, a in zip(names[2:], args[2:]):
        if _np_dtype(a) != np.dtype("int64") or a.ndim != 1:
            raise OpTypeError(f"{op}: {name} must be a 1-D int64 Tensor, got {describe(a)}; got ({got})")
    if _np_dtype(indices) != np.dtype("int64") or indices.ndim != 2:
        raise OpTypeError(f"{op}: indices must be a 2-D int64 Tensor, got {describe(indices)}; got ({got})")
    if values.ndim != 1 or values.shape[0] != indices.shape[0]:
        raise OpError(f"{op}: values must be 1-D with one entry per row of indices, got {describe(values)}; "
                      f"got ({got})")
    rank = indices.shape[1]
    if not shape.shape[0] == start.shape[0] == size.shape[0] == rank:
        raise OpError(f"{op}: shape, start and size must each have indices.shape[1] = {rank} entries; got ({got})")
    eager_only(op, indices._data, values._data, shape._data, start._data, size._data)
    ind, sh, st, sz = (np.asarray(a._data) for a in (indices, shape, start, size))
    end = np.minimum(st + sz, sh)
    keep = np.all((ind >= st) & (ind < end), axis=1)
    y_shape = np.maximum(end - st, 0)
    pos = np.nonzero(keep)[0]
    return (Tensor(jnp.asarray((ind[pos] - st).reshape(-1, rank), dtype=jnp.int64)),
            Tensor(values._data[jnp.asarray(pos, dtype=jnp.int32)]), Tensor(jnp.asarray(y_shape, dtype=jnp.int64)))
