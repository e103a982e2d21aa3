"""`msx.mint.nn.functional`: torch-style functional names over the primitive registry."""
from __future__ import annotations

from ...ops import functional as F
from ...ops.functional import (relu, sigmoid, tanh, silu, l1_loss, mse_loss, cross_entropy,  # noqa: F401
                               binary_cross_entropy_with_logits, one_hot, pad, leaky_relu, log_softmax, nll_loss,
                               avg_pool2d, max_pool2d)


def gelu(input, approximate="none"):
    return F.gelu(input, approximate)


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
