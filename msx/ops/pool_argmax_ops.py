"""Max pooling that also answers where each maximum came from (MindSpore 2.10's class ops, NCHW / NCDHW):
`ops.MaxPoolWithArgmax`, `ops.MaxPoolWithArgmaxV2`, `ops.MaxPool3DWithArgmax`, `ops.AdaptiveMaxPool3D` (and
`ops.adaptive_max_pool3d`), and the indices of `ops.AdaptiveMaxPool2D` / `ops.adaptive_max_pool2d(...,
return_indices=True)` (int64; a NaN wins only as a window's first element, as MindSpore's CPU kernel answers).

One window gather serves them all (`_window_max`): for each spatial dim a static table of the input coordinates
each output reads (padding and adaptive bins as out-of-range entries), one gather, an argmax over the window
(the first maximum in row-major window order wins, as MindSpore's CPU kernels) and the values taken at it, so the
pooled values carry a gradient (to the arg-max element) eagerly and under jit. Indices are flat positions in the
sample's spatial plane (`h * W + w`; `d * H * W + ...` in 3-d) except `MaxPoolWithArgmax`, whose indices also
count the channel (`c * H * W + h * W + w`), as MindSpore's CPU kernel answers.
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from .. import dtype as mstype
from ..errors import OpError
from .api import Api, Attr, expose
from .attr_converters import to_dtype, to_ints
from .detection_ops import static_values
from .primitive import apply, primitive


def _raise(op: str, reason: str | None) -> None:
    if reason is not None:
        raise ValueError(reason)


def _window_max(x, tables, running_max: bool = False):
    """(values, flat spatial index) of `x` (N, C, *S) pooled over windows: `tables[d]` = (coords (O, K), valid);
    `running_max`: the max starts at the window's first element and moves on `>` (MindSpore's AdaptiveMaxPool2D
    CPU kernel), so a NaN wins only in first place."""
    rank = len(tables)
    spatial = x.shape[-rank:]
    strides = [int(np.prod(spatial[d + 1:])) for d in range(rank)]
    flat = np.zeros((), np.int64)
    valid = np.ones((), bool)
    outs = tuple(t[0].shape[0] for t in tables)
    for d, (coords, ok) in enumerate(tables):
        # coords (O_d, K_d) -> placed at axis d among the O's and at axis rank + d among the K's
        shape = [1] * (2 * rank)
        shape[d], shape[rank + d] = coords.shape
        flat = flat + (np.clip(coords, 0, spatial[d] - 1) * strides[d]).reshape(shape)
        valid = valid & ok.reshape(shape)
    flat = np.broadcast_to(flat, outs + flat.shape[rank:]).reshape(outs + (-1,))
    valid = np.broadcast_to(valid, outs + valid.shape[rank:]).reshape(outs + (-1,))
    lead = x.shape[:-rank]
    xs = x.reshape(lead + (-1,))
    if xs.shape[-1] == 0 or flat.shape[-1] == 0:
        raise ValueError(f"the pooled input has an empty window (spatial shape {tuple(spatial)})")
    low = jnp.asarray(-jnp.inf if jnp.issubdtype(x.dtype, jnp.floating) else jnp.iinfo(x.dtype).min, x.dtype)
    win = jnp.where(jnp.asarray(valid), xs[..., jnp.asarray(flat)], low)  # lead + outs + (K,)
    if running_max and jnp.issubdtype(x.dtype, jnp.floating):
        k = jnp.argmax(jnp.where(jnp.isnan(win), low, win), axis=-1)
        k = jnp.where(jnp.isnan(win[..., 0]), 0, k)
    else:
        k = jnp.argmax(win, axis=-1)
    values = jnp.take_along_axis(win, k[..., None], -1)[..., 0]
    index = jnp.take_along_axis(jnp.broadcast_to(jnp.asarray(flat), win.shape), k[..., None], -1)[..., 0]
    return values, index


def _strided(n: int, k: int, s: int, pad: int, dil: int, out: int):
    starts = np.arange(out) * s - pad
    coords = starts[:, None] + np.arange(k)[None, :] * dil
    return coords, (coords >= 0) & (coords < n)


def _out_size(n: int, k: int, s: int, pad: int, dil: int, ceil: bool) -> int:
    span = n + 2 * pad - dil * (k - 1) - 1
    out = (-(-span // s) if ceil else span // s) + 1
    if ceil and (out - 1) * s >= n + pad:
        out -= 1
    return out


def _ints(v, rank: int, what: str, op: str, allow_lead_ones: bool = True) -> tuple[int, ...]:
    vals = to_ints(v, what)
    if len(vals) == 1:
        vals = vals * rank
    elif allow_lead_ones and len(vals) == rank + 2 and vals[:2] == (1, 1):
        vals = vals[2:]
    if len(vals) != rank:
        raise ValueError(f"{op}: {what} must be an int or {rank} ints, got {v!r}")
    return vals


def _float_check(op: str, rank: int):
    def check(x, *_, **__) -> str | None:
        if len(x.shape) != rank + 2:
            return f"x must be {rank + 2}-d ({'N, C, D, H, W' if rank == 3 else 'N, C, H, W'}), got shape " \
                   f"{tuple(x.shape)}"
        if not jnp.issubdtype(x.dtype, jnp.floating):
            return f"x must be a float tensor (float16, float32, float64), got {x.dtype}"
        return None
    return check


def _argmax_type(v):
    t = to_dtype(v)
    if t not in (mstype.int32, mstype.int64):
        raise ValueError(f"argmax_type must be mindspore.int32 or mindspore.int64, got {v!r}")
    return t


# ---------------------------------------------------------------- MaxPoolWithArgmax
def _positive(op: str, what: str, rank: int):
    def convert(v):
        vals = _ints(v, rank, what, op)
        if any(x < 1 for x in vals):
            raise ValueError(f"{op}: {what} must be positive, got {v!r}")
        return vals
    return convert


def _pad_mode(v) -> str:
    if not isinstance(v, str) or v.upper() not in ("VALID", "SAME"):
        raise ValueError(f"MaxPoolWithArgmax: pad_mode must be 'valid' or 'same', got {v!r}")
    return v.upper()


def _nchw_only(op: str, default: str):
    def convert(v):
        if v != default:
            raise ValueError(f"{op}: data_format={v!r} is not supported by msx (it computes {default} only)")
        return v
    return convert


_MPA_CHECK = _float_check("MaxPoolWithArgmax", 2)


@primitive("MaxPoolWithArgmax", attrs=("kernel_size", "strides", "pad_mode", "data_format"), category="reduce",
           check=_MPA_CHECK, multiple_results=True,
           api=Api(cls="MaxPoolWithArgmax", args=("x",),
                   attrs=(Attr("kernel_size", 1, _positive("MaxPoolWithArgmax", "kernel_size", 2)),
                          Attr("strides", 1, _positive("MaxPoolWithArgmax", "strides", 2)),
                          Attr("pad_mode", "valid", _pad_mode),
                          Attr("data_format", "NCHW", _nchw_only("MaxPoolWithArgmax", "NCHW"))),
                   init=("kernel_size", "strides", "pad_mode", "data_format")))
def max_pool_with_argmax(x, *, kernel_size=(1, 1), strides=(1, 1), pad_mode="VALID", data_format="NCHW"):
    """(output, argmax int32): argmax counts the channel, `c * H * W + h * W + w` (MindSpore's CPU kernel)."""
    _raise("MaxPoolWithArgmax", _MPA_CHECK(x))
    tables = []
    for n, k, s in zip(x.shape[2:], kernel_size, strides):
        if pad_mode == "SAME":
            out = -(-n // s)
            pad = max((out - 1) * s + k - n, 0) // 2
        else:
            out, pad = (n - k) // s + 1, 0
        if out < 1:
            raise ValueError(f"kernel_size {kernel_size} is larger than the input's spatial shape "
                             f"{tuple(x.shape[2:])} (pad_mode 'valid')")
        tables.append(_strided(n, k, s, pad, 1, out))
    values, index = _window_max(x, tables)
    plane = x.shape[2] * x.shape[3]
    index = index + (jnp.arange(x.shape[1]) * plane)[None, :, None, None]
    return values, index.astype(jnp.int32)


# ---------------------------------------------------------------- MaxPoolWithArgmaxV2 / MaxPool3DWithArgmax
def _explicit(op: str, x, kernel, strides, pads, dilation, ceil_mode):
    tables = []
    for n, k, s, p, d in zip(x.shape[2:], kernel, strides, pads, dilation):
        if 2 * p > (k - 1) * d + 1:
            raise ValueError(f"pads {tuple(pads)} must be at most half the (dilated) kernel {tuple(kernel)}")
        out = _out_size(n, k, s, p, d, ceil_mode)
        if out < 1:
            raise ValueError(f"the kernel {tuple(kernel)} (dilation {tuple(dilation)}) does not fit the padded "
                             f"input {tuple(x.shape[2:])} with pads {tuple(pads)}")
        tables.append(_strided(n, k, s, p, d, out))
    return _window_max(x, tables)


def _nonneg(op: str, what: str, rank: int):
    def convert(v):
        vals = _ints(v, rank, what, op)
        if any(x < 0 for x in vals):
            raise ValueError(f"{op}: {what} must not be negative, got {v!r}")
        return vals
    return convert


_V2_CHECK = _float_check("MaxPoolWithArgmaxV2", 2)


@expose(cls="MaxPoolWithArgmaxV2", init=("kernel_size", "strides", "pads", "dilation", "ceil_mode", "argmax_type"),
        prim="MaxPoolWithArgmaxV2")
def _max_pool_with_argmax_v2_cls(x, *, kernel_size, strides=None, pads=0, dilation=(1, 1), ceil_mode=False,
                                 argmax_type=mstype.int64):
    op = "MaxPoolWithArgmaxV2"
    kernel = _positive(op, "kernel_size", 2)(kernel_size)
    attrs = {"kernel_size": kernel,
             "strides": kernel if strides is None else _positive(op, "strides", 2)(strides),
             "pads": _nonneg(op, "pads", 2)(pads), "dilation": _positive(op, "dilation", 2)(dilation),
             "ceil_mode": bool(ceil_mode), "argmax_type": _argmax_type(argmax_type)}
    return apply(max_pool_with_argmax_v2, (x,), attrs)


@primitive("MaxPoolWithArgmaxV2", attrs=("kernel_size", "strides", "pads", "dilation", "ceil_mode", "argmax_type"),
           category="reduce", check=_V2_CHECK, multiple_results=True)
def max_pool_with_argmax_v2(x, *, kernel_size, strides, pads, dilation, ceil_mode, argmax_type):
    """(output, argmax): explicit zero-based `pads` (the padding never wins), dilation, ceil_mode; argmax is the
    flat position in the channel's (H, W) plane."""
    _raise("MaxPoolWithArgmaxV2", _V2_CHECK(x))
    values, index = _explicit("MaxPoolWithArgmaxV2", x, kernel_size, strides, pads, dilation, ceil_mode)
    return values, index.astype(mstype.to_np(argmax_type))


_3D_CHECK = _float_check("MaxPool3DWithArgmax", 3)


@expose(cls="MaxPool3DWithArgmax",
        init=("ksize", "strides", "pads", "dilation", "ceil_mode", "data_format", "argmax_type"),
        prim="MaxPool3DWithArgmax")
def _max_pool3d_with_argmax_cls(x, *, ksize, strides, pads, dilation=(1, 1, 1), ceil_mode=False,
                                data_format="NCDHW", argmax_type=mstype.int64):
    op = "MaxPool3DWithArgmax"
    _nchw_only(op, "NCDHW")(data_format)
    attrs = {"ksize": _positive(op, "ksize", 3)(ksize), "strides": _positive(op, "strides", 3)(strides),
             "pads": _nonneg(op, "pads", 3)(pads), "dilation": _positive(op, "dilation", 3)(dilation),
             "ceil_mode": bool(ceil_mode), "argmax_type": _argmax_type(argmax_type)}
    return apply(max_pool3d_with_argmax, (x,), attrs)


@primitive("MaxPool3DWithArgmax", attrs=("ksize", "strides", "pads", "dilation", "ceil_mode", "argmax_type"),
           category="reduce", check=_3D_CHECK, multiple_results=True)
def max_pool3d_with_argmax(x, *, ksize, strides, pads, dilation, ceil_mode, argmax_type):
    """(output, argmax) over NCDHW: argmax is the flat position in the channel's (D, H, W) volume."""
    _raise("MaxPool3DWithArgmax", _3D_CHECK(x))
    values, index = _explicit("MaxPool3DWithArgmax", x, ksize, strides, pads, dilation, ceil_mode)
    return values, index.astype(mstype.to_np(argmax_type))


# ---------------------------------------------------------------- AdaptiveMaxPool3D
def _adaptive(n: int, out: int):
    lo = (np.arange(out) * n) // out
    hi = -(-((np.arange(out) + 1) * n) // out)
    k = int((hi - lo).max())
    coords = lo[:, None] + np.arange(k)[None, :]
    return coords, coords < hi[:, None]


def _adaptive_check(x, **_) -> str | None:
    if len(x.shape) not in (4, 5):
        return f"x must be 4-d (C, D, H, W) or 5-d (N, C, D, H, W), got shape {tuple(x.shape)}"
    if not (jnp.issubdtype(x.dtype, jnp.floating) or jnp.issubdtype(x.dtype, jnp.integer)):
        return f"x must be a real number tensor, got {x.dtype}"
    return None


@primitive("AdaptiveMaxPool3D", attrs=("output_size",), category="reduce", check=_adaptive_check,
           multiple_results=True)
def adaptive_max_pool3d_argmax(x, *, output_size):
    """(output, argmax int32): windows [floor(i * n / out), ceil((i + 1) * n / out)); argmax is the flat position
    in the channel's (D, H, W) volume."""
    _raise("AdaptiveMaxPool3D", _adaptive_check(x))
    y = x if x.ndim == 5 else x[None]
    values, index = _window_max(y, [_adaptive(n, o) for n, o in zip(y.shape[2:], output_size)])
    if x.ndim == 4:
        values, index = values[0], index[0]
    return values, index.astype(jnp.int32)


@expose(cls="AdaptiveMaxPool3D", prim="AdaptiveMaxPool3D")
def _adaptive_max_pool3d_cls(x, output_size):
    """`ops.AdaptiveMaxPool3D()(x, output_size)`: `output_size` (3 ints, a Tensor in MindSpore) sets the result's
    shape, so its values must be known when the call is made (a constant under jit)."""
    sizes = to_ints(static_values("AdaptiveMaxPool3D", "output_size", output_size).reshape(-1).tolist(),
                    "output_size")
    if len(sizes) != 3 or any(s < 1 for s in sizes):
        raise OpError(f"AdaptiveMaxPool3D: output_size must hold 3 positive ints, got {output_size!r}")
    return apply(adaptive_max_pool3d_argmax, (x,), {"output_size": sizes})




@expose(ops="adaptive_max_pool3d", prim="AdaptiveMaxPool3D")
def adaptive_max_pool3d(input, output_size, return_indices: bool = False):
    """`ops.adaptive_max_pool3d(input, output_size, return_indices=False)`: (C, D, H, W) or (N, C, D, H, W) pooled
    to `output_size` (an int or 3 ints); with `return_indices` also the int32 argmax in each channel's volume."""
    sizes = (output_size,) * 3 if isinstance(output_size, int) else output_size
    out = _adaptive_max_pool3d_cls(input, sizes)
    return out if return_indices else out[0]


# ---------------------------------------------------------------- AdaptiveMaxPool2D's indices
def _adaptive2d_check(x, **_) -> str | None:
    if len(x.shape) not in (3, 4):
        return f"input must be 3-d (C, H, W) or 4-d (N, C, H, W), got shape {tuple(x.shape)}"
    if x.dtype not in (jnp.float16, jnp.float32, jnp.float64):
        return f"input must be a float16, float32 or float64 tensor, got {x.dtype}"
    return None


@primitive("AdaptiveMaxPool2D", attrs=("output_size",), category="reduce", check=_adaptive2d_check,
           multiple_results=True,
           internal="ops.AdaptiveMaxPool2D and ops.adaptive_max_pool2d(..., return_indices=True) apply it "
                    "(msx/ops/functional_layers.py), after resolving None entries of output_size")
def adaptive_max_pool2d_argmax(x, *, output_size):
    """(output, argmax int64): torch's adaptive windows; argmax is the flat position `h * W + w` in the channel's
    plane; the first maximum wins, a NaN only in a window's first place (MindSpore's CPU kernel)."""
    _raise("AdaptiveMaxPool2D", _adaptive2d_check(x))
    tables = [_adaptive(n, o) for n, o in zip(x.shape[-2:], output_size)]
    values, index = _window_max(x, tables, running_max=True)
    return values, index.astype(jnp.int64)
