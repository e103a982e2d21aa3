"""MindSpore's fused add-then-normalize functions `ops.add_layer_norm` and `ops.add_rms_norm` (Ascend kernels in
MindSpore, no CPU kernel there): `x = x1 + x2`, then LayerNorm over the last dim / RmsNorm over gamma's dims,
returning every output MindSpore's docs list, each one primitive (jax differentiates it).

- `add_layer_norm(x1, x2, gamma, beta, epsilon=1e-5, additional_output=False)` -> `(y, mean, rstd, x)`: `mean`
  and `rstd` keep the normalized dim (size 1) and have x1's dtype; `x` is `x1 + x2` whether or not
  `additional_output` asks for it (the Ascend kernel leaves it unwritten when not asked: msx gives the sum).
- `add_rms_norm(x1, x2, gamma, epsilon=1e-6)` -> `(y, rstd, x)`: `rstd` is float32, of shape
  `x.shape[:-gamma.ndim] + (1,) * gamma.ndim`.

The statistics are computed in float32 (what the kernels do for float16/bfloat16 inputs) and `y` cast back.
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from ..errors import OpError, OpTypeError
from ..tensor import Tensor
from .api import expose
from .apply_prim import apply, describe
from .primitive import primitive

_FLOATS = ("float16", "bfloat16", "float32")


@primitive("AddLayerNormV2", attrs=("epsilon",), category="other", multiple_results=True,
           internal="the rule of ops.add_layer_norm (msx/ops/fused_norm_ops.py)")
def add_layer_norm_v2(x1, x2, gamma, beta, *, epsilon=1e-5):
    """y = (x - mean) * rstd * gamma + beta over the last dim of x = x1 + x2; with mean, rstd and x."""
    x = x1 + x2
    xf = x.astype(jnp.float32)
    mean = jnp.mean(xf, axis=-1, keepdims=True)
    var = jnp.mean(jnp.square(xf - mean), axis=-1, keepdims=True)
    rstd = 1.0 / jnp.sqrt(var + epsilon)
    y = (xf - mean) * rstd * gamma.astype(jnp.float32) + beta.astype(jnp.float32)
    return y.astype(x1.dtype), mean.astype(x1.dtype), rstd.astype(x1.dtype), x


@primitive("AddRmsNorm", attrs=("epsilon",), category="other", multiple_results=True,
           internal="the rule of ops.add_rms_norm (msx/ops/fused_norm_ops.py)")
def add_rms_norm_(x1, x2, gamma, *, epsilon=1e-6):
    """y = x * rstd * gamma over gamma's (trailing) dims of x = x1 + x2; with rstd (float32) and x."""
    x = x1 + x2
    xf = x.astype(jnp.float32)
    axes = tuple(range(x.ndim - gamma.ndim, x.ndim))
    rstd = 1.0 / jnp.sqrt(jnp.mean(jnp.square(xf), axis=axes, keepdims=True) + epsilon)
    return (xf * rstd * gamma.astype(jnp.float32)).astype(x1.dtype), rstd, x


def _pair(op: str, x1, x2, got: str) -> None:
    for name, a in (("x1", x1), ("x2", x2)):
        if not isinstance(a, Tensor) or np.dtype(a._data.dtype).name not in _FLOATS:
            raise OpTypeError(f"{op}: {name} must be a float16, bfloat16 or float32 Tensor, got {describe(a)}; "
                              f"got ({got})")
    if tuple(x1.shape) != tuple(x2.shape) or x1.dtype != x2.dtype:
        raise OpError(f"{op}: x2 must have x1's shape and dtype {describe(x1)}, got {describe(x2)}; got ({got})")
    if x1.ndim < 1:
        raise OpError(f"{op}: x1 must have at least 1 dimension; got ({got})")


def _epsilon(op: str, epsilon) -> float:
    if isinstance(epsilon, bool) or not isinstance(epsilon, (float, np.floating)):
        raise OpTypeError(f"{op}: epsilon must be a float, got {epsilon!r}")
    return float(epsilon)


@expose(ops="add_layer_norm", prim="AddLayerNormV2")
def add_layer_norm(x1, x2, gamma, beta, epsilon=1e-5, additional_output=False):
    op = "add_layer_norm"
    got = ", ".join(f"{n}={describe(a)}" for n, a in (("x1", x1), ("x2", x2), ("gamma", gamma), ("beta", beta)))
    _pair(op, x1, x2, got)
    for name, a in (("gamma", gamma), ("beta", beta)):
        if not isinstance(a, Tensor) or tuple(a.shape) != (x1.shape[-1],):
            raise OpError(f"{op}: {name} must be a 1-D Tensor of x1's last dim ({x1.shape[-1]},), got "
                          f"{describe(a)}; got ({got})")
    if not isinstance(additional_output, bool):
        raise OpTypeError(f"{op}: additional_output must be a bool, got {additional_output!r}")
    return apply(add_layer_norm_v2, (x1, x2, gamma, beta), {"epsilon": _epsilon(op, epsilon)})


@expose(ops="add_rms_norm", prim="AddRmsNorm")
def add_rms_norm(x1, x2, gamma, epsilon=1e-6):
    op = "add_rms_norm"
    got = ", ".join(f"{n}={describe(a)}" for n, a in (("x1", x1), ("x2", x2), ("gamma", gamma)))
    _pair(op, x1, x2, got)
    if not isinstance(gamma, Tensor) or np.dtype(gamma._data.dtype).name not in _FLOATS:
        raise OpTypeError(f"{op}: gamma must be a float16, bfloat16 or float32 Tensor, got {describe(gamma)}")
    if not 1 <= gamma.ndim <= x1.ndim or tuple(gamma.shape) != tuple(x1.shape[x1.ndim - gamma.ndim:]):
        raise OpError(f"{op}: gamma's shape must be x1's trailing dims, got {describe(gamma)}; got ({got})")
    eps = _epsilon(op, epsilon)
    if not 0 < eps <= 1:
        raise OpError(f"{op}: epsilon must be in (0, 1], got {epsilon}")
    return apply(add_rms_norm_, (x1, x2, gamma), {"epsilon": eps})
