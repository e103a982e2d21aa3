"""Linear algebra MindSpore exports in `ops` (issue 22 breadth): factorizations, solves, determinants, matrix functions.

Every op is a primitive over `jax.numpy.linalg` / `jax.scipy.linalg` / `jax.lax.linalg`, so it is differentiable
where jax is and runs in every capture mode. Output conventions follow MindSpore 2.10 (checked by the oracle
goldens): `svd` returns (s, u, v) with v not transposed, `slogdet` (sign, logabsdet), `lu_unpack` (P, L, U).
"""
from __future__ import annotations

import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np
from jax import lax

from .api import REQUIRED, SURFACE, Api, Attr, expose
from .attr_converters import scalar, to_ints
from .primitive import apply, primitive


def _int(v) -> int:
    return to_ints(v)[0]


def _mT(x):
    return jnp.swapaxes(x, -1, -2)


def _adj(x):
    return jnp.conj(_mT(x))


def _float(x):
    """Integer inputs of a float-valued linalg op compute in float32 (MindSpore's result dtype)."""
    return x if x.dtype.kind in "fc" else x.astype(np.float32)


# ---------------------------------------------------------------- Cholesky family
@primitive("Cholesky", attrs=("upper",), category="matmul",
           api=(Api("cholesky", args=("input_x",), attrs=(Attr("upper", False, bool),), cls="Cholesky",
                    init=("upper",), tensor="cholesky"),))
def cholesky(x, *, upper=False):
    """The Cholesky factor of a symmetric positive-definite matrix (lower, or upper with `upper`)."""
    low = jnp.linalg.cholesky(x)
    return _adj(low) if upper else low


@primitive("CholeskyInverse", attrs=("upper",), category="matmul",
           api=(Api("cholesky_inverse", args=("input_x",), attrs=(Attr("upper", False, bool),),
                    cls="CholeskyInverse", init=("upper",), tensor="cholesky_inverse"),))
def cholesky_inverse(u, *, upper=False):
    """inv(A) from A's Cholesky factor `u` (A = u u^H, or u^H u with `upper`)."""
    a = _adj(u) @ u if upper else u @ _adj(u)
    eye = jnp.broadcast_to(jnp.eye(a.shape[-1], dtype=a.dtype), a.shape)
    return jsl.cho_solve((u, not upper), eye)


@primitive("CholeskySolve", attrs=("upper",), category="matmul",
           api=(Api("cholesky_solve", args=("input", "input2"), attrs=(Attr("upper", False, bool),),
                    cls="CholeskySolve", init=("upper",), tensor="cholesky_solve"),))
def cholesky_solve(b, u, *, upper=False):
    """X with A X = b, A given by its Cholesky factor `input2`."""
    return jsl.cho_solve((u, not upper), b)


# ---------------------------------------------------------------- QR, SVD, eigen
@primitive("Qr", attrs=("full_matrices",), category="matmul", multiple_results=True,
           api=(Api(args=("x",), attrs=(Attr("full_matrices", False, bool),), cls="Qr", init=("full_matrices",)),))
def qr_(x, *, full_matrices=False):
    """(Q, R) of x; `full_matrices` gives the complete Q."""
    return tuple(jnp.linalg.qr(x, mode="complete" if full_matrices else "reduced"))


@expose(ops="qr", tensor="qr")
def qr(input, mode="reduced"):
    """`ops.qr(input, mode='reduced' | 'complete')` -> (Q, R)."""
    if mode not in ("reduced", "complete"):
        raise ValueError(f"qr: mode must be 'reduced' or 'complete', got {mode!r}")
    return apply(qr_, (input,), {"full_matrices": mode == "complete"})


@primitive("Svd", attrs=("full_matrices", "compute_uv"), category="matmul", multiple_results=True)
def svd_(x, *, full_matrices=False, compute_uv=True):
    """(s, u, v) with x = u diag(s) v^H (MindSpore's order; v is not transposed); only (s,) without `compute_uv`."""
    if not compute_uv:
        return (jnp.linalg.svd(x, compute_uv=False),)
    u, s, vh = jnp.linalg.svd(x, full_matrices=full_matrices)
    return s, u, _adj(vh)


@expose(ops="svd", tensor="svd", prim="Svd")
def svd(input, full_matrices=False, compute_uv=True):
    """(s, u, v) with input = u diag(s) v^H; s alone without `compute_uv`."""
    out = apply(svd_, (input,), {"full_matrices": bool(full_matrices), "compute_uv": bool(compute_uv)})
    return out if compute_uv else out[0]


