"""Hand-written functional ops, part of `msx.ops.functional`: neural-network functions.

Dense, activations with `inplace`, conv/pool attribute normalisation, losses with reduction checks,
layer/batch norm and dropout.

Each is registered with `expose` under its public names; `functional` imports this module and re-exports
the whole surface.
"""
from __future__ import annotations

from ..ignored_args import SEED_INSTEAD, not_honoured
from ..tensor import Tensor
from . import math_ops as M
from . import nn_ops as N
from .api import SURFACE, expose
from .attr_converters import to_pair as _pair
from ..errors import OpError
from .primitive import apply
from .functional_array import ones, zeros
from .functional_math import div
from .functional_random import _next_key

# generated views the wrappers below build on
_ops = SURFACE["ops"]
cast, mul, select, greater = (_ops[n] for n in ("cast", "mul", "select", "greater"))


@expose(ops="dense", cls="Dense", prim="Dense")
def dense(input, weight, bias=None):
    return apply(M.dense, (input, weight) if bias is None else (input, weight, bias))


@expose(ops="relu", mintf="relu")
def relu(input, inplace=False):
    """max(input, 0); `inplace=True` also writes the result into `input` (MindSpore's in-place form)."""
    out = apply(N.RELU, (input,))
    return input._rebind(out) if inplace else out


@expose(ops="silu")
def silu(input):
    return apply(N.SILU, (input,))


@expose(mintf="silu")
def mint_silu(input, inplace=False):
    """x * sigmoid(x); `inplace=True` also writes the result into `input`."""
    out = apply(N.SILU, (input,))
    return input._rebind(out) if inplace else out


@expose(ops="softplus", mintf="softplus")
def softplus(input, beta=1, threshold=20) -> Tensor:
    """log(1 + exp(beta * x)) / beta, and x itself where beta * x > threshold (MindSpore's and torch's rule)."""
    scaled = input if beta == 1 else mul(input, beta)
    smooth = apply(N.SOFTPLUS, (scaled,)) if beta == 1 else div(apply(N.SOFTPLUS, (scaled,)), beta)
    return select(greater(scaled, threshold), input, smooth)


@expose(ops="softmax")
def softmax(input, axis=-1, *, dtype=None):
    x = input if dtype is None else cast(input, dtype)
    return apply(N.softmax, (x,), {"axis": M._axis(axis)})


@expose(ops="conv2d", prim="Conv2D")
def conv2d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1, groups=1):
    if pad_mode not in ("valid", "same", "pad"):
        raise ValueError(f"conv2d: pad_mode must be 'valid', 'same' or 'pad', got {pad_mode!r}")
    attrs = {"stride": _pair(stride), "pad_mode": pad_mode, "padding": _pad4(padding),
             "dilation": _pair(dilation), "groups": int(groups)}
    return apply(N.conv2d, (input, weight) if bias is None else (input, weight, bias), attrs)


def _pad4(padding) -> tuple[int, int, int, int]:
    if isinstance(padding, int):
        return (padding,) * 4
    padding = tuple(int(p) for p in padding)
    return (padding[0], padding[0], padding[1], padding[1]) if len(padding) == 2 else padding


@expose(ops="max_pool2d", prim="MaxPool")
def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
    if return_indices or dilation not in (1, (1, 1)):
        raise ValueError("max_pool2d: return_indices and dilation != 1 are not supported")
    k = _pair(kernel_size)
    return apply(N.max_pool2d, (x,), {"kernel_size": k, "stride": _pair(stride) if stride is not None else k,
                                      "pad_mode": "pad" if padding else "valid", "padding": _pad4(padding),
                                      "ceil_mode": bool(ceil_mode)})


@expose(ops="avg_pool2d", prim="AvgPool")
def avg_pool2d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=0):
    """`divisor_override=0` (MindSpore's default, also None) divides by the window's size."""
    k = _pair(kernel_size)
    divisor_override = divisor_override or None
    if divisor_override is not None and ceil_mode:
        raise ValueError("avg_pool2d: divisor_override cannot be combined with ceil_mode=True")
    out = apply(N.avg_pool2d, (input_x,), {"kernel_size": k, "stride": _pair(stride), "pad_mode": "pad" if padding
                                           else "valid", "padding": _pad4(padding), "ceil_mode": bool(ceil_mode),
                                           "count_include_pad": bool(count_include_pad or divisor_override)})
    # with a divisor override every window holds k*k terms: rescale the mean to sum / divisor
    return out if divisor_override is None else mul(out, (k[0] * k[1]) / divisor_override)


def _check_reduction(op: str, reduction: str) -> str:
    if reduction not in ("mean", "sum", "none"):
        raise OpError(f"{op}: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
    return reduction


@expose(ops="binary_cross_entropy_with_logits", prim="BCEWithLogitsLoss")
def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction="mean"):
    inputs = (input, target) + tuple(t for t in (weight, pos_weight) if t is not None)
    return apply(N.bce_with_logits, inputs, {"reduction": _check_reduction("binary_cross_entropy_with_logits", reduction),
                                             "has_weight": weight is not None, "has_pos_weight": pos_weight is not None})


@expose(ops="cross_entropy", mintf="cross_entropy", prim="CrossEntropy")
def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    inputs = (input, target) if weight is None else (input, target, weight)
    return apply(N.cross_entropy, inputs, {"reduction": _check_reduction("cross_entropy", reduction),
                                           "ignore_index": int(ignore_index),
                                           "label_smoothing": float(label_smoothing), "has_weight": weight is not None})


@expose(ops="nll_loss", prim="NLLLoss")
def nll_loss(inputs, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    if label_smoothing:
        raise ValueError(f"nll_loss: label_smoothing is not supported, got {label_smoothing!r}")
    return apply(N.nll_loss, (inputs, target) if weight is None else (inputs, target, weight),
                 {"reduction": _check_reduction("nll_loss", reduction), "ignore_index": int(ignore_index),
                  "has_weight": weight is not None})


@expose(ops="layer_norm", prim="LayerNorm")
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    begin = input.ndim - len(tuple(normalized_shape))
    w = weight if weight is not None else ones(normalized_shape, input.dtype)
    b = bias if bias is not None else zeros(normalized_shape, input.dtype)
    return apply(N.layer_norm, (input, w, b), {"begin_norm_axis": begin, "epsilon": float(eps)})


@expose(ops="batch_norm", prim="BatchNorm")
def batch_norm(input_x, running_mean, running_var, weight, bias, training=False, momentum=0.1, eps=1e-5):
    """Functional batch norm: returns the normalised tensor; in training, `running_mean`/`running_var` are
    updated in place as `(1 - momentum) * running + momentum * batch statistic` (MindSpore and torch)."""
    y, new_mean, new_var = apply(N.batch_norm, (input_x, weight, bias, running_mean, running_var),
                                 {"is_training": bool(training), "epsilon": float(eps),
                                  "momentum": 1.0 - float(momentum), "axis": 1})
    if training:
        for stat, new in ((running_mean, new_mean), (running_var, new_var)):
            if isinstance(stat, Tensor):
                stat._rebind(new)
    return y


@expose(ops="dropout", prim="Dropout")
def dropout(input, p=0.5, training=True, seed=None):
    not_honoured("ops.dropout", "seed", seed, None, SEED_INSTEAD)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout: p must be in [0, 1], got {p}")
    if not training or p == 0.0:
        return input
    return apply(N.dropout, (input, _next_key()), {"p": float(p)})
