"""`BiDense` (MindSpore's `nn.layer.dense`; `Dense` itself lives in `basic`, as in MindSpore)."""
from __future__ import annotations

import math

from ... import dtype as mstype
from ...ops import functional as F
from ...tensor import Tensor
from ..cell import Cell
from ..initializer import Uniform
from ._utils import make_param


class BiDense(Cell):
    """Bilinear layer, `y = x1^T W x2 + b` with weight (out, in1, in2)."""

    def __init__(self, in1_channels: int, in2_channels: int, out_channels: int, weight_init=None, bias_init=None,
                 has_bias: bool = True, dtype=mstype.float32) -> None:
        super().__init__()
        name = f"BiDense({in1_channels}, {in2_channels} -> {out_channels})"
        self.in1_channels, self.in2_channels, self.out_channels = in1_channels, in2_channels, out_channels
        bound = 1 / math.sqrt(in1_channels)
        self.weight = make_param(name, "weight_init", Uniform(bound) if weight_init is None else weight_init,
                                 (out_channels, in1_channels, in2_channels), dtype)
        self.has_bias = bool(has_bias)
        if has_bias:
            self.bias = make_param(name, "bias_init", Uniform(bound) if bias_init is None else bias_init,
                                   (out_channels,), dtype)

    def construct(self, input1: Tensor, input2: Tensor) -> Tensor:
        lead = tuple(input1.shape[:-1])
        x1 = F.reshape(input1, (-1, self.in1_channels))
        x2 = F.reshape(input2, (-1, self.in2_channels))
        # (b, i) x (o, i, j) -> (b, o, j), then contract j with x2
        t = F.matmul(x1, F.reshape(F.transpose(self.weight, (1, 0, 2)), (self.in1_channels, -1)))
        t = F.reshape(t, (-1, self.out_channels, self.in2_channels))
        y = F.sum(t * F.expand_dims(x2, 1), -1)
        if self.has_bias:
            y = y + self.bias
        return F.reshape(y, lead + (self.out_channels,))
