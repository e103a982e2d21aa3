"""Matrix products, band/diagonal structure and index/combinatoric constructors of MindSpore's `ops` (issue 22).

Products (`dot`, `tensor_dot`, `batch_dot`, `vecdot`, `mv`, `addmv`, `addr` (and mint's in-place `addr_`), `addbmm`,
`baddbmm`) are primitives over `jnp.matmul`/`tensordot`, differentiable; structure ops (`matrix_band_part`, `adjoint`,
`block_diag`, `vander`, `tril_indices`, ...) are shape-level primitives with MindSpore's signatures.
"""
from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np

from ..errors import OpError
from .api import REQUIRED, Api, Attr, expose
from .array_ops import _np_dtype
from .attr_converters import scalar, to_dtype_or_none, to_ints
from .primitive import apply, primitive


def _int(v) -> int:
    return to_ints(v)[0]


def _mT(x):
    return jnp.swapaxes(x, -1, -2)


def _scaled(beta, base, alpha, prod):
    """beta * base + alpha * prod; beta == 0 ignores `base` (NaN in it does not propagate, as in MindSpore)."""
    out = alpha * prod
    return out if beta == 0 else out + beta * base


# ---------------------------------------------------------------- products
@primitive("Dot", category="matmul", api=Api("dot", args=("input", "other"), cls="", tensor="dot", mint="dot"))
def dot(x, y):
    """Contract the last axis of `input` with the second-to-last of `other` (numpy's dot)."""
    return jnp.dot(x, y)


@primitive("TensorDot", attrs=("axes",), category="matmul")
def tensor_dot_(x, y, *, axes):
    return jnp.tensordot(x, y, axes)


def _axes_attr(axes):
    """An int, or a pair of int sequences, as plain nested tuples."""
    if isinstance(axes, (int, np.integer)):
        return int(axes)
    a, b = axes
    return (to_ints(a), to_ints(b))


@expose(ops="tensor_dot", prim="TensorDot")
def tensor_dot(x1, x2, axes):
    """Sum of products over `axes`: an int (the last n of x1 with the first n of x2) or two axis lists."""
    return apply(tensor_dot_, (x1, x2), {"axes": _axes_attr(axes)})


@primitive("BatchDot", attrs=("axes",), category="matmul")
def batch_dot_(x1, x2, *, axes):
    """Per batch row: tensordot over axes (1-based, the batch dim excluded); a vector result becomes (B, 1)."""
    a0, a1 = axes
    out = jax.vmap(lambda u, v: jnp.tensordot(u, v, ((a0 - 1,), (a1 - 1,))))(x1, x2)
    return out[:, None] if out.ndim == 1 else out


@expose(ops="batch_dot", prim="BatchDot")
def batch_dot(x1, x2, axes=None):
    """MindSpore's (deprecated) batch_dot: the dot of x1[b] and x2[b] for each batch index b."""
    n1, n2 = x1.ndim, x2.ndim
    if axes is None:
        axes = (n1 - 1, n2 - 1) if n2 == 2 else (n1 - 1, n2 - 2)
    elif isinstance(axes, (int, np.integer)):
        axes = (int(axes), int(axes))
    a0, a1 = (int(a) for a in axes)
    a0, a1 = a0 + n1 if a0 < 0 else a0, a1 + n2 if a1 < 0 else a1
    if a0 == 0 or a1 == 0:
        raise ValueError(f"batch_dot: axes cannot contain the batch dim 0, got {axes}")
    return apply(batch_dot_, (x1, x2), {"axes": (a0, a1)})


@primitive("Vecdot", attrs=("axis",), category="matmul",
           api=Api("vecdot", args=("x", "y"), attrs=(Attr("axis", -1, _int, kw_only=True),)))
def vecdot(x, y, *, axis=-1):
    """sum(conj(x) * y) along `axis` (broadcasting)."""
    return jnp.sum(jnp.conj(x) * y, axis=axis)


@expose(mint="vdot", prim="Vecdot")
def vdot(input, other):
    """`mint.vdot`: sum(conj(input) * other) of two 1-D tensors of one length (a 0-d result)."""
    if len(input.shape) != 1 or tuple(input.shape) != tuple(other.shape):
        raise ValueError(f"vdot: expected two 1-D tensors of one length, got shapes {tuple(input.shape)} and "
                         f"{tuple(other.shape)}")
    return apply(vecdot, (input, other), {"axis": -1})


