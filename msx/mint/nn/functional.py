"""`msx.mint.nn.functional`: torch-style functional names over the primitive registry.

Most names come from the ops' declarations (`SURFACE["mintf"]`); the wrappers here translate torch-style
arguments (`dim=None`, `padding="same"`, `training`).
"""
from __future__ import annotations

from ...ops import functional as F
from ...ops.api import SURFACE
from ...ops.functional import one_hot, pad, log_softmax, avg_pool2d, max_pool2d  # noqa: F401

globals().update(SURFACE["mintf"])


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
                                          "dropout", "linear", "conv2d"})
