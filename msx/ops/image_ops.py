"""Colour-space conversions of MindSpore's `ops` (image preprocessing inside a network), one primitive each.

`ops.RGBToHSV()(images)`: the last dim holds (R, G, B) in [0, 1]; the result holds (H, S, V), each in
[0, 1], TensorFlow's and MindSpore's formula (hue 0 for a grey pixel, saturation 0 for black). MindIR files
hold it as `RGBToHSV` on the image (`mindir=`).
"""
from __future__ import annotations

import jax.numpy as jnp

from .api import Api
from .primitive import primitive


def _rgb_check(x) -> str | None:
    if len(x.shape) < 1 or x.shape[-1] != 3:
        return f"the last dimension holds (R, G, B) and must be 3, got shape {tuple(x.shape)}"
    if not jnp.issubdtype(x.dtype, jnp.floating):
        return f"images must be float16, float32 or float64, got {x.dtype}"
    return None


@primitive("RGBToHSV", category="elementwise", check=_rgb_check, api=Api(cls="RGBToHSV", args=("images",)),
           mindir="RGBToHSV")
def rgb_to_hsv(images):
    """(R, G, B) -> (H, S, V) along the last dim: V = max, S = (max - min) / max, H the hexagonal hue / 6."""
    reason = _rgb_check(images)
    if reason is not None:
        raise ValueError(reason)
    r, g, b = images[..., 0], images[..., 1], images[..., 2]
    value = jnp.max(images, axis=-1)
    spread = value - jnp.min(images, axis=-1)
    saturation = jnp.where(value > 0, spread / jnp.where(value > 0, value, 1), 0)
    norm = 1.0 / (6.0 * jnp.where(spread > 0, spread, 1))
    hue = jnp.where(r == value, norm * (g - b),
                    jnp.where(g == value, norm * (b - r) + 2.0 / 6.0, norm * (r - g) + 4.0 / 6.0))
    hue = jnp.where(spread > 0, hue, 0)
    hue = jnp.where(hue < 0, hue + 1, hue)
    return jnp.stack([hue, saturation, value], axis=-1).astype(images.dtype)
