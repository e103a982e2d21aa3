"""`Conv2d`: 2-D convolution over NCHW input with an OIHW weight (out, in/group, kH, kW)."""
from __future__ import annotations

import math

from ... import dtype as mstype
from ...ops import functional as F
from ...ops import functional_layers as X
from ...ops import nn_layer_ops as L
from ...ops.primitive import apply
from ...tensor import Tensor
from ..cell import Cell
from ..initializer import HeUniform, Uniform
from ._utils import check_input, like, make_param, pad_mode as check_pad_mode, padding4, pair


class Conv2d(Cell):
    """MindSpore 2.x defaults: weight HeUniform(sqrt(5)), bias U(-1/sqrt(fan_in), 1/sqrt(fan_in)).

    pad_mode 'same' keeps H, W (for stride 1), 'valid' pads nothing, 'pad' uses `padding`.
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, pad_mode: str = "same",
                 padding=0, dilation=1, group: int = 1, has_bias: bool = False, weight_init=None, bias_init=None,
                 data_format: str = "NCHW", dtype=mstype.float32) -> None:
        super().__init__()
        self.in_channels, self.out_channels, self.group = int(in_channels), int(out_channels), int(group)
        self.kernel_size = pair("Conv2d", "kernel_size", kernel_size)
        name = self._name()
        self.stride, self.dilation = pair(name, "stride", stride), pair(name, "dilation", dilation)
        self.padding = padding4(name, padding)
        self.pad_mode, self.has_bias = check_pad_mode(name, pad_mode, self.padding), bool(has_bias)
        if data_format != "NCHW":
            raise ValueError(f"{name}: only data_format='NCHW' is supported, got {data_format!r}")
        if self.group < 1 or self.in_channels % self.group or self.out_channels % self.group:
            raise ValueError(f"{name}: in_channels {self.in_channels} and out_channels {self.out_channels} "
                             f"must both be divisible by group {self.group}")
        shape = (self.out_channels, self.in_channels // self.group) + self.kernel_size
        self.weight = make_param(name, "weight_init", HeUniform(math.sqrt(5)) if weight_init is None
                                 else weight_init, shape, dtype)
        if self.has_bias:
            fan_in = shape[1] * shape[2] * shape[3]
            self.bias = make_param(name, "bias_init", Uniform(1 / math.sqrt(fan_in)) if bias_init is None
                                   else bias_init, (self.out_channels,), dtype)
        else:
            self.bias = None  # MindSpore: a layer without bias has bias None

    def _name(self) -> str:
        return (f"Conv2d(in_channels={self.in_channels}, out_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size})")

    def construct(self, x: Tensor) -> Tensor:
        check_input(x.ndim == 4, self._name(), x, "expected 4-D input (N, C, H, W)")
        check_input(x.shape[1] == self.in_channels, self._name(), x,
                    f"channel dim {x.shape[1]} != in_channels {self.in_channels}")
        return F.conv2d(x, like(self.weight, x), like(self.bias, x) if self.has_bias else None, self.stride,
                        self.pad_mode, self.padding, self.dilation, self.group)

    def extend_repr(self) -> str:
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}, "
                f"padding={self.padding}, dilation={self.dilation}, group={self.group}, has_bias={self.has_bias}")


# ---------------------------------------------------------------- 1-d, 3-d and transposed convolutions
def _tuple(layer: str, name: str, v, n: int, low: int = 1) -> tuple[int, ...]:
    out = (int(v),) * n if isinstance(v, int) else tuple(int(x) for x in v)
    if len(out) != n or min(out) < low:
        raise ValueError(f"{layer}: {name} must be an int >= {low} or {n} of them, got {v!r}")
    return out


def _pads(layer: str, v, n: int) -> tuple[tuple[int, int], ...]:
    """MindSpore's `padding`: an int, or (before, after) for every spatial dim flattened."""
    flat = (int(v),) * (2 * n) if isinstance(v, int) else tuple(int(x) for x in v)
    if n == 1 and len(flat) == 1:
        flat = flat * 2
    if len(flat) != 2 * n or min(flat) < 0:
        raise ValueError(f"{layer}: padding must be a non-negative int or {2 * n} of them, got {v!r}")
    return tuple((flat[2 * i], flat[2 * i + 1]) for i in range(n))


