"""Matrix functions: `ops.MatrixLogarithm` (the principal matrix logarithm of complex square matrices) and
`ops.cond` (MindSpore 2.10's matrix condition number, norm(A, p) * norm(inv(A), p)).

The logarithm is inverse scaling and squaring (Higham): take square roots (Denman-Beavers iterations, matmuls
and inverses only, so it runs on every device and under `msx.jit`) until A^(1/2^k) is within 0.25 of the
identity, then log(I + X) by 8-point Gauss-Legendre quadrature of its integral form
(sum_j w_j X (I + t_j X)^-1), times 2^k. It agrees with scipy.linalg.logm and MindSpore's Eigen kernel on
matrices with no eigenvalue on the closed negative real axis (where the principal logarithm is defined).
"""
from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np
from jax import lax

from .. import dtype as mstype
from ..errors import OpError, OpTypeError
from ..tensor import Tensor
from .api import Api, expose
from .array_ops import cast
from .functional_math import norm_ as _norm
from .math_ops import inverse as _inverse
from .primitive import apply, primitive

_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(8)
_NODES, _WEIGHTS = [float(t) for t in (_NODES + 1) / 2], [float(w) for w in _WEIGHTS / 2]  # on [0, 1]


def _sqrtm(a, eye):
    """Principal square root by Denman-Beavers iterations (to convergence, at most 40)."""
    def more(s):
        return (s[3] < 40) & (s[2] > 0)

    def step(s):
        y, z, _, i = s
        y_new = (y + jnp.linalg.inv(z)) / 2
        z = (z + jnp.linalg.inv(y)) / 2
        tol = jnp.finfo(y.real.dtype).eps * 4
        moved = jnp.max(jnp.abs(y_new - y)) > tol * jnp.maximum(jnp.max(jnp.abs(y_new)), 1.0)
        return y_new, z, moved.astype(jnp.int32), i + 1

    return lax.while_loop(more, step, (a, eye, jnp.int32(1), jnp.int32(0)))[0]


def _mx_check(x) -> str | None:
    if x.dtype not in (jnp.complex64, jnp.complex128):
        return f"x must be complex64 or complex128, got {x.dtype}"
    if not 2 <= len(x.shape) <= 7:
        return f"x must have rank 2 to 7, got shape {tuple(x.shape)}"
    if x.shape[-1] != x.shape[-2]:
        return f"the last two dimensions of x must be equal (square matrices), got shape {tuple(x.shape)}"
    return None


@primitive("MatrixLogarithm", category="matmul", check=_mx_check, differentiable=False,
           api=Api(args=("x",), cls="MatrixLogarithm"))
def matrix_logarithm(x):
    """The principal logarithm of each square matrix of x (..., M, M), complex64 or complex128."""
    reason = _mx_check(x)
    if reason is not None:
        raise OpError(f"MatrixLogarithm: {reason}")
    dtype, x = x.dtype, x.astype(jnp.complex128)  # complex64 too is computed in double precision
    eye = jnp.broadcast_to(jnp.eye(x.shape[-1], dtype=x.dtype), x.shape)

    def far(s):
        return (s[1] < 60) & (jnp.max(jnp.linalg.norm(s[0] - eye, ord=1, axis=(-2, -1))) > 0.25)

    def root(s):
        return _sqrtm(s[0], eye), s[1] + 1

    a, k = lax.while_loop(far, root, (x, jnp.int32(0)))
    d = a - eye
    log = sum(w * jnp.linalg.solve(eye + t * d, d) for t, w in zip(_NODES, _WEIGHTS))
    return (log * (2.0 ** k).astype(jnp.float64)).astype(dtype)


# ---------------------------------------------------------------- cond
_COND_P = {"fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf}


# Norm is declared beside ops.norm (functional_math.py); cond is its second concern (condition numbers)
@expose(ops="cond", prim="Norm")
def cond(A: Tensor, p=None) -> Tensor:  # noqa: N803  (MindSpore's argument name)
    """norm(A, p) * norm(inverse(A), p) of each square matrix of A (p=None: the 2-norm, the ratio of the extreme
    singular values); a batch (rank >= 3) gives float32, as MindSpore's does."""
    if not isinstance(A, Tensor):
        raise OpTypeError(f"cond: A must be a Tensor, got {type(A).__name__}")
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise OpError(f"cond: A must be a (batch of) square matrices, got shape {tuple(A.shape)}")
    if mstype.to_np(A.dtype).kind != "f":
        raise OpTypeError(f"cond: A must be a real floating Tensor, got {A.dtype}")
    p = 2 if p is None else p
    if isinstance(p, bool) or p not in _COND_P:
        raise OpError(f"cond: p must be None, 'fro', 'nuc', inf, -inf, 1, -1, 2 or -2 for matrices, got {p!r}")
    attrs = {"ord": p, "axis": (-2, -1), "keepdims": False}
    out = apply(_norm, (A,), attrs) * apply(_norm, (apply(_inverse, (A,)),), attrs)
    if A.ndim >= 3 and out.dtype != mstype.float32:
        out = apply(cast, (out,), {"dtype": mstype.float32})
    return out
