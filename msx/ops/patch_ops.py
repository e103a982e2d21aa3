"""Sliding-window patches: `ops.unfold` (im2col) and `ops.fold` (col2im), MindSpore's `Im2Col` / `Col2Im`.

`Im2Col(ksizes, strides, dilations, pads)(x)`: (N, C, H, W) -> (N, C, kh * kw, L), the (kh, kw) window at
each of the L output positions (row-major), zero padding `pads` on each side; it is one
`lax.conv_general_dilated_patches`. `ops.unfold(input, kernel_size, dilation, padding, stride)` is the
same with the middle dims merged, (N, C * kh * kw, L) (torch's layout). `Col2Im(kernel_size, dilation,
padding, stride)(x, output_size)` is its transpose: every patch value summed back into an
(N, C, *output_size) image (overlaps add), and `ops.fold` takes (N, C * kh * kw, L).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..tensor import Tensor
from .api import Api, Attr, expose
from .attr_converters import to_ints
from .primitive import apply, known_value, primitive


def _pair(v, what: str, op: str) -> tuple[int, int]:
    vals = to_ints(v, what)
    if len(vals) == 1:
        vals = vals * 2
    if len(vals) != 2 or min(vals) < 0:
        raise ValueError(f"{op}: {what} must be an int or a pair of non-negative ints, got {v!r}")
    return vals


def _check_positive(op: str, **pairs) -> None:
    for what, v in pairs.items():
        if min(v) <= 0:
            raise ValueError(f"{op}: {what} must be positive, got {v}")


def _patches(x, ksizes, strides, dilations, pads):
    n, c = x.shape[:2]
    p = lax.conv_general_dilated_patches(x, ksizes, strides, [(pads[0], pads[0]), (pads[1], pads[1])],
                                         rhs_dilation=dilations, dimension_numbers=("NCHW", "OIHW", "NCHW"),
                                         precision=lax.Precision.HIGHEST)
    return p.reshape(n, c, ksizes[0] * ksizes[1], -1)  # features are (C, kh, kw) channel-major


def _im2col_check(x, **_) -> str | None:
    if len(x.shape) != 4:
        return f"input must be 4-D (N, C, H, W), got shape {tuple(x.shape)}"
    if not jnp.issubdtype(x.dtype, jnp.floating):
        return f"input must be a float tensor, got {x.dtype}"
    return None


def _raise(reason: str | None) -> None:
    if reason is not None:
        raise ValueError(reason)


@primitive("Im2Col", attrs=("ksizes", "strides", "dilations", "pads"), category="other", check=_im2col_check,
           api=Api(cls="Im2Col", args=("x",),
                   attrs=(Attr("ksizes", convert=lambda v: _pair(v, "ksizes", "Im2Col")),
                          Attr("strides", 1, lambda v: _pair(v, "strides", "Im2Col")),
                          Attr("dilations", 1, lambda v: _pair(v, "dilations", "Im2Col")),
                          Attr("pads", 0, lambda v: _pair(v, "pads", "Im2Col"))),
                   init=("ksizes", "strides", "dilations", "pads")))
def im2col(x, *, ksizes, strides=(1, 1), dilations=(1, 1), pads=(0, 0)):
    """(N, C, H, W) -> (N, C, kh * kw, L): each window's values at each output position."""
    _raise(_im2col_check(x))
    _check_positive("Im2Col", ksizes=ksizes, strides=strides, dilations=dilations)
    return _patches(x, tuple(ksizes), tuple(strides), tuple(dilations), tuple(pads))


def _col2im_check(x, **attrs) -> str | None:
    if len(x.shape) != 4:
        return f"input must be 4-D (N, C, kh * kw, L), got shape {tuple(x.shape)}"
    if not jnp.issubdtype(x.dtype, jnp.floating):
        return f"input must be a float tensor, got {x.dtype}"
    k = attrs.get("kernel_size")
    if k is not None and x.shape[2] != k[0] * k[1]:
        return f"dim 2 of the input ({x.shape[2]}) must be kh * kw = {k[0] * k[1]}"
    return None


def _blocks(size, k, d, p, s) -> int:
    return (size + 2 * p - d * (k - 1) - 1) // s + 1


