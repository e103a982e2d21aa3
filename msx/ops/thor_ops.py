"""The matrix kernels of MindSpore's THOR optimizer (`ops.operations._thor_ops`): `CholeskyTrsm` and
`DetTriangle`, GPU kernels in MindSpore (no CPU kernel; their values here are those kernels' formulas).

- `CholeskyTrsm(lower=False, clean=True, split_dim=0)(x)`: the inverse of the lower Cholesky factor of each
  symmetric positive-definite matrix (`inv(L)` with `x = L @ L.T`, what cuSOLVER's upper potrf followed by a
  trsm against the identity gives in row-major order), for a (m, m) or (b, m, m) input. With `split_dim` k > 0
  a (n, n) input is cut into its diagonal k x k blocks (the last one padded with the identity) and the result
  is (ceil(n / k), k, k); a matrix no larger than k is one block of its own size. `lower` and `clean` are
  attributes the kernel never reads (accepted, type checked).
- `DetTriangle(fill_mode=0)(x)`: the product of the diagonal of each triangular matrix in the last two dims.
  The kernel refuses a matrix whose other triangle is not zero: fill_mode 0 needs a lower-triangular matrix
  (zeros above the diagonal), 1 an upper-triangular one; msx checks that wherever the values are known
  (eagerly and in the call a jit captures).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np

from ..errors import OpError, OpTypeError
from ..tensor import Tensor
from .api import expose
from .apply_prim import apply, describe, known_value
from .primitive import primitive


@primitive("CholeskyTrsm", attrs=("split_dim",), category="other", differentiable=False,
           internal="the rule of the class op ops.CholeskyTrsm (msx/ops/thor_ops.py)")
def cholesky_trsm(x, *, split_dim=0):
    """inv(L) of each (block of) x = L L^T."""
    if split_dim and x.shape[0] > split_dim:
        n, k = x.shape[0], split_dim
        b = -(-n // k)
        pad = b * k - n
        full = jnp.pad(x, ((0, pad), (0, pad)))
        full = full + jnp.diag(jnp.concatenate([jnp.zeros((n,), x.dtype), jnp.ones((pad,), x.dtype)]))
        blocks = jnp.stack([full[i * k:(i + 1) * k, i * k:(i + 1) * k] for i in range(b)])
    else:
        blocks = x if x.ndim == 3 else x[None]
    low = jnp.linalg.cholesky(blocks)
    eye = jnp.broadcast_to(jnp.eye(blocks.shape[-1], dtype=x.dtype), blocks.shape)
    inv = jsl.solve_triangular(low, eye, lower=True)
    if split_dim:
        return inv
    return inv if x.ndim == 3 else inv[0]


@expose(cls="CholeskyTrsm", init=("lower", "clean", "split_dim"), prim="CholeskyTrsm")
def cholesky_trsm_op(x, *, lower=False, clean=True, split_dim=0) -> Tensor:
    op = "CholeskyTrsm"
    for name, v in (("lower", lower), ("clean", clean)):
        if not isinstance(v, bool):
            raise OpTypeError(f"{op}: {name} must be a bool, got {v!r}")
    if isinstance(split_dim, bool) or not isinstance(split_dim, int) or split_dim < 0:
        raise OpTypeError(f"{op}: split_dim must be an int >= 0, got {split_dim!r}")
    if not isinstance(x, Tensor) or np.dtype(x._data.dtype).name not in ("float32", "float64"):
        raise OpTypeError(f"{op}: x must be a float32 or float64 Tensor, got {describe(x)}")
    if split_dim:
        if x.ndim != 2 or x.shape[0] != x.shape[1]:
            raise OpError(f"{op}: with split_dim the input must be a square 2-D matrix, got {describe(x)}")
    elif x.ndim not in (2, 3) or x.shape[-1] != x.shape[-2]:
        raise OpError(f"{op}: x must be a (m, m) or (b, m, m) matrix, got {describe(x)}")
    return apply(cholesky_trsm, (x,), {"split_dim": split_dim})


@primitive("DetTriangle", category="other", internal="the rule of the class op ops.DetTriangle (msx/ops/thor_ops.py)")
def det_triangle(x):
    """The product of the diagonal of each matrix in the last two dims."""
    return jnp.prod(jnp.diagonal(x, axis1=-2, axis2=-1), axis=-1)


@expose(cls="DetTriangle", init=("fill_mode",), prim="DetTriangle")
def det_triangle_op(x, *, fill_mode=0) -> Tensor:
    op = "DetTriangle"
    if isinstance(fill_mode, bool) or fill_mode not in (0, 1):
        raise OpError(f"{op}: fill_mode must be 0 (lower-triangular input) or 1 (upper-triangular), got {fill_mode!r}")
    if not isinstance(x, Tensor) or np.dtype(x._data.dtype).name not in ("float16", "float32"):
        raise OpTypeError(f"{op}: x must be a float16 or float32 Tensor, got {describe(x)}")
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise OpError(f"{op}: x must be square matrices in its last two dims, got {describe(x)}")
    value = known_value(x)
    if isinstance(value, (np.ndarray, jax.Array)) and not isinstance(value, jax.core.Tracer):
        v = np.asarray(value, np.float32)
        other = np.triu(v, 1) if fill_mode == 0 else np.tril(v, -1)
        if np.any(other != 0):
            half = "upper" if fill_mode == 0 else "lower"
            raise OpError(f"{op}: the elements in the {half} half of the matrices must all be 0 for fill_mode="
                          f"{fill_mode}; got ({describe(x)})")
    return apply(det_triangle, (x,))
