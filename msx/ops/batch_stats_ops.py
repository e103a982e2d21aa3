"""Batch-norm pieces: the three steps MindSpore 2.10's `mint.nn.SyncBatchNorm` is built from and the class op
`ops.operations.InstanceNorm`.

`mint.batch_norm_stats(input, eps)` gives each channel's (mean, invstd) over every axis but 1,
`mint.batch_norm_gather_stats_with_counts(...)` merges per-device (mean, invstd, count) rows into the global
(mean, invstd) and moves `running_mean`/`running_var` towards them (unbiased variance, written in place), and
`mint.batch_norm_elemt(...)` applies `(x - mean) * invstd * weight + bias`. They are torch's ops of the same
names (MindSpore's CPU build has no kernel for any of them: Ascend only), so they are checked against torch.

`InstanceNorm` (GPU only in MindSpore) normalises each (sample, channel) plane; its GPU kernel runs cuDNN's
batch norm on the input seen as (1, N*C, H*W), so its second and third results are the per-plane mean and
cuDNN's saved *inverse* standard deviation `1 / sqrt(var + eps)` (shape (N*C,)), and the running statistics it
takes are updated in a workspace copy only: the `mean`/`variance` inputs are left unchanged, as there.
"""
from __future__ import annotations

import jax.numpy as jnp
from jax import lax

from .. import dtype as mstype
from ..errors import OpError
from . import functional as F
from .api import SURFACE, PrimitiveOp, expose
from .primitive import apply, primitive


def _floating(op: str, **tensors) -> None:
    for what, t in tensors.items():
        if t is not None and t.dtype not in mstype.float_type:
            raise OpError(f"{op}: {what} must be a float tensor, got {t.dtype} of shape {tuple(t.shape)}")


def _channel_vector(op: str, what: str, t, c: int) -> None:
    if t is not None and tuple(t.shape) != (c,):
        raise OpError(f"{op}: {what} must have shape ({c},) (the input's channels), got {tuple(t.shape)}")


def _reduce_axes(x) -> tuple[int, ...]:
    return (0,) + tuple(range(2, x.ndim))


# ---------------------------------------------------------------- batch_norm_stats
@primitive("BatchNormStats", attrs=("eps",), category="reduce", multiple_results=True,
           internal="run by mint.batch_norm_stats, which checks the input's rank in words")
def batch_norm_stats_(x, *, eps):
    """(mean, invstd) per channel (axis 1), float32 for half inputs as torch's kernel."""
    acc = x.astype(jnp.promote_types(x.dtype, jnp.float32))
    axes = _reduce_axes(x)
    mean = jnp.mean(acc, axis=axes)
    var = jnp.mean(jnp.square(acc - jnp.expand_dims(mean, axes)), axis=axes)
    return mean, lax.rsqrt(var + eps)


@expose(mint="batch_norm_stats", prim="BatchNormStats")
def batch_norm_stats(input, eps):
    """Each channel's mean and inverse standard deviation `1 / sqrt(biased var + eps)` over every axis but 1."""
    _floating("batch_norm_stats", input=input)
    if input.ndim < 2:
        raise OpError(f"batch_norm_stats: input must be at least 2-D (N, C, ...), got shape {tuple(input.shape)}")
    return apply(batch_norm_stats_, (input,), {"eps": float(eps)})


# ---------------------------------------------------------------- batch_norm_elemt
@primitive("BatchNormElemt", category="elementwise",
           internal="run by mint.batch_norm_elemt, which fills an absent weight/bias with ones/zeros")
def batch_norm_elemt_(x, weight, bias, mean, invstd):
    """(x - mean) * invstd * weight + bias, the (C,) vectors broadcast along axis 1."""
    shape = (1, -1) + (1,) * (x.ndim - 2)
    scale = (invstd * weight).reshape(shape)
    return ((x - mean.reshape(shape)) * scale + bias.reshape(shape)).astype(x.dtype)


@expose(mint="batch_norm_elemt", prim="BatchNormElemt")
def batch_norm_elemt(input, weight=None, bias=None, mean=None, invstd=None, eps=1e-5):
    """Normalise with given statistics: `(input - mean) * invstd * weight + bias` (eps is unused, as in torch:
    `invstd` already holds it)."""
    op = "batch_norm_elemt"
    if mean is None or invstd is None:
        raise OpError(f"{op}: mean and invstd are required (got mean={mean is not None}, "
                      f"invstd={invstd is not None})")
    _floating(op, input=input, weight=weight, bias=bias, mean=mean, invstd=invstd)
    if input.ndim < 2:
        raise OpError(f"{op}: input must be at least 2-D (N, C, ...), got shape {tuple(input.shape)}")
    c = input.shape[1]
    for what, t in (("weight", weight), ("bias", bias), ("mean", mean), ("invstd", invstd)):
        _channel_vector(op, what, t, c)
    weight = F.ones((c,), mean.dtype) if weight is None else weight
    bias = F.zeros((c,), mean.dtype) if bias is None else bias
    return apply(batch_norm_elemt_, (input, weight, bias, mean, invstd), {})


# ---------------------------------------------------------------- batch_norm_gather_stats_with_counts
@primitive("BatchNormGatherStatsWithCounts", attrs=("eps",), category="reduce", multiple_results=True,
           internal="run by mint.batch_norm_gather_stats_with_counts, which also writes the running statistics")
