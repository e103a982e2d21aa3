"""nn functional ops the layers are built from (issue 22): adaptive and 1-d pooling, channel dropout, pixel
shuffle, group/RMS normalisation, embedding lookup, bias_add, softmin, and the torch-style
`mint.nn.functional` spellings of activations. Composed from registered ops, so eager, gradients and every
capture mode see ordinary ops; `nn` layers call these (one implementation each). The primitives of the 3-d
pools and the N-d convolution (`MaxPool3D`, `AvgPool3D`, `Conv3D`) are declared here, beside `max_pool3d`,
`avg_pool3d` and `conv3d`."""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax

from ..errors import OpError
from ..tensor import Tensor
from . import functional as F
from .api import expose
from .nn_layer_ops import _dims, interpolate
from .pool_argmax_ops import adaptive_max_pool2d_argmax
from .primitive import apply, primitive


# ---------------------------------------------------------------- pooling
def _bins(n_in: int, n_out: int) -> list[tuple[int, int]]:
    """torch/MindSpore adaptive windows: [floor(i * n / out), ceil((i + 1) * n / out))."""
    return [((i * n_in) // n_out, -(-((i + 1) * n_in) // n_out)) for i in range(n_out)]


def adaptive_sizes(output_size, rank: int, name: str) -> tuple:
    sizes = (output_size,) * rank if isinstance(output_size, int) or output_size is None else tuple(output_size)
    if len(sizes) != rank or any(s is not None and int(s) < 1 for s in sizes):
        raise ValueError(f"{name}: output_size must be a positive int or {rank} of them (None keeps a dim), "
                         f"got {output_size!r}")
    return sizes


def adaptive_pool(x, output_size, rank: int, reduce: str, name: str):
    """Pool the trailing `rank` dims of `x` to `output_size` with torch's adaptive windows (mean or max)."""
    sizes = adaptive_sizes(output_size, rank, name)
    if x.ndim < rank + 1:
        raise OpError(f"{name}: expected at least {rank + 1} dims, got shape {tuple(x.shape)}")
    for i, n_out in enumerate(sizes):
        axis = x.ndim - rank + i
        n_in = x.shape[axis]
        n_out = n_in if n_out is None else int(n_out)
        if n_out == n_in:
            continue
        parts = []
        for lo, hi in _bins(n_in, n_out):
            window = x[tuple([slice(None)] * axis + [slice(lo, hi)])]
            parts.append(F.mean(window, axis, True) if reduce == "mean" else F.amax(window, axis, True))
        x = F.concat(parts, axis)
    return x


def _no_indices(name: str, return_indices: bool) -> None:
    if return_indices:
        raise ValueError(f"{name}: return_indices=True is not supported by msx (the pooled values are)")


@expose(ops="adaptive_avg_pool1d", mintf="adaptive_avg_pool1d")
def adaptive_avg_pool1d(input, output_size):
    return adaptive_pool(input, output_size, 1, "mean", "adaptive_avg_pool1d")


@expose(ops=("adaptive_avg_pool2d", "adaptive_avg_pool2d_ext"), mintf="adaptive_avg_pool2d")
def adaptive_avg_pool2d(input, output_size):
    return adaptive_pool(input, output_size, 2, "mean", "adaptive_avg_pool2d")


@expose(ops="adaptive_avg_pool3d", mintf="adaptive_avg_pool3d")
def adaptive_avg_pool3d(input, output_size):
    return adaptive_pool(input, output_size, 3, "mean", "adaptive_avg_pool3d")


@expose(ops="adaptive_max_pool1d", mintf="adaptive_max_pool1d")
def adaptive_max_pool1d(input, output_size, return_indices=False):
    _no_indices("adaptive_max_pool1d", return_indices)
    return adaptive_pool(input, output_size, 1, "max", "adaptive_max_pool1d")


@expose(ops="adaptive_max_pool2d", mintf="adaptive_max_pool2d")
def adaptive_max_pool2d(input, output_size, return_indices=False):
    """With `return_indices`, (output, argmax int64) from the `AdaptiveMaxPool2D` primitive (argmax `h * W + w`
    in each channel's plane, as MindSpore's)."""
    if not return_indices:
        return adaptive_pool(input, output_size, 2, "max", "adaptive_max_pool2d")
    sizes = adaptive_sizes(output_size, 2, "adaptive_max_pool2d")
    if input.ndim not in (3, 4):
        raise OpError(f"adaptive_max_pool2d: input must be 3-d (C, H, W) or 4-d (N, C, H, W), got shape "
                      f"{tuple(input.shape)}")
    sizes = tuple(n if s is None else int(s) for n, s in zip(input.shape[-2:], sizes))
    return apply(adaptive_max_pool2d_argmax, (input,), {"output_size": sizes})


def _one(v, name: str, what: str) -> int:
    v = v[0] if isinstance(v, (tuple, list)) and len(v) == 1 else v
    if not isinstance(v, int) or isinstance(v, bool):
        raise TypeError(f"{name}: {what} must be an int (or a 1-tuple), got {v!r}")
    return v


@expose(ops="avg_pool1d")
def avg_pool1d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False, count_include_pad=True):
    """Average over windows of the last dim of (N, C, L)."""
    k, s = _one(kernel_size, "avg_pool1d", "kernel_size"), _one(stride, "avg_pool1d", "stride")
    p = _one(padding, "avg_pool1d", "padding")
    if input_x.ndim != 3:
        raise OpError(f"avg_pool1d: expected a 3-D (N, C, L) input, got shape {tuple(input_x.shape)}")
    y = F.avg_pool2d(F.expand_dims(input_x, 2), (1, k), (1, s), (0, p), ceil_mode, count_include_pad)
    return F.squeeze(y, 2)


@expose(mintf="avg_pool1d")
def mint_avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """torch-style: `stride=None` means the kernel size."""
    return avg_pool1d(input, kernel_size, kernel_size if stride is None else stride, padding, ceil_mode,
                      count_include_pad)


def in_place(input: Tensor, out: Tensor, inplace: bool) -> Tensor:
    """torch-style `inplace=True`: `out` written into `input` (MindSpore's in-place semantics: the same Tensor
    object now holds the result, in eager mode and in every capture), which is returned; else `out`."""
    return input.assign_value(out) if inplace else out


# ---------------------------------------------------------------- dropout, shuffles
def channel_dropout(x, p: float, training: bool, rank: int, name: str):
    """Zero whole channels (axis 1 of a batched input, axis 0 of an unbatched one) with probability p,
    scaling the rest by 1 / (1 - p)."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"{name}: p must be in [0, 1], got {p}")
    if not training or p == 0.0:
        return x
    if p == 1.0:
        return F.zeros_like(x)
    batched = x.ndim == rank
    shape = tuple(x.shape[:2]) + (1,) * (x.ndim - 2) if batched else (x.shape[0],) + (1,) * (x.ndim - 1)
    return x * F.dropout(F.ones(shape, x.dtype), p, True)


@expose(ops="dropout1d")
def dropout1d(input, p=0.5, training=True):
    return channel_dropout(input, p, training, 3, "dropout1d")


@expose(ops="dropout2d", mintf="dropout2d")
def dropout2d(input, p=0.5, training=True, inplace=False) -> Tensor:
    return in_place(input, channel_dropout(input, p, training, 4, "dropout2d"), inplace)


@expose(ops="dropout3d")
def dropout3d(input, p=0.5, training=True):
    return channel_dropout(input, p, training, 5, "dropout3d")


@expose(ops="pixel_shuffle", mintf="pixel_shuffle")
def pixel_shuffle(input, upscale_factor):
    """(*, C * r^2, H, W) -> (*, C, H * r, W * r)."""
    r = int(upscale_factor)
    if r < 1 or input.ndim < 3 or input.shape[-3] % (r * r):
        raise OpError(f"pixel_shuffle: needs upscale_factor >= 1 and channels divisible by its square, got "
                         f"upscale_factor={upscale_factor} and shape {tuple(input.shape)}")
    *lead, c, h, w = input.shape
    y = F.transpose(F.reshape(input, (-1, c // (r * r), r, r, h, w)), (0, 1, 4, 2, 5, 3))
    return F.reshape(y, tuple(lead) + (c // (r * r), h * r, w * r))


@expose(ops="pixel_unshuffle")
def pixel_unshuffle(input, downscale_factor):
    """(*, C, H * r, W * r) -> (*, C * r^2, H, W)."""
    r = int(downscale_factor)
    if r < 1 or input.ndim < 3 or input.shape[-1] % r or input.shape[-2] % r:
        raise OpError(f"pixel_unshuffle: H and W must be divisible by downscale_factor, got "
                         f"downscale_factor={downscale_factor} and shape {tuple(input.shape)}")
    *lead, c, h, w = input.shape
    y = F.transpose(F.reshape(input, (-1, c, h // r, r, w // r, r)), (0, 1, 3, 5, 2, 4))
    return F.reshape(y, tuple(lead) + (c * r * r, h // r, w // r))


@expose(ops="upsample", mintf="upsample interpolate")
def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None):
    """`interpolate` under its older name (and mint's)."""
    return interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor)


# ---------------------------------------------------------------- normalisation, lookup, bias
@expose(ops="group_norm", mintf="group_norm")
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):
    """Normalise each of `num_groups` channel groups of (N, C, *) over its channels and spatial dims."""
    n, c = input.shape[0], input.shape[1]
    if c % num_groups:
        raise OpError(f"group_norm: channels {c} are not divisible by num_groups {num_groups}")
    g = F.reshape(input, (n, num_groups, -1))
    mean = F.mean(g, 2, True)
    var = F.mean(F.square(g - mean), 2, True)
    y = F.reshape((g - mean) * F.rsqrt(var + eps), input.shape)
    affine = (1, c) + (1,) * (input.ndim - 2)
    if weight is not None:
        y = y * F.reshape(weight, affine)
    if bias is not None:
        y = y + F.reshape(bias, affine)
    return y


