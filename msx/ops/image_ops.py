"""Image ops of MindSpore's `ops` inside a network: colour-space conversions (`RGBToHSV`, `HSVToRGB`), patches
(`ExtractImagePatches`, `nn.Unfold`'s op) and affine sampling grids (`ops.affine_grid` / `AffineGrid`), one primitive each.

`ops.RGBToHSV()(images)`: the last dim holds (R, G, B) in [0, 1]; the result holds (H, S, V), each in
[0, 1], TensorFlow's and MindSpore's formula (hue 0 for a grey pixel, saturation 0 for black). MindIR files
hold it as `RGBToHSV` on the image (`mindir=`).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

from .api import Api, Attr
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


def _raise_if(reason: str | None, kind: type) -> None:
    """The impl's own check (the registry words the error: op name, inputs, this reason)."""
    if reason is not None:
        raise kind(reason)


def _hsv_check(x) -> str | None:
    if len(x.shape) != 4 or x.shape[-1] != 3:
        return f"x must be 4-D (N, H, W, 3) with (H, S, V) in the last dimension, got shape {tuple(x.shape)}"
    if not jnp.issubdtype(x.dtype, jnp.floating):
        return f"x dtype must be float16, float32 or float64, got {x.dtype}"
    return None


@primitive("HSVToRGB", category="elementwise", check=_hsv_check, api=Api(cls="HSVToRGB", args=("x",)))
def hsv_to_rgb(x):
    """(H, S, V) in [0, 1] -> (R, G, B): TensorFlow's and MindSpore's formula, `RGBToHSV`'s inverse."""
    _raise_if(_hsv_check(x), ValueError)
    h, s, v = x[..., 0], x[..., 1], x[..., 2]
    dh = h * 6.0
    r = jnp.clip(jnp.abs(dh - 3.0) - 1.0, 0.0, 1.0)
    g = jnp.clip(2.0 - jnp.abs(dh - 2.0), 0.0, 1.0)
    b = jnp.clip(2.0 - jnp.abs(dh - 4.0), 0.0, 1.0)
    rgb = jnp.stack([r, g, b], axis=-1)
    return (((rgb - 1.0) * s[..., None] + 1.0) * v[..., None]).astype(x.dtype)


def _window4(name: str):
    """MindSpore's [1, h, w, 1] window attributes (`ksizes`, `strides`, `rates`) as (h, w)."""
    def convert(v):
        v = tuple(v) if isinstance(v, (tuple, list)) else (v,)
        if len(v) == 4 and v[0] == 1 and v[3] == 1:
            v = v[1:3]
        if len(v) != 2 or any(isinstance(i, bool) or not isinstance(i, int) or i < 1 for i in v):
            raise ValueError(f"ExtractImagePatches: {name} must be [1, h, w, 1] with positive ints, got {v}")
        return v
    return convert


def _padding_mode(v):
    if not isinstance(v, str) or v.upper() not in ("SAME", "VALID"):
        raise ValueError(f"ExtractImagePatches: padding must be 'same' or 'valid', got {v!r}")
    return v.upper()


@primitive("ExtractImagePatches", attrs=("ksizes", "strides", "rates", "padding"),
           api=Api(cls="ExtractImagePatches", args=("input_x",),
                   attrs=(Attr("ksizes", convert=_window4("ksizes")), Attr("strides", convert=_window4("strides")),
                          Attr("rates", convert=_window4("rates")), Attr("padding", "VALID", _padding_mode)),
                   init=("ksizes", "strides", "rates", "padding")))
def extract_image_patches(input_x, *, ksizes, strides, rates, padding="VALID"):
    """(N, C, H, W) -> (N, kh * kw * C, out_h, out_w): each output position holds its (dilated) window, ordered
    (row, column, channel) as TensorFlow's `extract_image_patches` (and MindSpore's `nn.Unfold`)."""
    if input_x.ndim != 4:
        raise ValueError(f"input_x must be 4-D (N, C, H, W), got shape {tuple(input_x.shape)}")
    n, c = input_x.shape[:2]
    patches = jax.lax.conv_general_dilated_patches(input_x, tuple(ksizes), tuple(strides), padding,
                                                   rhs_dilation=tuple(rates))  # channels ordered (c, kh, kw)
    oh, ow = patches.shape[2:]
    k = ksizes[0] * ksizes[1]
    return patches.reshape(n, c, k, oh, ow).transpose(0, 2, 1, 3, 4).reshape(n, k * c, oh, ow)


def _size(v):
    v = tuple(int(i) for i in (v.asnumpy().reshape(-1) if hasattr(v, "asnumpy") else v))
    if len(v) not in (4, 5) or min(v) < 1:
        raise ValueError(f"AffineGrid: size must be (N, C, H, W) or (N, C, D, H, W) of positive ints, got {v}")
    return v


def _affine_check(theta, *, size, align_corners) -> str | None:
    want = (size[0], 2, 3) if len(size) == 4 else (size[0], 3, 4)
    if tuple(theta.shape) != want:
        return f"theta must be {want} for size {tuple(size)}, got shape {tuple(theta.shape)}"
    return None


def _base(n: int, align_corners: bool, dtype):
    if align_corners:
        return jnp.linspace(-1.0, 1.0, n, dtype=dtype) if n > 1 else jnp.zeros((1,), dtype)
    return ((jnp.arange(n, dtype=dtype) * 2 + 1) / n - 1).astype(dtype)


@primitive("AffineGrid", attrs=("size", "align_corners"), check=_affine_check,
           api=(Api("affine_grid", args=("theta",), attrs=(Attr("size", convert=_size),
                                                         Attr("align_corners", False, bool))),
                Api(cls="AffineGrid", args=("theta",), attrs=(Attr("output_size", convert=_size, to="size"),
                                                              Attr("align_corners", False, bool)),
                    init=("align_corners",))))
def affine_grid(theta, *, size, align_corners=False):
    """The sampling grid of an affine map: (N, H, W, 2) from theta (N, 2, 3) for size (N, C, H, W), or
    (N, D, H, W, 3) from (N, 3, 4) for (N, C, D, H, W); coordinates in [-1, 1] (pixel centres, or corners
    with `align_corners`), then `grid = [x, y, (z,) 1] @ theta^T`, as `grid_sample` reads them."""
    _raise_if(_affine_check(theta, size=size, align_corners=align_corners), ValueError)
    spatial = size[2:]
    axes = [_base(d, align_corners, theta.dtype) for d in reversed(spatial)]  # x (width) first
    mesh = jnp.meshgrid(*axes, indexing="xy") if len(spatial) == 2 else \
        [m.transpose(2, 0, 1) for m in jnp.meshgrid(*axes, indexing="xy")]
    base = jnp.stack([*mesh, jnp.ones_like(mesh[0])], axis=-1)  # (*spatial, dims + 1)
    return jnp.einsum("...k,njk->n...j", base, theta)
