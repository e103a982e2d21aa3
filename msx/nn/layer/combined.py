"""MindSpore's combined cells (`nn.Conv2dBnAct`, `nn.DenseBnAct`): a convolution or dense layer, an optional
batch norm and an optional activation, in that order, with MindSpore's parameter names (`conv.weight`,
`batchnorm.gamma`, ...). `after_fake` belongs to MindSpore's quantisation-aware training, which msx does not
have: any value other than the default warns (`msx.ignored_args`)."""
from __future__ import annotations

from ...ignored_args import not_honoured
from ...tensor import Tensor
from ..cell import Cell
from .activation import LeakyReLU, get_activation
from .basic import Dense
from .conv import Conv2d
from .normalization import BatchNorm1d, BatchNorm2d


def _activation(owner: str, activation, alpha: float):
    if activation == "leakyrelu":
        return LeakyReLU(alpha)
    act = get_activation(activation) if isinstance(activation, str) else activation
    if activation is not None and not callable(act):
        raise TypeError(f"{owner}: activation must be a str, a Cell or a Primitive, got {type(activation).__name__}")
    return act


class Conv2dBnAct(Cell):
    """`Conv2d` -> `BatchNorm2d(out_channels, eps, momentum)` (with `has_bn`) -> activation."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, pad_mode: str = "same",
                 padding=0, dilation=1, group: int = 1, has_bias: bool = False, weight_init="normal",
                 bias_init="zeros", has_bn: bool = False, momentum: float = 0.997, eps: float = 1e-5,
                 activation=None, alpha: float = 0.2, after_fake: bool = True) -> None:
        super().__init__()
        not_honoured("Conv2dBnAct", "after_fake", after_fake, True, "msx has no quantisation-aware training")
        self.conv = Conv2d(in_channels, out_channels, kernel_size=kernel_size, stride=stride, pad_mode=pad_mode,
                           padding=padding, dilation=dilation, group=group, has_bias=has_bias,
                           weight_init=weight_init, bias_init=bias_init)
        self.has_bn, self.has_act, self.after_fake = bool(has_bn), activation is not None, after_fake
        if has_bn:
            self.batchnorm = BatchNorm2d(out_channels, eps, momentum)
        self.activation = _activation("Conv2dBnAct", activation, alpha)

    def construct(self, x: Tensor) -> Tensor:
        x = self.conv(x)
        if self.has_bn:
            x = self.batchnorm(x)
        if self.has_act:
            x = self.activation(x)
        return x


class DenseBnAct(Cell):
    """`Dense` -> `BatchNorm1d(out_channels, eps, momentum)` (with `has_bn`) -> activation."""

    def __init__(self, in_channels: int, out_channels: int, weight_init="normal", bias_init="zeros",
                 has_bias: bool = True, has_bn: bool = False, momentum: float = 0.9, eps: float = 1e-5,
                 activation=None, alpha: float = 0.2, after_fake: bool = True) -> None:
        super().__init__()
        not_honoured("DenseBnAct", "after_fake", after_fake, True, "msx has no quantisation-aware training")
        self.dense = Dense(in_channels, out_channels, weight_init, bias_init, has_bias)
        self.has_bn, self.has_act, self.after_fake = bool(has_bn), activation is not None, after_fake
        if has_bn:
            self.batchnorm = BatchNorm1d(out_channels, eps, momentum)
        self.activation = _activation("DenseBnAct", activation, alpha)

    def construct(self, x: Tensor) -> Tensor:
        x = self.dense(x)
        if self.has_bn:
            x = self.batchnorm(x)
        if self.has_act:
            x = self.activation(x)
        return x