@primitive("Mv", category="matmul", api=(Api("mv", args=("mat", "vec"), cls=""), Api(mint="mv", args=("input", "vec"))))
def mv(mat, vec):
    """Matrix-vector product."""
    return jnp.matmul(mat, vec)


def _beta_alpha():
    return (Attr("beta", 1, float, kw_only=True), Attr("alpha", 1, float, kw_only=True))


@primitive("Addmv", attrs=("beta", "alpha"), category="matmul",
           api=Api("addmv", args=("input", "mat", "vec"), attrs=_beta_alpha(), tensor="addmv", mint="addmv"))
def addmv(x, mat, vec, *, beta=1.0, alpha=1.0):
    """beta * input + alpha * (mat @ vec)."""
    return _scaled(beta, x, alpha, jnp.matmul(mat, vec)).astype(jnp.result_type(x, mat))


@primitive("Addr", attrs=("beta", "alpha"), category="matmul",
           api=Api("addr", args=("x", "vec1", "vec2"), attrs=_beta_alpha(), tensor="addr"))
def addr(x, v1, v2, *, beta=1.0, alpha=1.0):
    """beta * x + alpha * outer(vec1, vec2)."""
    return _scaled(beta, x, alpha, jnp.outer(v1, v2)).astype(jnp.result_type(x, v1))


@expose(mint="addr_", prim="Addr")
def addr_(input, vec1, vec2, beta=1, alpha=1):
    """In place: `input = beta * input + alpha * outer(vec1, vec2)` (input's dtype kept); returns input."""
    if vec1.ndim != 1 or vec2.ndim != 1 or tuple(input.shape) != (vec1.shape[0], vec2.shape[0]):
        raise OpError(f"addr_: input must be (len(vec1), len(vec2)) with 1-D vec1, vec2 (it is written in place); "
                      f"got input {tuple(input.shape)}, vec1 {tuple(vec1.shape)}, vec2 {tuple(vec2.shape)}")
    for what, v in (("beta", beta), ("alpha", alpha)):
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
            raise TypeError(f"addr_: {what} must be a number, got {type(v).__name__}")
    out = apply(addr, (input, vec1, vec2), {"beta": float(beta), "alpha": float(alpha)})
    return input._rebind(out.astype(input.dtype) if out.dtype != input.dtype else out)


@primitive("Addbmm", attrs=("beta", "alpha"), category="matmul",
           api=Api("addbmm", args=("input", "batch1", "batch2"), attrs=_beta_alpha(), tensor="addbmm",
                   mint="addbmm"))
def addbmm(x, b1, b2, *, beta=1.0, alpha=1.0):
    """beta * input + alpha * sum_b(batch1[b] @ batch2[b])."""
    return _scaled(beta, x, alpha, jnp.sum(jnp.matmul(b1, b2), axis=0)).astype(jnp.result_type(x, b1))


@primitive("Baddbmm", attrs=("beta", "alpha"), category="matmul",
           api=(Api("baddbmm", args=("input", "batch1", "batch2"), attrs=(Attr("beta", 1, float),
                                                                       Attr("alpha", 1, float)), tensor="baddbmm"),
                Api("baddbmm_ext", mint="baddbmm", args=("input", "batch1", "batch2"), attrs=_beta_alpha())))
def baddbmm(x, b1, b2, *, beta=1.0, alpha=1.0):
    """beta * input + alpha * (batch1 @ batch2), batched."""
    return _scaled(beta, x, alpha, jnp.matmul(b1, b2)).astype(jnp.result_type(x, b1))


# ---------------------------------------------------------------- structure
@primitive("MatrixBandPart", attrs=("lower", "upper"), category="shape",
           api=Api("matrix_band_part", args=("x",), attrs=(Attr("lower", REQUIRED, _int), Attr("upper", REQUIRED, _int))))
def matrix_band_part(x, *, lower, upper):
    """Zero everything outside the band of `lower` sub- and `upper` super-diagonals (negative: keep all)."""
    m, n = x.shape[-2:]
    i, j = jnp.arange(m)[:, None], jnp.arange(n)[None, :]
    keep = ((lower < 0) | (i - j <= lower)) & ((upper < 0) | (j - i <= upper))
    return jnp.where(keep, x, jnp.zeros((), x.dtype))


