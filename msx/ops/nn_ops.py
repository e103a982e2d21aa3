"""Neural-network primitives: activations, softmax and the losses whose public functions are generated from
their `Api`.

Conv/pool, batch/layer norm, the hand-wrapped losses and dropout are declared beside their wrappers in
`functional_nn.py`, the random draws in `functional_random.py`; `_reduce`/`_same_shape_check` are shared with
them."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

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
