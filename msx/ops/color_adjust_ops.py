"""`ops.AdjustHue()(image, delta)` and `ops.AdjustSaturation()(image, scale)`: TensorFlow's CPU kernels, which
MindSpore 2.10's follow, one primitive each.

The image has at least 3 dims, the last holding (R, G, B); `delta` / `scale` is a 0-d float32 Tensor (a traced
value under jit is fine: it does not change the shape). AdjustHue works in the hexagonal hue range [0, 6): it
finds the pixel's (hue, min, max), adds `delta * 6`, wraps the hue into [0, 6) and rebuilds the colour from the
same min and max. AdjustSaturation goes through (H, S, V), multiplies S by `scale` clamped to [0, 1] and converts
back. Both compute in float32 (float64 for a float64 image) and return the image's dtype.
"""
from __future__ import annotations

import jax.numpy as jnp

from .api import Api
from .primitive import primitive


def _check(op: str, what: str):
    def check(image, factor) -> str | None:
        if len(image.shape) < 3 or image.shape[-1] != 3:
            return (f"image must have at least 3 dims, the last holding (R, G, B) (3), got shape "
                    f"{tuple(image.shape)}")
        if image.dtype not in (jnp.float16, jnp.float32, jnp.float64):
            return f"image dtype must be float16, float32 or float64, got {jnp.dtype(image.dtype).name}"
        if len(factor.shape) != 0:
            return f"{what} must be a 0-d Tensor, got shape {tuple(factor.shape)}"
        if factor.dtype != jnp.float32:
            return f"{what} dtype must be float32, got {jnp.dtype(factor.dtype).name}"
        return None
    return check


def _fail(op: str, reason: str | None) -> None:
    if reason is not None:
        raise (TypeError if "dtype" in reason else ValueError)(f"{op}: {reason}")


def _work(image):
    return image.astype(jnp.float64 if image.dtype == jnp.float64 else jnp.float32)


def _select(cat, options):
    """options[cat] per pixel, `cat` an int array in [0, 6) (anything else takes the last option)."""
    out = options[-1]
    for i in range(len(options) - 2, -1, -1):
        out = jnp.where(cat == i, options[i], out)
    return out


_HUE_CHECK = _check("AdjustHue", "delta")


@primitive("AdjustHue", category="elementwise", check=_HUE_CHECK, api=Api(cls="AdjustHue", args=("image", "delta")))
def adjust_hue(image, delta):
    """Each pixel's hue moved by `delta` (a fraction of the colour circle), its min and max kept."""
    _fail("AdjustHue", _HUE_CHECK(image, delta))
    x = _work(image)
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    # the hue category (0..5) of TensorFlow's rgb_to_hv_range: which channel is max, mid and min
    r_lt_g = r < g
    cat = jnp.where(r_lt_g, jnp.where(b < r, 1, jnp.where(b > g, 3, 2)),
                    jnp.where(b < g, 0, jnp.where(b > r, 4, 5)))
    v_max = _select(cat, [r, g, g, b, b, r])
    v_mid = _select(cat, [g, r, b, g, r, b])
    v_min = _select(cat, [b, b, r, r, g, g])
    spread = v_max - v_min
    ratio = (v_mid - v_min) / jnp.where(spread == 0, 1, spread)
    h = jnp.where(cat % 2 == 0, cat + ratio, cat + 1 - ratio)
    h = jnp.where(spread == 0, 0, h).astype(x.dtype) + delta.astype(x.dtype) * 6
    h = h - jnp.floor(h / 6) * 6
    h = jnp.where(h >= 6, h - 6, h)
    hc = jnp.floor(h).astype(jnp.int32)
    frac = h - hc
    frac = jnp.where(hc % 2 == 0, frac, 1 - frac)
    mid = v_min + frac * spread
    rgb = [_select(hc, opts) for opts in ([v_max, mid, v_min, v_min, mid, v_max],
                                          [mid, v_max, v_max, mid, v_min, v_min],
                                          [v_min, v_min, mid, v_max, v_max, mid])]
    return jnp.stack(rgb, axis=-1).astype(image.dtype)


_SAT_CHECK = _check("AdjustSaturation", "scale")


@primitive("AdjustSaturation", category="elementwise", check=_SAT_CHECK,
           api=Api(cls="AdjustSaturation", args=("image", "scale")))
def adjust_saturation(image, scale):
    """Each pixel's HSV saturation multiplied by `scale` and clamped to [0, 1]."""
    _fail("AdjustSaturation", _SAT_CHECK(image, scale))
    x = _work(image)
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    v = jnp.max(x, axis=-1)
    spread = v - jnp.min(x, axis=-1)
    s = jnp.where(v > 0, spread / jnp.where(v > 0, v, 1), 0)
    norm = 1 / (6 * jnp.where(spread > 0, spread, 1))
    h = jnp.where(r == v, norm * (g - b), jnp.where(g == v, norm * (b - r) + 2 / 6, norm * (r - g) + 4 / 6))
    h = jnp.where(spread > 0, h, 0)
    h = jnp.where(h < 0, h + 1, h)
    s = jnp.clip(s * scale.astype(x.dtype), 0, 1)
    c = s * v
    m = v - c
    dh = h * 6
    cat = jnp.floor(dh).astype(jnp.int32)
    fmodu = dh - jnp.floor(dh / 2) * 2
    xx = c * (1 - jnp.abs(fmodu - 1))
    zero = jnp.zeros_like(c)
    rgb = [_select(cat, opts + [zero]) + m for opts in ([c, xx, zero, zero, xx, c], [xx, c, c, xx, zero, zero],
                                                         [zero, zero, xx, c, c, xx])]
    return jnp.stack(rgb, axis=-1).astype(image.dtype)