@expose(ops="rms_norm")
def rms_norm(x, gamma, epsilon=1e-06):
    """(x / sqrt(mean(x^2 over gamma's dims) + epsilon) * gamma, rstd) — MindSpore's RmsNorm outputs."""
    axes = tuple(range(x.ndim - gamma.ndim, x.ndim))
    rstd = F.rsqrt(F.mean(F.square(x), axes, True) + epsilon)
    return x * rstd * gamma, rstd


@expose(ops="embedding", mintf="embedding")
def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False):
    """Rows of `weight` at the indices `input`; the `padding_idx` row gets no gradient."""
    if max_norm is not None or scale_grad_by_freq:
        raise ValueError("embedding: max_norm and scale_grad_by_freq are not supported by msx (they rewrite the "
                         "weight in place / rescale its gradient)")
    out = F.gather(weight, input, 0)
    if padding_idx is None:
        return out
    pad = padding_idx + weight.shape[0] if padding_idx < 0 else padding_idx
    frozen = F.gather(F.stop_gradient(weight), input, 0)
    return F.where(F.expand_dims(F.equal(input, pad), -1), frozen, out)


@expose(ops="bias_add")
def bias_add(input_x, bias):
    """`input_x + bias` with the 1-D bias on the channel axis 1."""
    if bias.ndim != 1 or input_x.ndim < 2 or bias.shape[0] != input_x.shape[1]:
        raise OpError(f"bias_add: bias must be 1-D of the channel size {input_x.shape[1:2]}, got shapes "
                         f"{tuple(input_x.shape)} and {tuple(bias.shape)}")
    return input_x + F.reshape(bias, (1, -1) + (1,) * (input_x.ndim - 2))