@primitive("Col2Im", attrs=("output_size", "kernel_size", "dilation", "padding", "stride"), category="other",
           check=_col2im_check,
           api=Api(cls="Col2Im", args=("x",),
                   attrs=(Attr("output_size", convert=lambda v: _pair(v, "output_size", "Col2Im")),
                          Attr("kernel_size", convert=lambda v: _pair(v, "kernel_size", "Col2Im")),
                          Attr("dilation", 1, lambda v: _pair(v, "dilation", "Col2Im")),
                          Attr("padding", 0, lambda v: _pair(v, "padding", "Col2Im")),
                          Attr("stride", 1, lambda v: _pair(v, "stride", "Col2Im"))),
                   init=("kernel_size", "dilation", "padding", "stride")))
def col2im(x, *, output_size, kernel_size, dilation=(1, 1), padding=(0, 0), stride=(1, 1)):
    """(N, C, kh * kw, L) -> (N, C, *output_size): the patches summed back where they came from."""
    _raise(_col2im_check(x, kernel_size=kernel_size))
    _check_positive("Col2Im", output_size=output_size, kernel_size=kernel_size, dilation=dilation, stride=stride)
    n, c = x.shape[:2]
    lh, lw = (_blocks(output_size[i], kernel_size[i], dilation[i], padding[i], stride[i]) for i in range(2))
    if x.shape[3] != lh * lw:
        raise ValueError(f"dim 3 of the input ({x.shape[3]}) must be the number of blocks {lh} * {lw} = "
                         f"{lh * lw} for output_size {tuple(output_size)}")
    image = jax.ShapeDtypeStruct((n, c) + tuple(output_size), x.dtype)
    unfold = jax.linear_transpose(lambda img: _patches(img, tuple(kernel_size), tuple(stride), tuple(dilation),
                                                       tuple(padding)), image)
    return unfold(x)[0]


@expose(ops="unfold", tensor="unfold", prim="Im2Col")
def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """(N, C, H, W) -> (N, C * kh * kw, L), MindSpore's (and torch's) `unfold`."""
    out = apply(im2col, (input,), {"ksizes": _pair(kernel_size, "kernel_size", "unfold"),
                                   "strides": _pair(stride, "stride", "unfold"),
                                   "dilations": _pair(dilation, "dilation", "unfold"),
                                   "pads": _pair(padding, "padding", "unfold")})
    n, c, k, length = out.shape
    return out.reshape(n, c * k, length)


@expose(ops="fold", tensor="fold", prim="Col2Im")
def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """(N, C * kh * kw, L) -> (N, C, *output_size), the sum of the sliding blocks (`unfold`'s transpose)."""
    k = _pair(kernel_size, "kernel_size", "fold")
    if len(input.shape) != 3 or input.shape[1] % (k[0] * k[1]):
        raise ValueError(f"fold: input must be 3-D (N, C * kh * kw, L) with dim 1 a multiple of kh * kw = "
                         f"{k[0] * k[1]}, got shape {tuple(input.shape)}")
    n, ck, length = input.shape
    x = input.reshape(n, ck // (k[0] * k[1]), k[0] * k[1], length)
    return apply(col2im, (x,), {"output_size": _pair(output_size, "output_size", "fold"), "kernel_size": k,
                                "dilation": _pair(dilation, "dilation", "fold"),
                                "padding": _pair(padding, "padding", "fold"), "stride": _pair(stride, "stride", "fold")})


@expose(ops="col2im", tensor="col2im", prim="Col2Im")
def col2im_blocks(input_x, output_size, kernel_size, dilation, padding_value, stride):
    """MindSpore's `ops.col2im`: (N, C, kh * kw, L) blocks -> (N, C, *output_size) summed images. `output_size`
    (a tuple or a 2-element int Tensor) must be known when the call is captured: it shapes the result."""
    size = known_value(output_size) if isinstance(output_size, Tensor) else output_size
    if isinstance(size, jax.ShapeDtypeStruct):
        raise ValueError("col2im: output_size must be a constant (a tuple, or a Tensor known when the graph is "
                         "built): it is the result's shape")
    size = tuple(int(v) for v in np.asarray(size).reshape(-1))
    return apply(col2im, (input_x,), {"output_size": _pair(size, "output_size", "col2im"),
                                           "kernel_size": _pair(kernel_size, "kernel_size", "col2im"),
                                           "dilation": _pair(dilation, "dilation", "col2im"),
                                           "padding": _pair(padding_value, "padding_value", "col2im"),
                                           "stride": _pair(stride, "stride", "col2im")})