@expose(cls="Svd", init=("full_matrices", "compute_uv"))
def _svd_cls(input, full_matrices=False, compute_uv=True):
    """`ops.Svd(full_matrices, compute_uv)(x)`: always three outputs; without `compute_uv`, u and v are
    one-element zero tensors (MindSpore's placeholders)."""
    out = apply(svd_, (input,), {"full_matrices": bool(full_matrices), "compute_uv": bool(compute_uv)})
    if compute_uv:
        return out
    zero = SURFACE["ops"]["zeros"]((1,), out[0].dtype)
    return out[0], zero, zero


@primitive("Eig", attrs=("compute_v",), category="matmul", multiple_results=True, differentiable=False,
           api=(Api(args=("x",), attrs=(Attr("compute_v", False, bool),), cls="Eig", init=("compute_v",)),))
def eig_(x, *, compute_v=False):
    """(eigenvalues, eigenvectors) of a general square matrix (complex); (eigenvalues,) without `compute_v`."""
    w, v = jnp.linalg.eig(x)
    return (w, v) if compute_v else (w,)


@expose(ops="eig")
def eig(A):  # noqa: N803  (MindSpore's argument name)
    """(eigenvalues, eigenvectors) of a square matrix, complex (computed on the host CPU by XLA)."""
    return apply(eig_, (A,), {"compute_v": True})


@expose(ops="eigvals", tensor="eigvals")
def eigvals(A):  # noqa: N803
    return apply(eig_, (A,), {"compute_v": False})[0]


# ---------------------------------------------------------------- determinants
@primitive("MatrixDeterminant", category="matmul",
           api=(Api("matrix_determinant", cls="MatrixDeterminant", tensor="matrix_determinant"),))
def matrix_determinant(x):
    return jnp.linalg.det(x)


@primitive("LogMatrixDeterminant", category="matmul", multiple_results=True,
           api=(Api("log_matrix_determinant slogdet", cls="LogMatrixDeterminant",
                    tensor="slogdet log_matrix_determinant"),))
def log_matrix_determinant(x):
    """(sign, log|det|) of square matrices."""
    sign, logabs = jnp.linalg.slogdet(x)
    return sign, logabs


@primitive("LogDet", category="matmul", api=(Api("logdet", tensor="logdet"),))
def logdet(x):
    """log(det(x)); NaN where the determinant is negative."""
    sign, logabs = jnp.linalg.slogdet(x)
    return jnp.where(sign < 0, jnp.nan, logabs + jnp.log(jnp.abs(sign)))


# ---------------------------------------------------------------- matrix functions and solves
@primitive("MatrixExp", category="matmul", api=(Api("matrix_exp", cls="MatrixExp"),))
def matrix_exp(x):
    """The matrix exponential (batched)."""
    return jsl.expm(x)


@primitive("MatrixPower", attrs=("n",), category="matmul",
           api=(Api("matrix_power", attrs=(Attr("n", REQUIRED, _int),), cls="MatrixPower", init=("n",),
                    tensor="matrix_power"),))
def matrix_power(x, *, n):
    """x multiplied by itself n times (n < 0: of its inverse; n = 0: the identity)."""
    return jnp.linalg.matrix_power(x, n)


@primitive("MatrixSolve", attrs=("adjoint",), category="matmul",
           api=(Api("matrix_solve", args=("matrix", "rhs"), attrs=(Attr("adjoint", False, bool),),
                    cls="MatrixSolve", init=("adjoint",)),))
def matrix_solve(a, b, *, adjoint=False):
    """X with A X = rhs (A^H X = rhs with `adjoint`)."""
    return jnp.linalg.solve(_adj(a) if adjoint else a, b)


@primitive("MatrixInverseAdjoint", attrs=("adjoint",), category="matmul",
           api=(Api(args=("x",), attrs=(Attr("adjoint", False, bool),), cls="MatrixInverse", init=("adjoint",)),))
def matrix_inverse(x, *, adjoint=False):
    """inv(x), or inv(x^H) with `adjoint`."""
    inv = jnp.linalg.inv(x)
    return _adj(inv) if adjoint else inv


@primitive("MatrixTriangularSolve", attrs=("lower", "adjoint"), category="matmul",
           api=(Api(args=("matrix", "rhs"), attrs=(Attr("lower", True, bool), Attr("adjoint", False, bool)),
                    cls="MatrixTriangularSolve", init=("lower", "adjoint")),))
