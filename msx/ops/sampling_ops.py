"""`ops.grid_sample` / `mint.nn.functional.grid_sample` / `ops.GridSampler2D` / `ops.GridSampler3D` (spatial
transformers, deformable heads, optical-flow warps): sample an (N, C, H, W) input at the normalised (x, y) in
[-1, 1] of an (N, H_out, W_out, 2) grid, or an (N, C, D, H, W) input at the (x, y, z) of an
(N, D_out, H_out, W_out, 3) grid (trilinear: the 8 corners; `ops.grid_sample` takes either).

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
        return f"input must be 4-D (N, C, H, W), got shape {tuple(x.shape)} (GridSampler3D takes 5-D)"
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


def _refuse(reason: str | None, interpolation_mode: str, padding_mode: str) -> None:
    """Raise the shape check's `reason`, or the first mode that is not one of MindSpore's."""
    if reason is None and interpolation_mode not in _MODES:
        reason = f"interpolation_mode must be one of {_MODES}, got {interpolation_mode!r}"
    if reason is None and padding_mode not in _PADS:
        reason = f"padding_mode must be one of {_PADS}, got {padding_mode!r}"
    if reason is not None:
        raise ValueError(reason)


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
    _refuse(_check(x, grid), interpolation_mode, padding_mode)
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


def _check3(x, grid, **_) -> str | None:
    if len(x.shape) != 5:
        return f"input_x must be 5-D (N, C, D, H, W), got shape {tuple(x.shape)}"
    if len(grid.shape) != 5 or grid.shape[-1] != 3:
        return f"grid must be (N, D_out, H_out, W_out, 3), got shape {tuple(grid.shape)}"
    if x.shape[0] != grid.shape[0]:
        return f"input_x and grid must have the same batch size: {x.shape[0]} != {grid.shape[0]}"
    if x.dtype not in (jnp.float16, jnp.float32, jnp.float64) or grid.dtype != x.dtype:
        return f"input_x and grid must both be float16, float32 or float64 of one dtype, got {x.dtype}, {grid.dtype}"
    return None


def _gather3(vol, iz, iy, ix):
    """vol (C, D, H, W), integer iz/iy/ix (D_out, H_out, W_out): values there, 0 outside."""
    d, h, w = vol.shape[1:]
    inside = (iz >= 0) & (iz < d) & (iy >= 0) & (iy < h) & (ix >= 0) & (ix < w)
    vals = vol[:, jnp.clip(iz, 0, d - 1), jnp.clip(iy, 0, h - 1), jnp.clip(ix, 0, w - 1)]
    return jnp.where(inside, vals, 0)


@primitive("GridSampler3D", attrs=("interpolation_mode", "padding_mode", "align_corners"), category="other",
           check=_check3,
           api=Api(cls="GridSampler3D", args=("input_x", "grid"),
                   attrs=(Attr("interpolation_mode", "bilinear"), Attr("padding_mode", "zeros"),
                          Attr("align_corners", False, bool)),
                   init=("interpolation_mode", "padding_mode", "align_corners")))
def grid_sampler_3d(x, grid, *, interpolation_mode="bilinear", padding_mode="zeros", align_corners=False):
    """(N, C, D, H, W) sampled at grid (N, D_out, H_out, W_out, 3) of (x, y, z) -> (N, C, D_out, H_out, W_out)."""
    _refuse(_check3(x, grid), interpolation_mode, padding_mode)
    d, h, w = x.shape[2:]
    cx = _source(grid[..., 0], w, padding_mode, align_corners)
    cy = _source(grid[..., 1], h, padding_mode, align_corners)
    cz = _source(grid[..., 2], d, padding_mode, align_corners)

    def one(vol, cz, cy, cx):
        if interpolation_mode == "nearest":
            return _gather3(vol, *(jnp.round(c).astype(jnp.int32) for c in (cz, cy, cx)))
        lo = [jnp.floor(c) for c in (cz, cy, cx)]
        frac = [c - f for c, f in zip((cz, cy, cx), lo)]
        lo = [f.astype(jnp.int32) for f in lo]
        out = 0
        for corner in range(8):
            bits = [(corner >> (2 - k)) & 1 for k in range(3)]
            weight = 1
            for b, f in zip(bits, frac):
                weight = weight * (f if b else 1 - f)
            out = out + _gather3(vol, *(i + b for i, b in zip(lo, bits))) * weight
        return out

    return jax.vmap(one)(x, cz, cy, cx).astype(x.dtype)


@expose(ops="grid_sample", mintf="grid_sample", prim="GridSampler2D")
def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """MindSpore's `ops.grid_sample`: a 4-D input through `GridSampler2D`, a 5-D one through `GridSampler3D`;
    `align_corners=None` means False."""
    attrs = {"interpolation_mode": mode, "padding_mode": padding_mode, "align_corners": bool(align_corners)}
    if input.ndim == 5:
        return apply(grid_sampler_3d, (input, grid), attrs)
    return apply(grid_sampler_2d, (input, grid), attrs)