@expose(mintf="normalize")
def normalize(input, p=2.0, dim=1, eps=1e-12):
    """`input / max(||input||_p over dim, eps)`."""
    norm = F.pow(F.reduce_sum(F.pow(F.abs(input), p), dim, True), 1.0 / p)
    return input / F.maximum(norm, F.full_like(norm, eps))


# ---------------------------------------------------------------- activations, losses
@expose(ops="softmin")
def softmin(x, axis=-1, *, dtype=None):
    return F.softmax(-(x if dtype is None else F.cast(x, dtype)), axis)


@expose(ops="soft_shrink")
def soft_shrink(input, lambd=0.5):
    return F.softshrink(input, lambd)


@expose(mintf="elu")
def mint_elu(input, alpha=1.0, inplace=False) -> Tensor:
    return in_place(input, F.elu(input, alpha), inplace)


@expose(mintf="hardtanh")
def mint_hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False) -> Tensor:
    return in_place(input, F.hardtanh(input, min_val, max_val), inplace)


@expose(mintf="relu6")
def mint_relu6(input, inplace=False) -> Tensor:
    return in_place(input, F.relu6(input), inplace)


@expose(mintf="threshold")
def mint_threshold(input, threshold, value, inplace=False) -> Tensor:
    return in_place(input, F.threshold(input, threshold, value), inplace)


