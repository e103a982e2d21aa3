"""`Conv2d`: 2-D convolution over NCHW input with an OIHW weight (out, in/group, kH, kW)."""
from __future__ import annotations

import math

from ... import dtype as mstype
from ...ops import functional as F
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
