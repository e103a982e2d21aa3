"""Neural-network primitives: activations, conv/pool, normalisation, losses, dropout, random."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .. import dtype as mstype
from ..errors import OpError
from ..sizes import check_size
from . import batch_norm_train, bounds
from .api import REQUIRED, Api, Attr
from .attr_converters import reduction
from .math_ops import _axis
from .primitive import primitive


def _shape(x) -> tuple:
    return tuple(getattr(x, "shape", ()))


def _unary(name, fn, ops="", args=("input",), cls=None, tensor="", mint="", mintf=None, inplace="", **traits):
    api = Api(ops, args=args, cls=name if cls is None else cls, tensor=tensor, mint=mint,
              mintf=ops if mintf is None else mintf, inplace=inplace)
    return primitive(name, category="elementwise", api=api if ops or cls or tensor or mint or mintf else (),
                     **traits)(fn)


def _with_attrs(name, fn, attrs: tuple, apis):
    return primitive(name, attrs=attrs, category="elementwise", api=apis)(fn)


# ---------------------------------------------------------------- activations
RELU = _unary("ReLU", jax.nn.relu, cls="ReLU", mindir="ReLU")  # ops.relu/mint relu take `inplace`: hand-written
RELU6 = _unary("ReLU6", jax.nn.relu6, "relu6", args=("x",), mintf="", mindir="ReLU6")
SIGMOID = _unary("Sigmoid", jax.nn.sigmoid, "sigmoid", tensor="sigmoid", mint="sigmoid", mindir="Sigmoid",
                 inplace="sigmoid_")
TANH = _unary("Tanh", jnp.tanh, "tanh", tensor="tanh", mint="tanh", mindir="Tanh", inplace="tanh_")
SILU = _unary("SiLU", jax.nn.silu, cls="SiLU", mindir="SiLU")
SOFTPLUS = _unary("Softplus", jax.nn.softplus, cls="Softplus", mindir="Softplus")
SELU = _unary("SeLU", jax.nn.selu, "selu", args=("input_x",), mintf="")
MISH = _unary("Mish", lambda x: x * jnp.tanh(jax.nn.softplus(x)), "mish", args=("x",), mintf="")
SOFTSIGN = _unary("Softsign", jax.nn.soft_sign, "softsign", args=("x",))
LOGSIGMOID = _unary("LogSigmoid", jax.nn.log_sigmoid, "logsigmoid", args=("x",), cls="", mintf="")
HSWISH = _unary("HSwish", jax.nn.hard_swish, "hardswish", cls="HSwish")
HSIGMOID = _unary("HSigmoid", jax.nn.hard_sigmoid, "hardsigmoid", cls="HSigmoid")
TANHSHRINK = _unary("Tanhshrink", lambda x: x - jnp.tanh(x), "tanhshrink", cls="", mintf="")
FAST_GELU = _unary("FastGeLU", lambda x: x * jax.nn.sigmoid(1.702 * x), "fast_gelu", args=("x",),
                   cls="FastGeLU FastGelu", mintf="")

ELU = _with_attrs("Elu", lambda x, *, alpha=1.0: jax.nn.elu(x, alpha), ("alpha",), (
    Api("elu", args=("input_x",), attrs=(Attr("alpha", 1.0, float),), cls="Elu", init=("alpha",)),))
CELU = _with_attrs("CeLU", lambda x, *, alpha=1.0: jax.nn.celu(x, alpha), ("alpha",), (
    Api("celu", args=("x",), attrs=(Attr("alpha", 1.0, float),), cls="CeLU", init=("alpha",)),))
HSHRINK = _with_attrs("HShrink", lambda x, *, lambd=0.5: jnp.where(jnp.abs(x) > lambd, x, jnp.zeros((), x.dtype)),
                      ("lambd",), (Api("hardshrink", attrs=(Attr("lambd", 0.5, float),), cls="HShrink",
                                       init=("lambd",), tensor="hardshrink", mintf="hardshrink"),))
SOFTSHRINK = _with_attrs(
    "SoftShrink", lambda x, *, lambd=0.5: jnp.where(x > lambd, x - lambd, jnp.where(x < -lambd, x + lambd,
                                                                                   jnp.zeros((), x.dtype))),
    ("lambd",), (Api("softshrink", attrs=(Attr("lambd", 0.5, float),), cls="SoftShrink", init=("lambd",),
                     mintf="softshrink"),
                 Api(attrs=(Attr("lambd", 0.5, float),), tensor="soft_shrink")))
HARDTANH = _with_attrs("Hardtanh", lambda x, *, min_val=-1.0, max_val=1.0: jnp.clip(x, min_val, max_val),
                       ("min_val", "max_val"),
                       (Api("hardtanh", attrs=(Attr("min_val", -1.0, float), Attr("max_val", 1.0, float)), cls=""),))
GLU = _with_attrs("GLU", lambda x, *, axis=-1: jax.nn.glu(x, axis), ("axis",), (
    Api("glu", args=("x",), attrs=(Attr("axis", -1, int),), cls="GLU", init=("axis",)),
    Api(attrs=(Attr("dim", -1, int, to="axis"),), mintf="glu")))
THRESHOLD = _with_attrs("Threshold", lambda x, *, thr, value: jnp.where(x > thr, x, jnp.asarray(value, x.dtype)),
                        ("thr", "value"), (Api("threshold", attrs=(Attr("thr", REQUIRED, float),
                                                                   Attr("value", REQUIRED, float))),))


@primitive("PReLU", category="elementwise",
           api=Api("prelu", args=("input", "weight"), cls="PReLU", mintf="prelu"))
def prelu(x, w):
    """`x` where positive, else `weight * x`; a 1-D weight applies per channel (dim 1)."""
    if w.ndim == 1 and x.ndim >= 2:
        w = w.reshape((1, -1) + (1,) * (x.ndim - 2))
    return jnp.where(x >= 0, x, w * x)


def _gelu_mode(approximate: str) -> str:
    if approximate not in ("none", "tanh"):
        raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    return approximate


@primitive("GeLU", attrs=("approximate",), category="elementwise",
           api=(Api("gelu", attrs=(Attr("approximate", "none", _gelu_mode),)),
                Api(attrs=(Attr("approximate", "none", _gelu_mode),), mintf="gelu")))
def gelu(x, *, approximate="none"):
    """GELU; `approximate="tanh"` uses the tanh formula, `"none"` the exact erf."""
    return jax.nn.gelu(x, approximate=approximate == "tanh")


@primitive("LeakyReLU", attrs=("alpha",), category="elementwise",
           api=(Api("leaky_relu", attrs=(Attr("alpha", 0.2, float),)),
                Api(attrs=(Attr("negative_slope", 0.01, float, to="alpha"),), mintf="leaky_relu")))
def leaky_relu(x, *, alpha=0.2):
    return jax.nn.leaky_relu(x, alpha)


def _axis_check(x, *, axis, **_) -> str | None:
    rank = len(_shape(x))
    axes = (axis,) if isinstance(axis, int) else axis
    bad = [a for a in axes if not -rank <= a < max(rank, 1)]
    return f"axis {bad[0]} is out of range for a tensor of rank {rank}" if bad else None


@primitive("Softmax", attrs=("axis",), category="reduce", check=_axis_check,
           api=Api(attrs=(Attr("axis", -1, _axis),), cls="Softmax", init=("axis",)))
def softmax(x, *, axis=-1):
    return jax.nn.softmax(x, axis=axis)


@primitive("LogSoftmax", attrs=("axis",), category="reduce", check=_axis_check,
           api=Api("log_softmax", args=("logits",), attrs=(Attr("axis", -1, _axis),), cls="LogSoftmax",
                   init=("axis",)))
def log_softmax(x, *, axis=-1):
    return jax.nn.log_softmax(x, axis=axis)


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
def conv2d(x, w, b=None, *, stride=(1, 1), pad_mode="valid", padding=(0, 0, 0, 0), dilation=(1, 1), groups=1):
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
def max_pool2d(x, *, kernel_size, stride, pad_mode="valid", padding=(0, 0, 0, 0), ceil_mode=False):
    _pool_fits("MaxPool", x.shape, kernel_size, padding, pad_mode)
    pads = _pool_padding(pad_mode, padding, ceil_mode, x.shape, kernel_size, stride)
    # a Python scalar init lets jax pick its differentiable max-pool reduction (also under jit)
    init = -float("inf") if jnp.issubdtype(x.dtype, jnp.floating) else int(jnp.iinfo(x.dtype).min)
    return lax.reduce_window(x, init, lax.max, (1, 1) + tuple(kernel_size),
                             (1, 1) + tuple(stride), pads)


@primitive("AvgPool", attrs=("kernel_size", "stride", "pad_mode", "padding", "ceil_mode", "count_include_pad"),
           category="reduce")
def avg_pool2d(x, *, kernel_size, stride, pad_mode="valid", padding=(0, 0, 0, 0), ceil_mode=False,
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


# ---------------------------------------------------------------- normalisation
@primitive("BatchNorm", attrs=("is_training", "epsilon", "momentum", "axis"), category="other", multiple_results=True)
def batch_norm(x, gamma, beta, mean, var, *, is_training=False, epsilon=1e-5, momentum=0.9, axis=1):
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
def layer_norm(x, gamma, beta, *, begin_norm_axis=-1, epsilon=1e-5):
    axes = tuple(range(begin_norm_axis % x.ndim, x.ndim))
    mean = jnp.mean(x, axis=axes, keepdims=True)
    var = jnp.var(x, axis=axes, keepdims=True)
    return (x - mean) * lax.rsqrt(var + epsilon) * gamma + beta


# ---------------------------------------------------------------- losses
def _reduce(loss, reduction: str):
    if reduction == "mean":
        return jnp.mean(loss)
    if reduction == "sum":
        return jnp.sum(loss)
    return loss


def _same_shape_check(x, y, *rest, **_) -> str | None:
    if _shape(x) != _shape(y):
        try:
            np.broadcast_shapes(_shape(x), _shape(y))
        except ValueError:
            return f"logits/input shape {_shape(x)} and target shape {_shape(y)} differ"
    return None


@primitive("L1Loss", attrs=("reduction",), category="loss", check=_same_shape_check,
           api=Api("l1_loss", args=("input", "target"), attrs=(Attr("reduction", "mean", reduction),), cls="L1Loss",
                   init=("reduction",), mintf="l1_loss"))
def l1_loss(x, y, *, reduction="mean"):
    return _reduce(jnp.abs(x - y), reduction)


@primitive("MSELoss", attrs=("reduction",), category="loss", check=_same_shape_check,
           api=Api(("mse_loss", "mse_loss_ext"), args=("input", "target"), attrs=(Attr("reduction", "mean", reduction),),
                   cls="MSELoss", init=("reduction",), mintf="mse_loss"))
def mse_loss(x, y, *, reduction="mean"):
    return _reduce(jnp.square(x - y), reduction)


@primitive("SmoothL1Loss", attrs=("beta", "reduction"), category="loss", check=_same_shape_check,
           api=(Api("smooth_l1_loss", args=("input", "target"), attrs=(Attr("beta", 1.0, float),
                                                                        Attr("reduction", "none", reduction)),
                    cls="SmoothL1Loss", init=("beta", "reduction")),
                Api(args=("input", "target"), attrs=(Attr("reduction", "mean", reduction), Attr("beta", 1.0, float)),
                    mintf="smooth_l1_loss")))
def smooth_l1_loss(x, y, *, beta=1.0, reduction="none"):
    d = jnp.abs(x - y)
    return _reduce(jnp.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta), reduction)


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
def cross_entropy(logits, target, *weight, reduction="mean", ignore_index=-100, label_smoothing=0.0,
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
def nll_loss(logp, target, *weight, reduction="mean", ignore_index=-100, has_weight=False):
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


# ---------------------------------------------------------------- random (the key is an explicit input)
def _key(raw):
    return jax.random.wrap_key_data(raw)


@primitive("RandomSplit", category="random", multiple_results=True, differentiable=False,
           internal=("splits the global random key for every random op (functional_random._next_key); MindSpore has "
                     "no such op"))
def random_split(state):
    """(next state, a fresh key) from the global PRNG state."""
    new, sub = jax.random.split(_key(state))
    return jax.random.key_data(new), jax.random.key_data(sub)


@primitive("UniformReal", attrs=("shape", "minval", "maxval", "dtype"), category="random", differentiable=False)
def uniform(key, *, shape, minval=0.0, maxval=1.0, dtype=mstype.float32):
    check_size("UniformReal", shape, mstype.to_np(dtype))
    return jax.random.uniform(_key(key), shape, mstype.to_np(dtype), minval, maxval)


@primitive("StandardNormal", attrs=("shape", "mean", "stddev", "dtype"), category="random", differentiable=False)
def normal(key, *, shape, mean=0.0, stddev=1.0, dtype=mstype.float32):
    check_size("StandardNormal", shape, mstype.to_np(dtype))
    return jax.random.normal(_key(key), shape, mstype.to_np(dtype)) * stddev + mean


@primitive("UniformInt", attrs=("shape", "low", "high", "dtype"), category="random", differentiable=False)
def randint(key, *, shape, low, high, dtype=mstype.int64):
    check_size("UniformInt", shape, mstype.to_np(dtype))
    return jax.random.randint(_key(key), shape, low, high, mstype.to_np(dtype))


@primitive("Bernoulli", attrs=("p", "shape"), category="random", differentiable=False)
def bernoulli(key, *, p, shape):
    return jax.random.bernoulli(_key(key), p, shape)


@primitive("Dropout", attrs=("p",), category="random")
def dropout(x, key, *, p=0.5):
    """Zero each element with probability `p` and scale the rest by 1/(1-p)."""
    if p <= 0.0:
        return x
    if p >= 1.0:
        return jnp.zeros_like(x)
    keep = jax.random.bernoulli(_key(key), 1.0 - p, x.shape)
    return jnp.where(keep, x / (1.0 - p), jnp.zeros((), x.dtype))