@expose(cls="MatrixBandPart")
def _matrix_band_part_cls(x, lower, upper):
    """`ops.MatrixBandPart()(x, lower, upper)`."""
    return apply(matrix_band_part, (x,), {"lower": _int(lower), "upper": _int(upper)})


@primitive("Adjoint", category="shape", api=Api("adjoint", args=("x",), tensor="adjoint"))
def adjoint(x):
    """The conjugate transpose of the last two dims."""
    return jnp.conj(_mT(x))


@primitive("ConjugateTranspose", attrs=("perm",), category="shape")
def conjugate_transpose(x, *, perm):
    return jnp.conj(jnp.transpose(x, perm))


@expose(cls="ConjugateTranspose", prim="ConjugateTranspose")
def _conjugate_transpose_cls(x, perm):
    """`ops.ConjugateTranspose()(x, perm)`: conj(transpose(x, perm))."""
    return apply(conjugate_transpose, (x,), {"perm": to_ints(perm)})


@primitive("BlockDiag", category="shape")
def block_diag_(*xs):
    return jax.scipy.linalg.block_diag(*xs)


@expose(ops="block_diag", prim="BlockDiag")
def block_diag(*inputs):
    """A block-diagonal matrix of the inputs (0-d and 1-d inputs count as 1 x n rows)."""
    return apply(block_diag_, inputs)


@primitive("CartesianProd", category="shape")
def cartesian_prod_(*xs):
    grids = jnp.meshgrid(*xs, indexing="ij")
    out = jnp.stack([g.reshape(-1) for g in grids], axis=1)
    return out[:, 0] if len(xs) == 1 else out


@expose(ops="cartesian_prod", prim="CartesianProd")
def cartesian_prod(*inputs):
    """Every combination of one element from each 1-D input, as rows."""
    return apply(cartesian_prod_, inputs)


@primitive("Combinations", attrs=("r", "with_replacement"), category="shape")
def combinations_(x, *, r=2, with_replacement=False):
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = np.array(list(pick(range(x.shape[0]), r)), np.int32).reshape(-1, r)
    return x[idx] if idx.size else jnp.zeros((0, r) if r > 1 else (0,), x.dtype)


@expose(ops="combinations", prim="Combinations")
def combinations(input, r=2, with_replacement=False):
    """The length-r combinations of a 1-D tensor's elements, as rows (itertools' order)."""
    return apply(combinations_, (input,), {"r": _int(r), "with_replacement": bool(with_replacement)})


@primitive("Vander", attrs=("N",), category="elementwise")
def vander_(x, *, N=None):  # noqa: N803
    return jnp.vander(x, N)


@expose(ops="vander", prim="Vander")
def vander(x, N=None):  # noqa: N803  (MindSpore's argument name)
    """The Vandermonde matrix: columns x^(N-1), ..., x^0."""
    return apply(vander_, (x,), {"N": None if N is None else _int(N)})


def _tri_indices(upper: bool):
    def impl(*, row, col, offset=0, dtype=None):
        fn = np.triu_indices if upper else np.tril_indices
        return jnp.asarray(np.stack(fn(row, offset, col)), _np_dtype(dtype, np.int64))

    impl.__doc__ = f"The (2, N) row/column indices of the {'upper' if upper else 'lower'} triangle of a row x col matrix."
    return impl


TRIL_INDICES = primitive("TrilIndices", attrs=("row", "col", "offset", "dtype"), category="other",
                         differentiable=False)(_tri_indices(False))
TRIU_INDICES = primitive("TriuIndices", attrs=("row", "col", "offset", "dtype"), category="other",
                         differentiable=False)(_tri_indices(True))


def _indices_call(prim, row, col, offset, dtype):
    return apply(prim, (), {"row": _int(row), "col": _int(col), "offset": _int(offset),
                            "dtype": to_dtype_or_none(dtype)})


@expose(ops="tril_indices", prim="TrilIndices")
def tril_indices(row, col, offset=0, *, dtype=None):
    """Indices of the lower triangle (below diagonal `offset`), int64 by default."""
    return _indices_call(TRIL_INDICES, row, col, offset, dtype)


@expose(ops="triu_indices", prim="TriuIndices")
def triu_indices(row, col, offset=0, *, dtype=None):
    """Indices of the upper triangle (above diagonal `offset`), int64 by default."""
    return _indices_call(TRIU_INDICES, row, col, offset, dtype)