def matrix_triangular_solve(a, b, *, lower=True, adjoint=False):
    """X with A X = rhs for triangular A (only the `lower` or upper triangle is read)."""
    return jsl.solve_triangular(a, b, lower=lower, trans="C" if adjoint else 0)


def _triangular_check(b, a, **_) -> str | None:
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        return f"A must be a (batch of) square matrices, got shape {a.shape}"
    if b.ndim < 2 or b.shape[-2] != a.shape[-1]:
        return f"b must have {a.shape[-1]} rows to match A {a.shape}, got shape {b.shape}"
    return None


@primitive("TriangularSolve", attrs=("upper", "transpose", "unitriangular"), category="matmul",
           multiple_results=True, check=_triangular_check,
           api=Api(mint="triangular_solve", tensor="triangular_solve", args=("b", "A"),
                   attrs=(Attr("upper", True, bool), Attr("transpose", False, bool),
                          Attr("unitriangular", False, bool))))
def triangular_solve(b, a, *, upper=True, transpose=False, unitriangular=False):
    """(X with A X = b, or A^T X = b with `transpose`; a copy of A): only A's `upper` (or lower) triangle is read,
    its diagonal taken as ones with `unitriangular`; batch dims broadcast."""
    shape = jnp.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a_b = jnp.broadcast_to(a, shape + a.shape[-2:])
    x = jsl.solve_triangular(a_b, jnp.broadcast_to(b, shape + b.shape[-2:]), lower=not upper,
                             trans=1 if transpose else 0, unit_diagonal=unitriangular)
    return x, a_b


@primitive("Pinv", attrs=("atol", "rtol", "hermitian"), category="matmul")
def pinv_(x, *, atol=None, rtol=None, hermitian=False):
    """The Moore-Penrose pseudo-inverse; singular values <= max(atol, rtol * s_max) count as zero."""
    s = jnp.linalg.svd(x, compute_uv=False)
    smax = s[..., :1]
    r = rtol if rtol is not None else (0.0 if atol is not None and atol > 0
                                        else max(x.shape[-2:]) * jnp.finfo(x.dtype).eps)
    cutoff = jnp.maximum(0.0 if atol is None else atol, r * smax)
    u, s, vh = jnp.linalg.svd(x, full_matrices=False, hermitian=False)
    s_inv = jnp.where(s > cutoff, 1.0 / jnp.where(s > cutoff, s, 1.0), 0.0).astype(x.dtype)
    return _adj(vh) @ (s_inv[..., None] * _adj(u))


@expose(ops="pinv", prim="Pinv")
def pinv(x, *, atol=None, rtol=None, hermitian=False):
    """Pseudo-inverse (`hermitian` is accepted: the SVD path is exact for Hermitian inputs too)."""
    return apply(pinv_, (x,), {"atol": None if atol is None else float(atol),
                               "rtol": None if rtol is None else float(rtol), "hermitian": bool(hermitian)})


@primitive("Lstsq", attrs=("fast", "l2_regularizer"), category="matmul",
           api=(Api(args=("x", "y"), attrs=(Attr("fast", True, bool), Attr("l2_regularizer", 0.0, float)),
                    cls="Lstsq", init=("fast", "l2_regularizer")),))
def lstsq_(a, b, *, fast=True, l2_regularizer=0.0):
    """argmin_X ||a X - b||^2 + l2_regularizer ||X||^2 (a: (m, n), b: (m, k) or (m,))."""
    vec = b.ndim == 1
    b2 = b[:, None] if vec else b
    if l2_regularizer:
        n = a.shape[-1]
        gram = _adj(a) @ a + l2_regularizer * jnp.eye(n, dtype=a.dtype)
        out = jnp.linalg.solve(gram, _adj(a) @ b2)
    else:
        out = jnp.linalg.lstsq(a, b2)[0]
    return out[:, 0] if vec else out


@expose(ops="lstsq", tensor="lstsq")
def lstsq(input, A):  # noqa: N803
    """Least-squares solution X of input X = A (input: (m, n), A: (m, k); X: (n, k))."""
    return apply(lstsq_, (input, A), {"fast": True, "l2_regularizer": 0.0})


