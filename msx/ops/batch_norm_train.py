"""BatchNorm on batch statistics (training mode) with MindSpore's BatchNormGrad as its derivative.

Why its own derivative: jax's autodiff of the two-pass formula `(x - mean) * rsqrt(var + eps)` reaches the
gradient through rsqrt's and var's derivatives, and XLA, compiling that inside a whole jitted training step,
loses float32 precision in it: one jitted SGD step of mindcv's RepVGG-A0 moved its BatchNorm parameters up to
1e-2 (relative) away from float64, while the same step in eager msx, and MindSpore 2.10's, sit within 4e-5 of
float64 — jit did not equal eager. The closed form MindSpore's BatchNormGrad computes (oneDNN on CPU, cuDNN on
GPU),

    dx = gamma * rstd * (dy - mean(dy) - xhat * mean(dy * xhat)),   dgamma = sum(dy * xhat),

written here as the jvp of the normalisation (linear in the tangents, so jax transposes it into exactly that
vjp, and forward mode and higher orders work too), keeps jit, eager and float64 together.
"""
from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
from jax import lax


def _stats(x, axis: int):
    reduce_axes = tuple(i for i in range(x.ndim) if i != axis)
    bshape = [1] * x.ndim
    bshape[axis] = x.shape[axis]
    mean = jnp.mean(x, axis=reduce_axes)
    centered = x - mean.reshape(bshape)
    return reduce_axes, bshape, mean, centered, jnp.mean(jnp.square(centered), axis=reduce_axes)


@functools.partial(jax.custom_jvp, nondiff_argnums=(2, 3))
def normalize(x, gamma, epsilon: float, axis: int):
    """(gamma * (x - mean) / sqrt(var + epsilon), mean, var) over every axis but `axis` (var biased)."""
    _, bshape, mean, centered, var = _stats(x, axis)
    return centered * (lax.rsqrt(var + epsilon) * gamma).reshape(bshape), mean, var


@normalize.defjvp
def _normalize_jvp(epsilon, axis, primals, tangents):
    x, gamma = primals
    dx, dgamma = tangents
    reduce_axes, bshape, mean, centered, var = _stats(x, axis)
    rstd = lax.rsqrt(var + epsilon).reshape(bshape)
    xhat = centered * rstd
    dx_mean = jnp.mean(dx, axis=reduce_axes, keepdims=True)
    dx_centered = dx - dx_mean
    proj = jnp.mean(dx * xhat, axis=reduce_axes, keepdims=True)
    dy = gamma.reshape(bshape) * rstd * (dx_centered - xhat * proj) + xhat * dgamma.reshape(bshape)
    dvar = 2 * jnp.mean(centered * dx_centered, axis=reduce_axes)
    return (xhat * gamma.reshape(bshape), mean, var), (dy, dx_mean.reshape(mean.shape), dvar)
