"""`ops.grid_sample` / `mint.nn.functional.grid_sample` / `ops.GridSampler2D` (spatial transformers, deformable
heads, optical-flow warps): sample an (N, C, H, W) input at the normalised (x, y) in [-1, 1] of an
(N, H_out, W_out, 2) grid.

`interpolation_mode` 'bilinear' or 'nearest' (round half to even); `padding_mode` 'zeros' (outside samples are
0), 'border' (clamped) or 'reflection' (mirrored at the borders); `align_corners` True maps -1/1 to the
centres of the corner pixels, False to their outer edges. The formula is MindSpore's (torch's).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

from .api import Api, Attr, expose
from .primitive import apply, primitive

_MODES = ("bilinear", "nearest")
_PADS = ("zeros", "border", "reflection")


def _check(x, grid, **_) -> str | None:
    if len(x.shape) != 4:
        return (f"input must be 4-D (N, C, H, W), got shape {tuple(x.shape)} (5-D volumetric sampling is not "
                f"supported by msx yet)")
    if len(grid.shape) != 4 or grid.shape[-1] != 2:
        return f"grid must be (N, H_out, W_out, 2), got shape {tuple(grid.shape)}"
    if x.shape[0] != grid.shape[0]:
        return f"input and grid must have the same batch size: {x.shape[0]} != {grid.shape[0]}"
    for what, t in (("input", x), ("grid", grid)):
        if not jnp.issubdtype(t.dtype, jnp.floating):
            return f"{what} must be float16, float32 or float64, got {t.dtype}"
    return None


def _reflect(c, lo2, hi2):
    if lo2 == hi2:
        return jnp.zeros_like(c)
    low, span = lo2 / 2, (hi2 - lo2) / 2
    c = jnp.abs(c - low)
    extra = jnp.fmod(c, span)
    flips = jnp.floor(c / span)
    return jnp.where(jnp.fmod(flips, 2) == 0, extra + low, span - extra + low)


def _source(g, size: int, padding_mode: str, align_corners: bool):
    c = (g + 1) / 2 * (size - 1) if align_corners else ((g + 1) * size - 1) / 2
    if padding_mode == "border":
        c = jnp.clip(c, 0, size - 1)
    elif padding_mode == "reflection":
        c = _reflect(c, 0, 2 * (size - 1)) if align_corners else _reflect(c, -1, 2 * size - 1)
        c = jnp.clip(c, 0, size - 1)
    return c


def _gather(img, iy, ix):
    """img (C, H, W), integer iy/ix (H_out, W_out): values there, 0 outside."""
    h, w = img.shape[1:]
    inside = (iy >= 0) & (iy < h) & (ix >= 0) & (ix < w)
    vals = img[:, jnp.clip(iy, 0, h - 1), jnp.clip(ix, 0, w - 1)]
    return jnp.where(inside, vals, 0)


@primitive("GridSampler2D", attrs=("interpolation_mode", "padding_mode", "align_corners"), category="other",
           check=_check,
           api=Api(cls="GridSampler2D", args=("input_x", "grid"),
                   attrs=(Attr("interpolation_mode", "bilinear"), Attr("padding_mode", "zeros"),
                          Attr("align_corners", False, bool)),
                   init=("interpolation_mode", "padding_mode", "align_corners")))
def grid_sampler_2d(x, grid, *, interpolation_mode="bilinear", padding_mode="zeros", align_corners=False):
    """(N, C, H, W) sampled at grid (N, H_out, W_out, 2) -> (N, C, H_out, W_out)."""
    reason = _check(x, grid)
    if reason is None and interpolation_mode not in _MODES:
        reason = f"interpolation_mode must be one of {_MODES}, got {interpolation_mode!r}"
    if reason is None and padding_mode not in _PADS:
        reason = f"padding_mode must be one of {_PADS}, got {padding_mode!r}"
    if reason is not None:
        raise ValueError(reason)
    h, w = x.shape[2:]
    grid = grid.astype(x.dtype)
    cx = _source(grid[..., 0], w, padding_mode, align_corners)
    cy = _source(grid[..., 1], h, padding_mode, align_corners)

    def one(img, cx, cy):
        if interpolation_mode == "nearest":
            return _gather(img, jnp.round(cy).astype(jnp.int32), jnp.round(cx).astype(jnp.int32))
        x0, y0 = jnp.floor(cx), jnp.floor(cy)
        wx, wy = cx - x0, cy - y0
        x0i, y0i = x0.astype(jnp.int32), y0.astype(jnp.int32)
        return (_gather(img, y0i, x0i) * ((1 - wx) * (1 - wy)) + _gather(img, y0i, x0i + 1) * (wx * (1 - wy))
                + _gather(img, y0i + 1, x0i) * ((1 - wx) * wy) + _gather(img, y0i + 1, x0i + 1) * (wx * wy))

    return jax.vmap(one)(x, cx, cy).astype(x.dtype)


@expose(ops="grid_sample", mintf="grid_sample", prim="GridSampler2D")
def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """MindSpore's `ops.grid_sample` (4-D input): `align_corners=None` means False."""
    return apply(grid_sampler_2d, (input, grid), {"interpolation_mode": mode, "padding_mode": padding_mode,
                                                  "align_corners": bool(align_corners)})