# ---------------------------------------------------------------- LU
def _pivots_to_perm(pivots, m: int):
    """LAPACK-style 1-based row swaps -> the permutation they apply (batched)."""
    batch = pivots.shape[:-1]
    perm = jnp.broadcast_to(jnp.arange(m), batch + (m,))
    piv = pivots.astype(jnp.int32) - 1
    for i in range(pivots.shape[-1]):
        j = piv[..., i:i + 1]
        pi = perm[..., i:i + 1]
        pj = jnp.take_along_axis(perm, j, axis=-1)
        perm = jnp.where(jnp.arange(m) == i, pj, perm)
        perm = jnp.where(jnp.arange(m) == j, pi, perm)
    return perm


@primitive("LuUnpack", attrs=("unpack_data", "unpack_pivots"), category="matmul", multiple_results=True,
           differentiable=False,
           api=(Api(args=("LU_data", "LU_pivots"),
                    attrs=(Attr("unpack_data", True, bool), Attr("unpack_pivots", True, bool)),
                    cls="LuUnpack", init=("unpack_data", "unpack_pivots")),))
def lu_unpack(lu, pivots, *, unpack_data=True, unpack_pivots=True):
    """(P, L, U) from a packed LU factorization and its 1-based pivots: A = P L U. The class op computes all
    three whatever its flags say, as MindSpore's `LuUnpack` does; `ops.lu_unpack` answers None for the parts
    the flags leave out."""
    m, n = lu.shape[-2:]
    k = min(m, n)
    lower = jnp.tril(lu[..., :, :k], -1) + jnp.eye(m, k, dtype=lu.dtype)
    upper = jnp.triu(lu[..., :k, :])
    perm = _pivots_to_perm(pivots, m)
    p = jnp.swapaxes(jnp.eye(m, dtype=lu.dtype)[perm], -1, -2)
    return p, lower, upper


@expose(ops="lu_unpack", prim="LuUnpack")
def _lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    """MindSpore's `ops.lu_unpack`: (P, L, U), with None for L and U when `unpack_data=False` and for P when
    `unpack_pivots=False`."""
    p, lower, upper = apply(lu_unpack, (LU_data, LU_pivots), {"unpack_data": True, "unpack_pivots": True})
    return (p if unpack_pivots else None,) + ((lower, upper) if unpack_data else (None, None))


@primitive("LuSolve", category="matmul", api=(Api("lu_solve", args=("b", "LU_data", "LU_pivots"), cls="LuSolve", tensor="lu_solve"),))
def lu_solve(b, lu, pivots):
    """X with A X = b, A given as a packed LU factorization with 1-based pivots."""
    perm = _pivots_to_perm(pivots, lu.shape[-2])
    pb = jnp.take_along_axis(b, perm[..., :, None].astype(jnp.int32), axis=-2)
    y = jsl.solve_triangular(lu, pb, lower=True, unit_diagonal=True)
    return jsl.solve_triangular(lu, y, lower=False)


# ---------------------------------------------------------------- Householder QR pieces
@primitive("Geqrf", category="matmul", multiple_results=True, differentiable=False,
           api=(Api("geqrf", cls="Geqrf", tensor="geqrf"),))
def geqrf(x):
    """(a, tau): R in the upper triangle, Householder vectors below it, and their scales (LAPACK's geqrf)."""
    h, tau = jnp.linalg.qr(x, mode="raw")  # numpy's raw mode gives the reflectors transposed
    return _mT(h), tau


@primitive("Orgqr", category="matmul", differentiable=False,
           api=(Api("orgqr", args=("input", "input2"), cls="Orgqr", tensor="orgqr"),))
def orgqr(a, tau):
    """The Q of a QR factorization from geqrf's Householder vectors and scales."""
    return lax.linalg.householder_product(a, tau)


@primitive("Ormqr", attrs=("left", "transpose"), category="matmul", differentiable=False,
           api=(Api("ormqr", args=("input", "tau", "other"), attrs=(Attr("left", True, bool),
                                                                  Attr("transpose", False, bool)),
                    cls="Ormqr", init=("left", "transpose"), tensor="ormqr"),))
def ormqr(a, tau, other, *, left=True, transpose=False):
    """Q @ other (Q^H with `transpose`; other @ Q when not `left`), Q given by Householder vectors."""
    return lax.linalg.ormqr(a, tau, other, left=left, transpose=transpose)



@expose(cls="MatrixSolveLs", init=("fast",))
def _matrix_solve_ls_cls(matrix, rhs, l2, fast=True):
    """`ops.MatrixSolveLs(fast=True)(matrix, rhs, l2)`: argmin_X ||matrix X - rhs||^2 + l2 ||X||^2."""
    return apply(lstsq_, (matrix, rhs), {"fast": bool(fast), "l2_regularizer": float(scalar(l2))})
