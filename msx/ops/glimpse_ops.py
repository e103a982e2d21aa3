"""`ops.ExtractGlimpse(centered, normalized, uniform_noise, noise)(x, size, offsets)`: (N, H, W, C) float32 ->
(N, gh, gw, C) windows around `offsets` (N, 2) = (y, x), TensorFlow's CPU kernel (which MindSpore 2.10's follows).

An offset is scaled by (H, W) when `normalized`, moved from the image centre when `centered` (x / 2 + W / 2), then
half the window is taken off and the result truncated toward zero (C's `(int)`, so -0.5 gives 0). Window pixels
outside the image are filled with noise: 'uniform' (the sample's [min, max] range), 'gaussian' (each channel's
mean and standard deviation) or 'zero'; `uniform_noise=True` requires noise='uniform' (MindSpore's rule). The
noise comes from msx's global PRNG state (`set_seed`), not MindSpore's generator. `size` sets the result's shape,
so it must be known when the graph is built: a graph value is refused by name under jit; the offsets may be traced.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ..tensor import Tensor
from .api import expose
from .detection_ops import static_values
from .functional_random import _next_key
from .primitive import apply, primitive

_NOISES = ("uniform", "gaussian", "zero")


def _check(key, x, offsets, *, size, **_) -> str | None:
    if len(x.shape) != 4 or x.dtype != jnp.float32:
        return f"x must be a 4-d (batch, height, width, channels) float32 tensor, got {x.dtype}{tuple(x.shape)}"
    if len(offsets.shape) != 2 or offsets.shape[1] != 2 or offsets.shape[0] != x.shape[0]:
        return f"offsets must have shape (batch, 2) = ({x.shape[0]}, 2), got {tuple(offsets.shape)}"
    if offsets.dtype != jnp.float32:
        return f"offsets dtype must be float32, got {jnp.dtype(offsets.dtype).name}"
    return None


@primitive("ExtractGlimpse", attrs=("size", "centered", "normalized", "noise"), category="other", check=_check,
           differentiable=False)
def extract_glimpse(key, x, offsets, *, size, centered=True, normalized=True, noise="uniform"):
    """(N, H, W, C) -> (N, gh, gw, C): each sample's window, noise where it leaves the image."""
    reason = _check(key, x, offsets, size=size)
    if reason is not None:
        raise (TypeError if "dtype" in reason else ValueError)(f"ExtractGlimpse: {reason}")
    n, h, w, c = x.shape
    gh, gw = size
    oy, ox = offsets[:, 0], offsets[:, 1]
    if normalized:
        oy, ox = oy * h, ox * w
    if centered:
        oy, ox = oy / 2 + h / 2, ox / 2 + w / 2
    oy = jnp.trunc(oy - gh / 2).astype(jnp.int32)
    ox = jnp.trunc(ox - gw / 2).astype(jnp.int32)
    rows = oy[:, None] + jnp.arange(gh)  # (N, gh)
    cols = ox[:, None] + jnp.arange(gw)  # (N, gw)
    inside = (((rows >= 0) & (rows < h))[:, :, None] & ((cols >= 0) & (cols < w))[:, None, :])[..., None]
    picked = jax.vmap(lambda img, r, q: img[jnp.clip(r, 0, h - 1)[:, None], jnp.clip(q, 0, w - 1)[None, :]])(
        x, rows, cols)  # (N, gh, gw, C)
    shape = (n, gh, gw, c)
    k = jax.random.wrap_key_data(key)
    if noise == "zero":
        fill = jnp.zeros(shape, x.dtype)
    elif noise == "uniform":
        lo, hi = jnp.min(x, axis=(1, 2, 3)), jnp.max(x, axis=(1, 2, 3))
        fill = lo[:, None, None, None] + jax.random.uniform(k, shape, x.dtype) * (hi - lo)[:, None, None, None]
    else:
        mean = jnp.mean(x, axis=(1, 2), keepdims=True)
        sigma = jnp.sqrt(jnp.mean(jnp.square(x - mean), axis=(1, 2), keepdims=True))
        fill = mean + jax.random.normal(k, shape, x.dtype) * sigma
    return jnp.where(inside, picked, fill)


def _flag(what: str, v) -> bool:
    if not isinstance(v, bool):
        raise TypeError(f"ExtractGlimpse: {what} must be a bool, got {v!r}")
    return v


@expose(cls="ExtractGlimpse", init=("centered", "normalized", "uniform_noise", "noise"), prim="ExtractGlimpse")
def _extract_glimpse_cls(x, size, offsets, *, centered=True, normalized=True, uniform_noise=True, noise="uniform"):
    op = "ExtractGlimpse"
    _flag("centered", centered), _flag("normalized", normalized), _flag("uniform_noise", uniform_noise)
    if noise not in _NOISES:
        raise ValueError(f"{op}: noise must be one of {list(_NOISES)}, got {noise!r}")
    if uniform_noise and noise != "uniform":
        raise ValueError(f"{op}: noise must be 'uniform' when uniform_noise is True, got {noise!r}")
    sizes = static_values(op, "size", size).reshape(-1)
    if sizes.size != 2 or not np.issubdtype(sizes.dtype, np.integer) or (sizes < 1).any():
        raise ValueError(f"{op}: size must hold 2 positive ints (glimpse height, width), got {sizes.tolist()}")
    if noise == "zero":
        key = Tensor(np.zeros((2,), np.uint32))
    else:
        key = _next_key()
    attrs = {"size": tuple(int(s) for s in sizes), "centered": centered, "normalized": normalized, "noise": noise}
    return apply(extract_glimpse, (key, x, offsets), attrs)
