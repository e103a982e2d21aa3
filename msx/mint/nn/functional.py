"""`msx.mint.nn.functional`: torch-style functional names over the primitive registry.

Most names come from the ops' declarations (`SURFACE["mintf"]`); the wrappers here translate torch-style
arguments (`dim=None`, `padding="same"`, `training`).
"""
from __future__ import annotations

from ...ops import functional as F
from ...ops.api import SURFACE

globals().update(SURFACE["mintf"])


def one_hot(tensor, num_classes=-1):
    """One-hot int64 rows; `num_classes=-1` means `max(tensor) + 1`."""
    if num_classes == -1:
        num_classes = int(F.amax(tensor).item()) + 1
    return F.cast(F.one_hot(tensor, num_classes, 1, 0), "int64")


def pad(input, pad, mode="constant", value=None):
    return F.pad(input, pad, mode, value)


def log_softmax(input, dim=None, *, dtype=None):
    return F.log_softmax(input if dtype is None else F.cast(input, dtype), -1 if dim is None else dim)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return F.avg_pool2d(input, kernel_size, kernel_size if stride is None else stride, padding, ceil_mode,
                        count_include_pad, divisor_override)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    return F.max_pool2d(input, kernel_size, stride, padding, dilation, return_indices, ceil_mode)


def nll_loss(input, target, weight=None, ignore_index=-100, reduction="mean"):
    return F.nll_loss(input, target, weight, ignore_index, reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, reduction="mean", pos_weight=None):
    return F.binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction)


def softmax(input, dim=None, dtype=None):
    return F.softmax(input, -1 if dim is None else dim, dtype=dtype)


def dropout(input, p=0.5, training=True, inplace=False):
    return F.dropout(input, p, training)


def linear(input, weight, bias=None):
    return F.dense(input, weight, bias)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """torch-style conv2d: `padding` is an int/pair or "same"/"valid"."""
    if isinstance(padding, str):
        return F.conv2d(input, weight, bias, stride, padding, 0, dilation, groups)
    return F.conv2d(input, weight, bias, stride, "pad", padding, dilation, groups)


__all__ = sorted(set(SURFACE["mintf"]) | {"one_hot", "pad", "log_softmax", "avg_pool2d", "max_pool2d", "softmax",
                                          "dropout", "linear", "conv2d", "nll_loss",
                                          "binary_cross_entropy_with_logits"})