# the class forms `ops.TrilIndices(row, col, offset=0, dtype=ms.int32)()` default to int32
@expose(cls="TrilIndices", init=("row", "col", "offset", "dtype"))
def _tril_indices_cls(row, col, offset=0, dtype="int32"):
    return _indices_call(TRIL_INDICES, row, col, offset, dtype)


@expose(cls="TriuIndices", init=("row", "col", "offset", "dtype"))
def _triu_indices_cls(row, col, offset=0, dtype="int32"):
    return _indices_call(TRIU_INDICES, row, col, offset, dtype)


# ---------------------------------------------------------------- diagonals (TF/MindSpore MatrixDiag*V3 conventions)
def _k_range(k) -> tuple[int, int]:
    ks = to_ints(k)
    if len(ks) not in (1, 2) or ks[0] > ks[-1]:
        raise ValueError(f"k must be one int or a (low, high) pair with low <= high, got {ks}")
    return ks[0], ks[-1]


def _diag_index(m: int, n: int, k0: int, k1: int, align: str):
    """For each stored diagonal element: (row, col) in the matrix and (diag, slot) in the packed diagonals."""
    max_len = min(m + min(k1, 0), n - max(k0, 0))
    first, second = align.split("_")
    rows, cols, diags, slots = [], [], [], []
    for d in range(k1, k0 - 1, -1):
        length = min(m + min(d, 0), n - max(d, 0))
        right = (first if d >= 0 else second) == "RIGHT"
        offset = max_len - length if right else 0
        for j in range(max(length, 0)):
            rows.append(j - min(d, 0))
            cols.append(j + max(d, 0))
            diags.append(k1 - d)
            slots.append(offset + j)
    return max_len, (np.array(rows, np.int32), np.array(cols, np.int32), np.array(diags, np.int32),
                     np.array(slots, np.int32))


def _padding(value, like):
    """`padding_value` (a number or a 0-d Tensor) as a 0-d array of `like`'s dtype."""
    return np.asarray(scalar(value), like.dtype.np_dtype)


_ALIGNS = ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT")


def _align(align: str) -> str:
    if align not in _ALIGNS:
        raise ValueError(f"align must be one of {_ALIGNS}, got {align!r}")
    return align


@primitive("MatrixDiagV3", attrs=("k", "num_rows", "num_cols", "align"), category="shape")
def matrix_diag_(x, padding, *, k, num_rows, num_cols, align):
    """A batch of matrices whose diagonals k[0]..k[1] are x (padding elsewhere)."""
    k0, k1 = k
    single = k0 == k1
    d = x[..., None, :] if single else x
    max_len = d.shape[-1]
    m_min, n_min = max_len - min(k1, 0), max_len + max(k0, 0)
    if num_rows <= 0 and num_cols <= 0:  # both inferred: a square matrix
        m = n = max(m_min, n_min)
    else:
        m, n = (num_rows if num_rows > 0 else m_min), (num_cols if num_cols > 0 else n_min)
    _, (r, c, di, sl) = _diag_index(m, n, k0, k1, align)
    out = jnp.full(d.shape[:-2] + (m, n), padding, x.dtype)
    return out.at[..., r, c].set(d[..., di, sl])


@primitive("MatrixDiagPartV3", attrs=("k", "align"), category="shape")
def matrix_diag_part_(x, padding, *, k, align):
    """The diagonals k[0]..k[1] of x, packed and aligned (padding fills short diagonals)."""
    k0, k1 = k
    m, n = x.shape[-2:]
    max_len, (r, c, di, sl) = _diag_index(m, n, k0, k1, align)
    out = jnp.full(x.shape[:-2] + (k1 - k0 + 1, max_len), padding, x.dtype)
    out = out.at[..., di, sl].set(x[..., r, c])
    return out[..., 0, :] if k0 == k1 else out


@primitive("MatrixSetDiagV3", attrs=("k", "align"), category="shape")
def matrix_set_diag_(x, diagonal, *, k, align):
    """x with its diagonals k[0]..k[1] replaced by `diagonal`."""
    k0, k1 = k
    m, n = x.shape[-2:]
    _, (r, c, di, sl) = _diag_index(m, n, k0, k1, align)
    d = diagonal[..., None, :] if k0 == k1 else diagonal
    return x.at[..., r, c].set(jnp.broadcast_to(d, x.shape[:-2] + d.shape[-2:])[..., di, sl])


