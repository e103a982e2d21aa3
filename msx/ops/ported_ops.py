"""More of MindSpore 2.10's `ops` that model-zoo and tutorial code calls (issue 32): each a primitive with its
public spellings, or an `expose` wrapper over existing ops where the argument logic needs Python.

`ops.padding` / `ops.Padding` (zero-extend a last dim of 1), `ops.HSVToRGB` (the inverse of `RGBToHSV`),
`ops.view_as_real` (complex -> (..., 2) floats), `ops.affine_grid` / `ops.AffineGrid`, `ops.ExtractImagePatches` (`nn.Unfold`'s op), the functional in-place ops (`ops.clamp_`, `ops.tanh_`, ...: the
Tensor in-place methods, called as functions), `ops.accumulate_n` / `ops.AccumulateNV2` (the sum of a
list, as `addn`), `ops.bidense` (the bilinear form of `nn.BiDense`), `ops.swiglu`, `ops.clip_by_norm`.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

from .api import Api, Attr, expose
from .primitive import apply, primitive
from . import functional as F


def _raise_if(reason: str | None, kind: type) -> None:
    """The impl's own check (the registry words the error: op name, inputs, this reason)."""
    if reason is not None:
        raise kind(reason)


def _padding_check(x, *, pad_dim_size) -> str | None:
    if len(x.shape) < 1 or x.shape[-1] != 1:
        return f"the last dimension of x must be 1, got shape {tuple(x.shape)}"
    if pad_dim_size < 1:
        return f"pad_dim_size must be a positive int, got {pad_dim_size}"
    return None


def _positive_int(v):
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"Padding: pad_dim_size must be an int, got {type(v).__name__}")
    return v


@primitive("Padding", attrs=("pad_dim_size",), check=_padding_check,
           api=Api(("padding",), args=("x",), attrs=(Attr("pad_dim_size", 8, _positive_int),), cls="Padding",
                   init=("pad_dim_size",)))
def padding(x, *, pad_dim_size=8):
    """x (..., 1) -> (..., pad_dim_size): x's value first, zeros after (MindSpore's `Padding`)."""
    _raise_if(_padding_check(x, pad_dim_size=pad_dim_size), ValueError)
    zeros = jnp.zeros(x.shape[:-1] + (pad_dim_size - 1,), x.dtype)
    return jnp.concatenate([x, zeros], axis=-1)


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


def _complex_check(x) -> str | None:
    if not jnp.issubdtype(x.dtype, jnp.complexfloating):
        return f"input dtype must be complex64 or complex128, got {x.dtype}"
    return None


@primitive("ViewAsReal", check=_complex_check, api=Api("view_as_real", args=("input",)))
def view_as_real(input):
    """complex (...) -> real (..., 2): the real part, then the imaginary part."""
    _raise_if(_complex_check(input), TypeError)
    return jnp.stack([jnp.real(input), jnp.imag(input)], axis=-1)


@expose(ops="accumulate_n", cls="AccumulateNV2", prim="AddN")
def accumulate_n(x):
    """The elementwise sum of a tuple/list of tensors of one shape (MindSpore's `AccumulateNV2`, as `addn`)."""
    return F.addn(x)


@expose(ops="bidense")
def bidense(input1, input2, weight, bias=None):
    """y[..., o] = sum_ij input1[..., i] * weight[o, i, j] * input2[..., j] (+ bias[o]): `nn.BiDense`'s form."""
    if len(weight.shape) != 3 or input1.shape[-1] != weight.shape[1] or input2.shape[-1] != weight.shape[2]:
        raise ValueError(f"bidense: weight must be (out, in1, in2) matching the inputs' last dims, got input1 "
                         f"{tuple(input1.shape)}, input2 {tuple(input2.shape)}, weight {tuple(weight.shape)}")
    y = F.einsum("...i,oij,...j->...o", input1, weight, input2)
    return y if bias is None else F.add(y, bias)


@expose(ops="swiglu")
def swiglu(input, dim=-1):
    """SwiGLU: input split in two halves along `dim`, `silu(a) * b`."""
    if input.shape[dim] % 2:
        raise ValueError(f"swiglu: dimension {dim} of input must be even, got shape {tuple(input.shape)}")
    a, b = F.split(input, input.shape[dim] // 2, dim)
    return F.mul(F.silu(a), b)


@expose(ops="clip_by_norm")
def clip_by_norm(x, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Scale `x` (a tensor, or a tuple/list of them taken together) so that its `norm_type` norm is at most
    `max_norm`: coefficient `max_norm / (total_norm + 1e-6)`, clamped to 1 (MindSpore's formula)."""
    tensors = list(x) if isinstance(x, (tuple, list)) else [x]
    norm_type = float(norm_type)
    norms = [F.norm(F.reshape(t, (-1,)), norm_type) for t in tensors]
    total = F.norm(F.stack(norms), norm_type) if len(norms) > 1 else norms[0]
    if error_if_nonfinite and not bool(F.isfinite(total).asnumpy()):
        raise RuntimeError(f"clip_by_norm: the total norm of order {norm_type} is non-finite, so it cannot be "
                           f"clipped; pass error_if_nonfinite=False to clip anyway")
    coef = F.clamp(F.div(max_norm, F.add(total, 1e-6)), None, 1.0)
    out = [F.mul(t, F.cast(coef, t.dtype)) for t in tensors]
    return type(x)(out) if isinstance(x, (tuple, list)) else out[0]


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


# MindSpore's functional in-place ops: `ops.clamp_(x, 0, 1)` writes x and returns it, as the Tensor method does
@expose(ops="clamp_")
def clamp_(input, min=None, max=None):
    return input.clamp_(min, max)


@expose(ops="erfinv_")
def erfinv_(input):
    return input.erfinv_()


@expose(ops="tanh_")
def tanh_(input):
    return input.tanh_()


@expose(ops="inplace_sigmoid")
def inplace_sigmoid(input):
    return input.sigmoid_()


@expose(ops="zero_")
def zero_(input):
    return input.zero_()


@expose(ops="put_")
def put_(input, index, source, accumulate=False):
    return input.put_(index, source, accumulate)


__all__ = ["affine_grid", "extract_image_patches", "clamp_", "erfinv_", "tanh_", "inplace_sigmoid", "zero_", "put_", "padding", "hsv_to_rgb", "view_as_real", "accumulate_n", "bidense", "swiglu", "clip_by_norm"]
