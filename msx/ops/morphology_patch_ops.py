"""`ops.ExtractVolumePatches(kernel_size, strides, padding)(x)` and `ops.Dilation2D(stride, dilation, pad_mode)(x,
filter)`: sliding windows over NCDHW / NCHW read with one static strided slice per kernel offset (exact for every
dtype, differentiable w.r.t. x and filter).

- ExtractVolumePatches: (N, C, D, H, W) -> (N, kd * kh * kw * C, oD, oH, oW), channel
  `((i * kh + j) * kw + l) * C + c` holding x[n, c] at window offset (i, j, l) (MindSpore's CPU layout, checked
  against its answers); 'SAME' pads with zeros, `pad_before = total // 2` (TensorFlow's rule), out = ceil(in / s);
  'VALID' gives out = (in - k) // s + 1.
- Dilation2D (grey-scale morphological dilation, TensorFlow's `dilation2d`): y[n, c, h, w] = max over (i, j) of
  x[n, c, h * sh + i * dh - pad_top, w * sw + j * dw - pad_left] + filter[c, i, j], positions outside the image
  skipped; 'SAME' sizes as above with the dilated kernel. MindSpore 2.10's CPU kernel fails on every call ("Cast
  failed, original value: SAME"), so tests/test_morphology_patch_ops.py checks it against that formula.
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from .api import Api, Attr
from .primitive import primitive


def _triple_or_five(op: str, what: str, v, lead: int = 2):
    """MindSpore's `kernel_size` / `strides` forms: an int, 3 ints, or 5 ints (1, 1, d, h, w) -> (d, h, w)."""
    vals = (v,) * 3 if isinstance(v, int) and not isinstance(v, bool) else tuple(v) if isinstance(v, (list, tuple)) \
        else None
    if vals is not None and len(vals) == 5:
        if vals[:2] != (1, 1):
            raise ValueError(f"{op}: {what} must be (1, 1, d, h, w) when 5 values are given, got {v!r}")
        vals = vals[2:]
    if vals is None or len(vals) != 3 or not all(isinstance(x, int) and not isinstance(x, bool) and x > 0
                                                 for x in vals):
        raise ValueError(f"{op}: {what} must be a positive int, 3 positive ints or (1, 1, d, h, w), got {v!r}")
    return vals


def _padding(op: str, v) -> str:
    if not isinstance(v, str) or v.upper() not in ("VALID", "SAME"):
        raise ValueError(f"{op}: padding must be 'VALID' or 'SAME', got {v!r}")
    return v.upper()