@expose(mintf="logsigmoid")
def mint_logsigmoid(input):
    return F.logsigmoid(input)


@expose(mintf="mish")
def mint_mish(input):
    return F.mish(input)


@expose(mintf="selu")
def mint_selu(input):
    return F.selu(input)


@expose(mintf="kl_div")
def kl_div(input, target, reduction="mean", log_target=False):
    """KL divergence of `target` from the log-probabilities `input` (torch's `kl_div`)."""
    if reduction not in ("none", "mean", "sum", "batchmean"):
        raise ValueError(f"kl_div: reduction must be 'none', 'mean', 'sum' or 'batchmean', got {reduction!r}")
    loss = F.exp(target) * (target - input) if log_target else F.xlogy(target, target) - target * input
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        return loss.mean()
    if reduction == "batchmean":
        return loss.sum() / input.shape[0]
    return loss


# ---------------------------------------------------------------- 3-d and Lp pools
def triple(name: str, what: str, v, low: int = 1) -> tuple[int, int, int]:
    out = (int(v),) * 3 if isinstance(v, int) else tuple(int(x) for x in v)
    if len(out) != 3 or min(out) < low:
        raise ValueError(f"{name}: {what} must be an int >= {low} or three of them, got {v!r}")
    return out


def pool3d_padding(name: str, padding) -> tuple:
    """An int, three or six non-negative ints as ((head, tail), (top, bottom), (left, right))."""
    flat = (int(padding),) * 6 if isinstance(padding, int) else tuple(int(p) for p in padding)
    if len(flat) == 3:
        flat = tuple(p for p in flat for _ in range(2))
    if len(flat) != 6 or min(flat) < 0:
        raise ValueError(f"{name}: padding must be an int, three or six non-negative ints, got {padding!r}")
    return tuple((flat[2 * i], flat[2 * i + 1]) for i in range(3))