def gather_stats_(mean, invstd, counts, *, eps):
    """(global mean, global invstd, unbiased global var) from per-device rows (D, C) and counts (D,)."""
    acc = jnp.promote_types(mean.dtype, jnp.float32)
    mean, invstd, n = mean.astype(acc), invstd.astype(acc), counts.astype(acc)[:, None]
    total = jnp.sum(n, axis=0)
    g_mean = jnp.sum(mean * n, axis=0) / total
    var_i = 1.0 / jnp.square(invstd) - eps
    g_var = jnp.sum((var_i + jnp.square(mean - g_mean)) * n, axis=0) / total
    return g_mean, lax.rsqrt(g_var + eps), g_var * total / jnp.maximum(total - 1, 1)


@expose(mint="batch_norm_gather_stats_with_counts", prim="BatchNormGatherStatsWithCounts")
def batch_norm_gather_stats_with_counts(input, mean, invstd, running_mean=None, running_var=None, momentum=1e-1,
                                        eps=1e-5, counts=None):
    """The global (mean, invstd) of per-device statistics (`mean`, `invstd` (D, C), `counts` (D,)); when given,
    `running_mean`/`running_var` become `(1 - momentum) * running + momentum * global` (variance unbiased)."""
    op = "batch_norm_gather_stats_with_counts"
    if counts is None:
        raise OpError(f"{op}: counts is required (one count per row of mean)")
    _floating(op, input=input, mean=mean, invstd=invstd, running_mean=running_mean, running_var=running_var)
    if mean.ndim != 2 or tuple(invstd.shape) != tuple(mean.shape) or tuple(counts.shape) != (mean.shape[0],):
        raise OpError(f"{op}: mean and invstd must be (D, C) and counts (D,), got mean {tuple(mean.shape)}, "
                      f"invstd {tuple(invstd.shape)}, counts {tuple(counts.shape)}")
    c = mean.shape[1]
    _channel_vector(op, "running_mean", running_mean, c)
    _channel_vector(op, "running_var", running_var, c)
    g_mean, g_invstd, unbiased = apply(gather_stats_, (mean, invstd, counts), {"eps": float(eps)})
    m = float(momentum)
    for target, stat in ((running_mean, g_mean), (running_var, unbiased)):
        if target is not None:
            target._rebind(((1.0 - m) * target + m * stat).astype(target.dtype))
    return g_mean.astype(mean.dtype), g_invstd.astype(mean.dtype)


# ---------------------------------------------------------------- InstanceNorm (class op)
@primitive("InstanceNorm", attrs=("epsilon",), category="reduce", multiple_results=True,
           internal="run by the class ops.operations.InstanceNorm, which checks its arguments")
def instance_norm_(x, gamma, beta, *, epsilon):
    """(y, per-plane mean (N*C,), per-plane 1/sqrt(var + eps) (N*C,)), statistics over the axes after 1."""
    n, c = x.shape[:2]
    acc = x.astype(jnp.promote_types(x.dtype, jnp.float32)).reshape(n, c, -1)
    mean = jnp.mean(acc, axis=-1)
    var = jnp.mean(jnp.square(acc - mean[..., None]), axis=-1)
    rstd = lax.rsqrt(var + epsilon)
    y = (acc - mean[..., None]) * (rstd * gamma)[..., None] + beta[:, None]
    return y.reshape(x.shape).astype(x.dtype), mean.reshape(-1), rstd.reshape(-1)


def _unit_range(v, what: str, closed: bool) -> float:
    if isinstance(v, bool) or not isinstance(v, float):
        raise TypeError(f"InstanceNorm: {what} must be a float, got {type(v).__name__}")
    if not (0.0 <= v <= 1.0 if closed else 0.0 <= v < 1.0):
        raise ValueError(f"InstanceNorm: {what} must be in [0, 1{']' if closed else ')'}, got {v}")
    return v


class InstanceNorm(PrimitiveOp):
    """`ops.operations.InstanceNorm(epsilon=1e-5, momentum=0.1)(input_x, gamma, beta, mean, variance)` ->
    (y, save_mean, save_inv_std): MindSpore's GPU kernel, whose running-statistic update stays in its
    workspace (`mean` and `variance` are read for their shapes only and not written)."""

    name = "InstanceNorm"

    def __init__(self, epsilon: float = 1e-5, momentum: float = 0.1) -> None:
        super().__init__()
        self.epsilon = _unit_range(epsilon, "epsilon", closed=False)
        self.momentum = _unit_range(momentum, "momentum", closed=True)

    def __call__(self, input_x, gamma, beta, mean, variance):
        if input_x.ndim < 3:
            raise OpError(f"InstanceNorm: input_x must be at least 3-D (N, C, H, ...), got shape "
                          f"{tuple(input_x.shape)}")
        if input_x.dtype not in (mstype.float16, mstype.float32):
            raise OpError(f"InstanceNorm: input_x must be float16 or float32, got {input_x.dtype}")
        c = input_x.shape[1]
        for what, t in (("gamma", gamma), ("beta", beta), ("mean", mean), ("variance", variance)):
            _channel_vector("InstanceNorm", what, t, c)
        return apply(instance_norm_, (input_x, gamma, beta), {"epsilon": self.epsilon})


SURFACE.add("cls", "InstanceNorm", InstanceNorm)