@expose(ops="matrix_diag")
def matrix_diag(x, k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT"):
    return apply(matrix_diag_, (x, _padding(padding_value, x)),
                 {"k": _k_range(k), "num_rows": _int(num_rows), "num_cols": _int(num_cols), "align": _align(align)})


@expose(ops="matrix_diag_part")
def matrix_diag_part(x, k, padding_value, align="RIGHT_LEFT"):
    return apply(matrix_diag_part_, (x, _padding(padding_value, x)), {"k": _k_range(k), "align": _align(align)})


@expose(ops="matrix_set_diag")
def matrix_set_diag(x, diagonal, k=0, align="RIGHT_LEFT"):
    return apply(matrix_set_diag_, (x, diagonal), {"k": _k_range(k), "align": _align(align)})


@expose(cls="MatrixDiagV3", init=("align",), prim="MatrixDiagV3")
def _matrix_diag_v3(x, k, num_rows, num_cols, padding_value, align="RIGHT_LEFT"):
    """`ops.MatrixDiagV3(align)(x, k, num_rows, num_cols, padding_value)` (Tensor arguments)."""
    return matrix_diag(x, k, num_rows, num_cols, padding_value, align)


@expose(cls="MatrixDiagPartV3", init=("align",), prim="MatrixDiagPartV3")
def _matrix_diag_part_v3(x, k, padding_value, align="RIGHT_LEFT"):
    return matrix_diag_part(x, k, padding_value, align)


@expose(cls="MatrixSetDiagV3", init=("align",), prim="MatrixSetDiagV3")
def _matrix_set_diag_v3(x, diagonal, k, align="RIGHT_LEFT"):
    return matrix_set_diag(x, diagonal, k, align)


def _tridiagonal_check(superdiag, maindiag, subdiag, rhs) -> str | None:
    kinds = ("float16", "float32", "float64", "complex64", "complex128")
    for name, a in (("superdiag", superdiag), ("maindiag", maindiag), ("subdiag", subdiag), ("rhs", rhs)):
        if np.dtype(a.dtype).name not in kinds:
            return f"{name} dtype must be one of {', '.join(kinds)}, got {np.dtype(a.dtype).name}"
    if not superdiag.dtype == maindiag.dtype == subdiag.dtype == rhs.dtype:
        return "the inputs must share one dtype"
    if rhs.ndim < 2 or not tuple(superdiag.shape) == tuple(maindiag.shape) == tuple(subdiag.shape):
        return "superdiag, maindiag and subdiag must have one shape (..., 1, M) and rhs (..., M, N)"
    m = rhs.shape[-2]
    if superdiag.ndim != rhs.ndim or tuple(superdiag.shape[-2:]) != (1, m) or \
            tuple(superdiag.shape[:-2]) != tuple(rhs.shape[:-2]):
        return f"the diagonals must have shape {tuple(rhs.shape[:-2]) + (1, m)} for rhs {tuple(rhs.shape)}"
    return None


@primitive("TridiagonalMatMul", check=_tridiagonal_check,
           api=Api(args=("superdiag", "maindiag", "subdiag", "rhs"), cls="TridiagonalMatMul"))
def tridiagonal_matmul(superdiag, maindiag, subdiag, rhs):
    """The tridiagonal matrix (superdiag[i] at (i, i+1), maindiag[i] at (i, i), subdiag[i] at (i, i-1); the last
    superdiagonal and first subdiagonal entries unused) times `rhs`."""
    reason = _tridiagonal_check(superdiag, maindiag, subdiag, rhs)
    if reason is not None:
        raise (TypeError if "dtype" in reason else ValueError)(reason)
    sup = jnp.swapaxes(superdiag, -1, -2)  # (..., M, 1)
    main = jnp.swapaxes(maindiag, -1, -2)
    sub = jnp.swapaxes(subdiag, -1, -2)
    zero = jnp.zeros_like(rhs[..., :1, :])
    above = jnp.concatenate([rhs[..., 1:, :], zero], axis=-2)  # row i+1
    below = jnp.concatenate([zero, rhs[..., :-1, :]], axis=-2)  # row i-1
    m = rhs.shape[-2]
    rows = jnp.arange(m).reshape(m, 1)
    sup = jnp.where(rows < m - 1, sup, 0)
    sub = jnp.where(rows > 0, sub, 0)
    return main * rhs + sup * above + sub * below