_same_pads = X.same_pads  # TF/MindSpore 'same' padding (one definition, in ops)


class _ConvNd(Cell):
    """Shared argument handling of Conv1d/Conv3d and the transposed convolutions."""

    n_spatial = 1
    transposed = False

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, pad_mode: str = "same",
                 padding=0, dilation=1, group: int = 1, has_bias: bool = False, weight_init=None, bias_init=None,
                 dtype=mstype.float32, output_padding=0) -> None:
        super().__init__()
        n = self.n_spatial
        self.in_channels, self.out_channels, self.group = int(in_channels), int(out_channels), int(group)
        name = self._name()
        self.kernel_size = _tuple(name, "kernel_size", kernel_size, n)
        self.stride, self.dilation = _tuple(name, "stride", stride, n), _tuple(name, "dilation", dilation, n)
        self.padding = _pads(name, padding, n)
        self.output_padding = _tuple(name, "output_padding", output_padding, n, low=0)
        mode = pad_mode.lower() if isinstance(pad_mode, str) else pad_mode
        if mode not in ("same", "valid", "pad"):
            raise ValueError(f"{name}: pad_mode must be 'same', 'valid' or 'pad', got {pad_mode!r}")
        if mode != "pad" and any(p for pair_ in self.padding for p in pair_):
            raise ValueError(f"{name}: padding {padding!r} needs pad_mode='pad' (got pad_mode={pad_mode!r})")
        self.pad_mode, self.has_bias = mode, bool(has_bias)
        if self.group < 1 or self.in_channels % self.group or self.out_channels % self.group:
            raise ValueError(f"{name}: in_channels {self.in_channels} and out_channels {self.out_channels} must "
                             f"both be divisible by group {self.group}")
        k = (1,) + self.kernel_size if n == 1 else self.kernel_size  # MindSpore's 1-d weights are (.., 1, k)
        if self.transposed:
            shape = (self.in_channels, self.out_channels // self.group) + k
        else:
            shape = (self.out_channels, self.in_channels // self.group) + k
        self.weight = make_param(name, "weight_init", HeUniform(math.sqrt(5)) if weight_init is None
                                 else weight_init, shape, dtype)
        if self.has_bias:
            fan_in = int(math.prod(shape[1:]))
            self.bias = make_param(name, "bias_init", Uniform(1 / math.sqrt(fan_in)) if bias_init is None
                                   else bias_init, (self.out_channels,), dtype)
        else:
            self.bias = None  # MindSpore: a layer without bias has bias None

    def _name(self) -> str:
        return (f"{type(self).__name__}(in_channels={self.in_channels}, out_channels={self.out_channels}, "
                f"kernel_size={getattr(self, 'kernel_size', '?')})")

    def _check(self, x: Tensor) -> None:
        n = self.n_spatial
        check_input(x.ndim == n + 2, self._name(), x, f"expected a {n + 2}-D input (N, C, {'D, H, W'[-3 * n + 2:]})"
                    if n != 1 else "expected a 3-D input (N, C, L)")
        check_input(x.shape[1] == self.in_channels, self._name(), x,
                    f"channel dim {x.shape[1]} != in_channels {self.in_channels}")

    def extend_repr(self) -> str:
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}, "
                f"padding={self.padding}, dilation={self.dilation}, group={self.group}, has_bias={self.has_bias}")


class Conv1d(_ConvNd):
    """1-d convolution over (N, C, L); weight (out, in/group, 1, k) as MindSpore's (a 2-d conv of height 1)."""

    def construct(self, x: Tensor) -> Tensor:
        self._check(x)
        pads = "pad" if self.pad_mode == "pad" else self.pad_mode
        y = F.conv2d(F.expand_dims(x, 2), like(self.weight, x), like(self.bias, x) if self.has_bias else None,
                     (1,) + self.stride, pads, (0, 0) + self.padding[0], (1,) + self.dilation, self.group)
        return F.squeeze(y, 2)


