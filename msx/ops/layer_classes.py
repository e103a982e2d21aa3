"""More of MindSpore's class ops (`ops.operations`), each over msx's existing ops and primitives: norms,
pools, convolutions and their transposes, pads, dropouts, `BasicLSTMCell`, `LRN` (the array ones are in
`array_classes.py`). Constructor and call follow `inspect.signature` of MindSpore 2.10's classes;
`classes.py` re-exports them, so they are in `ops` and `ops.operations`. Checked by
tests/test_compat_ops.py against MindSpore 2.10.
"""
from __future__ import annotations

import numpy as np

from . import functional as F
from . import functional_layers  # noqa: F401  (registers F.adaptive_avg_pool2d/3d, F.adaptive_max_pool2d)
from . import nn_layer_ops as L
from . import resize_ops as R
from ..ignored_args import only_default
from .api import PrimitiveOp, expose
from .primitive import apply, known_value



class OneHot(PrimitiveOp):
    """`ops.OneHot(axis=-1)(indices, depth, on_value, off_value)`."""

    name = "OneHot"

    def __init__(self, axis: int = -1) -> None:
        super().__init__()
        self.axis = axis
        self.attrs["axis"] = axis

    def __call__(self, indices, depth, on_value, off_value):
        return F.one_hot(indices, depth, on_value, off_value, self.axis)


class BiasAdd(PrimitiveOp):
    """`ops.BiasAdd(data_format='NCHW')(input_x, bias)`: bias on the channel axis (1 for NC..., -1 for NHWC)."""

    name = "BiasAdd"

    def __init__(self, data_format: str = "NCHW") -> None:
        super().__init__()
        if data_format not in ("NCHW", "NHWC", "NCDHW"):
            raise ValueError(f"BiasAdd: data_format must be 'NCHW', 'NHWC' or 'NCDHW', got {data_format!r}")
        self.data_format = data_format

    def __call__(self, input_x, bias):
        if self.data_format == "NHWC":
            return F.add(input_x, bias)
        return F.bias_add(input_x, bias)


class BatchNorm(PrimitiveOp):
    """`ops.BatchNorm(is_training=False, epsilon=1e-5, momentum=0.1)(x, scale, bias, mean, variance)` ->
    (y, batch_mean, batch_variance, reserve_1, reserve_2); in inference the four statistics are zeros (what
    MindSpore 2.10's CPU kernel returns); in training they are the batch's and `mean`/`variance` (Parameters)
    are updated with `momentum`."""

    name = "BatchNorm"

    def __init__(self, is_training: bool = False, epsilon: float = 1e-5, momentum: float = 0.1,
                 data_format: str = "NCHW") -> None:
        super().__init__()
        if data_format != "NCHW":
            raise ValueError(f"BatchNorm: msx supports data_format='NCHW' only, got {data_format!r}")
        self.is_training, self.epsilon, self.momentum = is_training, epsilon, momentum

    def __call__(self, input_x, scale, bias, mean, variance):
        y = F.batch_norm(input_x, mean, variance, scale, bias, self.is_training, self.momentum, self.epsilon)
        if not self.is_training:
            z = F.zeros_like(scale)
            return y, z, z, z, z
        axes = tuple(i for i in range(input_x.ndim) if i != 1)
        bm, bv = F.mean(input_x, axes), F.var(input_x, axes)
        return y, bm, bv, bm, bv


