"""Deformable convolution (Dai et al. 2017; v2, Zhu et al. 2018) under MindSpore 2.10's names:
`ops.DeformableOffsets(strides, pads, ksize, dilations, data_format, deformable_groups, modulated)(x, offsets)`
and `ops.deformable_conv2d(x, weight, offsets, kernel_size, strides, padding, bias, dilations, groups,
deformable_groups, modulated)`.

DeformableOffsets samples, for every output position (oh, ow) and kernel tap (i, j), the input at
(oh * sh - pad_top + i * dh + dy, ow * sw - pad_left + j * dw + dx) bilinearly (corners outside the image read 0)
and multiplies it by the tap's mask; the result (N, C, oH * kh, oW * kw) holds each position's kh x kw patch, so a
(kh, kw)-strided valid `Conv2D` over it is the deformable convolution (MindSpore's own composition, which
`deformable_conv2d` follows). `offsets` is (N, 3 * deformable_groups * kh * kw, oH, oW) in the order
(offset_x, offset_y, mask), each block indexed `(g * kh + i) * kw + j`; channel group g of C / deformable_groups
channels reads block g. NCHW only and `modulated=True` only, as MindSpore 2.10. Differentiable w.r.t. x, the offsets
and the mask; the same eagerly and under `msx.jit`.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

from .api import Api, Attr, expose
from .functional_layers import bias_add
from .functional_nn import conv2d
from .primitive import apply, primitive


def _ints(op: str, what: str, n: int, unit_nc: bool = False):
    def convert(v):
        if not isinstance(v, (tuple, list)) or len(v) != n or not all(isinstance(x, int) and not isinstance(x, bool)
                                                                       for x in v):
            raise TypeError(f"{op}: {what} must be a tuple of {n} ints, got {v!r}")
        if unit_nc and (v[0] != 1 or v[1] != 1):
            raise ValueError(f"{op}: the N and C dimensions of {what} must be set to 1, got {tuple(v)}")
        return tuple(v)
    return convert


def _format(v) -> str:
    if v != "NCHW":
        raise ValueError(f"DeformableOffsets: data_format must be 'NCHW' (msx computes NCHW only), got {v!r}")
    return v


def _modulated(v) -> bool:
    if not isinstance(v, bool):
        raise TypeError(f"DeformableOffsets: modulated must be a bool, got {v!r}")
    if v is not True:
        raise ValueError("DeformableOffsets: modulated must be set to True (MindSpore 2.10 supports v2 only)")
    return v


def _groups(v) -> int:
    if not isinstance(v, int) or isinstance(v, bool) or v < 1:
        raise ValueError(f"DeformableOffsets: deformable_groups must be a positive int, got {v!r}")
    return v


def _out_size(x_shape, strides, pads, ksize, dilations) -> tuple[int, int]:
    h, w = x_shape[2:]
    oh = (h + pads[0] + pads[1] - (ksize[0] - 1) * dilations[2] - 1) // strides[2] + 1
    ow = (w + pads[2] + pads[3] - (ksize[1] - 1) * dilations[3] - 1) // strides[3] + 1
    return oh, ow


def _check(x, offsets, *, strides, pads, ksize, dilations, deformable_groups, **_) -> str | None:
    if len(x.shape) != 4:
        return f"x must be 4-d (N, C, H, W), got shape {tuple(x.shape)}"
    if x.dtype not in (jnp.float16, jnp.float32) or offsets.dtype != x.dtype:
        return f"x and offsets must both be float16 or float32 of one dtype, got {x.dtype} and {offsets.dtype}"
    if x.shape[1] % deformable_groups:
        return f"x's channels ({x.shape[1]}) must be divisible by deformable_groups ({deformable_groups})"
    oh, ow = _out_size(x.shape, strides, pads, ksize, dilations)
    if oh < 1 or ow < 1:
        return f"the kernel {tuple(ksize)} does not fit the padded input {tuple(x.shape[2:])} (pads {tuple(pads)})"
    want = (x.shape[0], 3 * deformable_groups * ksize[0] * ksize[1], oh, ow)
    if tuple(offsets.shape) != want:
        return f"offsets must have shape (N, 3 * deformable_groups * kh * kw, oH, oW) = {want}, got " \
               f"{tuple(offsets.shape)}"
    return None


def _bilinear(img, py, px):
    """img (C, H, W) at real positions py, px (...): bilinear, corners outside the image read 0 -> (C, ...)."""
    h, w = img.shape[1:]
    y0, x0 = jnp.floor(py), jnp.floor(px)
    wy, wx = py - y0, px - x0
    y0, x0 = y0.astype(jnp.int32), x0.astype(jnp.int32)

    def at(yy, xx):
        inside = (yy >= 0) & (yy < h) & (xx >= 0) & (xx < w)
        return jnp.where(inside, img[:, jnp.clip(yy, 0, h - 1), jnp.clip(xx, 0, w - 1)], 0)

    return (at(y0, x0) * ((1 - wy) * (1 - wx)) + at(y0, x0 + 1) * ((1 - wy) * wx)
            + at(y0 + 1, x0) * (wy * (1 - wx)) + at(y0 + 1, x0 + 1) * (wy * wx))


_INIT = ("strides", "pads", "ksize", "dilations", "data_format", "deformable_groups", "modulated")


@primitive("DeformableOffsets", attrs=_INIT, category="other", check=_check,
           api=Api(cls="DeformableOffsets", args=("x", "offsets"),
                   attrs=(Attr("strides", convert=_ints("DeformableOffsets", "strides", 4, True)),
                          Attr("pads", convert=_ints("DeformableOffsets", "pads", 4)),
                          Attr("ksize", convert=_ints("DeformableOffsets", "kernel_size", 2)),
                          Attr("dilations", (1, 1, 1, 1), _ints("DeformableOffsets", "dilations", 4, True)),
                          Attr("data_format", "NCHW", _format), Attr("deformable_groups", 1, _groups),
                          Attr("modulated", True, _modulated)),
                   init=_INIT))
def deformable_offsets(x, offsets, *, strides, pads, ksize, dilations=(1, 1, 1, 1), data_format="NCHW",
                       deformable_groups=1, modulated=True):
    """(N, C, H, W), offsets -> (N, C, oH * kh, oW * kw): each position's deformed, masked kh x kw patch."""
    reason = _check(x, offsets, strides=strides, pads=pads, ksize=ksize, dilations=dilations,
                    deformable_groups=deformable_groups)
    if reason is not None:
        raise (TypeError if "dtype" in reason else ValueError)(f"DeformableOffsets: {reason}")
    n, c, h, w = x.shape
    kh, kw = ksize
    dg = deformable_groups
    oh, ow = _out_size(x.shape, strides, pads, ksize, dilations)
    off = offsets.reshape(n, 3, dg, kh, kw, oh, ow)
    base_y = (jnp.arange(kh) * dilations[2])[:, None, None, None] + (jnp.arange(oh) * strides[2] - pads[0])[:, None]
    base_x = (jnp.arange(kw) * dilations[3])[:, None, None] + (jnp.arange(ow) * strides[3] - pads[2])
    py = base_y.astype(x.dtype) + off[:, 1]  # (n, dg, kh, kw, oh, ow)
    px = base_x.astype(x.dtype) + off[:, 0]
    groups = x.reshape(n, dg, c // dg, h, w)
    vals = jax.vmap(jax.vmap(_bilinear))(groups, py, px)  # (n, dg, c / dg, kh, kw, oh, ow)
    vals = vals * off[:, 2][:, :, None]
    vals = vals.reshape(n, c, kh, kw, oh, ow).transpose(0, 1, 4, 2, 5, 3)
    return vals.reshape(n, c, oh * kh, ow * kw).astype(x.dtype)


@expose(ops="deformable_conv2d", prim="DeformableOffsets")
def deformable_conv2d(x, weight, offsets, kernel_size, strides, padding, bias=None, dilations=(1, 1, 1, 1),
                      groups: int = 1, deformable_groups: int = 1, modulated: bool = True):
    """DeformableOffsets, then a (kh, kw)-strided valid Conv2D with `weight` (C_out, C_in / groups, kh, kw) and
    `groups`, then `bias` (C_out,) if given: MindSpore's composition."""
    attrs = {"strides": _ints("deformable_conv2d", "strides", 4, True)(strides),
             "pads": _ints("deformable_conv2d", "padding", 4)(padding),
             "ksize": _ints("deformable_conv2d", "kernel_size", 2)(kernel_size),
             "dilations": _ints("deformable_conv2d", "dilations", 4, True)(dilations), "data_format": "NCHW",
             "deformable_groups": _groups(deformable_groups), "modulated": _modulated(modulated)}
    patches = apply(deformable_offsets, (x, offsets), attrs)
    out = conv2d(patches, weight, None, tuple(attrs["ksize"]), "valid", 0, 1, groups)
    return out if bias is None else bias_add(out, bias)