class Conv3d(_ConvNd):
    """3-d convolution over (N, C, D, H, W); weight (out, in/group, kD, kH, kW); `padding` an int or
    (head, tail, top, bottom, left, right)."""

    n_spatial = 3

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, pad_mode: str = "same",
                 padding=0, dilation=1, group: int = 1, has_bias: bool = False, weight_init=None, bias_init=None,
                 data_format: str = "NCDHW", dtype=mstype.float32) -> None:
        if data_format != "NCDHW":
            raise ValueError(f"Conv3d: only data_format='NCDHW' is supported, got {data_format!r}")
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation, group,
                         has_bias, weight_init, bias_init, dtype)

    def construct(self, x: Tensor) -> Tensor:
        self._check(x)
        if self.pad_mode == "same":
            pads = _same_pads(tuple(x.shape[2:]), self.kernel_size, self.stride, self.dilation)
        else:
            pads = self.padding if self.pad_mode == "pad" else ((0, 0),) * 3
        args = (x, like(self.weight, x)) + ((like(self.bias, x),) if self.has_bias else ())
        return apply(X.conv_nd, args, {"stride": self.stride, "padding": pads, "dilation": self.dilation,
                                       "groups": self.group})


class _ConvTranspose(_ConvNd):
    transposed = True

    def _crop(self, size: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
        """What is taken off the full transposed output: the padding the matching forward conv would use."""
        if self.pad_mode == "pad":
            return self.padding
        if self.pad_mode == "valid":
            return ((0, 0),) * len(size)
        out = []
        for n, k, s, d in zip(size, self.kernel_size, self.stride, self.dilation):
            need = max((n - 1) * s + d * (k - 1) + 1 - n * s, 0)
            out.append((need // 2, need - need // 2))
        return tuple(out)

    def _transpose(self, prim, x: Tensor, size: tuple[int, ...], kernel_pad: tuple = ()) -> Tensor:
        args = (x, like(self.weight, x)) + ((like(self.bias, x),) if self.has_bias else ())
        crop = kernel_pad + self._crop(size)
        ones = (1,) * len(kernel_pad)
        return apply(prim, args, {"stride": ones + self.stride, "crop": crop, "dilation": ones + self.dilation,
                                  "groups": self.group, "output_padding": (0,) * len(kernel_pad) + self.output_padding})


class Conv2dTranspose(_ConvTranspose):
    """2-d transposed convolution (the gradient of Conv2d wrt its input); weight (in, out/group, kH, kW).
    Output size: 'same' H * stride; 'valid' (H - 1) * stride + dilation * (k - 1) + 1; 'pad' that minus
    top + bottom; plus `output_padding`."""

    n_spatial = 2

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, pad_mode: str = "same",
                 padding=0, output_padding=0, dilation=1, group: int = 1, has_bias: bool = False, weight_init=None,
                 bias_init=None, dtype=mstype.float32) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation, group,
                         has_bias, weight_init, bias_init, dtype, output_padding)

    def construct(self, x: Tensor) -> Tensor:
        self._check(x)
        return self._transpose(L.conv2d_transpose, x, tuple(x.shape[2:]))


class Conv1dTranspose(_ConvTranspose):
    """1-d transposed convolution over (N, C, L); weight (in, out/group, 1, k)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, pad_mode: str = "same",
                 padding=0, dilation=1, group: int = 1, has_bias: bool = False, weight_init=None, bias_init=None,
                 dtype=mstype.float32) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation, group,
                         has_bias, weight_init, bias_init, dtype)

    def construct(self, x: Tensor) -> Tensor:
        self._check(x)
        y = self._transpose(L.conv2d_transpose, F.expand_dims(x, 2), tuple(x.shape[2:]), kernel_pad=((0, 0),))
        return F.squeeze(y, 2)


class Conv3dTranspose(_ConvTranspose):
    """3-d transposed convolution over (N, C, D, H, W); weight (in, out/group, kD, kH, kW)."""

    n_spatial = 3

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, pad_mode: str = "same",
                 padding=0, dilation=1, group: int = 1, output_padding=0, has_bias: bool = False, weight_init=None,
                 bias_init=None, data_format: str = "NCDHW", dtype=mstype.float32) -> None:
        if data_format != "NCDHW":
            raise ValueError(f"Conv3dTranspose: only data_format='NCDHW' is supported, got {data_format!r}")
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation, group,
                         has_bias, weight_init, bias_init, dtype, output_padding)

    def construct(self, x: Tensor) -> Tensor:
        self._check(x)
        return self._transpose(L.conv3d_transpose, x, tuple(x.shape[2:]))