def _geometry(n: int, k: int, s: int, d: int, mode: str) -> tuple[int, int, int]:
    """(out, pad_before, pad_after) along a dim of `n` for kernel k, stride s, dilation d."""
    span = (k - 1) * d + 1
    if mode == "SAME":
        out = -(-n // s)
        total = max((out - 1) * s + span - n, 0)
        return out, total // 2, total - total // 2
    return (n - span) // s + 1, 0, 0


def _windows(x, ks, ss, ds, mode: str, fill):
    """Padded `x` sliced at every kernel offset: a list over offsets (row-major) of (..., *out) arrays."""
    rank = len(ks)
    geo = [_geometry(n, k, s, d, mode) for n, k, s, d in zip(x.shape[-rank:], ks, ss, ds)]
    xp = jnp.pad(x, [(0, 0)] * (x.ndim - rank) + [(b, a) for _, b, a in geo], constant_values=fill)
    parts = []
    for offs in np.ndindex(*ks):
        idx = tuple(slice(o * d, o * d + (g[0] - 1) * s + 1, s) for o, d, s, g in zip(offs, ds, ss, geo))
        parts.append(xp[(Ellipsis,) + idx])
    return parts


_EVP_DTYPES = (jnp.float16, jnp.float32, jnp.float64, jnp.int8, jnp.int16, jnp.int32, jnp.int64, jnp.uint8,
               jnp.uint16, jnp.uint32, jnp.uint64)


def _evp_check(x, *, kernel_size, strides, padding) -> str | None:
    if len(x.shape) != 5:
        return f"x must be 5-d (N, C, D, H, W), got shape {tuple(x.shape)}"
    if x.dtype not in _EVP_DTYPES:
        return f"x dtype must be a real number type, got dtype {jnp.dtype(x.dtype).name}"
    for name, n, k, s in zip("DHW", x.shape[2:], kernel_size, strides):
        if padding == "SAME" and (-(-n // s) - 1) * s + k - n < 0:
            return (f"with padding 'SAME' the padding (ceil(in / s) - 1) * s + k - in of "
                    f"{name} must be >= 0 (MindSpore's rule), got {(-(-n // s) - 1) * s + k - n} for in {n}, "
                    f"kernel_size {k}, strides {s}")
        if _geometry(n, k, s, 1, padding)[0] < 1:
            return (f"kernel_size {name} ({k}) is larger than the input's {name} ({n}) "
                    f"with padding 'VALID'; input shape {tuple(x.shape)}")
    return None


@primitive("ExtractVolumePatches", attrs=("kernel_size", "strides", "padding"), category="other",
           check=_evp_check,
           api=Api(cls="ExtractVolumePatches", args=("x",),
                   attrs=(Attr("kernel_size", convert=lambda v: _triple_or_five("ExtractVolumePatches",
                                                                                "kernel_size", v)),
                          Attr("strides", convert=lambda v: _triple_or_five("ExtractVolumePatches", "strides", v)),
                          Attr("padding", convert=lambda v: _padding("ExtractVolumePatches", v))),
                   init=("kernel_size", "strides", "padding")))
def extract_volume_patches(x, *, kernel_size, strides, padding):
    """(N, C, D, H, W) -> (N, kd * kh * kw * C, oD, oH, oW), the offset outer and the channel inner."""
    reason = _evp_check(x, kernel_size=kernel_size, strides=strides, padding=padding)
    if reason is not None:
        raise (TypeError if "dtype" in reason else ValueError)(f"ExtractVolumePatches: {reason}")
    parts = jnp.stack(_windows(x, kernel_size, strides, (1, 1, 1), padding, 0), axis=1)  # (N, K, C, ...)
    n, k, c = parts.shape[:3]
    return parts.reshape((n, k * c) + parts.shape[3:])


def _four(op: str, what: str):
    """MindSpore's Dilation2D `stride` / `dilation`: an int, 2 ints or (1, 1, h, w) -> (h, w)."""
    def convert(v):
        vals = (v, v) if isinstance(v, int) and not isinstance(v, bool) else tuple(v) if isinstance(v, tuple) \
            else None
        if vals is not None and len(vals) == 4:
            if vals[:2] != (1, 1):
                raise ValueError(f"{op}: {what} must be (1, 1, {what}_height, {what}_width) for NCHW, got {v!r}")
            vals = vals[2:]
        if vals is None or len(vals) != 2 or not all(isinstance(x, int) and not isinstance(x, bool) and x > 0
                                                     for x in vals):
            raise ValueError(f"{op}: {what} must be a positive int or a tuple of two or four positive ints, got "
                             f"{v!r}")
        return vals
    return convert


def _pad_mode(v) -> str:
    if v not in ("VALID", "SAME", "valid", "same"):
        raise ValueError(f"Dilation2D: pad_mode must be one of 'VALID', 'SAME', 'valid', 'same', got {v!r}")
    return v.upper()


def _data_format(v) -> str:
    if v == "NHWC":
        raise ValueError("Dilation2D: NHWC format is not supported at present (MindSpore's rule)")
    if v != "NCHW":
        raise ValueError(f"Dilation2D: data_format must be 'NCHW', got {v!r}")
    return v


def _dilation_check(x, filter, *, stride, dilation, pad_mode, data_format="NCHW") -> str | None:
    if len(x.shape) != 4:
        return f"x must be 4-d (N, C, H, W), got shape {tuple(x.shape)}"
    if len(filter.shape) != 3 or filter.shape[0] != x.shape[1]:
        return (f"filter must be 3-d (C, kh, kw) with C = x's channels ({x.shape[1]}), got shape "
                f"{tuple(filter.shape)}")
    if x.dtype != filter.dtype:
        return f"x and filter must have the same dtype, got dtype {x.dtype} and {filter.dtype}"
    if not (jnp.issubdtype(x.dtype, jnp.floating) or jnp.issubdtype(x.dtype, jnp.integer)):
        return f"x dtype must be a real number type, got dtype {x.dtype}"
    for name, n, k, s, d in zip("HW", x.shape[2:], filter.shape[1:], stride, dilation):
        if _geometry(n, k, s, d, pad_mode)[0] < 1:
            return (f"the dilated filter {name} ((k - 1) * d + 1 = {(k - 1) * d + 1}) is larger than "
                    f"the input's {name} ({n}) with pad_mode 'VALID'")
    return None


@primitive("Dilation2D", attrs=("stride", "dilation", "pad_mode", "data_format"), category="other",
           check=_dilation_check,
           api=Api(cls="Dilation2D", args=("x", "filter"),
                   attrs=(Attr("stride", convert=_four("Dilation2D", "stride")),
                          Attr("dilation", convert=_four("Dilation2D", "dilation")),
                          Attr("pad_mode", "SAME", _pad_mode), Attr("data_format", "NCHW", _data_format)),
                   init=("stride", "dilation", "pad_mode", "data_format")))
def dilation2d(x, filter, *, stride, dilation, pad_mode="SAME", data_format="NCHW"):
    """(N, C, H, W), (C, kh, kw) -> (N, C, oH, oW): the max of x + filter over each dilated window."""
    reason = _dilation_check(x, filter, stride=stride, dilation=dilation, pad_mode=pad_mode)
    if reason is not None:
        raise (TypeError if "dtype" in reason else ValueError)(f"Dilation2D: {reason}")
    low = -jnp.inf if jnp.issubdtype(x.dtype, jnp.floating) else jnp.iinfo(x.dtype).min
    parts = _windows(x, filter.shape[1:], stride, dilation, pad_mode, low)
    best = None
    for (i, j), part in zip(np.ndindex(*filter.shape[1:]), parts):
        shifted = jnp.where(part == low, low, part + filter[:, i, j][None, :, None, None])
        best = shifted if best is None else jnp.maximum(best, shifted)
    return best
