"""Primitives the `nn` layers need beyond the core set: padding modes, transposed convolution, resizing
(`interpolate`). The N-d convolution and 3-d pools (`Conv3D`, `MaxPool3D`, `AvgPool3D`) are declared beside
their functional wrappers in `functional_layers.py`.

Each is one registry entry (ARCHITECTURE rule 1) whose jax implementation is
its meaning; layers and the functional `interpolate` call them through
`apply`, so eager, capture and emission all see one node per call.
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax

from .api import expose
from .primitive import apply, primitive

_PAD_MODES = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "edge": "edge",
              "circular": "wrap", "symmetric": "symmetric"}


@primitive("PadV3", attrs=("paddings", "mode", "value"), category="shape",
           internal=("the padding kernel of the hand-written classes ops.PadV3, ops.SpaceToBatchND and other padding "
                     "classes (layer_classes.py, array_classes.py)"))
def pad_v3(x, *, paddings, mode="constant", value=0.0):
    """`paddings`: ((before, after), ...) for every dim; mode constant | reflect | replicate | circular |
    symmetric (MindSpore's PadV3 / MirrorPad)."""
    if mode == "constant":
        return jnp.pad(x, paddings, constant_values=value)
    return jnp.pad(x, paddings, mode=_PAD_MODES[mode])


def _dims(n: int) -> tuple[str, str, str]:
    sp = "DHW"[3 - n:] if n <= 3 else None
    return ("NC" + sp, "OI" + sp, "NC" + sp)


def _transpose_impl(x, w, b, stride, crop, dilation, groups, output_padding):
    """Transposed conv = gradient of conv wrt its input: dilate the input by `stride`, pad by d*(k-1), convolve
    with the flipped kernel whose in/out axes are swapped; then crop (lo, hi) per dim and add output_padding."""
    n = len(stride)
    cin = w.shape[0]
    k = w.shape[2:]
    cout_g = w.shape[1]
    # weight (Cin, Cout/g, *k) -> (Cout, Cin/g, *k), flipped spatially
    wg = w.reshape((groups, cin // groups, cout_g) + k)
    wg = jnp.swapaxes(wg, 1, 2).reshape((groups * cout_g, cin // groups) + k)
    wg = jnp.flip(wg, axis=tuple(range(2, 2 + n)))
    pads = []
    for i in range(n):
        full = dilation[i] * (k[i] - 1)
        lo, hi = crop[i]
        pads.append((full - lo, full - hi + output_padding[i]))
    y = lax.conv_general_dilated(x, wg.astype(x.dtype), window_strides=(1,) * n, padding=pads, lhs_dilation=stride,
                                 rhs_dilation=dilation, dimension_numbers=_dims(n), feature_group_count=groups)
    return y if b is None else y + b.reshape((1, -1) + (1,) * n)


def _transpose_check(x, w, *b, stride, **_) -> str | None:
    n = len(stride)
    if len(x.shape) != n + 2 or len(w.shape) != n + 2:
        return f"input and weight must be {n + 2}-D, got shapes {tuple(x.shape)} and {tuple(w.shape)}"
    return None


@primitive("Conv2DTranspose", attrs=("stride", "crop", "dilation", "groups", "output_padding"), category="conv",
           check=_transpose_check,
           internal=("run by the hand-written class ops.Conv2DBackpropInput, nn.Conv2dTranspose and mint's "
                     "conv_transpose2d, which convert their own arguments"))
def conv2d_transpose(x, w, b=None, *, stride, crop, dilation, groups=1, output_padding=(0, 0)):
    """2-d transposed convolution, weight (Cin, Cout/groups, kH, kW); `crop` ((top, bottom), (left, right)) is
    taken off the full output (MindSpore's `pad`)."""
    return _transpose_impl(x, w, b, stride, crop, dilation, groups, output_padding)


@primitive("Conv3DTranspose", attrs=("stride", "crop", "dilation", "groups", "output_padding"), category="conv",
           check=_transpose_check,
           internal=("run by the hand-written class ops.Conv3DTranspose and nn.Conv3dTranspose, which convert their "
                     "own arguments"))
def conv3d_transpose(x, w, b=None, *, stride, crop, dilation, groups=1, output_padding=(0, 0, 0)):
    """3-d transposed convolution, weight (Cin, Cout/groups, kD, kH, kW)."""
    return _transpose_impl(x, w, b, stride, crop, dilation, groups, output_padding)


# ---------------------------------------------------------------- resizing
def _linear_weights(n_in: int, n_out: int, align_corners: bool, scale: float | None):
    """(lo index, hi index, hi weight) per output position, MindSpore's/torch's source-coordinate rule."""
    out = np.arange(n_out, dtype=np.float64)
    if align_corners:
        src = out * ((n_in - 1) / (n_out - 1)) if n_out > 1 else np.zeros(n_out)
    else:
        ratio = (1.0 / scale) if scale else n_in / n_out
        src = np.maximum((out + 0.5) * ratio - 0.5, 0.0)
    lo = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
    hi = np.minimum(lo + 1, n_in - 1)
    return lo, hi, (src - lo).astype(np.float32)


def _cubic_weights(t, a):
    def near(d):
        return ((a + 2) * d - (a + 3)) * d * d + 1

    def far(d):
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a

    return np.stack([far(t + 1), near(t), near(1 - t), far(2 - t)], -1).astype(np.float32)


@primitive("Interpolate", attrs=("sizes", "mode", "align_corners", "scales"), category="shape")
def interpolate_impl(x, *, sizes, mode="nearest", align_corners=False, scales=None):
    """Resize the trailing len(sizes) dims of an NC... tensor to `sizes` (MindSpore's `ops.interpolate`):
    nearest (floor of the scaled index), nearest-exact, (bi/tri)linear, bicubic, area."""
    n = len(sizes)
    scales = scales or (None,) * n
    for i, (n_out, scale) in enumerate(zip(sizes, scales)):
        axis = x.ndim - n + i
        n_in = x.shape[axis]
        if mode in ("nearest", "nearest-exact"):
            ratio = (1.0 / scale) if scale else n_in / n_out
            pos = np.arange(n_out, dtype=np.float64)
            src = np.floor((pos + 0.5) * ratio) if mode == "nearest-exact" else np.floor(pos * ratio)
            x = jnp.take(x, np.minimum(src.astype(np.int64), n_in - 1), axis=axis)
        elif mode == "area":
            starts = (np.arange(n_out) * n_in) // n_out
            ends = -((-(np.arange(n_out) + 1) * n_in) // n_out)
            cols = [jnp.mean(lax.slice_in_dim(x, int(s), int(e), axis=axis), axis=axis, keepdims=True)
                    for s, e in zip(starts, ends)]
            x = jnp.concatenate(cols, axis=axis)
        elif mode == "bicubic":
            # MindSpore: align_corners=True is torch's (a=-0.75, border taps clamped); half-pixel is TF's
            # ResizeBicubic (a=-0.5, taps outside the input dropped and the rest renormalised)
            out = np.arange(n_out, dtype=np.float64)
            if align_corners:
                src = out * ((n_in - 1) / (n_out - 1)) if n_out > 1 else np.zeros(n_out)
            else:
                ratio = (1.0 / scale) if scale else n_in / n_out
                src = (out + 0.5) * ratio - 0.5
            base = np.floor(src).astype(np.int64)
            w = _cubic_weights(src - base, -0.75 if align_corners else -0.5)
            taps = base[:, None] - 1 + np.arange(4)[None, :]
            if not align_corners:
                w = np.where((taps >= 0) & (taps < n_in), w, 0.0)
                w = (w / w.sum(1, keepdims=True)).astype(np.float32)
            shape = [1] * x.ndim
            shape[axis] = n_out
            acc = 0.0
            for j in range(4):
                idx = np.clip(taps[:, j], 0, n_in - 1)
                acc = acc + jnp.take(x, idx, axis=axis) * jnp.asarray(w[:, j].reshape(shape), x.dtype)
            x = acc
        else:
            lo, hi, frac = _linear_weights(n_in, n_out, align_corners, scale)
            shape = [1] * x.ndim
            shape[axis] = n_out
            f = jnp.asarray(frac.reshape(shape), x.dtype)
            x = jnp.take(x, lo, axis=axis) * (1 - f) + jnp.take(x, hi, axis=axis) * f
    return x


_MODE_RANK = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}


@expose(ops="interpolate", prim="Interpolate")
def interpolate(input, size=None, scale_factor=None, mode: str = "nearest", align_corners=None,
                recompute_scale_factor=None):
    """MindSpore's `ops.interpolate`: resize the spatial dims of an (N, C, *spatial) tensor to `size`, or by
    `scale_factor` (output = floor(input * scale)); `align_corners` only for the linear and cubic modes."""
    modes = ("nearest", "nearest-exact", "linear", "bilinear", "bicubic", "trilinear", "area")
    if mode not in modes:
        raise ValueError(f"interpolate: mode must be one of {modes}, got {mode!r}")
    n = input.ndim - 2
    if n < 1:
        raise ValueError(f"interpolate: input must be at least 3-D (N, C, ...), got shape {tuple(input.shape)}")
    if mode in _MODE_RANK and input.ndim != _MODE_RANK[mode]:
        raise ValueError(f"interpolate: mode {mode!r} needs a {_MODE_RANK[mode]}-D input, got shape "
                         f"{tuple(input.shape)}")
    if align_corners is not None and mode not in ("linear", "bilinear", "bicubic", "trilinear"):
        raise ValueError(f"interpolate: align_corners is only valid for the linear/cubic modes, not {mode!r}")
    if (size is None) == (scale_factor is None):
        raise ValueError("interpolate: give exactly one of size and scale_factor")
    scales = None
    if size is not None:
        sizes = (int(size),) * n if isinstance(size, (int, np.integer)) else tuple(int(s) for s in size)
    else:
        factors = (float(scale_factor),) * n if isinstance(scale_factor, (int, float)) else tuple(
            float(s) for s in scale_factor)
        if len(factors) != n:
            raise ValueError(f"interpolate: scale_factor needs {n} values for a {input.ndim}-D input, got {factors}")
        sizes = tuple(int(np.floor(d * f)) for d, f in zip(input.shape[2:], factors))
        scales = None if recompute_scale_factor else factors
    if len(sizes) != n or min(sizes) < 1:
        raise ValueError(f"interpolate: size must give {n} positive sizes, got {size!r}")
    return apply(interpolate_impl, (input,), {"sizes": sizes, "mode": mode, "align_corners": bool(align_corners),
                                              "scales": scales})