def ceil_pads(size: tuple, kernel: tuple, stride: tuple, pads: tuple) -> tuple:
    """Grow the trailing pads so the output has ceil((n + pads - k) / s) + 1 windows (ceil_mode), none of
    which starts in the trailing padding."""
    grown = []
    for n, k, s, (lo, hi) in zip(size, kernel, stride, pads):
        out = -(-(n + lo + hi - k) // s) + 1
        if (out - 1) * s >= n + lo:
            out -= 1
        grown.append((lo, max((out - 1) * s + k - n - lo, hi)))
    return tuple(grown)


def _pool3d_input(name: str, x) -> None:
    if x.ndim not in (4, 5):
        raise OpError(f"{name}: expected 5-D (N, C, D, H, W) or 4-D (C, D, H, W), got shape {tuple(x.shape)}")


@primitive("MaxPool3D", attrs=("kernel_size", "stride", "padding", "dilation"), category="reduce")
def max_pool_nd(x, *, kernel_size, stride, padding, dilation):
    """Max pooling over the trailing len(kernel_size) dims; `padding` ((lo, hi), ...) pads with -inf."""
    n = len(kernel_size)
    init = -float("inf") if jnp.issubdtype(x.dtype, jnp.floating) else int(jnp.iinfo(x.dtype).min)
    return lax.reduce_window(x, init, lax.max, (1,) * (x.ndim - n) + tuple(kernel_size),
                             (1,) * (x.ndim - n) + tuple(stride), [(0, 0)] * (x.ndim - n) + [tuple(p) for p in padding],
                             window_dilation=(1,) * (x.ndim - n) + tuple(dilation))


@primitive("AvgPool3D", attrs=("kernel_size", "stride", "padding", "count_include_pad", "divisor_override"),
           category="reduce")
def avg_pool_nd(x, *, kernel_size, stride, padding, count_include_pad=True, divisor_override=None):
    """Average pooling over the trailing len(kernel_size) dims, zero padding ((lo, hi), ...)."""
    n = len(kernel_size)
    lead = x.ndim - n
    window, strides = (1,) * lead + tuple(kernel_size), (1,) * lead + tuple(stride)
    pads = [(0, 0)] * lead + [tuple(p) for p in padding]
    total = lax.reduce_window(x, 0.0, lax.add, window, strides, pads)
    if divisor_override:
        return total / float(divisor_override)
    if count_include_pad:
        return total / float(np.prod(kernel_size))
    counts = lax.reduce_window(jnp.ones(x.shape[lead:], x.dtype), 0.0, lax.add, tuple(kernel_size), tuple(stride),
                               [tuple(p) for p in padding])
    return total / counts


@expose(ops="avg_pool3d", prim="AvgPool3D")
def avg_pool3d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=0):
    """Average over 3-d windows of (N, C, D, H, W); `divisor_override=0` divides by the window size."""
    _pool3d_input("avg_pool3d", input_x)
    k, s = triple("avg_pool3d", "kernel_size", kernel_size), triple("avg_pool3d", "stride", stride)
    pads = pool3d_padding("avg_pool3d", padding)
    if not ceil_mode or not count_include_pad or divisor_override:
        if ceil_mode:
            pads = ceil_pads(tuple(input_x.shape[-3:]), k, s, pads)
        return apply(avg_pool_nd, (input_x,), {"kernel_size": k, "stride": s, "padding": pads,
                                               "count_include_pad": bool(count_include_pad),
                                               "divisor_override": divisor_override or None})
    # ceil_mode counting the explicit padding: a window's divisor is its part inside input + padding (torch's and
    # MindSpore's rule), never the extra room ceil_mode adds at the end
    lead = ((0, 0),) * (input_x.ndim - 3)
    flat = tuple(p for pair in reversed(lead + pads) for p in pair)
    padded = F.pad(input_x, flat, "constant", 0)
    ones = F.pad(F.ones_like(input_x), flat, "constant", 1)
    extra = ceil_pads(tuple(padded.shape[-3:]), k, s, ((0, 0),) * 3)
    attrs = {"kernel_size": k, "stride": s, "padding": extra, "count_include_pad": True, "divisor_override": 1}
    return apply(avg_pool_nd, (padded,), attrs) / apply(avg_pool_nd, (ones,), attrs)