class AvgPool(PrimitiveOp):
    """`ops.AvgPool(kernel_size=1, strides=1, pad_mode='VALID')(x)` on NCHW."""

    name = "AvgPool"

    def __init__(self, kernel_size=1, strides=1, pad_mode: str = "VALID", data_format: str = "NCHW") -> None:
        only_default("AvgPool", "data_format", data_format, "NCHW", "it computes channels-first only")
        super().__init__()
        self.kernel_size, self.strides, self.pad_mode = F._pair(kernel_size), F._pair(strides), pad_mode.upper()
        if self.pad_mode not in ("VALID", "SAME"):
            raise ValueError(f"AvgPool: pad_mode must be 'VALID' or 'SAME', got {pad_mode!r}")

    def __call__(self, x):
        if self.pad_mode == "VALID":
            return F.avg_pool2d(x, self.kernel_size, self.strides)
        (kh, kw), (sh, sw) = self.kernel_size, self.strides
        pads = []
        for size, k, st in ((x.shape[2], kh, sh), (x.shape[3], kw, sw)):
            total = max((-(-size // st) - 1) * st + k - size, 0)
            pads.append((total // 2, total - total // 2))
        (t, b), (left, r) = pads
        padded = F.pad(x, (left, r, t, b))
        ones = F.pad(F.ones_like(x), (left, r, t, b))  # SAME averages over the real elements only
        return F.div(F.avg_pool2d(padded, self.kernel_size, self.strides),
                     F.avg_pool2d(ones, self.kernel_size, self.strides))


class Conv3D(PrimitiveOp):
    """`ops.Conv3D(out_channel, kernel_size, mode=1, pad_mode='valid', pad=0, stride=1, dilation=1, group=1)`
    called as `(x, weight, bias=None)` on NCDHW."""

    name = "Conv3D"

    def __init__(self, out_channel: int, kernel_size, mode: int = 1, pad_mode: str = "valid", pad=0, stride=1,
                 dilation=1, group: int = 1, data_format: str = "NCDHW") -> None:
        only_default("Conv3D", "data_format", data_format, "NCDHW", "it computes channels-first only")
        super().__init__()
        self.out_channel, self.kernel_size, self.pad_mode, self.pad = out_channel, kernel_size, pad_mode, pad
        self.stride, self.dilation, self.group = stride, dilation, group

    def __call__(self, x, weight, bias=None):
        return F.conv3d(x, weight, bias, self.stride, self.pad_mode, self.pad, self.dilation, self.group)


class Conv2DBackpropInput(PrimitiveOp):
    """`ops.Conv2DBackpropInput(out_channel, kernel_size, pad_mode, pad, pad_list, mode, stride, dilation,
    group)(dout, weight, input_size)`: the gradient of `Conv2D` with respect to an input of `input_size`
    (a transposed convolution, msx's `Conv2DTranspose` primitive)."""

    name = "Conv2DTranspose"

    def __init__(self, out_channel: int, kernel_size, pad_mode: str = "valid", pad=0, pad_list=None, mode: int = 1,
                 stride=1, dilation=1, group: int = 1, data_format: str = "NCHW") -> None:
        only_default("Conv2DBackpropInput", "data_format", data_format, "NCHW", "it computes channels-first only")
        super().__init__()
        self.out_channel, self.kernel_size, self.pad_mode = out_channel, F._pair(kernel_size), pad_mode.lower()
        pads = pad_list if pad_list is not None else pad
        self.pad = (pads,) * 4 if isinstance(pads, int) else tuple(pads)
        self.stride, self.dilation, self.group = _last2(stride), _last2(dilation), group

    def __call__(self, dout, weight, input_size):
        crop, extra = [], []
        for i in range(2):
            size, k, s, d = int(input_size[2 + i]), self.kernel_size[i], self.stride[i], self.dilation[i]
            full = (dout.shape[2 + i] - 1) * s + d * (k - 1) + 1
            if self.pad_mode == "pad":
                lo = self.pad[2 * i]
            elif self.pad_mode == "same":
                lo = max((-(-size // s) - 1) * s + d * (k - 1) + 1 - size, 0) // 2
            else:
                lo = 0
            hi = full - lo - size
            crop.append((lo, max(hi, 0)))
            extra.append(max(-hi, 0))
        return apply(L.conv2d_transpose, (dout, weight), {"stride": self.stride, "crop": tuple(crop),
                                                          "dilation": self.dilation, "groups": self.group,
                                                          "output_padding": tuple(extra)})


class Conv2DTranspose(Conv2DBackpropInput):
    """MindSpore's alias of `Conv2DBackpropInput`."""


def _last2(v):
    return (v, v) if isinstance(v, int) else tuple(v)[-2:]


class LayerNorm(PrimitiveOp):
    """`ops.LayerNorm(begin_norm_axis=1, begin_params_axis=1, epsilon=1e-7)(x, gamma, beta)` -> (y, mean, variance)."""

    name = "LayerNorm"

    def __init__(self, begin_norm_axis: int = 1, begin_params_axis: int = 1, epsilon: float = 1e-7) -> None:
        super().__init__()
        self.begin_norm_axis, self.begin_params_axis, self.epsilon = begin_norm_axis, begin_params_axis, epsilon

    def __call__(self, input_x, gamma, beta):
        axis = self.begin_norm_axis % input_x.ndim
        axes = tuple(range(axis, input_x.ndim))
        mean = F.mean(input_x, axes, True)
        var = F.mean(F.square(F.sub(input_x, mean)), axes, True)
        rstd = F.rsqrt(F.add(var, self.epsilon))
        y = F.add(F.mul(F.mul(F.sub(input_x, mean), rstd), gamma), beta)
        return y, mean, var


class Pad(PrimitiveOp):
    """`ops.Pad(paddings)(x)`: zeros around each dim, `paddings` a ((before, after), ...) per dim."""

    name = "Pad"

    def __init__(self, paddings) -> None:
        super().__init__()
        self.paddings = tuple(tuple(int(v) for v in p) for p in paddings)

    def __call__(self, x):
        if len(self.paddings) != x.ndim:
            raise ValueError(f"Pad: paddings has {len(self.paddings)} pairs for a {x.ndim}-D input")
        flat = tuple(v for p in reversed(self.paddings) for v in p)
        return F.pad(x, flat)


class MirrorPad(PrimitiveOp):
    """`ops.MirrorPad(mode='REFLECT')(x, paddings)` with `paddings` a (ndim, 2) tensor or nested tuple."""

    name = "MirrorPad"

    def __init__(self, mode: str = "REFLECT") -> None:
        super().__init__()
        if mode not in ("REFLECT", "SYMMETRIC"):
            raise ValueError(f"MirrorPad: mode must be 'REFLECT' or 'SYMMETRIC', got {mode!r}")
        self.mode = mode

    def __call__(self, x, paddings):
        pairs = np.asarray(known_value(paddings)).tolist() if hasattr(paddings, "asnumpy") else paddings
        pairs = tuple((int(a), int(b)) for a, b in pairs)
        return apply(L.pad_v3, (x,), {"paddings": pairs, "mode": self.mode.lower(), "value": 0.0})


class Dropout2D(PrimitiveOp):
    """`ops.Dropout2D(keep_prob=0.5)(x)` -> (output, mask): whole channels of NCHW zeroed (mask as bool)."""

    name = "Dropout2D"
    _rank = 4

    def __init__(self, keep_prob: float = 0.5) -> None:
        super().__init__()
        if not 0.0 <= keep_prob <= 1.0:
            raise ValueError(f"{self.name}: keep_prob must be in [0, 1], got {keep_prob}")
        self.keep_prob = keep_prob

    def __call__(self, x):
        if x.ndim != self._rank:
            raise ValueError(f"{self.name}: input must be {self._rank}-D, got shape {tuple(x.shape)}")
        keep = F.bernoulli(F.full(tuple(x.shape[:2]) + (1,) * (self._rank - 2), self.keep_prob, dtype=x.dtype))
        mask = F.broadcast_to(F.cast(keep, "bool"), tuple(x.shape))
        out = F.mul(x, F.div(F.cast(mask, x.dtype), self.keep_prob)) if self.keep_prob > 0 else F.zeros_like(x)
        return out, mask


class Dropout3D(Dropout2D):
    """`ops.Dropout3D(keep_prob=0.5)(x)` on NCDHW."""

    name = "Dropout3D"
    _rank = 5


class AdaptiveAvgPool2D(PrimitiveOp):
    name = "AdaptiveAvgPool2D"

    def __init__(self, output_size) -> None:
        super().__init__()
        self.output_size = output_size

    def __call__(self, x):
        return F.adaptive_avg_pool2d(x, self.output_size)


class AdaptiveMaxPool2D(AdaptiveAvgPool2D):
    """`ops.AdaptiveMaxPool2D(output_size)(input)` -> (output, argmax indices)."""

    name = "AdaptiveMaxPool2D"

    def __call__(self, input):
        return F.adaptive_max_pool2d(input, self.output_size, return_indices=True)


class RmsNorm(PrimitiveOp):
    """`ops.RmsNorm(epsilon=1e-6)(x, gamma)` -> (y, rstd)."""

    name = "RmsNorm"

    def __init__(self, epsilon: float = 1e-6) -> None:
        super().__init__()
        self.epsilon = epsilon

    def __call__(self, x, gamma):
        rstd = F.rsqrt(F.add(F.mean(F.square(x), -1, True), self.epsilon))
        return F.mul(F.mul(x, rstd), gamma), rstd


class LogSoftmaxExt(PrimitiveOp):
    name = "LogSoftmaxExt"

    def __call__(self, input, dim=None, dtype=None):
        x = F.cast(input, dtype) if dtype is not None else input
        return F.log_softmax(x, -1 if dim is None else dim)


class ResizeNearestNeighbor(PrimitiveOp):
    """`ops.ResizeNearestNeighbor(size, align_corners=False, half_pixel_centers=False)(x)` on NCHW;
    `align_corners=True` is `ResizeNearestNeighborV2`'s rule (MindSpore 2.10 CPU gives the same values)."""

    name = "ResizeNearestNeighbor"

    def __init__(self, size, align_corners: bool = False, half_pixel_centers: bool = False) -> None:
        super().__init__()
        if half_pixel_centers:
            raise ValueError("ResizeNearestNeighbor: msx supports half_pixel_centers=False (MindSpore 2.10's CPU "
                             "kernel computes the same as False); use ops.ResizeNearestNeighborV2("
                             "half_pixel_centers=True) for half-pixel centres")
        self.size = tuple(size)
        self.align_corners = bool(align_corners)

    def __call__(self, input_x):
        if self.align_corners:
            return apply(R.resize_nearest_neighbor_v2, (input_x,),
                         {"size": self.size, "align_corners": True, "half_pixel_centers": False})
        return L.interpolate(input_x, size=self.size, mode="nearest")


class BasicLSTMCell(PrimitiveOp):
    """`ops.BasicLSTMCell(keep_prob=1.0, forget_bias=1.0, state_is_tuple=True, activation='tanh')(x, h, c, w, b)`
    -> (ct, ht, it, jt, ft, ot, tanh_ct); `w` is (input + hidden, 4 * hidden), gates in i, j, f, o order."""

    name = "BasicLSTMCell"

    def __init__(self, keep_prob: float = 1.0, forget_bias: float = 1.0, state_is_tuple: bool = True,
                 activation: str = "tanh") -> None:
        super().__init__()
        only_default("BasicLSTMCell", "state_is_tuple", state_is_tuple, True, "MindSpore supports only True too")
        if activation != "tanh":
            raise ValueError(f"BasicLSTMCell: activation must be 'tanh', got {activation!r}")
        self.keep_prob, self.forget_bias = keep_prob, forget_bias

    def __call__(self, x, h, c, w, b):
        gates = F.add(F.matmul(F.concat((x, h), 1), w), b)
        i, j, f, o = F.split(gates, gates.shape[1] // 4, 1)
        it, jt, ft, ot = F.sigmoid(i), F.tanh(j), F.sigmoid(F.add(f, self.forget_bias)), F.sigmoid(o)
        ct = F.add(F.mul(ft, c), F.mul(it, jt))
        tanh_ct = F.tanh(ct)
        ht = F.mul(ot, tanh_ct)
        if self.keep_prob < 1.0:
            ht = F.dropout(ht, p=1.0 - self.keep_prob)
        return ct, ht, it, jt, ft, ot, tanh_ct



def _triple(v):
    return (v,) * 3 if isinstance(v, int) else tuple(v)[-3:]


def _same_pads(sizes, kernel, stride, dilation=None) -> tuple:
    """TensorFlow's SAME padding per dim: ((lo, hi), ...) so that out = ceil(size / stride)."""
    dilation = dilation or (1,) * len(sizes)
    out = []
    for size, k, st, d in zip(sizes, kernel, stride, dilation):
        total = max((-(-size // st) - 1) * st + d * (k - 1) + 1 - size, 0)
        out.append((total // 2, total - total // 2))
    return tuple(out)


class MaxPool3D(PrimitiveOp):
    """`ops.MaxPool3D(kernel_size=1, strides=1, pad_mode='VALID', pad_list=0, ceil_mode=None)(x)` on NCDHW."""

    name = "MaxPool3D"

    def __init__(self, kernel_size=1, strides=1, pad_mode: str = "VALID", pad_list=0, ceil_mode=None,
                 data_format: str = "NCDHW") -> None:
        only_default("MaxPool3D", "data_format", data_format, "NCDHW", "it computes channels-first only")
        super().__init__()
        self.kernel_size, self.strides, self.pad_mode = _triple(kernel_size), _triple(strides), pad_mode.upper()
        if self.pad_mode not in ("VALID", "SAME", "PAD"):
            raise ValueError(f"MaxPool3D: pad_mode must be 'VALID', 'SAME' or 'PAD', got {pad_mode!r}")
        self.pad_list = (pad_list,) * 6 if isinstance(pad_list, int) else tuple(pad_list)
        self.ceil_mode = bool(ceil_mode)

    def __call__(self, x):
        if self.pad_mode == "SAME":
            pads = _same_pads(tuple(x.shape[2:]), self.kernel_size, self.strides)
        elif self.pad_mode == "PAD":
            pads = tuple((self.pad_list[2 * i], self.pad_list[2 * i + 1]) for i in range(3))
        else:
            pads = ((0, 0),) * 3
        if any(lo or hi for lo, hi in pads):
            x = apply(L.pad_v3, (x,), {"paddings": ((0, 0), (0, 0)) + pads, "mode": "constant",
                                       "value": float("-inf")})
        return F.max_pool3d(x, self.kernel_size, self.strides, 0, 1, self.ceil_mode)


class AvgPool3D(PrimitiveOp):
    """`ops.AvgPool3D(kernel_size=1, strides=1, pad_mode='valid', pad=0, ceil_mode=False, count_include_pad=True,
    divisor_override=0)(x)` on NCDHW."""

    name = "AvgPool3D"

    def __init__(self, kernel_size=1, strides=1, pad_mode: str = "valid", pad=0, ceil_mode: bool = False,
                 count_include_pad: bool = True, divisor_override: int = 0, data_format: str = "NCDHW") -> None:
        only_default("AvgPool3D", "data_format", data_format, "NCDHW", "it computes channels-first only")
        super().__init__()
        self.kernel_size, self.strides, self.pad_mode = _triple(kernel_size), _triple(strides), pad_mode.lower()
        if self.pad_mode not in ("valid", "same", "pad"):
            raise ValueError(f"AvgPool3D: pad_mode must be 'valid', 'same' or 'pad', got {pad_mode!r}")
        self.pad = (pad,) * 6 if isinstance(pad, int) else tuple(pad)
        self.ceil_mode, self.count_include_pad, self.divisor_override = ceil_mode, count_include_pad, divisor_override

    def __call__(self, x):
        if self.pad_mode == "same":
            pads = _same_pads(tuple(x.shape[2:]), self.kernel_size, self.strides)
            if any(lo != hi for lo, hi in pads):
                raise ValueError(f"AvgPool3D: pad_mode='same' needs uneven padding {pads} here; msx pads evenly "
                                 "(use pad_mode='pad' with explicit pads)")
            padding = tuple(lo for lo, _ in pads)
        elif self.pad_mode == "pad":
            if any(self.pad[2 * i] != self.pad[2 * i + 1] for i in range(3)):
                raise ValueError(f"AvgPool3D: msx supports equal front/back pads, got {self.pad}")
            padding = tuple(self.pad[2 * i] for i in range(3))
        else:
            padding = 0
        return F.avg_pool3d(x, self.kernel_size, self.strides, padding, self.ceil_mode, self.count_include_pad,
                            self.divisor_override)


class AdaptiveAvgPool3D(PrimitiveOp):
    name = "AdaptiveAvgPool3D"

    def __init__(self, output_size) -> None:
        super().__init__()
        self.output_size = output_size

    def __call__(self, x):
        return F.adaptive_avg_pool3d(x, self.output_size)


class Conv3DTranspose(PrimitiveOp):
    """`ops.Conv3DTranspose(in_channel, out_channel, kernel_size, mode=1, pad_mode='valid', pad=0, stride=1,
    dilation=1, group=1, output_padding=0)(dout, weight, bias=None)`; weight (C_in, C_out / group, kD, kH, kW)."""

    name = "Conv3DTranspose"

    def __init__(self, in_channel: int, out_channel: int, kernel_size, mode: int = 1, pad_mode: str = "valid", pad=0,
                 stride=1, dilation=1, group: int = 1, output_padding=0, data_format: str = "NCDHW") -> None:
        only_default("Conv3DTranspose", "data_format", data_format, "NCDHW", "it computes channels-first only")
        super().__init__()
        self.in_channel, self.out_channel, self.kernel_size = in_channel, out_channel, _triple(kernel_size)
        self.pad_mode = pad_mode.lower()
        self.pad = (pad,) * 6 if isinstance(pad, int) else tuple(pad)
        self.stride, self.dilation, self.group = _triple(stride), _triple(dilation), group
        self.output_padding = _triple(output_padding)

    def __call__(self, dout, weight, bias=None):
        crop = []
        for i in range(3):
            k, s, d = self.kernel_size[i], self.stride[i], self.dilation[i]
            if self.pad_mode == "pad":
                crop.append((self.pad[2 * i], self.pad[2 * i + 1]))
            elif self.pad_mode == "same":  # the output is dout * stride
                total = max(d * (k - 1) + 1 - s, 0)
                crop.append((total // 2, total - total // 2))
            else:
                crop.append((0, 0))
        inputs = (dout, weight) if bias is None else (dout, weight, bias)
        return apply(L.conv3d_transpose, inputs, {"stride": self.stride, "crop": tuple(crop), "dilation": self.dilation,
                                                  "groups": self.group, "output_padding": self.output_padding})


class PadV3(PrimitiveOp):
    """`ops.PadV3(mode='constant', paddings_contiguous=True)(x, paddings, constant_value=None)`: `paddings` a flat
    (before, after) list starting at the last dim (with `paddings_contiguous=False`: all befores, then afters)."""

    name = "PadV3"

    def __init__(self, mode: str = "constant", paddings_contiguous: bool = True) -> None:
        super().__init__()
        if mode not in ("constant", "reflect", "edge", "circular"):
            raise ValueError(f"PadV3: mode must be 'constant', 'reflect', 'edge' or 'circular', got {mode!r}")
        self.mode, self.paddings_contiguous = mode, paddings_contiguous

    def __call__(self, x, paddings, constant_value=None):
        flat = [int(v) for v in (np.asarray(known_value(paddings)).ravel().tolist()
                                 if hasattr(paddings, "asnumpy") else paddings)]
        if not self.paddings_contiguous:
            half = len(flat) // 2
            flat = [v for pair in zip(flat[:half], flat[half:]) for v in pair]
        pairs = [((0, 0))] * x.ndim
        for i in range(len(flat) // 2):
            pairs[x.ndim - 1 - i] = (flat[2 * i], flat[2 * i + 1])
        value = 0.0 if constant_value is None else float(np.asarray(known_value(constant_value)
                                                                    if hasattr(constant_value, "asnumpy")
                                                                    else constant_value))
        return apply(L.pad_v3, (x,), {"paddings": tuple(pairs), "mode": self.mode, "value": value})


class DepthwiseConv2dNative(PrimitiveOp):
    """`ops.DepthwiseConv2dNative(channel_multiplier, kernel_size, mode=3, pad_mode='valid', pad=0, stride=1,
    dilation=1)(x, weight)`, weight (K, C, kH, kW): output channel c*K + k is input channel c with filter k."""

    name = "DepthwiseConv2dNative"

    def __init__(self, channel_multiplier: int, kernel_size, mode: int = 3, pad_mode: str = "valid", pad=0,
                 stride=1, dilation=1, group: int = 1) -> None:
        super().__init__()
        self.channel_multiplier, self.kernel_size, self.pad_mode = channel_multiplier, kernel_size, pad_mode
        self.pad, self.stride, self.dilation = pad, _last2(stride), _last2(dilation)

    def __call__(self, x, weight):
        k, c = weight.shape[0], weight.shape[1]
        w = F.reshape(F.transpose(weight, (1, 0, 2, 3)), (c * k, 1) + tuple(weight.shape[2:]))
        return F.conv2d(x, w, None, self.stride, self.pad_mode, self.pad, self.dilation, c)


class LRN(PrimitiveOp):
    """`ops.LRN(depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region='ACROSS_CHANNELS')(x)` on NCHW:
    `x / (bias + alpha * sum of x**2 over channels c-r..c+r) ** beta`."""

    name = "LRN"

    def __init__(self, depth_radius: int = 5, bias: float = 1.0, alpha: float = 1.0, beta: float = 0.5,
                 norm_region: str = "ACROSS_CHANNELS") -> None:
        super().__init__()
        if norm_region != "ACROSS_CHANNELS":
            raise ValueError(f"LRN: norm_region must be 'ACROSS_CHANNELS', got {norm_region!r}")
        self.depth_radius, self.bias, self.alpha, self.beta = int(depth_radius), bias, alpha, beta

    def __call__(self, x):
        r, c = self.depth_radius, x.shape[1]
        sq = apply(L.pad_v3, (F.square(x),), {"paddings": ((0, 0), (r, r)) + ((0, 0),) * (x.ndim - 2),
                                              "mode": "constant", "value": 0.0})
        total = sq[:, 0:c]
        for i in range(1, 2 * r + 1):
            total = F.add(total, sq[:, i:i + c])
        return F.div(x, F.pow(F.add(F.mul(total, self.alpha), self.bias), self.beta))


# ------------------------------------------------------------------ their functional spellings (`ops.lrn`, ...)

@expose(ops="mirror_pad")
def mirror_pad(input_x, paddings, mode: str):
    """`ops.mirror_pad(input_x, paddings, mode)` with mode 'REFLECT' or 'SYMMETRIC'."""
    return MirrorPad(mode)(input_x, paddings)


@expose(ops="lrn")
def lrn(x, depth_radius: int = 5, bias: float = 1.0, alpha: float = 1.0, beta: float = 0.5,
        norm_region: str = "ACROSS_CHANNELS"):
    return LRN(depth_radius, bias, alpha, beta, norm_region)(x)


__all__ = ["AdaptiveAvgPool2D", "AdaptiveAvgPool3D", "AdaptiveMaxPool2D", "AvgPool", "AvgPool3D", "BasicLSTMCell",
           "BatchNorm", "BiasAdd", "Conv2DBackpropInput", "Conv2DTranspose", "Conv3D", "Conv3DTranspose",
           "DepthwiseConv2dNative", "Dropout2D", "Dropout3D", "LRN", "LayerNorm", "LogSoftmaxExt",
           "MaxPool3D", "MirrorPad", "OneHot", "Pad", "PadV3", "ResizeNearestNeighbor", "RmsNorm", "lrn",
           "mirror_pad"]
