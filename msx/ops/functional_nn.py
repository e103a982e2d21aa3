"""Hand-written functional ops, part of `msx.ops.functional`: neural-network functions, beside the primitives
they run.

Dense, activations with `inplace`, conv/pool attribute normalisation, losses with reduction checks,
layer/batch norm and dropout; the primitives `Dense`, `Conv2D`, `MaxPool`, `AvgPool`, `BatchNorm`, `LayerNorm`,
`BCEWithLogitsLoss`, `CrossEntropy`, `NLLLoss` and `Dropout` are declared here next to their wrapper (the
activations' and the generated losses' primitives are `nn_ops.py`'s).

Each is registered with `expose` under its public names; `functional` imports this module and re-exports
the whole surface.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..errors import OpError
from ..ignored_args import SEED_INSTEAD, not_honoured
from ..tensor import Tensor
from . import batch_norm_train, bounds
from . import math_ops as M
from . import nn_ops as N
from .api import SURFACE, expose
from .attr_converters import to_pair as _pair
from .functional_array import ones, zeros
from .functional_math import div
from .functional_random import _key, _next_key
from .nn_ops import _reduce, _same_shape_check, _shape
from .primitive import apply, primitive

# generated views the wrappers below build on
_ops = SURFACE["ops"]
cast, mul, select, greater = (_ops[n] for n in ("cast", "mul", "select", "greater"))


@primitive("Dense", category="matmul",
           check=lambda x, w, *b: M._matmul_check(x, np.empty(_shape(w)[::-1])) if _shape(w) else None)
def dense_(x, w, b=None):
    """`x @ w.T + b` (MindSpore's Dense primitive; w is (out, in))."""
    y = jnp.matmul(x, jnp.swapaxes(w, -1, -2))
    return y if b is None else y + b


@expose(ops="dense", cls="Dense", prim="Dense")
def dense(input, weight, bias=None):
    return apply(dense_, (input, weight) if bias is None else (input, weight, bias))


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


# ---------------------------------------------------------------- conv / pool
def _conv_padding(pad_mode: str, padding) -> str | list:
    if pad_mode == "same":
        return "SAME"
    if pad_mode == "valid":
        return "VALID"
    top, bottom, left, right = padding
    return [(top, bottom), (left, right)]


def _conv_check(x, w, *b, stride, pad_mode, padding, dilation, groups) -> str | None:
    xs, ws = _shape(x), _shape(w)
    if len(xs) != 4:
        return f"input must be 4-D (N, C, H, W), got shape {xs}"
    if len(ws) != 4:
        return f"weight must be 4-D (out, in/groups, kH, kW), got shape {ws}"
    if xs[1] != ws[1] * groups:
        return f"input channels {xs[1]} != weight in_channels {ws[1]} * groups {groups}"
    return None


@primitive("Conv2D", attrs=("stride", "pad_mode", "padding", "dilation", "groups"), category="conv",
           check=_conv_check)
def conv2d_(x, w, b=None, *, stride=(1, 1), pad_mode="valid", padding=(0, 0, 0, 0), dilation=(1, 1), groups=1):
    """NCHW convolution with OIHW weights; `padding` is (top, bottom, left, right) for pad_mode="pad"."""
    reach = tuple((k - 1) * d + 1 for k, d in zip(w.shape[2:], dilation))  # the dilated kernel's extent
    _pool_fits("Conv2D", x.shape, reach, padding, pad_mode)
    y = lax.conv_general_dilated(x, w.astype(x.dtype), window_strides=stride, padding=_conv_padding(pad_mode, padding),
                                 rhs_dilation=dilation, dimension_numbers=("NCHW", "OIHW", "NCHW"),
                                 feature_group_count=groups)
    return y if b is None else y + b.reshape(1, -1, 1, 1)


def _pool_fits(op: str, x_shape, kernel, padding, pad_mode: str) -> None:
    """A window (pooling, or a convolution's dilated kernel) larger than the (padded) input gives an empty result
    in jax: MindSpore refuses it."""
    if len(x_shape) != 4:
        raise OpError(f"{op}: input must be 4-D (N, C, H, W), got shape {tuple(x_shape)}")
    if pad_mode == "same":
        return
    padded = (x_shape[2] + padding[0] + padding[1], x_shape[3] + padding[2] + padding[3])
    if kernel[0] > padded[0] or kernel[1] > padded[1]:
        raise OpError(f"{op}: kernel_size {tuple(kernel)} is larger than the input's spatial size {padded} "
                      f"(shape {tuple(x_shape)}, padding {tuple(padding)})")


def _pool_padding(pad_mode: str, padding, ceil_mode: bool, x_shape, kernel, stride):
    if pad_mode == "same":
        return "SAME"
    if pad_mode == "valid" and not any(padding) and not ceil_mode:
        return "VALID"
    pads = []
    for i, (lo, hi) in enumerate(((padding[0], padding[1]), (padding[2], padding[3]))):
        if ceil_mode:
            size, k, s = x_shape[2 + i], kernel[i], stride[i]
            out = -(-(size + lo + hi - k) // s) + 1  # ceil
            if (out - 1) * s >= size + lo:  # torch/MindSpore: no window may start in the right padding
                out -= 1
            hi = max((out - 1) * s + k - size - lo, 0)
        pads.append((lo, hi))
    return [(0, 0), (0, 0)] + pads


def _zero(x):
    """A Python-scalar zero of x's kind, so reduce_window stays differentiable under jit."""
    return 0.0 if jnp.issubdtype(x.dtype, jnp.inexact) else 0


@primitive("MaxPool", attrs=("kernel_size", "stride", "pad_mode", "padding", "ceil_mode"), category="reduce")
def max_pool2d_(x, *, kernel_size, stride, pad_mode="valid", padding=(0, 0, 0, 0), ceil_mode=False):
    _pool_fits("MaxPool", x.shape, kernel_size, padding, pad_mode)
    pads = _pool_padding(pad_mode, padding, ceil_mode, x.shape, kernel_size, stride)
    # a Python scalar init lets jax pick its differentiable max-pool reduction (also under jit)
    init = -float("inf") if jnp.issubdtype(x.dtype, jnp.floating) else int(jnp.iinfo(x.dtype).min)
    return lax.reduce_window(x, init, lax.max, (1, 1) + tuple(kernel_size),
                             (1, 1) + tuple(stride), pads)


@primitive("AvgPool", attrs=("kernel_size", "stride", "pad_mode", "padding", "ceil_mode", "count_include_pad"),
           category="reduce")
def avg_pool2d_(x, *, kernel_size, stride, pad_mode="valid", padding=(0, 0, 0, 0), ceil_mode=False,
               count_include_pad=True):
    _pool_fits("AvgPool", x.shape, kernel_size, padding, pad_mode)
    pads = _pool_padding(pad_mode, padding, ceil_mode, x.shape, kernel_size, stride)
    window, strides = (1, 1) + tuple(kernel_size), (1, 1) + tuple(stride)
    total = lax.reduce_window(x, _zero(x), lax.add, window, strides, pads)
    if count_include_pad and pad_mode != "same":
        if not ceil_mode:
            return total / float(np.prod(kernel_size))
        # the explicit padding counts, the extra right overhang of ceil_mode does not (torch/MindSpore)
        explicit = ((padding[0], padding[1]), (padding[2], padding[3]))
        padded = tuple(n + lo + hi for n, (lo, hi) in zip(x.shape[2:], explicit))
        overhang = [(0, max(p_hi - e_hi, 0)) for (_, p_hi), (_, e_hi) in zip(pads[2:], explicit)]
        counts = lax.reduce_window(jnp.ones(padded, x.dtype), _zero(x), lax.add,
                                   tuple(kernel_size), tuple(stride), overhang)
        return total / counts[:total.shape[2], :total.shape[3]]
    counts = lax.reduce_window(jnp.ones(x.shape[2:], x.dtype), _zero(x), lax.add,
                               tuple(kernel_size), tuple(stride), pads if isinstance(pads, str) else pads[2:])
    return total / counts


@expose(ops="conv2d", prim="Conv2D")
def conv2d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1, groups=1):
    if pad_mode not in ("valid", "same", "pad"):
        raise ValueError(f"conv2d: pad_mode must be 'valid', 'same' or 'pad', got {pad_mode!r}")
    attrs = {"stride": _pair(stride), "pad_mode": pad_mode, "padding": _pad4(padding),
             "dilation": _pair(dilation), "groups": int(groups)}
    return apply(conv2d_, (input, weight) if bias is None else (input, weight, bias), attrs)


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
    return apply(max_pool2d_, (x,), {"kernel_size": k, "stride": _pair(stride) if stride is not None else k,
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
    out = apply(avg_pool2d_, (input_x,), {"kernel_size": k, "stride": _pair(stride), "pad_mode": "pad" if padding
                                           else "valid", "padding": _pad4(padding), "ceil_mode": bool(ceil_mode),
                                           "count_include_pad": bool(count_include_pad or divisor_override)})
    # with a divisor override every window holds k*k terms: rescale the mean to sum / divisor
    return out if divisor_override is None else mul(out, (k[0] * k[1]) / divisor_override)


# ---------------------------------------------------------------- losses
def _check_reduction(op: str, reduction: str) -> str:
    if reduction not in ("mean", "sum", "none"):
        raise OpError(f"{op}: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
    return reduction


@primitive("BCEWithLogitsLoss", attrs=("reduction", "has_weight", "has_pos_weight"), category="loss",
           check=_same_shape_check)
def bce_with_logits(logits, target, *extra, reduction="mean", has_weight=False, has_pos_weight=False):
    """Numerically stable binary cross-entropy on logits; optional `weight` and `pos_weight` inputs follow."""
    extra = list(extra)
    weight = extra.pop(0) if has_weight else None
    pos_weight = extra.pop(0) if has_pos_weight else None
    log_p = jax.nn.log_sigmoid(logits)
    log_not_p = jax.nn.log_sigmoid(-logits)
    if pos_weight is not None:
        loss = -(pos_weight * target * log_p + (1 - target) * log_not_p)
    else:
        loss = -(target * log_p + (1 - target) * log_not_p)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def _ce_check(logits, target, *weight, reduction, ignore_index, label_smoothing, has_weight) -> str | None:
    ls, ts = _shape(logits), _shape(target)
    if jnp.issubdtype(getattr(target, "dtype", np.float32), jnp.integer):
        if len(ls) < 1 or ts != ls[:1] + ls[2:]:
            return f"class-index target of shape {ts} does not match logits of shape {ls} (expected {ls[:1] + ls[2:]})"
    elif ts != ls:
        hint = (f"; class indices must be an int32 tensor of shape {ls[:1] + ls[2:]} (labels.astype(msx.int32))"
                if ts == ls[:1] + ls[2:] else "")
        return f"probability target of shape {ts} does not match logits of shape {ls}{hint}"
    return None


def _poison(loss, valid, target, n_classes: int):
    """NaN where a label is outside [0, C) and not ignore_index: inside a compiled graph the labels are not seen
    before it runs (eagerly `bounds.class_labels` refuses them), and a NaN loss is loud where a wrapped label is not."""
    return jnp.where(valid & ((target < 0) | (target >= n_classes)), jnp.nan, loss)


@primitive("CrossEntropy", attrs=("reduction", "ignore_index", "label_smoothing", "has_weight"), category="loss",
           check=_ce_check, values=bounds.class_labels)
def cross_entropy_(logits, target, *weight, reduction="mean", ignore_index=-100, label_smoothing=0.0,
                  has_weight=False):
    """Softmax cross-entropy over axis 1 (axis 0 for 1-D logits); target is class indices or probabilities."""
    axis = 1 if logits.ndim > 1 else 0
    n_classes = logits.shape[axis]
    logp = jax.nn.log_softmax(logits, axis=axis)
    w = weight[0] if has_weight else None
    wshape = [1] * logits.ndim
    wshape[axis] = n_classes
    if jnp.issubdtype(target.dtype, jnp.integer):
        valid = target != ignore_index
        safe = jnp.where(valid, target, 0)
        picked = -jnp.take_along_axis(logp, jnp.expand_dims(safe, axis), axis=axis).squeeze(axis)
        smooth = -jnp.sum(logp * (w.reshape(wshape) if w is not None else 1.0), axis=axis) / n_classes
        cls_w = w[safe] if w is not None else jnp.ones_like(picked)
        loss = (1 - label_smoothing) * picked * cls_w + label_smoothing * smooth
        loss = _poison(jnp.where(valid, loss, 0.0), valid, target, n_classes)
        if reduction == "mean":
            return jnp.sum(loss) / jnp.sum(jnp.where(valid, cls_w, 0.0))
        return _reduce(loss, reduction)
    probs = target * (1 - label_smoothing) + label_smoothing / n_classes
    terms = probs * logp * (w.reshape(wshape) if w is not None else 1.0)
    loss = -jnp.sum(terms, axis=axis)
    return _reduce(loss, reduction)


@primitive("NLLLoss", attrs=("reduction", "ignore_index", "has_weight"), category="loss", values=bounds.class_labels)
def nll_loss_(logp, target, *weight, reduction="mean", ignore_index=-100, has_weight=False):
    """Negative log-likelihood of class indices over axis 1; an optional class `weight` input follows."""
    want = tuple(logp.shape[:1]) + tuple(logp.shape[2:])
    if tuple(target.shape) != want:  # jnp would broadcast one label to the whole batch
        raise ValueError(f"target of shape {tuple(target.shape)} does not match input of shape {tuple(logp.shape)} "
                         f"(expected {want}: one class index per sample)")
    valid = target != ignore_index
    safe = jnp.where(valid, target, 0)
    picked = -jnp.take_along_axis(logp, jnp.expand_dims(safe, 1), axis=1).squeeze(1)
    cls_w = weight[0][safe] if has_weight else jnp.ones_like(picked)
    cls_w = jnp.where(valid, cls_w, 0.0)
    loss = _poison(picked * cls_w, valid, target, logp.shape[1])
    if reduction == "mean":
        return jnp.sum(loss) / jnp.sum(cls_w)
    return _reduce(loss, reduction)


@expose(ops="binary_cross_entropy_with_logits", prim="BCEWithLogitsLoss")
def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction="mean"):
    inputs = (input, target) + tuple(t for t in (weight, pos_weight) if t is not None)
    return apply(bce_with_logits, inputs, {"reduction": _check_reduction("binary_cross_entropy_with_logits", reduction),
                                             "has_weight": weight is not None, "has_pos_weight": pos_weight is not None})


@expose(ops="cross_entropy", mintf="cross_entropy", prim="CrossEntropy")
def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    inputs = (input, target) if weight is None else (input, target, weight)
    return apply(cross_entropy_, inputs, {"reduction": _check_reduction("cross_entropy", reduction),
                                           "ignore_index": int(ignore_index),
                                           "label_smoothing": float(label_smoothing), "has_weight": weight is not None})


@expose(ops="nll_loss", prim="NLLLoss")
def nll_loss(inputs, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    if label_smoothing:
        raise ValueError(f"nll_loss: label_smoothing is not supported, got {label_smoothing!r}")
    return apply(nll_loss_, (inputs, target) if weight is None else (inputs, target, weight),
                 {"reduction": _check_reduction("nll_loss", reduction), "ignore_index": int(ignore_index),
                  "has_weight": weight is not None})


# ---------------------------------------------------------------- normalisation
@primitive("BatchNorm", attrs=("is_training", "epsilon", "momentum", "axis"), category="other", multiple_results=True)
def batch_norm_(x, gamma, beta, mean, var, *, is_training=False, epsilon=1e-5, momentum=0.9, axis=1):
    """Returns (y, new moving mean, new moving variance); momentum weighs the old moving stats (MindSpore)."""
    reduce_axes = tuple(i for i in range(x.ndim) if i != axis % x.ndim)
    bshape = [1] * x.ndim
    bshape[axis] = x.shape[axis]
    if is_training:  # differentiated by MindSpore's BatchNormGrad formula: see batch_norm_train
        normalized, batch_mean, batch_var = batch_norm_train.normalize(x, gamma, float(epsilon), axis % x.ndim)
        n = int(np.prod([x.shape[i] for i in reduce_axes]))
        unbiased = batch_var * (n / max(n - 1, 1))
        new_mean = momentum * mean + (1 - momentum) * lax.stop_gradient(batch_mean)
        new_var = momentum * var + (1 - momentum) * lax.stop_gradient(unbiased)
        return normalized + beta.reshape(bshape), new_mean, new_var
    inv = lax.rsqrt(var.reshape(bshape) + epsilon) * gamma.reshape(bshape)
    y = (x - mean.reshape(bshape)) * inv + beta.reshape(bshape)
    return y, mean, var


@primitive("LayerNorm", attrs=("begin_norm_axis", "epsilon"), category="other")
def layer_norm_(x, gamma, beta, *, begin_norm_axis=-1, epsilon=1e-5):
    axes = tuple(range(begin_norm_axis % x.ndim, x.ndim))
    mean = jnp.mean(x, axis=axes, keepdims=True)
    var = jnp.var(x, axis=axes, keepdims=True)
    return (x - mean) * lax.rsqrt(var + epsilon) * gamma + beta


@expose(ops="layer_norm", prim="LayerNorm")
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    begin = input.ndim - len(tuple(normalized_shape))
    w = weight if weight is not None else ones(normalized_shape, input.dtype)
    b = bias if bias is not None else zeros(normalized_shape, input.dtype)
    return apply(layer_norm_, (input, w, b), {"begin_norm_axis": begin, "epsilon": float(eps)})


@expose(ops="batch_norm", prim="BatchNorm")
def batch_norm(input_x, running_mean, running_var, weight, bias, training=False, momentum=0.1, eps=1e-5):
    """Functional batch norm: returns the normalised tensor; in training, `running_mean`/`running_var` are
    updated in place as `(1 - momentum) * running + momentum * batch statistic` (MindSpore and torch)."""
    y, new_mean, new_var = apply(batch_norm_, (input_x, weight, bias, running_mean, running_var),
                                 {"is_training": bool(training), "epsilon": float(eps),
                                  "momentum": 1.0 - float(momentum), "axis": 1})
    if training:
        for stat, new in ((running_mean, new_mean), (running_var, new_var)):
            if isinstance(stat, Tensor):
                stat._rebind(new)
    return y


# ---------------------------------------------------------------- dropout
@primitive("Dropout", attrs=("p",), category="random")
def dropout_(x, key, *, p=0.5):
    """Zero each element with probability `p` and scale the rest by 1/(1-p)."""
    if p <= 0.0:
        return x
    if p >= 1.0:
        return jnp.zeros_like(x)
    keep = jax.random.bernoulli(_key(key), 1.0 - p, x.shape)
    return jnp.where(keep, x / (1.0 - p), jnp.zeros((), x.dtype))


@expose(ops="dropout", prim="Dropout")
def dropout(input, p=0.5, training=True, seed=None):
    not_honoured("ops.dropout", "seed", seed, None, SEED_INSTEAD)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout: p must be in [0, 1], got {p}")
    if not training or p == 0.0:
        return input
    return apply(dropout_, (input, _next_key()), {"p": float(p)})