@expose(ops="max_pool3d", prim="MaxPool3D")
def max_pool3d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Max over 3-d windows of (N, C, D, H, W); `stride=None` means the kernel size."""
    _no_indices("max_pool3d", return_indices)
    _pool3d_input("max_pool3d", x)
    k = triple("max_pool3d", "kernel_size", kernel_size)
    s = k if stride is None else triple("max_pool3d", "stride", stride)
    pads = pool3d_padding("max_pool3d", padding)
    if ceil_mode:
        pads = ceil_pads(tuple(x.shape[-3:]), k, s, pads)
    return apply(max_pool_nd, (x,), {"kernel_size": k, "stride": s, "padding": pads,
                                     "dilation": triple("max_pool3d", "dilation", dilation)})


def lp_pool(x, norm_type, kernel_size, stride, ceil_mode, rank: int):
    """`(sum over the window of x ** p) ** (1 / p)` over the last `rank` (1 or 2) dims."""
    p = float(norm_type)
    k = (kernel_size,) * rank if isinstance(kernel_size, int) else tuple(kernel_size)
    s = k if stride is None else ((stride,) * rank if isinstance(stride, int) else tuple(stride))
    two = (1,) * (2 - rank)
    y = F.pow(x, p) if p != 1 else x
    y = F.expand_dims(y, -2) if rank == 1 else y
    y = F.avg_pool2d(y, two + tuple(map(int, k)), two + tuple(map(int, s)), 0, bool(ceil_mode))
    y = F.squeeze(y, -2) if rank == 1 else y
    n = 1
    for kk in k:
        n *= int(kk)
    y = y * n
    return F.pow(F.sign(y) * F.relu(F.abs(y)), 1.0 / p) if p != 1 else y


@expose(ops="lp_pool1d")
def lp_pool1d(x, norm_type, kernel_size, stride=None, ceil_mode=False):
    return lp_pool(x, norm_type, kernel_size, stride, ceil_mode, 1)


@expose(ops="lp_pool2d")
def lp_pool2d(x, norm_type, kernel_size, stride=None, ceil_mode=False):
    return lp_pool(x, norm_type, kernel_size, stride, ceil_mode, 2)


# ---------------------------------------------------------------- 1-d and 3-d convolutions
def same_pads(size: tuple, kernel: tuple, stride: tuple, dilation: tuple) -> tuple:
    """TF/MindSpore 'same': the output is ceil(size / stride); the extra padding goes after."""
    out = []
    for n, k, s, d in zip(size, kernel, stride, dilation):
        need = max((-(-n // s) - 1) * s + d * (k - 1) + 1 - n, 0)
        out.append((need // 2, need - need // 2))
    return tuple(out)


@expose(ops="conv1d")
def conv1d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1, groups=1):
    """1-d convolution of (N, C_in, L) with weight (C_out, C_in / groups, k); `padding` an int or (left, right)
    with pad_mode='pad'."""
    if input.ndim != 3 or weight.ndim != 3:
        raise OpError(f"conv1d: expected a 3-D input and weight, got shapes {tuple(input.shape)} and "
                      f"{tuple(weight.shape)}")
    s, d = _one(stride, "conv1d", "stride"), _one(dilation, "conv1d", "dilation")
    pads = (padding, padding) if isinstance(padding, int) else tuple(padding) * (2 // len(tuple(padding)))
    y = F.conv2d(F.expand_dims(input, 2), F.expand_dims(weight, 2), bias, (1, s), pad_mode, (0, 0) + pads,
                 (1, d), groups)
    return F.squeeze(y, 2)


def _conv_check(x, w, *b, stride, padding, dilation, groups, **_) -> str | None:
    xs, ws = tuple(x.shape), tuple(w.shape)
    n = len(stride)
    if len(xs) != n + 2 or len(ws) != n + 2:
        return f"input and weight must be {n + 2}-D, got shapes {xs} and {ws}"
    return None


@primitive("Conv3D", attrs=("stride", "padding", "dilation", "groups"), category="conv", check=_conv_check)
def conv_nd(x, w, b=None, *, stride, padding, dilation, groups=1):
    """N-d convolution (NC<spatial> input, OI<spatial> weight); `padding` is ((lo, hi), ...) per spatial dim
    or "SAME"/"VALID"."""
    n = len(stride)
    y = lax.conv_general_dilated(x, w.astype(x.dtype), window_strides=stride,
                                 padding=padding if isinstance(padding, str) else [tuple(p) for p in padding],
                                 rhs_dilation=dilation, dimension_numbers=_dims(n), feature_group_count=groups)
    return y if b is None else y + b.reshape((1, -1) + (1,) * n)


@expose(ops="conv3d", prim="Conv3D")
def conv3d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1, groups=1):
    """3-d convolution of (N, C_in, D, H, W) with weight (C_out, C_in / groups, kD, kH, kW); `padding` an int,
    three or six ints with pad_mode='pad'."""
    if input.ndim != 5 or weight.ndim != 5:
        raise OpError(f"conv3d: expected 5-D input and weight, got shapes {tuple(input.shape)} and "
                      f"{tuple(weight.shape)}")
    if pad_mode not in ("valid", "same", "pad"):
        raise ValueError(f"conv3d: pad_mode must be 'valid', 'same' or 'pad', got {pad_mode!r}")
    s, d = triple("conv3d", "stride", stride), triple("conv3d", "dilation", dilation)
    if pad_mode == "same":
        pads = same_pads(tuple(input.shape[2:]), tuple(weight.shape[2:]), s, d)
    elif pad_mode == "pad":
        pads = pool3d_padding("conv3d", padding)
    else:
        pads = ((0, 0),) * 3
    args = (input, weight) + ((bias,) if bias is not None else ())
    return apply(conv_nd, args, {"stride": s, "padding": pads, "dilation": d, "groups": int(groups)})



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


__all__ = ["adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
           "adaptive_max_pool2d", "avg_pool1d", "dropout1d", "dropout2d", "dropout3d", "pixel_shuffle",
           "pixel_unshuffle", "upsample", "group_norm", "rms_norm", "embedding", "bias_add", "softmin", "soft_shrink",
           "avg_pool3d", "max_pool3d", "lp_pool1d", "lp_pool2d", "conv1d", "conv3d"]
