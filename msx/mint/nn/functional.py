"""`msx.mint.nn.functional`: torch-style functional names over the primitive registry.

Most names come from the ops' declarations (`SURFACE["mintf"]`); the wrappers here translate torch-style
arguments (`dim=None`, `padding="same"`, `training`).
"""
from __future__ import absolute_import, annotations  # noqa: F404  (MindSpore's module carries the name too)

from ...ops import functional as F
from ...ops.api import SURFACE
from ...ops.functional_layers import in_place as _in_place
from .conv_norm import conv_transpose2d  # noqa: F401
from .fold import fold, unfold  # noqa: F401

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
    return _in_place(input, F.dropout(input, p, training), inplace)


def linear(input, weight, bias=None):
    return F.dense(input, weight, bias)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """torch-style conv2d: `padding` is an int/pair or "same"/"valid"."""
    if isinstance(padding, str):
        return F.conv2d(input, weight, bias, stride, padding, 0, dilation, groups)
    return F.conv2d(input, weight, bias, stride, "pad", padding, dilation, groups)


def _torch_padding(padding):
    """torch's `padding` (an int, a tuple, 'same' or 'valid') as msx's (pad_mode, padding)."""
    return (padding, 0) if isinstance(padding, str) else ("pad", padding)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """torch-style conv1d: `padding` an int or "same"/"valid"."""
    mode, pad = _torch_padding(padding)
    return F.conv1d(input, weight, bias, stride, mode, pad, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """torch-style conv3d: `padding` an int, three ints or "same"/"valid"."""
    mode, pad = _torch_padding(padding)
    return F.conv3d(input, weight, bias, stride, mode, pad, dilation, groups)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return F.avg_pool3d(input, kernel_size, kernel_size if stride is None else stride, padding, ceil_mode,
                        count_include_pad, 0 if divisor_override is None else divisor_override)


def adaptive_avg_pool3d_ext(input, output_size):
    return F.adaptive_avg_pool3d(input, output_size)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-05):
    """torch-style batch_norm over dim 1; a missing `weight`/`bias` is ones/zeros."""
    c = (input.shape[1],)
    return F.batch_norm(input, running_mean, running_var, F.ones(c, input.dtype) if weight is None else weight,
                        F.zeros(c, input.dtype) if bias is None else bias, training, momentum, eps)


def binary_cross_entropy(input, target, weight=None, reduction="mean"):
    return F.binary_cross_entropy(input, target, weight, reduction)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction="mean"):
    return F.cosine_embedding_loss(input1, input2, target, margin, reduction)


def soft_margin_loss(input, target, reduction="mean"):
    return F.soft_margin_loss(input, target, reduction)


def broadcast_to(input, shape):
    return F.broadcast_to(input, shape)


def clamp(input, min=None, max=None):  # noqa: A002  (torch's argument names)
    return F.clamp(input, min, max)


def flatten(input, start_dim=0, end_dim=-1):
    return F.flatten(input, start_dim=start_dim, end_dim=end_dim)


def norm_ext(input, p="fro", dim=None, keepdim=False, *, dtype=None):
    return SURFACE["mint"]["norm"](input, p, dim, keepdim, dtype=dtype)


def elu_ext(input, alpha=1.0):
    return SURFACE["mintf"]["elu"](input, alpha)


def hardtanh_op(input, min_val=-1, max_val=1):
    return SURFACE["mintf"]["hardtanh"](input, min_val, max_val)


def threshold_op(input, threshold, value):
    return SURFACE["mintf"]["threshold"](input, threshold, value)


silu_func = SURFACE["mintf"]["silu"]


# in-place forms: compute, then write the result into `input` (MindSpore's `Tensor.assign_value`) and return it
def elu_(input, alpha=1.0):
    return input.assign_value(elu_ext(input, alpha))


inplace_elu = elu_


def hardtanh_(input, min_val=-1, max_val=1):
    return input.assign_value(hardtanh_op(input, min_val, max_val))


def threshold_(input, threshold, value):
    return input.assign_value(threshold_op(input, threshold, value))


def relu_(input):
    return input.assign_value(F.relu(input))


def sigmoid_(input):
    return input.assign_value(F.sigmoid(input))


def inplace_silu(input):
    return input.assign_value(silu_func(input))


_HERE = ("one_hot", "pad", "log_softmax", "avg_pool2d", "max_pool2d", "softmax", "dropout", "linear", "conv2d",
         "nll_loss", "binary_cross_entropy_with_logits", "conv1d", "conv3d", "conv_transpose2d", "fold", "unfold",
         "max_unpool2d", "avg_pool3d", "adaptive_avg_pool3d_ext", "batch_norm", "binary_cross_entropy", "layer_norm",
         "cosine_embedding_loss", "soft_margin_loss", "broadcast_to", "clamp", "flatten", "norm_ext", "elu_ext",
         "hardtanh_op", "threshold_op", "silu_func", "elu_", "inplace_elu", "hardtanh_", "threshold_", "relu_",
         "sigmoid_", "inplace_silu")
__all__ = sorted(set(SURFACE["mintf"]) | set(_HERE))
