"""`mint.nn` layers with torch-style names and arguments, over msx's `nn` layers.

Where MindSpore's `mint.nn.X` takes what `nn.X` takes, it is the same class; the others translate torch's
argument names (`dim`, `lambd`, `inplace`, `stride=None` meaning the kernel size, `num_parameters`) onto
the `nn` layer, so values and gradients are the `nn` layer's (checked against MindSpore's goldens).
`inplace=True` is honoured as torch and MindSpore do: the result is written into the input Tensor
(`nn.layer.ext_layers.InPlace`, where the layers MindSpore also names `nn.*Ext` live).
"""
from __future__ import annotations

from ... import nn as _nn
from ...nn import (AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveAvgPool3d, AdaptiveMaxPool1d,  # noqa: F401
                   AdaptiveMaxPool2d, BCELoss, Cell, ConstantPad1d, ConstantPad2d, ConstantPad3d, CosineEmbeddingLoss,
                   Identity, LogSigmoid, Mish, NLLLoss, PixelShuffle, ReflectionPad1d, ReflectionPad2d,
                   ReflectionPad3d, ReplicationPad1d, ReplicationPad2d, ReplicationPad3d, SoftMarginLoss, Upsample)
from ...nn import HSigmoid as Hardsigmoid, HSwish as Hardswish, SeLU as SELU  # noqa: F401
from ...ops import functional as F
from ...ops.functional_layers import kl_div
from ...nn.layer.ext_layers import (AvgPool1dExt as AvgPool1d, AvgPool2dExt as AvgPool2d,  # noqa: F401
                                     AvgPool3dExt as AvgPool3d, Dropout2dExt as Dropout2d, InPlace,
                                     MaxPool2dExt as MaxPool2d, PReLUExt as PReLU)


class ReLU6(InPlace, _nn.ReLU6):
    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = bool(inplace)


class SiLU(InPlace, _nn.SiLU):
    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = bool(inplace)


class ELU(InPlace, _nn.ELU):
    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__(alpha)
        self.inplace = bool(inplace)


class Hardtanh(InPlace, _nn.Hardtanh):
    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> None:
        super().__init__(min_val, max_val)
        self.inplace = bool(inplace)


class Threshold(InPlace, _nn.Threshold):
    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__(threshold, value)
        self.inplace = bool(inplace)


class GLU(_nn.GLU):
    def __init__(self, dim: int = -1) -> None:
        super().__init__(dim)


class Hardshrink(_nn.HShrink):
    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__(lambd)


class Softshrink(_nn.SoftShrink):
    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__(lambd)


class LogSoftmax(_nn.LogSoftmax):
    """`LogSoftmax(dim=None)`: None means the last axis."""

    def __init__(self, dim: int | None = None) -> None:
        super().__init__(-1 if dim is None else dim)


class SmoothL1Loss(_nn.SmoothL1Loss):
    def __init__(self, reduction: str = "mean", beta: float = 1.0) -> None:
        super().__init__(beta, reduction)


class KLDivLoss(Cell):
    """`KLDivLoss(reduction='mean', log_target=False)`: `input` is log-probabilities; `target` probabilities
    (or log-probabilities with `log_target`); 'mean' averages over every element, as torch and MindSpore do."""

    def __init__(self, reduction: str = "mean", log_target: bool = False) -> None:
        super().__init__()
        if reduction not in ("none", "mean", "sum", "batchmean"):
            raise ValueError(f"KLDivLoss: reduction must be 'none', 'mean', 'sum' or 'batchmean', got {reduction!r}")
        self.reduction, self.log_target = reduction, log_target

    def construct(self, input, target):
        return kl_div(input, target, self.reduction, self.log_target)


class _ZeroPad(Cell):
    """Zero padding of the last `n` dims (`padding`: an int or 2n ints, last dim first)."""

    n = 1

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = (padding,) * (2 * self.n) if isinstance(padding, int) else tuple(padding)
        if len(self.padding) != 2 * self.n:
            raise ValueError(f"{type(self).__name__}: padding must be an int or {2 * self.n} ints, got {padding!r}")

    def construct(self, input):
        return F.pad(input, self.padding, "constant", 0)


class ZeroPad1d(_ZeroPad):
    n = 1


class ZeroPad2d(_ZeroPad):
    n = 2


class ZeroPad3d(_ZeroPad):
    n = 3


