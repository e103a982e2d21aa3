"""Every registered primitive, through its public `msx.ops` function, against numpy/jax written here.

The table `CASES` pairs an msx call with an independent reference. For each case:
  * the values (and dtypes) must match the reference;
  * the case must really run the primitive it claims (checked with a recorder);
  * for differentiable ops, `msx.grad` of sum(out * cotangent) must match `jax.grad`
    of the reference (random cotangents, so transposition bugs show).
`test_table_covers_every_primitive` fails when a primitive is registered without a case.
Class-style ops, `msx.mint`, random ops and printing are tested below the table.
"""
from __future__ import annotations

import math
from functools import partial
from dataclasses import dataclass
from typing import Any, Callable

import jax
import jax.numpy as jnp
import jax.scipy.special as jsp
import numpy as np
import pytest

import msx
from msx import Tensor, mint, ops
from msx.ops import REGISTRY
from msx.ops.primitive import recording

RNG = np.random.default_rng(1234)


def normal(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


def positive(*shape, lo=0.5, hi=2.0):
    return RNG.uniform(lo, hi, shape).astype(np.float32)


def ints(*shape, lo=0, hi=4):
    return RNG.integers(lo, hi, shape).astype(np.int64)


def bools(*shape):
    return RNG.random(shape) > 0.5


# --------------------------------------------------------------------------- independent references
def ref_softmax(x, axis=-1):
    e = jnp.exp(x - jnp.max(x, axis=axis, keepdims=True))
    return e / jnp.sum(e, axis=axis, keepdims=True)


def ref_log_softmax(x, axis=-1):
    m = jnp.max(x, axis=axis, keepdims=True)
    return x - m - jnp.log(jnp.sum(jnp.exp(x - m), axis=axis, keepdims=True))


def ref_sigmoid(x):
    return 1.0 / (1.0 + jnp.exp(-x))


def _same_pads(size, k, s, d=1):
    eff = (k - 1) * d + 1
    out = -(-size // s)
    total = max((out - 1) * s + eff - size, 0)
    return total // 2, total - total // 2


@partial(jax.jit, static_argnames=("stride", "pads", "dilation", "groups", "same"))
def ref_conv2d(x, w, b=None, stride=(1, 1), pads=((0, 0), (0, 0)), dilation=(1, 1), groups=1, same=False):
    """Direct convolution: a sum over kernel taps of strided slices (no lax.conv)."""
    kh, kw = w.shape[2:]
    if same:
        pads = (_same_pads(x.shape[2], kh, stride[0], dilation[0]), _same_pads(x.shape[3], kw, stride[1], dilation[1]))
    x = jnp.pad(x, ((0, 0), (0, 0)) + tuple(pads))
    _, c, h, wd = x.shape
    o, cg = w.shape[:2]
    (sh, sw), (dh, dw) = stride, dilation
    oh = (h - dh * (kh - 1) - 1) // sh + 1
    ow = (wd - dw * (kw - 1) - 1) // sw + 1
    outs = []
    og = o // groups
    for g in range(groups):
        xg, wg = x[:, g * cg:(g + 1) * cg], w[g * og:(g + 1) * og]
        acc = 0.0
        for i in range(kh):
            for j in range(kw):
                patch = xg[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh, j * dw:j * dw + sw * (ow - 1) + 1:sw]
                acc = acc + jnp.einsum("nchw,oc->nohw", patch, wg[:, :, i, j])
        outs.append(acc)
    y = jnp.concatenate(outs, axis=1)
    return y if b is None else y + b[None, :, None, None]


def _windows(x, k, s, pads, fill):
    """All pooling windows of NCHW `x` stacked on a new last axis (explicit padding with `fill`)."""
    x = jnp.pad(x, ((0, 0), (0, 0)) + tuple(pads), constant_values=fill)
    h, w = x.shape[2:]
    oh, ow = (h - k[0]) // s[0] + 1, (w - k[1]) // s[1] + 1
    taps = [x[:, :, i:i + s[0] * (oh - 1) + 1:s[0], j:j + s[1] * (ow - 1) + 1:s[1]]
            for i in range(k[0]) for j in range(k[1])]
    return jnp.stack(taps, axis=-1)


@partial(jax.jit, static_argnums=(1, 2, 3))
def ref_max_pool(x, k, s, pads=((0, 0), (0, 0))):
    return jnp.max(_windows(x, k, s, pads, -jnp.inf), axis=-1)


@partial(jax.jit, static_argnums=(1, 2, 3, 4))
def ref_avg_pool(x, k, s, pads=((0, 0), (0, 0)), count_include_pad=True):
    total = jnp.sum(_windows(x, k, s, pads, 0.0), axis=-1)
    if count_include_pad:
        return total / (k[0] * k[1])
    counts = jnp.sum(_windows(jnp.ones_like(x), k, s, pads, 0.0), axis=-1)
    return total / counts


def ref_batch_norm(x, gamma, beta, mean, var, eps=1e-5):
    shp = (1, -1) + (1,) * (x.ndim - 2)
    return (x - mean.reshape(shp)) / jnp.sqrt(var.reshape(shp) + eps) * gamma.reshape(shp) + beta.reshape(shp)


def ref_batch_norm_train(x, gamma, beta, eps=1e-5):
    axes = (0,) + tuple(range(2, x.ndim))
    m = jnp.mean(x, axis=axes)
    v = jnp.mean((x - m.reshape((1, -1) + (1,) * (x.ndim - 2))) ** 2, axis=axes)
    return ref_batch_norm(x, gamma, beta, m, v, eps)


def ref_layer_norm(x, gamma, beta, n_axes, eps=1e-5):
    axes = tuple(range(x.ndim - n_axes, x.ndim))
    m = jnp.mean(x, axis=axes, keepdims=True)
    v = jnp.mean((x - m) ** 2, axis=axes, keepdims=True)
    return (x - m) / jnp.sqrt(v + eps) * gamma + beta


def ref_ce_index(logits, target, weight=None, ignore_index=-100, reduction="mean", ls=0.0):
    """torch/MindSpore cross-entropy with class-index targets, written out by hand."""
    c = logits.shape[1]
    logp = ref_log_softmax(logits, axis=1)
    w = jnp.ones((c,), logits.dtype) if weight is None else weight
    valid = target != ignore_index
    t = jnp.where(valid, target, 0)
    onehot = (jnp.arange(c)[None, :] == t[:, None]).astype(logits.dtype)
    nll = -jnp.sum(onehot * logp, axis=1) * w[t]
    smooth = -jnp.sum(logp * w[None, :], axis=1) / c
    loss = jnp.where(valid, (1 - ls) * nll + ls * smooth, 0.0)
    if reduction == "mean":
        return jnp.sum(loss) / jnp.sum(jnp.where(valid, w[t], 0.0))
    return jnp.sum(loss) if reduction == "sum" else loss


def ref_ce_prob(logits, probs, reduction="mean", ls=0.0):
    c = logits.shape[1]
    p = probs * (1 - ls) + ls / c
    loss = -jnp.sum(p * ref_log_softmax(logits, axis=1), axis=1)
    return jnp.mean(loss) if reduction == "mean" else jnp.sum(loss) if reduction == "sum" else loss


def ref_bce_logits(x, t, weight=None, pos_weight=None, reduction="mean"):
    p = ref_sigmoid(x)
    pw = 1.0 if pos_weight is None else pos_weight
    loss = -(pw * t * jnp.log(p) + (1 - t) * jnp.log(1 - p))
    if weight is not None:
        loss = loss * weight
    return jnp.mean(loss) if reduction == "mean" else jnp.sum(loss) if reduction == "sum" else loss


def ref_nll(logp, target, weight=None, ignore_index=-100, reduction="mean"):
    c = logp.shape[1]
    w = jnp.ones((c,), logp.dtype) if weight is None else weight
    valid = target != ignore_index
    t = jnp.where(valid, target, 0)
    wt = jnp.where(valid, w[t], 0.0)
    loss = -logp[jnp.arange(logp.shape[0]), t] * wt
    if reduction == "mean":
        return jnp.sum(loss) / jnp.sum(wt)
    return jnp.sum(loss) if reduction == "sum" else loss


def ref_setitem_row(x, v):
    return x.at[1].set(v)


def _msx_setitem_row(x, v):
    y = x.copy()
    y[1] = v
    return y


def _msx_setitem_mixed(x, idx):
    y = x * 1.0
    y[idx, 1:] = 5.0
    y[..., 0] = -1.0
    return y


def _ref_setitem_mixed(x, idx):
    y = x.at[idx, 1:].set(5.0)
    return y.at[..., 0].set(-1.0)


def _msx_div_trunc(x, y):
    return ops.div(x, y, rounding_mode="trunc")


def _msx_bn_train(x, g, b, m, v):
    return ops.batch_norm(x, m * 1.0, v * 1.0, g, b, training=True)  # copies: the update stays local


def _msx_bn_prim_train(x, g, b, m, v):
    """The primitive's running-stat outputs (MindSpore momentum convention: weight of the old stats)."""
    return ops.get_primitive("BatchNorm")(x, g, b, m, v, is_training=True, epsilon=1e-5, momentum=0.9, axis=1)


def _ref_bn_prim_train(x, g, b, m, v):
    axes = (0, 2, 3)
    bm = jnp.mean(x, axis=axes)
    n = x.shape[0] * x.shape[2] * x.shape[3]
    bv = jnp.sum((x - bm[None, :, None, None]) ** 2, axis=axes) / (n - 1)
    return (ref_batch_norm_train(x, g, b), 0.9 * m + 0.1 * jax.lax.stop_gradient(bm),
            0.9 * v + 0.1 * jax.lax.stop_gradient(bv))


# --------------------------------------------------------------------------- the table
@dataclass
class Case:
    prim: str
    id: str
    fn: Callable  # the msx call, on Tensors
    ref: Callable  # the reference, on jax arrays
    inputs: tuple
    grad: Any = "auto"  # "auto": every float array input when the primitive is differentiable; or a tuple
    rtol: float = 1e-5
    atol: float = 1e-6
    check_dtype: bool = True

    def positions(self) -> tuple:
        if self.grad != "auto":
            return tuple(self.grad)
        if not REGISTRY[self.prim].differentiable:
            return ()
        return tuple(i for i, a in enumerate(self.inputs)
                     if isinstance(a, np.ndarray) and np.issubdtype(a.dtype, np.floating))


A23, B23, C3, P23 = normal(2, 3), normal(2, 3), normal(3), positive(2, 3)
A234, X4 = normal(2, 3, 4), normal(1, 2, 5, 5)
I23a, I23b = ints(2, 3), ints(2, 3)
IMG = normal(2, 4, 6, 6)
LOGITS, LABELS = normal(4, 5), np.array([1, 0, 4, 2], np.int64)
PROBS = np.asarray(jax.nn.softmax(normal(4, 5), axis=1), np.float32)
SPECIAL = np.array([[1.0, np.nan, -np.inf], [np.inf, 0.0, -2.0]], np.float32)

CASES: list[Case] = [
    # ------------------------------------------------ elementwise arithmetic
    Case("Add", "add", ops.add, jnp.add, (A23, B23)),
    Case("Add", "add_broadcast", ops.add, jnp.add, (A23, C3), grad=(0, 1)),
    Case("Add", "add_scalar", lambda x: ops.add(x, 2.5), lambda x: x + 2.5, (A23,)),
    Case("Add", "add_int", ops.add, jnp.add, (I23a, I23b)),
    Case("Sub", "sub", ops.sub, jnp.subtract, (A23, C3)),
    Case("Mul", "mul", ops.mul, jnp.multiply, (A23, B23)),
    Case("RealDiv", "div", ops.div, lambda x, y: x / y, (A23, P23)),
    Case("FloorDiv", "div_floor", lambda x, y: ops.div(x, y, rounding_mode="floor"),
         lambda x, y: jnp.floor(x / y), (A23 * 4, P23)),
    Case("Sign", "div_trunc", _msx_div_trunc, lambda x, y: jnp.trunc(x / y), (A23 * 4, P23), grad=()),
    Case("FloorDiv", "floor_divide_int", ops.floor_divide, lambda x, y: jnp.asarray(np.floor_divide(x, y)),
         (ints(2, 3, lo=-9, hi=9), ints(2, 3, lo=1, hi=4))),
    Case("FloorMod", "remainder", ops.remainder, lambda x, y: x - jnp.floor(x / y) * y,
         (A23 * 3, np.where(RNG.random((2, 3)) > 0.5, 1, -1).astype(np.float32) * P23), rtol=1e-4, atol=1e-5),
    Case("FloorMod", "remainder_int", ops.remainder, lambda x, y: jnp.asarray(np.mod(x, y)),
         (ints(2, 3, lo=-9, hi=9), ints(2, 3, lo=1, hi=4))),
    Case("Pow", "pow", ops.pow, lambda x, y: jnp.exp(y * jnp.log(x)), (P23, B23), rtol=1e-5, atol=1e-5),
    Case("Pow", "pow_scalar", lambda x: ops.pow(x, 3), lambda x: x * x * x, (A23,)),
    Case("Maximum", "maximum", ops.maximum, lambda x, y: jnp.where(x > y, x, y), (A23, B23)),
    Case("Minimum", "minimum", ops.minimum, lambda x, y: jnp.where(x < y, x, y), (A23, C3)),
    Case("Atan2", "atan2", ops.atan2, lambda y, x: jnp.asarray(np.arctan2(y, x)), (A23, B23), grad=()),
    Case("Atan2", "atan2_grad", ops.atan2, jnp.arctan2, (A23, B23)),
    Case("Neg", "neg", ops.neg, lambda x: -x, (A23,)),
    Case("Abs", "abs", ops.abs, lambda x: jnp.where(x < 0, -x, x), (A23,)),
    Case("Abs", "abs_int", ops.abs, lambda x: jnp.asarray(np.abs(x)), (ints(2, 3, lo=-5, hi=5),)),
    Case("Exp", "exp", ops.exp, jnp.exp, (A23,)),
    Case("Log", "log", ops.log, jnp.log, (P23,)),
    Case("Log1p", "log1p", ops.log1p, lambda x: jnp.log(1 + x), (P23,)),
    Case("Sqrt", "sqrt", ops.sqrt, lambda x: x ** 0.5, (P23,)),
    Case("Rsqrt", "rsqrt", ops.rsqrt, lambda x: 1 / jnp.sqrt(x), (P23,)),
    Case("Square", "square", ops.square, lambda x: x * x, (A23,)),
    Case("Reciprocal", "reciprocal", ops.reciprocal, lambda x: 1 / x, (P23,)),
    Case("Sign", "sign", ops.sign, jnp.sign, (np.array([-2.0, 0.0, 3.0], np.float32),)),
    Case("Floor", "floor", ops.floor, jnp.floor, (A23 * 3,)),
    Case("Floor", "floor_np", ops.floor, lambda x: jnp.asarray(np.floor(x)), (A23 * 3,), grad=()),
    Case("Ceil", "ceil", ops.ceil, lambda x: -jnp.floor(-x), (A23 * 3,)),
    Case("Round", "round", ops.round, lambda x: jnp.asarray(np.round(x)),
         (np.array([-2.5, -1.2, 0.4, 0.5, 1.5, 2.7], np.float32),)),
    Case("Sin", "sin", ops.sin, jnp.sin, (A23,)),
    Case("Cos", "cos", ops.cos, jnp.cos, (A23,)),
    Case("Erf", "erf", REGISTRY["Erf"], lambda x: jax.scipy.special.erf(x), (A23,)),
    Case("IsNan", "isnan", ops.isnan, lambda x: jnp.asarray(np.isnan(x)), (SPECIAL,)),
    Case("IsFinite", "isfinite", ops.isfinite, lambda x: jnp.asarray(np.isfinite(x)), (SPECIAL,)),
    Case("Select", "where", ops.where, lambda c, x, y: jnp.asarray(np.where(c, x, y)), (bools(2, 3), A23, B23),
         grad=()),
    Case("Select", "where_grad", ops.where, jnp.where, (bools(2, 3), A23, C3)),
    Case("ClipByValue", "clamp", lambda x: ops.clamp(x, -0.5, 0.5), lambda x: jnp.minimum(jnp.maximum(x, -0.5), 0.5),
         (A23,)),
    Case("ClipByValue", "clamp_min_only", lambda x: ops.clamp(x, min=0.0), lambda x: jnp.maximum(x, 0.0), (A23,)),
    # ------------------------------------------------ comparison and logic
    Case("Equal", "equal", ops.equal, lambda x, y: jnp.asarray(np.equal(x, y)), (I23a, I23b)),
    Case("NotEqual", "not_equal", ops.not_equal, lambda x, y: jnp.asarray(np.not_equal(x, y)), (I23a, I23b)),
    Case("Less", "less", ops.less, lambda x, y: jnp.asarray(np.less(x, y)), (I23a, I23b)),
    Case("LessEqual", "less_equal", ops.less_equal, lambda x, y: jnp.asarray(np.less_equal(x, y)), (I23a, I23b)),
    Case("Greater", "greater", ops.greater, lambda x, y: jnp.asarray(np.greater(x, y)), (A23, B23)),
    Case("GreaterEqual", "greater_equal", ops.greater_equal, lambda x, y: jnp.asarray(np.greater_equal(x, y)),
         (I23a, I23b)),
    Case("LogicalAnd", "logical_and", ops.logical_and, lambda x, y: jnp.asarray(x & y), (bools(2, 3), bools(2, 3))),
    Case("LogicalOr", "logical_or", ops.logical_or, lambda x, y: jnp.asarray(x | y), (bools(2, 3), bools(2, 3))),
    Case("LogicalXor", "logical_xor", ops.logical_xor, lambda x, y: jnp.asarray(x ^ y), (bools(2, 3), bools(2, 3))),
    Case("LogicalNot", "logical_not", ops.logical_not, lambda x: jnp.asarray(~x), (bools(2, 3),)),
    # ------------------------------------------------ matmul
    Case("MatMul", "matmul", ops.matmul, lambda x, y: jnp.einsum("ij,jk->ik", x, y), (A23, normal(3, 4))),
    Case("MatMul", "matmul_batched", ops.matmul, lambda x, y: jnp.einsum("bij,jk->bik", x, y),
         (A234.transpose(0, 2, 1).copy(), normal(3, 2)), grad=(0, 1)),
    Case("MatMul", "matmul_vec", ops.matmul, lambda x, y: jnp.einsum("j,jk->k", x, y), (C3, normal(3, 4))),
    Case("Dense", "dense", ops.dense, lambda x, w, b: jnp.einsum("ij,oj->io", x, w) + b, (A23, normal(4, 3), normal(4))),
    Case("Dense", "dense_nobias", ops.dense, lambda x, w: jnp.einsum("ij,oj->io", x, w), (A23, normal(4, 3))),
    # ------------------------------------------------ reductions
    Case("ReduceSum", "sum_all", ops.sum, lambda x: jnp.asarray(np.sum(x)), (A23,), grad=()),
    Case("ReduceSum", "sum_all_grad", ops.sum, jnp.sum, (A23,)),
    Case("ReduceSum", "reduce_sum_keep", lambda x: ops.reduce_sum(x, 1, keep_dims=True),
         lambda x: jnp.sum(x, axis=1, keepdims=True), (A23,)),
    Case("ReduceSum", "sum_dims", lambda x: ops.sum(x, dim=(0, 2)), lambda x: jnp.sum(x, axis=(0, 2)), (A234,)),
    Case("ReduceSum", "sum_keepdim_neg", lambda x: ops.sum(x, -1, keepdim=True),
         lambda x: jnp.sum(x, axis=-1, keepdims=True), (A234,)),
    Case("ReduceSum", "sum_int", ops.sum, lambda x: jnp.asarray(np.sum(x)), (I23a,)),
    Case("ReduceMean", "mean_axis", lambda x: ops.mean(x, 0), lambda x: jnp.sum(x, 0) / x.shape[0], (A23,)),
    Case("ReduceMean", "mean_all_keep", lambda x: ops.mean(x, keep_dims=True),
         lambda x: jnp.sum(x, keepdims=True) / x.size, (A234,)),
    Case("ReduceMax", "amax", lambda x: ops.amax(x, 1), lambda x: jnp.max(x, axis=1), (A23,)),
    Case("ReduceMax", "amax_all", ops.amax, jnp.max, (A234,)),
    Case("ReduceMin", "amin_keep", lambda x: ops.amin(x, 0, keepdims=True),
         lambda x: jnp.min(x, axis=0, keepdims=True), (A23,)),
    Case("ReduceProd", "prod", lambda x: ops.prod(x, 1), lambda x: x[:, 0] * x[:, 1] * x[:, 2], (A23,)),
    Case("ReduceAll", "all", lambda x: ops.all(x, 1), lambda x: jnp.asarray(np.all(x, axis=1)), (bools(3, 2),)),
    Case("ReduceAny", "any", ops.any, lambda x: jnp.asarray(np.any(x)), (bools(3, 2),)),
    Case("Argmax", "argmax", lambda x: ops.argmax(x, dim=1), lambda x: jnp.asarray(np.argmax(x, axis=1)), (A23,)),
    Case("Argmax", "argmax_all", ops.argmax, lambda x: jnp.asarray(np.argmax(x)), (A23,)),
    Case("Argmax", "argmax_keep", lambda x: ops.argmax(x, 0, keepdim=True),
         lambda x: jnp.asarray(np.argmax(x, axis=0))[None], (A23,)),
    # MindSpore 2.10 gives int32 indices for argmin and sort (int64 for argmax): see tests/oracle goldens
    Case("Argmin", "argmin", lambda x: ops.argmin(x, axis=0), lambda x: jnp.asarray(np.argmin(x, axis=0), jnp.int32),
         (A23,)),
    Case("ArgMaxWithValue", "max_axis", lambda x: ops.max(x, 1),
         lambda x: (jnp.max(x, axis=1), jnp.asarray(np.argmax(x, axis=1))), (A23,)),
    Case("ArgMaxWithValue", "max_all", ops.max,
         lambda x: (jnp.max(x), jnp.asarray(np.argmax(x))), (A23,)),
    Case("ArgMaxWithValue", "max_keep", lambda x: ops.max(x, 0, keepdims=True),
         lambda x: (jnp.max(x, axis=0, keepdims=True), jnp.asarray(np.argmax(x, axis=0))[None]), (A23,)),
    Case("ArgMinWithValue", "min_axis", lambda x: ops.min(x, 0),
         lambda x: (jnp.min(x, axis=0), jnp.asarray(np.argmin(x, axis=0))), (A23,)),
    Case("CumSum", "cumsum", lambda x: ops.cumsum(x, 1),
         lambda x: jnp.stack([x[:, 0], x[:, 0] + x[:, 1], x[:, 0] + x[:, 1] + x[:, 2]], 1), (A23,)),
    Case("Norm", "norm_fro", ops.norm, lambda x: jnp.sqrt(jnp.sum(x * x)), (A23,)),
    Case("Norm", "norm_dim", lambda x: ops.norm(x, dim=1), lambda x: jnp.sqrt(jnp.sum(x * x, axis=1)), (A23,)),
    Case("Norm", "norm_l1", lambda x: ops.norm(x, 1, dim=1, keepdim=True),
         lambda x: jnp.sum(jnp.abs(x), axis=1, keepdims=True), (A23,)),
    # ------------------------------------------------ activations
    Case("ReLU", "relu", ops.relu, lambda x: jnp.where(x > 0, x, 0.0), (A23,)),
    Case("ReLU6", "relu6", ops.relu6, lambda x: jnp.clip(x, 0.0, 6.0), (A23 * 5,)),
    Case("Sigmoid", "sigmoid", ops.sigmoid, ref_sigmoid, (A23,)),
    Case("Tanh", "tanh", ops.tanh, lambda x: (jnp.exp(2 * x) - 1) / (jnp.exp(2 * x) + 1), (A23,)),
    Case("SiLU", "silu", ops.silu, lambda x: x * ref_sigmoid(x), (A23,)),
    Case("Softplus", "softplus", ops.softplus, lambda x: jnp.log(1 + jnp.exp(x)), (A23,)),
    Case("Softplus", "softplus_beta", lambda x: ops.softplus(x, beta=2), lambda x: jnp.log(1 + jnp.exp(2 * x)) / 2,
         (A23,)),
    Case("GeLU", "gelu", ops.gelu, lambda x: 0.5 * x * (1 + jsp.erf(x / math.sqrt(2))), (A23,)),
    Case("GeLU", "gelu_tanh", lambda x: ops.gelu(x, approximate="tanh"),
         lambda x: 0.5 * x * (1 + jnp.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3))), (A23,)),
    Case("LeakyReLU", "leaky_relu", lambda x: ops.leaky_relu(x, 0.1), lambda x: jnp.where(x > 0, x, 0.1 * x), (A23,)),
    Case("LeakyReLU", "leaky_relu_default", ops.leaky_relu, lambda x: jnp.where(x > 0, x, 0.2 * x), (A23,)),
    Case("Softmax", "softmax", ops.softmax, ref_softmax, (A23,)),
    Case("Softmax", "softmax_axis0", lambda x: ops.softmax(x, axis=0), lambda x: ref_softmax(x, 0), (A234,)),
    Case("LogSoftmax", "log_softmax", ops.log_softmax, ref_log_softmax, (A23,)),
    Case("LogSoftmax", "log_softmax_axis1", lambda x: ops.log_softmax(x, 1), lambda x: ref_log_softmax(x, 1), (A234,)),
    # ------------------------------------------------ conv / pool / norm
    Case("Conv2D", "conv_valid", ops.conv2d, ref_conv2d, (IMG, normal(3, 4, 3, 3)), rtol=1e-4, atol=1e-4),
    Case("Conv2D", "conv_pad_stride_bias", lambda x, w, b: ops.conv2d(x, w, b, stride=2, pad_mode="pad", padding=1),
         lambda x, w, b: ref_conv2d(x, w, b, (2, 2), ((1, 1), (1, 1))), (IMG, normal(3, 4, 3, 3), normal(3)),
         grad=(0, 1, 2), rtol=1e-4, atol=1e-4),
    Case("Conv2D", "conv_pad4", lambda x, w: ops.conv2d(x, w, pad_mode="pad", padding=(1, 0, 2, 1)),
         lambda x, w: ref_conv2d(x, w, pads=((1, 0), (2, 1))), (IMG, normal(2, 4, 2, 3)), rtol=1e-4, atol=1e-4),
    Case("Conv2D", "conv_same", lambda x, w: ops.conv2d(x, w, pad_mode="same"),
         lambda x, w: ref_conv2d(x, w, same=True), (IMG, normal(3, 4, 3, 3)), rtol=1e-4, atol=1e-4),
    Case("Conv2D", "conv_dilation", lambda x, w: ops.conv2d(x, w, dilation=2),
         lambda x, w: ref_conv2d(x, w, dilation=(2, 2)), (IMG, normal(3, 4, 2, 2)), rtol=1e-4, atol=1e-4),
    Case("Conv2D", "conv_groups", lambda x, w: ops.conv2d(x, w, groups=2),
         lambda x, w: ref_conv2d(x, w, groups=2), (IMG, normal(4, 2, 3, 3)), rtol=1e-4, atol=1e-4),
    Case("MaxPool", "max_pool", lambda x: ops.max_pool2d(x, 2), lambda x: ref_max_pool(x, (2, 2), (2, 2)), (IMG,)),
    Case("MaxPool", "max_pool_pad", lambda x: ops.max_pool2d(x, 3, stride=1, padding=1),
         lambda x: ref_max_pool(x, (3, 3), (1, 1), ((1, 1), (1, 1))), (IMG,)),
    Case("MaxPool", "max_pool_ceil", lambda x: ops.max_pool2d(x, 2, 2, ceil_mode=True),
         lambda x: ref_max_pool(x, (2, 2), (2, 2), ((0, 1), (0, 1))), (X4,)),
    Case("AvgPool", "avg_pool", lambda x: ops.avg_pool2d(x, 2, 2), lambda x: ref_avg_pool(x, (2, 2), (2, 2)), (IMG,)),
    Case("AvgPool", "avg_pool_pad", lambda x: ops.avg_pool2d(x, 3, 2, padding=1),
         lambda x: ref_avg_pool(x, (3, 3), (2, 2), ((1, 1), (1, 1))), (IMG,)),
    Case("AvgPool", "avg_pool_pad_exclude", lambda x: ops.avg_pool2d(x, 3, 2, padding=1, count_include_pad=False),
         lambda x: ref_avg_pool(x, (3, 3), (2, 2), ((1, 1), (1, 1)), False), (IMG,), grad=(0,)),
    Case("AvgPool", "avg_pool_ceil", lambda x: ops.avg_pool2d(x, 2, 2, ceil_mode=True),
         # the overhanging last window averages only the elements it covers
         lambda x: ref_avg_pool(x, (2, 2), (2, 2), ((0, 1), (0, 1)), False), (X4,)),
    Case("AvgPool", "avg_pool_divisor", lambda x: ops.avg_pool2d(x, 2, 2, divisor_override=3),
         lambda x: ref_avg_pool(x, (2, 2), (2, 2)) * 4 / 3, (IMG,)),
    Case("BatchNorm", "batch_norm_eval",
         lambda x, m, v, g, b: ops.batch_norm(x, m, v, g, b),
         lambda x, m, v, g, b: ref_batch_norm(x, g, b, m, v), (IMG, normal(4), positive(4), positive(4), normal(4)),
         rtol=1e-4, atol=1e-5),
    Case("BatchNorm", "batch_norm_train", _msx_bn_train,
         lambda x, g, b, m, v: ref_batch_norm_train(x, g, b), (IMG, positive(4), normal(4), normal(4), positive(4)),
         grad=(0, 1, 2), rtol=1e-4, atol=1e-4),
    Case("BatchNorm", "batch_norm_running_stats", _msx_bn_prim_train, _ref_bn_prim_train,
         (IMG, positive(4), normal(4), normal(4), positive(4)), rtol=1e-4, atol=1e-4),
    Case("LayerNorm", "layer_norm", lambda x, g, b: ops.layer_norm(x, (4,), g, b),
         lambda x, g, b: ref_layer_norm(x, g, b, 1), (A234, positive(4), normal(4)), rtol=1e-4, atol=1e-5),
    Case("LayerNorm", "layer_norm_2d_default_affine", lambda x: ops.layer_norm(x, (3, 4)),
         lambda x: ref_layer_norm(x, 1.0, 0.0, 2), (A234,), rtol=1e-4, atol=1e-5),
    # ------------------------------------------------ losses
    Case("L1Loss", "l1_loss", ops.l1_loss, lambda x, y: jnp.mean(jnp.abs(x - y)), (A23, B23)),
    Case("L1Loss", "l1_loss_sum", lambda x, y: ops.l1_loss(x, y, "sum"), lambda x, y: jnp.sum(jnp.abs(x - y)),
         (A23, B23)),
    Case("L1Loss", "l1_loss_none", lambda x, y: ops.l1_loss(x, y, reduction="none"), lambda x, y: jnp.abs(x - y),
         (A23, B23)),
    Case("MSELoss", "mse_loss", ops.mse_loss, lambda x, y: jnp.mean((x - y) ** 2), (A23, B23)),
    Case("MSELoss", "mse_loss_none", lambda x, y: ops.mse_loss(x, y, "none"), lambda x, y: (x - y) ** 2, (A23, B23)),
    Case("SmoothL1Loss", "smooth_l1_default_none", ops.smooth_l1_loss,
         lambda x, y: jnp.where(jnp.abs(x - y) < 1.0, 0.5 * (x - y) ** 2, jnp.abs(x - y) - 0.5), (A23 * 2, B23)),
    Case("SmoothL1Loss", "smooth_l1_beta_mean", lambda x, y: ops.smooth_l1_loss(x, y, beta=0.5, reduction="mean"),
         lambda x, y: jnp.mean(jnp.where(jnp.abs(x - y) < 0.5, (x - y) ** 2, jnp.abs(x - y) - 0.25)), (A23 * 2, B23)),
    Case("BCEWithLogitsLoss", "bce_logits", ops.binary_cross_entropy_with_logits, ref_bce_logits,
         (A23, RNG.random((2, 3)).astype(np.float32))),
    Case("BCEWithLogitsLoss", "bce_logits_weights",
         lambda x, t, w, pw: ops.binary_cross_entropy_with_logits(x, t, w, pw, reduction="sum"),
         lambda x, t, w, pw: ref_bce_logits(x, t, w, pw, "sum"),
         (A23, RNG.random((2, 3)).astype(np.float32), positive(3), positive(3)), rtol=1e-5, atol=1e-5),
    Case("BCEWithLogitsLoss", "bce_logits_none", lambda x, t: ops.binary_cross_entropy_with_logits(x, t, reduction="none"),
         lambda x, t: ref_bce_logits(x, t, reduction="none"), (A23, RNG.random((2, 3)).astype(np.float32))),
    Case("CrossEntropy", "ce_index", ops.cross_entropy, ref_ce_index, (LOGITS, LABELS)),
    Case("CrossEntropy", "ce_index_weight_ignore",
         lambda x, t, w: ops.cross_entropy(x, t, w, ignore_index=2),
         lambda x, t, w: ref_ce_index(x, t, w, ignore_index=2), (LOGITS, LABELS, positive(5)), rtol=1e-5, atol=1e-5),
    Case("CrossEntropy", "ce_index_smoothing_none",
         lambda x, t: ops.cross_entropy(x, t, reduction="none", label_smoothing=0.2),
         lambda x, t: ref_ce_index(x, t, reduction="none", ls=0.2), (LOGITS, LABELS), rtol=1e-5, atol=1e-5),
    Case("CrossEntropy", "ce_prob", ops.cross_entropy, ref_ce_prob, (LOGITS, PROBS), grad=(0, 1)),
    Case("CrossEntropy", "ce_prob_sum_smoothing",
         lambda x, p: ops.cross_entropy(x, p, reduction="sum", label_smoothing=0.1),
         lambda x, p: ref_ce_prob(x, p, "sum", 0.1), (LOGITS, PROBS), rtol=1e-5, atol=1e-5),
    Case("NLLLoss", "nll_loss", lambda x, t: ops.nll_loss(ops.log_softmax(x, 1), t),
         lambda x, t: ref_nll(ref_log_softmax(x, 1), t), (LOGITS, LABELS)),
    Case("NLLLoss", "nll_loss_weight_ignore", lambda x, t, w: ops.nll_loss(x, t, w, ignore_index=0),
         lambda x, t, w: ref_nll(x, t, w, ignore_index=0), (LOGITS, LABELS, positive(5))),
    Case("NLLLoss", "nll_loss_sum", lambda x, t: ops.nll_loss(x, t, reduction="none"),
         lambda x, t: ref_nll(x, t, reduction="none"), (LOGITS, LABELS)),
    # ------------------------------------------------ shape
    Case("Cast", "cast_f64", lambda x: ops.cast(x, msx.float64), lambda x: x.astype(jnp.float64), (A23,)),
    Case("Cast", "cast_int", lambda x: ops.cast(x, msx.int32), lambda x: jnp.asarray(x.astype(np.int32)), (A23 * 4,)),
    Case("Cast", "cast_bool_to_float", lambda x: ops.cast(x, "float32"), lambda x: x.astype(jnp.float32),
         (bools(2, 3),)),
    Case("Reshape", "reshape", lambda x: ops.reshape(x, (3, -1)), lambda x: x.reshape(3, 8), (A234,)),
    Case("Reshape", "reshape_tensor_shape", lambda x: ops.reshape(x, Tensor([6])), lambda x: x.reshape(6), (A23,)),
    Case("Transpose", "transpose", lambda x: ops.transpose(x, (2, 0, 1)), lambda x: jnp.transpose(x, (2, 0, 1)),
         (A234,)),
    Case("Concat", "concat", lambda a, b: ops.concat([a, b], 1), lambda a, b: jnp.concatenate([a, b], 1),
         (A23, normal(2, 2))),
    Case("Concat", "concat_default_axis", lambda a, b: ops.concat((a, b)), lambda a, b: jnp.concatenate([a, b], 0),
         (A23, B23)),
    Case("Stack", "stack", lambda a, b: ops.stack([a, b], axis=-1), lambda a, b: jnp.stack([a, b], -1), (A23, B23)),
    Case("Split", "split_size", lambda x: ops.split(x, 2, 0), lambda x: (x[:2], x[2:4], x[4:]), (normal(5, 3),)),
    Case("Split", "split_sections", lambda x: ops.split(x, [1, 2], axis=1), lambda x: (x[:, :1], x[:, 1:]), (A23,)),
    Case("Squeeze", "squeeze", ops.squeeze, lambda x: x.reshape(3), (normal(1, 3, 1),)),
    Case("Squeeze", "squeeze_axis", lambda x: ops.squeeze(x, 2), lambda x: x.reshape(1, 3), (normal(1, 3, 1),)),
    Case("ExpandDims", "expand_dims", lambda x: ops.expand_dims(x, 1), lambda x: x.reshape(2, 1, 3), (A23,)),
    Case("ExpandDims", "unsqueeze_neg", lambda x: ops.unsqueeze(x, -1), lambda x: x.reshape(2, 3, 1), (A23,)),
    Case("Flatten", "flatten_default_keeps_batch", ops.flatten, lambda x: x.reshape(2, 12), (A234,)),
    Case("Flatten", "flatten_start0", lambda x: ops.flatten(x, start_dim=0), lambda x: x.reshape(24), (A234,)),
    Case("Flatten", "flatten_range", lambda x: ops.flatten(x, start_dim=0, end_dim=1), lambda x: x.reshape(6, 4),
         (A234,)),
    Case("BroadcastTo", "broadcast_to", lambda x: ops.broadcast_to(x, (2, 3)), lambda x: jnp.stack([x, x]), (C3,)),
    Case("BroadcastTo", "broadcast_to_minus1", lambda x: ops.broadcast_to(x, (4, -1, 3)),
         lambda x: jnp.stack([jnp.concatenate([x] * 3, 1)] * 4), (normal(2, 1),)),
    Case("Tile", "tile", lambda x: ops.tile(x, (2, 1)), lambda x: jnp.concatenate([x, x], 0), (A23,)),
    Case("Pad", "pad_last", lambda x: ops.pad(x, (1, 2)), lambda x: jnp.pad(x, ((0, 0), (1, 2))), (A23,)),
    Case("Pad", "pad_two_dims_value", lambda x: ops.pad(x, (1, 1, 2, 0), value=3.0),
         lambda x: jnp.pad(x, ((2, 0), (1, 1)), constant_values=3.0), (A23,)),
    Case("Gather", "gather_axis0", lambda x, i: ops.gather(x, i, 0), lambda x, i: x[i], (normal(4, 3), np.array([2, 0, 2]))),
    Case("Gather", "gather_axis1_2d_idx", lambda x, i: ops.gather(x, i, 1), lambda x, i: x[:, i],
         (normal(4, 3), np.array([[2, 0], [1, 1]]))),
    Case("Gather", "gather_batch_dims", lambda x, i: ops.gather(x, i, 1, batch_dims=1),
         lambda x, i: jnp.stack([x[k][i[k]] for k in range(x.shape[0])]),
         (normal(3, 4), np.array([[0, 3], [1, 1], [2, 0]]))),
    Case("GatherD", "gather_elements", lambda x, i: ops.gather_elements(x, 1, i),
         lambda x, i: jnp.stack([x[r][i[r]] for r in range(x.shape[0])]), (A23, np.array([[2, 0], [1, 1]]))),
    Case("OneHot", "one_hot", lambda i: ops.one_hot(i, 3, 1.0, 0.0),
         lambda i: jnp.asarray(np.eye(3, dtype=np.float32)[i]), (np.array([0, 2, 1, 2]),)),
    Case("OneHot", "one_hot_values_axis0", lambda i: ops.one_hot(i, 4, 5.0, -1.0, axis=0),
         lambda i: jnp.asarray((np.eye(4, dtype=np.float32)[i] * 6 - 1).T), (np.array([0, 3, 1]),)),
    Case("Sort", "sort", ops.sort, lambda x: (jnp.asarray(np.sort(x, -1)), jnp.asarray(np.argsort(x, -1), jnp.int32)),
         (A23,),
         grad=()),
    Case("Sort", "sort_desc_axis0", lambda x: ops.sort(x, 0, descending=True),
         lambda x: (jnp.asarray(-np.sort(-x, 0)), jnp.asarray(np.argsort(-x, 0), jnp.int32)), (A23,), grad=()),
    Case("Sort", "sort_grad", lambda x: ops.sort(x)[0], lambda x: jnp.sort(x, -1), (A23,)),
    Case("TopK", "topk", lambda x: ops.topk(x, 2),
         lambda x: (-jnp.sort(-x, -1)[:, :2], jnp.argsort(-x, -1)[:, :2].astype(jnp.int32)), (A23,)),  # int32: MindSpore's
    Case("TopK", "topk_smallest_dim0", lambda x: ops.topk(x, 1, dim=0, largest=False),
         lambda x: (jnp.min(x, 0, keepdims=True), jnp.argmin(x, 0)[None].astype(jnp.int32)), (A23,)),
    # ------------------------------------------------ indexing
    Case("GetItem", "getitem_int", lambda x: x[1], lambda x: x[1], (A23,)),
    Case("GetItem", "getitem_slices", lambda x: x[:, 1:, ::2], lambda x: x[:, 1:, ::2], (A234,)),
    Case("GetItem", "getitem_ellipsis_none", lambda x: x[..., None, -1], lambda x: x[..., None, -1], (A234,)),
    Case("GetItem", "getitem_tensor", lambda x, i: x[i], lambda x, i: x[i], (normal(4, 3), np.array([3, 0, 3])),
         grad=(0,)),
    Case("GetItem", "getitem_mixed", lambda x, i: x[1, i, :2], lambda x, i: x[1, i, :2], (A234, np.array([2, 0]))),
    Case("GetItem", "getitem_list", lambda x: x[[0, 1, 1]], lambda x: x[jnp.array([0, 1, 1])], (A23,)),
    Case("SetItem", "setitem_row", _msx_setitem_row, ref_setitem_row, (A23, C3)),
    Case("SetItem", "setitem_mixed", _msx_setitem_mixed, _ref_setitem_mixed, (normal(3, 3), np.array([2, 0]))),
    # ------------------------------------------------ creation
    Case("Fill", "ones", lambda: ops.ones((2, 3)), lambda: jnp.asarray(np.ones((2, 3), np.float32)), ()),
    Case("Fill", "zeros_int32", lambda: ops.zeros(3, msx.int32), lambda: jnp.asarray(np.zeros(3, np.int32)), ()),
    Case("Fill", "full_int_default_int64", lambda: ops.full((2, 2), 7), lambda: jnp.asarray(np.full((2, 2), 7, np.int64)),
         ()),
    Case("Fill", "full_float_default_float32", lambda: ops.full((2,), 1.5),
         lambda: jnp.asarray(np.full((2,), 1.5, np.float32)), ()),
    Case("Fill", "full_bool", lambda: ops.full((2,), True), lambda: jnp.asarray(np.full((2,), True)), ()),
    Case("Fill", "full_dtype", lambda: ops.full((1, 2), 2, dtype=msx.float16),
         lambda: jnp.asarray(np.full((1, 2), 2, np.float16)), ()),
    Case("Range", "arange_int", lambda: ops.arange(5), lambda: jnp.asarray(np.arange(5, dtype=np.int64)), ()),
    Case("Range", "arange_float", lambda: ops.arange(1, 2, 0.25),
         lambda: jnp.asarray(np.arange(1, 2, 0.25, dtype=np.float32)), ()),
    Case("Range", "arange_dtype", lambda: ops.arange(0, 10, 3, dtype=msx.float32),
         lambda: jnp.asarray(np.array([0, 3, 6, 9], np.float32)), ()),
    Case("Eye", "eye", lambda: ops.eye(3), lambda: jnp.asarray(np.eye(3, dtype=np.float32)), ()),
    Case("Eye", "eye_rect_int", lambda: ops.eye(2, 3, msx.int32), lambda: jnp.asarray(np.eye(2, 3, dtype=np.int32)), ()),
    Case("FillLike", "ones_like", ops.ones_like, lambda x: jnp.asarray(np.ones_like(x)), (A23,)),
    Case("FillLike", "zeros_like_int", ops.zeros_like, lambda x: jnp.asarray(np.zeros_like(x)), (I23a,)),
    Case("FillLike", "zeros_like_dtype", lambda x: ops.zeros_like(x, dtype=msx.int32),
         lambda x: jnp.asarray(np.zeros(x.shape, np.int32)), (A23,)),
    Case("FillLike", "full_like", lambda x: ops.full_like(x, 2.5), lambda x: jnp.asarray(np.full(x.shape, 2.5, x.dtype)),
         (A23,)),
    # ------------------------------------------------ autodiff helpers
    Case("StopGradient", "stop_gradient", lambda x: x * ops.stop_gradient(x),
         lambda x: x * jax.lax.stop_gradient(x), (A23,)),
    Case("StopGradient", "stop_gradient_only", ops.stop_gradient, lambda x: x, (A23,), grad=()),
    Case("Identity", "identity", lambda x: ops.get_primitive("Identity")(x), lambda x: x, (A23,)),
]

# Primitives with their own tests below (random sampling, printing).
TESTED_SEPARATELY = {"UniformReal", "StandardNormal", "UniformInt", "Bernoulli", "Dropout", "RandomSplit", "Print",
                     "FlashAttentionScore", "FlashAttentionScoreSoftmaxStats", "ScaledDotProductAttention",
                     "RotaryPositionEmbedding",  # tests/test_attention.py
                     "Summary",  # tests/test_summary.py reads what it recorded back from TensorBoard's files
                     "Assert", "TensorDump",  # tests/test_debug_ops.py: MindSpore 2.10's printout, errors and files
                     "LocalNorm",  # tests/test_parallel_api.py: each device's norms against numpy's of jax.grad's
                     "CTCLossV2",  # tests/test_ctc_loss.py: loss, log_alpha and gradients against MindSpore 2.10
                     "RecurrentLayer",  # tests/test_recurrent_layer.py against a per-step loop; golden_nn's RNN cases
                     "SparseToDense", "SparseTensorDenseAdd", "SparseTensorDenseMatmul",  # tests/test_sparse_apply_ops.py:
                     # values against MindSpore 2.10, jit in every capture mode, finite-difference gradients
                     "HistogramFixedWidth",  # tests/test_format_bits_ops.py: against numpy (no MindSpore CPU kernel)
                     "TridiagonalMatMul",  # tests/test_format_bits_ops.py: finite-difference gradients (values: goldens)
                     "NonMaxSuppressionV3",  # tests/test_detection_ops.py: its documented rule (no CPU kernel)
                     # tests/test_fused_optim_ops.py, test_embedding_cache_ops.py, test_fused_norm_thor_ops.py: MindSpore
                     # 2.10's CPU goldens where it has the kernel, else its kernels' formulas (gradients: jax.grad of those)
                     "FusedSparseAdamUpdate", "FusedSparseFtrlUpdate", "FusedSparseProximalAdagradUpdate",
                     "AdamNoUpdateParamUpdate", "FusedCastAdamWeightDecayUpdate", "FusedAdaFactorUpdate", "LARSUpdate",
                     "PadAndShift", "SubAndFilter", "UpdateCacheWrite", "CacheSwapTableWrite", "DynamicAssignWrite",
                     "MapCacheIdxUpdate", "AddLayerNormV2", "AddRmsNorm", "CholeskyTrsm", "DetTriangle",
                     "UniformCandidateSampler", "LogUniformCandidateSampler", "ComputeAccidentalHits",
                     "ParameterizedTruncatedNormal", "NonDeterministicInts",  # tests/test_samplers_ops.py: statistics,
                     # seeding, threads and MindSpore's expected counts
                     "RaggedRange", "ConfusionMatrix",  # tests/test_ragged_numerics_ops.py: MindSpore 2.10 / numpy
                     "Dilation2D",  # tests/test_morphology_patch_ops.py: its formula (MindSpore's CPU kernel fails)
                     "BatchNormStats", "BatchNormElemt", "BatchNormGatherStatsWithCounts", "InstanceNorm",
                     "EqualExt", "ConvTbc", "UpsampleBilinear2D",  # tests/test_mint_torch_ref_ops.py
                     "LSTM", "RNNTLoss",  # tests/test_lstm_rnnt_ops.py: MindSpore's LSTM goldens; RNNT vs numpy
                     # (gradients: tests/test_spectral_taylor_ops.py FD_CHECKED_GRADS, torch's, MindSpore's LSTMGrad)
                     "FFTWithSize", "UpsampleNearest2D",
                     "DiagExt", "Kthvalue", "TriangularSolve", "Unique2"}  # tests/test_added_names_numpy.py: values
# against numpy, jit = eager and finite-difference gradients (MindSpore's CPU build has no kernel to record)


# ops MindSpore 2.10 cannot run on CPU (no golden): tests/test_ops_numpy_ref.py checks values and gradients
CHECKED_AGAINST_NUMPY = {"Roll", "Take", "SelectView", "Fmin", "Rint", "Einsum", "Cummax", "Cummin", "BitwiseNot",
                         "Real", "Imag", "Conj", "Angle", "AddN", "FloatPower"}
from oracle.cases_math import GRADS_CHECKED_HERE as _MATH_GRADS, VALUES_CHECKED_HERE as _MATH_VALUES  # noqa: E402


def _owned_elsewhere(name: str, grad: bool = False) -> bool:
    """Primitives of modules still in flight (optimizer updates, gradient clipping), user custom ops
    (category "custom", registered at run time by `ops.Custom`/`CustomOpBuilder` and tested with them), and
    the ops checked against real MindSpore's goldens in tests/test_oracle.py (values, and gradients)."""
    from oracle.msx_side import oracle_primitives
    from test_ops_golden import golden_primitives

    prim = REGISTRY.get(name)
    if prim is not None and (prim.category == "custom" or prim.subgraphs):
        return True  # an op over subgraphs: tests/test_control*.py, test_case_op.py, test_loop_ops.py, ...
    if name in oracle_primitives()[1 if grad else 0]:
        return True
    if name in CHECKED_AGAINST_NUMPY or name in (_MATH_GRADS if grad else _MATH_VALUES):  # tests/test_ops_math_numpy.py
        return True
    if name in CHECKED_BY_LAYER_GOLDENS or name in COLLECTIVES:
        return True
    if name in golden_primitives(grad):  # ops added one declaration at a time: tests/test_ops_golden.py
        return True
    if prim is not None and prim.name.startswith("Np") and prim.doc.startswith("mindspore.numpy."):
        return True  # msx.numpy's primitives: tests/test_numpy.py, against MindSpore's goldens
    return any(part in name for part in ("Optim", "Apply", "Clip"))


# layer primitives whose values and gradients tests/test_golden_nn.py checks against MindSpore 2.10, through
# the layer cases named here (test_layer_goldens_cover_their_primitives checks the cases exist)
CHECKED_BY_LAYER_GOLDENS = {
    "Conv3D": ("Conv3d_pad", "Conv3d_same"), "Conv2DTranspose": ("Conv2dTranspose_pad", "Conv2dTranspose_same"),
    "Conv3DTranspose": ("Conv3dTranspose_valid",), "MaxPool3D": ("MaxPool3d",), "AvgPool3D": ("AvgPool3d",),
    "Interpolate": ("Upsample_bilinear", "Upsample_nearest", "Upsample_trilinear"),
    "PadV3": ("Pad_reflect", "ReflectionPad2d", "ReplicationPad3d", "ConstantPad2d"),
}


# collectives: tests/test_parallel.py runs them over two msrun ranks, eagerly and jitted, against numpy
COLLECTIVES = {"AllReduce", "AllGather", "ReduceScatter", "Broadcast", "RankSlice"}
COLLECTIVES |= {"Shard"}  # the sharding constraint: tests/test_sharding.py trains through it on 8 devices
# tests/test_mint_distributed.py runs them over two msrun ranks, eagerly and jitted, against numpy
COLLECTIVES |= {"AllToAll", "Send", "Receive", "Exchange"}
# tests/test_comm_class_ops.py runs them (inside the class ops) over two msrun ranks, eager and jitted, against numpy
COLLECTIVES |= {"CommKeep", "Barrier"}


def test_layer_goldens_cover_their_primitives():
    import os
    import sys

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "golden_nn"))
    from nn_cases import CASES as LAYER_CASES

    for prim, names in CHECKED_BY_LAYER_GOLDENS.items():
        assert prim in REGISTRY
        assert set(names) <= set(LAYER_CASES), (prim, sorted(set(names) - set(LAYER_CASES)))


# --------------------------------------------------------------------------- helpers
class _Spy:
    """A recorder for `msx.ops.primitive.recording`: collects the names of the primitives applied."""

    def __init__(self):
        self.names: list[str] = []

    def record(self, prim, inputs, attrs, result):
        self.names.append(prim.name)

    def __getattr__(self, name):  # on_rebind, on_concrete, ...: ignore
        return lambda *a, **k: None


def _to_msx(a):
    return Tensor(a) if isinstance(a, np.ndarray) else a


def _to_msx_traced(a):
    return Tensor(a) if isinstance(a, jax.Array) else a


def _to_jax(a):
    return jnp.asarray(a) if isinstance(a, np.ndarray) else a


def _run_ref(fn, *args):
    """The reference, compiled in one piece when it is jax-traceable (far faster than op-by-op)."""
    try:
        return fn(*args)
    except jax.errors.JAXTypeError:  # a numpy reference: run it as it is
        return fn(*args)


def _leaves(out) -> list:
    return list(out) if isinstance(out, (tuple, list)) else [out]


def _assert_close(got, want, rtol, atol, check_dtype, what=""):
    assert isinstance(got, Tensor), f"{what}: expected a Tensor, got {type(got).__name__}"
    want = np.asarray(want)
    g = got.asnumpy()
    assert g.shape == want.shape, f"{what}: shape {g.shape} != reference {want.shape}"
    if check_dtype:
        assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != reference {want.dtype}"
    if want.dtype == np.bool_ or np.issubdtype(want.dtype, np.integer):
        np.testing.assert_array_equal(g, want, err_msg=what)
    else:
        np.testing.assert_allclose(g.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol, err_msg=what)


# --------------------------------------------------------------------------- the table's tests
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_value(case: Case):
    spy = _Spy()
    recording.recorder = spy
    try:
        out = case.fn(*[_to_msx(a) for a in case.inputs])
    finally:
        recording.recorder = None
    assert case.prim in spy.names, f"{case.id} claims to test {case.prim} but ran {spy.names}"
    want = _run_ref(case.ref, *[_to_jax(a) for a in case.inputs])
    got_l, want_l = _leaves(out), _leaves(want)
    assert len(got_l) == len(want_l), f"{len(got_l)} outputs, reference has {len(want_l)}"
    for k, (g, w) in enumerate(zip(got_l, want_l)):
        _assert_close(g, w, case.rtol, case.atol, case.check_dtype, f"{case.id} output {k}")


def _grad_cases() -> list[Case]:
    """Explicit `grad=(...)` cases, plus the first "auto" case of each primitive (one is enough: the
    plumbing is what can break, and every extra eager grad costs compile time)."""
    picked, seen = [], set()
    for c in CASES:
        if c.grad != "auto":
            if c.positions():
                picked.append(c)
                seen.add(c.prim)
        elif c.prim not in seen and c.positions():
            picked.append(c)
            seen.add(c.prim)
    return picked


GRAD_CASES = _grad_cases()


# msx.grad is compared inside one jax.jit together with the reference (one compile per case instead of
# hundreds of eager dispatches); a sample also runs eagerly, the way users call it.
EAGER_GRAD_IDS = {"add_broadcast", "matmul_batched", "conv_pad_stride_bias", "getitem_tensor", "setitem_row",
                  "ce_index", "layer_norm", "split_size"}


def _cotangents(case: Case) -> list:
    ref_out = _leaves(jax.eval_shape(case.ref, *[_to_jax(a) for a in case.inputs]))
    rng = np.random.default_rng(sum(map(ord, case.id)))
    return [rng.standard_normal(o.shape).astype(o.dtype) if jnp.issubdtype(o.dtype, jnp.floating) else None
            for o in ref_out]


def _losses(case: Case, cots: list):
    def msx_loss(*xs):
        total = 0.0
        for o, c in zip(_leaves(case.fn(*xs)), cots):
            if c is not None:
                total = total + ops.sum(o * Tensor(c))
        return total

    def ref_loss(*xs):
        total = 0.0
        for o, c in zip(_leaves(case.ref(*xs)), cots):
            if c is not None:
                total = total + jnp.sum(o * c)
        return total

    return msx_loss, ref_loss


def _check_grads(case: Case, got, want):
    positions = case.positions()
    assert isinstance(got, tuple) and len(got) == len(positions)
    for p, g, w in zip(positions, got, want):
        assert g.shape == case.inputs[p].shape
        _assert_close(g, w, max(case.rtol, 1e-4), max(case.atol, 1e-5), True, f"{case.id} d/d input {p}")


@pytest.mark.parametrize("case", GRAD_CASES, ids=[c.id for c in GRAD_CASES])
def test_grad(case: Case):
    positions = case.positions()
    msx_loss, ref_loss = _losses(case, _cotangents(case))

    def both(*arrays):
        got = msx.grad(msx_loss, grad_position=positions)(*[_to_msx_traced(a) for a in arrays])
        assert isinstance(got, tuple)
        return tuple(g._data for g in got), jax.grad(ref_loss, argnums=positions)(*arrays)

    got, want = jax.jit(both)(*[_to_jax(a) for a in case.inputs])
    _check_grads(case, tuple(Tensor(g) for g in got), want)


EAGER_GRAD_CASES = [c for c in GRAD_CASES if c.id in EAGER_GRAD_IDS]


@pytest.mark.parametrize("case", EAGER_GRAD_CASES, ids=[c.id for c in EAGER_GRAD_CASES])
def test_grad_eager(case: Case):
    msx_loss, ref_loss = _losses(case, _cotangents(case))
    got = msx.grad(msx_loss, grad_position=case.positions())(*[_to_msx(a) for a in case.inputs])
    want = jax.jit(jax.grad(ref_loss, argnums=case.positions()))(*[_to_jax(a) for a in case.inputs])
    _check_grads(case, got, want)


def test_eager_grad_sample_is_complete():
    assert {c.id for c in EAGER_GRAD_CASES} == EAGER_GRAD_IDS


def test_table_covers_every_primitive():
    from test_ops_array_numpy import NUMPY_CHECKED_VALUES  # checked against numpy / MindSpore's shapes there
    from test_api_names_round3 import NUMPY_CHECKED_PRIMITIVES  # Ascend-only kernels, checked against numpy there

    covered = {c.prim for c in CASES} | TESTED_SEPARATELY | NUMPY_CHECKED_VALUES | NUMPY_CHECKED_PRIMITIVES
    missing = sorted(n for n in REGISTRY if n not in covered and not _owned_elsewhere(n))
    assert not missing, f"primitives without a value test in tests/test_ops.py: {missing}"
    stale = sorted(n for n in covered if n not in REGISTRY)
    assert not stale, f"tests name primitives that are not registered: {stale}"


def test_every_differentiable_primitive_has_a_grad_case():
    from test_ops3_new_ops import FD_CHECKED_GRADS as FD_CHECKED_NEW_OPS
    from test_ops_array_numpy import FD_CHECKED_GRADS  # finite-difference gradient tests there
    from test_detection_ops import FD_CHECKED_GRADS as FD_CHECKED_DETECTION
    from test_ported_ops_grads import FD_CHECKED_GRADS as FD_CHECKED_PORTED
    from test_resize_ops import FD_CHECKED_GRADS as FD_CHECKED_RESIZE
    from test_pools_grads import FD_CHECKED_GRADS as FD_CHECKED_POOLS

    with_grad = ({c.prim for c in GRAD_CASES} | FD_CHECKED_GRADS | FD_CHECKED_NEW_OPS | FD_CHECKED_PORTED
                 | FD_CHECKED_RESIZE | FD_CHECKED_DETECTION | FD_CHECKED_POOLS)
    missing = sorted(n for n, p in REGISTRY.items()
                     if p.differentiable and n not in with_grad and n not in TESTED_SEPARATELY
                     and not _owned_elsewhere(n, grad=True))
    assert not missing, f"differentiable primitives without a gradient test: {missing}"


def test_registry_entries_are_plain_data():
    for name, prim in REGISTRY.items():
        assert prim.name == name
        assert callable(prim.impl) or (prim.subgraphs and callable(prim.constructor))
        assert isinstance(prim.attrs, tuple) and all(isinstance(a, str) for a in prim.attrs)
        assert isinstance(prim.category, str)


def test_abstract_eval_matches_eager():
    x, w = Tensor(normal(2, 5)), Tensor(normal(5, 3))
    aval = REGISTRY["MatMul"].abstract_eval([x._data, w._data], {})
    out = ops.matmul(x, w)
    assert tuple(aval.shape) == out.shape == (2, 3) and aval.dtype == out.dtype
    aval = REGISTRY["ReduceSum"].abstract_eval([jax.ShapeDtypeStruct((2, 3, 4), jnp.float32)],
                                               {"axis": 1, "keepdims": True})
    assert tuple(aval.shape) == (2, 1, 4)


# --------------------------------------------------------------------------- MindSpore semantics worth naming
def test_flatten_defaults_differ_between_ops_and_tensor():
    x = Tensor(A234)
    assert ops.flatten(x).shape == (2, 12)  # ops.flatten keeps the batch dim
    assert x.flatten().shape == (24,)  # Tensor.flatten flattens everything
    assert ops.Flatten()(x).shape == (2, 12)
    assert mint.flatten(x).shape == (24,)


def test_ops_max_min_return_values_and_indices():
    x = Tensor(np.array([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]], np.float32))
    values, indices = ops.max(x, axis=1)
    np.testing.assert_array_equal(values.asnumpy(), [5.0, 7.0])
    np.testing.assert_array_equal(indices.asnumpy(), [1, 0])
    values, indices = ops.min(x, 0)
    np.testing.assert_array_equal(values.asnumpy(), [1.0, 0.0, 2.0])
    np.testing.assert_array_equal(indices.asnumpy(), [0, 1, 0])
    # the Tensor methods return values only, like MindSpore's
    np.testing.assert_array_equal(x.max(axis=1).asnumpy(), [5.0, 7.0])
    assert float(x.max()) == 7.0 and float(x.min()) == 0.0


def test_div_rounding_modes_keep_integer_dtype():
    a, b = Tensor([7, -7, 6]), Tensor([2, 2, -4])
    trunc = ops.div(a, b, rounding_mode="trunc")
    floor = ops.div(a, b, rounding_mode="floor")
    assert trunc.dtype == msx.int64 and floor.dtype == msx.int64
    np.testing.assert_array_equal(trunc.asnumpy(), [3, -3, -1])
    np.testing.assert_array_equal(floor.asnumpy(), [3, -4, -2])
    assert ops.div(Tensor([7, -7], msx.int32), 2, rounding_mode="trunc").dtype == msx.int32
    assert ops.div(Tensor([7.0]), 2, rounding_mode="trunc").dtype == msx.float32


def test_functional_batch_norm_updates_running_stats_in_training():
    x = normal(8, 3, 2, 2)
    mean, var = Tensor(np.zeros(3, np.float32)), msx.Parameter(Tensor(np.ones(3, np.float32)), name="var")
    gamma, beta = Tensor(np.ones(3, np.float32)), Tensor(np.zeros(3, np.float32))
    ops.batch_norm(Tensor(x), mean, var, gamma, beta, training=True, momentum=0.2)
    n = 8 * 2 * 2
    np.testing.assert_allclose(mean.asnumpy(), 0.2 * x.mean((0, 2, 3)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(var.asnumpy(), 0.8 + 0.2 * x.var((0, 2, 3)) * n / (n - 1), rtol=1e-5)
    assert isinstance(var, msx.Parameter) and var.name == "var"
    before = mean.asnumpy().copy()
    ops.batch_norm(Tensor(x), mean, var, gamma, beta, training=False)
    np.testing.assert_array_equal(mean.asnumpy(), before)  # inference leaves the statistics alone


def test_fill_values_may_be_tensors_and_clamp_needs_a_bound():
    np.testing.assert_array_equal(ops.full((2,), Tensor(3.0)).asnumpy(), [3.0, 3.0])
    np.testing.assert_array_equal(ops.full_like(Tensor([1, 2]), Tensor(5)).asnumpy(), [5, 5])
    np.testing.assert_array_equal(ops.clamp(Tensor([-2.0, 2.0]), Tensor(-1.0), Tensor(1.0)).asnumpy(), [-1, 1])
    with pytest.raises(ValueError, match="clamp"):
        ops.clamp(Tensor([1.0]))


def test_ops_div_int_inputs_is_true_division():
    out = ops.div(Tensor([3, 4]), Tensor([2, 8]))
    assert out.dtype.is_floating
    np.testing.assert_allclose(out.asnumpy(), [1.5, 0.5])


# --------------------------------------------------------------------------- class-style ops
X23 = A23
CLASS_CASES = [
    ("ReLU", lambda x, y: ops.ReLU()(x), lambda x, y: np.maximum(x, 0)),
    ("Add", lambda x, y: ops.Add()(x, y), lambda x, y: x + y),
    ("Sub", lambda x, y: ops.Sub()(x, y), lambda x, y: x - y),
    ("Mul", lambda x, y: ops.Mul()(x, y), lambda x, y: x * y),
    ("Div", lambda x, y: ops.Div()(x, y), lambda x, y: x / y),
    ("RealDiv", lambda x, y: ops.RealDiv()(x, y), lambda x, y: x / y),
    ("Neg", lambda x, y: ops.Neg()(x), lambda x, y: -x),
    ("Abs", lambda x, y: ops.Abs()(x), lambda x, y: np.abs(x)),
    ("Exp", lambda x, y: ops.Exp()(x), lambda x, y: np.exp(x)),
    ("Log", lambda x, y: ops.Log()(ops.Abs()(x)), lambda x, y: np.log(np.abs(x))),
    ("Sqrt", lambda x, y: ops.Sqrt()(ops.Abs()(y)), lambda x, y: np.sqrt(np.abs(y))),
    ("Rsqrt", lambda x, y: ops.Rsqrt()(ops.Abs()(y)), lambda x, y: 1 / np.sqrt(np.abs(y))),
    ("Pow", lambda x, y: ops.Pow()(x, 2.0), lambda x, y: x ** 2),
    ("Square", lambda x, y: ops.Square()(x), lambda x, y: x ** 2),
    ("Maximum", lambda x, y: ops.Maximum()(x, y), np.maximum),
    ("Minimum", lambda x, y: ops.Minimum()(x, y), np.minimum),
    ("Sigmoid", lambda x, y: ops.Sigmoid()(x), lambda x, y: 1 / (1 + np.exp(-x))),
    ("Tanh", lambda x, y: ops.Tanh()(x), lambda x, y: np.tanh(x)),
    ("Equal", lambda x, y: ops.Equal()(x, x), lambda x, y: np.ones(x.shape, bool)),
    ("NotEqual", lambda x, y: ops.NotEqual()(x, y), np.not_equal),
    ("Less", lambda x, y: ops.Less()(x, y), np.less),
    ("LessEqual", lambda x, y: ops.LessEqual()(x, y), np.less_equal),
    ("Greater", lambda x, y: ops.Greater()(x, y), np.greater),
    ("GreaterEqual", lambda x, y: ops.GreaterEqual()(x, y), np.greater_equal),
    ("Select", lambda x, y: ops.Select()(ops.Greater()(x, y), x, y), np.maximum),
    ("Reshape", lambda x, y: ops.Reshape()(x, (3, 2)), lambda x, y: x.reshape(3, 2)),
    ("Transpose", lambda x, y: ops.Transpose()(x, (1, 0)), lambda x, y: x.T),
    ("ExpandDims", lambda x, y: ops.ExpandDims()(x, 0), lambda x, y: x[None]),
    ("Cast", lambda x, y: ops.Cast()(x, msx.float64), lambda x, y: x.astype(np.float64)),
    ("StopGradient", lambda x, y: ops.StopGradient()(x), lambda x, y: x),
    ("Gather", lambda x, y: ops.Gather()(x, Tensor([1, 0, 1]), 0), lambda x, y: x[[1, 0, 1]]),
    ("Tile", lambda x, y: ops.Tile()(x, (1, 2)), lambda x, y: np.tile(x, (1, 2))),
    ("OnesLike", lambda x, y: ops.OnesLike()(x), lambda x, y: np.ones_like(x)),
    ("ZerosLike", lambda x, y: ops.ZerosLike()(x), lambda x, y: np.zeros_like(x)),
    ("BroadcastTo", lambda x, y: ops.BroadcastTo((4, 2, 3))(x), lambda x, y: np.broadcast_to(x, (4, 2, 3))),
    ("MatMul", lambda x, y: ops.MatMul()(x, Tensor(y.asnumpy().T)), lambda x, y: x @ y.T),
    ("MatMul_transpose_b", lambda x, y: ops.MatMul(transpose_b=True)(x, y), lambda x, y: x @ y.T),
    ("MatMul_transpose_a", lambda x, y: ops.MatMul(transpose_a=True)(x, y), lambda x, y: x.T @ y),
    ("BatchMatMul", lambda x, y: ops.BatchMatMul(transpose_b=True)(ops.stack([x, y]), ops.stack([y, x])),
     lambda x, y: np.stack([x @ y.T, y @ x.T])),
    ("ReduceSum_keep", lambda x, y: ops.ReduceSum(keep_dims=True)(x, 1), lambda x, y: x.sum(1, keepdims=True)),
    ("ReduceSum_all", lambda x, y: ops.ReduceSum()(x), lambda x, y: x.sum()),
    ("ReduceMean", lambda x, y: ops.ReduceMean()(x, 0), lambda x, y: x.mean(0)),
    ("ReduceMax", lambda x, y: ops.ReduceMax(keep_dims=True)(x, (0, 1)), lambda x, y: x.max(keepdims=True)),
    ("ReduceMin", lambda x, y: ops.ReduceMin()(x, 1), lambda x, y: x.min(1)),
    ("Argmax", lambda x, y: ops.Argmax()(x), lambda x, y: np.argmax(x, -1).astype(np.int32)),
    ("Argmax_axis0_int64", lambda x, y: ops.Argmax(axis=0, output_type=msx.int64)(x),
     lambda x, y: np.argmax(x, 0).astype(np.int64)),
    ("Softmax", lambda x, y: ops.Softmax()(x), lambda x, y: np.exp(x) / np.exp(x).sum(-1, keepdims=True)),
    ("Softmax_axis0", lambda x, y: ops.Softmax(axis=0)(x), lambda x, y: np.exp(x) / np.exp(x).sum(0, keepdims=True)),
    ("LogSoftmax", lambda x, y: ops.LogSoftmax()(x), lambda x, y: x - np.log(np.exp(x).sum(-1, keepdims=True))),
    ("Concat", lambda x, y: ops.Concat(1)((x, y)), lambda x, y: np.concatenate([x, y], 1)),
    ("Concat_default", lambda x, y: ops.Concat()([x, y]), lambda x, y: np.concatenate([x, y], 0)),
    ("Stack", lambda x, y: ops.Stack(1)([x, y]), lambda x, y: np.stack([x, y], 1)),
    ("Squeeze", lambda x, y: ops.Squeeze(0)(x[None]), lambda x, y: x),
    ("Squeeze_all", lambda x, y: ops.Squeeze()(x[None, :, None]), lambda x, y: x),
    ("Flatten", lambda x, y: ops.Flatten()(ops.stack([x, y])), lambda x, y: np.stack([x, y]).reshape(2, 6)),
    ("L1Loss", lambda x, y: ops.L1Loss()(x, y), lambda x, y: np.abs(x - y).mean()),
    ("L1Loss_none", lambda x, y: ops.L1Loss("none")(x, y), lambda x, y: np.abs(x - y)),
    ("MSELoss", lambda x, y: ops.MSELoss(reduction="sum")(x, y), lambda x, y: ((x - y) ** 2).sum()),
    ("BCEWithLogitsLoss", lambda x, y: ops.BCEWithLogitsLoss()(x, ops.sigmoid(y)),
     lambda x, y: np.mean(-(sig(y) * np.log(sig(x)) + (1 - sig(y)) * np.log(1 - sig(x))))),
    ("SoftmaxCrossEntropyWithLogits", lambda x, y: ops.SoftmaxCrossEntropyWithLogits()(x, ops.softmax(y)),
     lambda x, y: (-(smax(y) * np.log(smax(x))).sum(-1), smax(x) - smax(y))),
    ("Shape", lambda x, y: ops.Shape()(x), lambda x, y: (2, 3)),
]


def sig(v):
    return 1 / (1 + np.exp(-v))


def smax(v):
    e = np.exp(v - v.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


@pytest.mark.parametrize("name,fn,ref", CLASS_CASES, ids=[c[0] for c in CLASS_CASES])
def test_class_style_op(name, fn, ref):
    x, y = Tensor(A23), Tensor(B23)
    out = fn(x, y)
    want = ref(A23.astype(np.float64), B23.astype(np.float64))
    if name == "Shape":
        assert out == want
        return
    for k, (g, w) in enumerate(zip(_leaves(out), _leaves(want))):
        w = np.asarray(w)
        assert isinstance(g, Tensor)
        assert g.shape == w.shape, f"{name} output {k}: {g.shape} != {w.shape}"
        if np.issubdtype(w.dtype, np.integer) or w.dtype == np.bool_:
            assert g.dtype == w.dtype
            np.testing.assert_array_equal(g.asnumpy(), w)
        else:
            np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-5, atol=1e-5)


def test_class_style_conv_and_pool():
    x, w = Tensor(IMG), Tensor(normal(3, 4, 3, 3))
    out = ops.Conv2D(out_channel=3, kernel_size=3, pad_mode="pad", pad=1, stride=2)(x, w)
    np.testing.assert_allclose(out.asnumpy(), ref_conv2d(IMG, w.asnumpy(), stride=(2, 2), pads=((1, 1), (1, 1))),
                               rtol=1e-4, atol=1e-4)
    out = ops.MaxPool(kernel_size=2, strides=2)(x)
    np.testing.assert_allclose(out.asnumpy(), ref_max_pool(IMG, (2, 2), (2, 2)))
    out = ops.MaxPool(kernel_size=3, strides=1, pad_mode="SAME")(x)
    np.testing.assert_allclose(out.asnumpy(), ref_max_pool(IMG, (3, 3), (1, 1), ((1, 1), (1, 1))))
    assert "MatMul" in repr(ops.MatMul(transpose_b=True)) and "transpose_b=True" in repr(ops.MatMul(transpose_b=True))


def test_class_style_gelu_uses_tanh_approximation():
    x = Tensor(A23)
    want = 0.5 * A23 * (1 + np.tanh(np.sqrt(2 / np.pi) * (A23 + 0.044715 * A23 ** 3)))
    np.testing.assert_allclose(ops.GeLU()(x).asnumpy(), want, rtol=1e-5, atol=1e-6)


# --------------------------------------------------------------------------- mint
MINT_CASES = [
    ("add_alpha", lambda x, y: mint.add(x, y, alpha=2), lambda x, y: x + 2 * y),
    ("add", lambda x, y: mint.add(x, y), lambda x, y: x + y),
    ("sub_alpha", lambda x, y: mint.sub(x, y, alpha=0.5), lambda x, y: x - 0.5 * y),
    ("mul", lambda x, y: mint.mul(x, y), lambda x, y: x * y),
    ("div", lambda x, y: mint.div(x, y), lambda x, y: x / y),
    ("div_floor", lambda x, y: mint.div(x, y, rounding_mode="floor"), lambda x, y: np.floor(x / y)),
    ("sum_dim_keepdim", lambda x, y: mint.sum(x, dim=1, keepdim=True), lambda x, y: x.sum(1, keepdims=True)),
    ("sum_all", lambda x, y: mint.sum(x), lambda x, y: x.sum()),
    ("sum_dtype", lambda x, y: mint.sum(x, 0, dtype=msx.float64), lambda x, y: x.sum(0)),
    ("mean", lambda x, y: mint.mean(x, dim=0), lambda x, y: x.mean(0)),
    ("max_all", lambda x, y: mint.max(x), lambda x, y: x.max()),
    ("max_dim", lambda x, y: mint.max(x, dim=1), lambda x, y: (x.max(1), np.argmax(x, 1))),
    ("min_dim_keepdim", lambda x, y: mint.min(x, 0, keepdim=True),
     lambda x, y: (x.min(0, keepdims=True), np.argmin(x, 0)[None])),
    ("argmax", lambda x, y: mint.argmax(x, dim=1), lambda x, y: np.argmax(x, 1)),
    ("gather", lambda x, y: mint.gather(x, 1, Tensor([[2, 0], [1, 1]])), lambda x, y: np.take_along_axis(
        x, np.array([[2, 0], [1, 1]]), 1)),
    ("gather_dim0", lambda x, y: mint.gather(x, 0, Tensor([[1, 0, 1]])), lambda x, y: np.take_along_axis(
        x, np.array([[1, 0, 1]]), 0)),
    ("transpose", lambda x, y: mint.transpose(x, 0, 1), lambda x, y: x.T),
    ("permute", lambda x, y: mint.permute(ops.stack([x, y]), (2, 0, 1)),
     lambda x, y: np.stack([x, y]).transpose(2, 0, 1)),
    ("reshape", lambda x, y: mint.reshape(x, (-1,)), lambda x, y: x.reshape(-1)),
    ("flatten", lambda x, y: mint.flatten(ops.stack([x, y]), 1), lambda x, y: np.stack([x, y]).reshape(2, 6)),
    ("squeeze_unsqueeze", lambda x, y: mint.squeeze(mint.unsqueeze(x, 0), 0), lambda x, y: x),
    ("cat_dim", lambda x, y: mint.cat([x, y], dim=1), lambda x, y: np.concatenate([x, y], 1)),
    ("stack_dim", lambda x, y: mint.stack([x, y], dim=2), lambda x, y: np.stack([x, y], 2)),
    ("split_dim", lambda x, y: mint.split(x, 2, dim=1), lambda x, y: (x[:, :2], x[:, 2:])),
    ("sort_dim", lambda x, y: mint.sort(x, dim=0, descending=True),
     lambda x, y: (-np.sort(-x, 0), np.argsort(-x, 0))),
    ("topk", lambda x, y: mint.topk(x, 1, dim=1), lambda x, y: (x.max(1, keepdims=True), np.argmax(x, 1)[:, None])),
    ("where", lambda x, y: mint.where(x > y, x, y), lambda x, y: np.maximum(x, y)),
    ("clamp", lambda x, y: mint.clamp(x, -0.1, 0.2), lambda x, y: np.clip(x, -0.1, 0.2)),
    ("exp_log_sqrt", lambda x, y: mint.sqrt(mint.exp(mint.log(mint.abs(x)))), lambda x, y: np.sqrt(np.abs(x))),
    ("matmul", lambda x, y: mint.matmul(x, mint.transpose(y, 0, 1)), lambda x, y: x @ y.T),
    ("softmax", lambda x, y: mint.softmax(x, dim=0), lambda x, y: smax(x.T).T),
    ("log_softmax", lambda x, y: mint.log_softmax(x, dim=1), lambda x, y: np.log(smax(x))),
    ("relu", lambda x, y: mint.nn.functional.relu(x), lambda x, y: np.maximum(x, 0)),
    ("gelu", lambda x, y: mint.nn.functional.gelu(x), lambda x, y: x * 0.5 * (1 + _erf(x / np.sqrt(2)))),
    ("softmax_functional", lambda x, y: mint.nn.functional.softmax(x, dim=1), lambda x, y: smax(x)),
    ("linear", lambda x, y: mint.nn.functional.linear(x, y, Tensor([1.0, 2.0])), lambda x, y: x @ y.T + [1.0, 2.0]),
    ("ones_zeros", lambda x, y: mint.ones((2, 3)) + mint.zeros((2, 3)), lambda x, y: np.ones((2, 3))),
    ("full", lambda x, y: mint.full((2, 3), 2.0), lambda x, y: np.full((2, 3), 2.0)),
    ("arange", lambda x, y: mint.arange(0, 6, 2), lambda x, y: np.arange(0, 6, 2)),
    ("eq", lambda x, y: mint.eq(x, x), lambda x, y: np.ones(x.shape, bool)),
    ("cumsum_dim", lambda x, y: mint.cumsum(x, dim=1), lambda x, y: np.cumsum(x, 1)),
    ("broadcast_to_size", lambda x, y: mint.broadcast_to(x[0], shape=(2, 3)), lambda x, y: np.broadcast_to(x[0], (2, 3))),
]


def _erf(v):
    return np.vectorize(math.erf)(v)


@pytest.mark.parametrize("name,fn,ref", MINT_CASES, ids=[c[0] for c in MINT_CASES])
def test_mint(name, fn, ref):
    x, y = Tensor(A23), Tensor(B23)
    out = fn(x, y)
    want = ref(A23.astype(np.float64), B23.astype(np.float64))
    got_l, want_l = _leaves(out), _leaves(want)
    assert len(got_l) == len(want_l)
    for g, w in zip(got_l, want_l):
        w = np.asarray(w)
        assert isinstance(g, Tensor) and g.shape == w.shape, f"{name}: {g.shape} != {w.shape}"
        if np.issubdtype(w.dtype, np.integer) or w.dtype == np.bool_:
            np.testing.assert_array_equal(g.asnumpy(), w)
        else:
            np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-5, atol=1e-5)


def test_mint_conv2d_padding_forms():
    x, w = Tensor(IMG), Tensor(normal(3, 4, 3, 3))
    F = mint.nn.functional
    np.testing.assert_allclose(F.conv2d(x, w, padding=1).asnumpy(),
                               ref_conv2d(IMG, w.asnumpy(), pads=((1, 1), (1, 1))), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(F.conv2d(x, w, padding="same").asnumpy(),
                               ref_conv2d(IMG, w.asnumpy(), same=True), rtol=1e-4, atol=1e-4)


# --------------------------------------------------------------------------- random ops
@pytest.fixture
def seeded():
    yield
    msx.set_seed(0)


RANDOM_CALLS = [
    ("uniform", lambda: ops.uniform((64,), Tensor(0.0), Tensor(1.0))),
    ("uniform_int", lambda: ops.uniform((64,), 0, 10)),
    ("normal", lambda: ops.normal((64,), 0.0, 1.0)),
    ("randint", lambda: ops.randint(0, 100, (64,))),
    ("rand", lambda: ops.rand(8, 8)),
    ("randn", lambda: ops.randn((8, 8))),
    ("dropout", lambda: ops.dropout(ops.ones((64,)), p=0.5)),
    ("bernoulli", lambda: ops.bernoulli(ops.zeros((64,)), 0.5)),
    ("mint_normal", lambda: mint.normal(0.0, 1.0, (64,))),
    ("mint_randint", lambda: mint.randint(0, 100, (64,))),
    ("UniformReal", lambda: ops.UniformReal()((64,))),
    ("StandardNormal", lambda: ops.StandardNormal()((64,))),
]


@pytest.mark.parametrize("name,call", RANDOM_CALLS, ids=[c[0] for c in RANDOM_CALLS])
def test_random_reproducible_by_seed(seeded, name, call):
    msx.set_seed(7)
    a = call().asnumpy()
    b = call().asnumpy()
    msx.set_seed(7)
    a2 = call().asnumpy()
    b2 = call().asnumpy()
    np.testing.assert_array_equal(a, a2)
    np.testing.assert_array_equal(b, b2)
    assert not np.array_equal(a, b), "two draws in a row must differ"
    msx.set_seed(8)
    c = call().asnumpy()
    assert not np.array_equal(a, c), "a different seed must give different samples"


def test_random_spy_names_the_random_primitives(seeded):
    spy = _Spy()
    recording.recorder = spy
    try:
        ops.uniform((2,), 0.0, 1.0)
        ops.normal((2,))
        ops.randint(0, 3, (2,))
        ops.bernoulli(ops.zeros((2,)))
        ops.dropout(ops.ones((2,)))
    finally:
        recording.recorder = None
    for name in ("RandomSplit", "UniformReal", "StandardNormal", "UniformInt", "Bernoulli", "Dropout"):
        assert name in spy.names, f"{name} not applied; ran {spy.names}"


def test_random_statistics(seeded):
    msx.set_seed(123)
    n = 10000
    u = ops.uniform((n,), Tensor(2.0), Tensor(5.0)).asnumpy()
    assert u.dtype == np.float32 and u.min() >= 2.0 and u.max() < 5.0
    assert abs(u.mean() - 3.5) < 0.05 and abs(u.std() - 3 / np.sqrt(12)) < 0.05
    z = ops.normal((n,), 1.0, 2.0).asnumpy()
    assert z.dtype == np.float32 and abs(z.mean() - 1.0) < 0.08 and abs(z.std() - 2.0) < 0.08
    r = ops.randn(n).asnumpy()
    assert r.shape == (n,) and abs(r.mean()) < 0.05 and abs(r.std() - 1) < 0.05
    q = ops.rand(100, 100).asnumpy()
    assert q.shape == (100, 100) and 0 <= q.min() and q.max() < 1 and abs(q.mean() - 0.5) < 0.02
    k = ops.randint(3, 7, (n,))
    assert k.dtype == msx.int64
    k = k.asnumpy()
    assert set(np.unique(k)) == {3, 4, 5, 6}
    assert abs(k.mean() - 4.5) < 0.05
    ui = ops.uniform((n,), 0, 4)
    assert ui.dtype == msx.int64 and set(np.unique(ui.asnumpy())) == {0, 1, 2, 3}
    b = ops.bernoulli(ops.zeros((n,)), 0.3).asnumpy()
    assert set(np.unique(b)) == {0.0, 1.0} and abs(b.mean() - 0.3) < 0.03


def test_dropout_scaling_and_statistics(seeded):
    msx.set_seed(3)
    x = Tensor(positive(100, 100))
    for p in (0.2, 0.5):
        out = ops.dropout(x, p=p).asnumpy()
        kept = out != 0
        assert abs(kept.mean() - (1 - p)) < 0.03
        np.testing.assert_allclose(out[kept], x.asnumpy()[kept] / (1 - p), rtol=1e-6)
    np.testing.assert_array_equal(ops.dropout(x, p=0.5, training=False).asnumpy(), x.asnumpy())
    np.testing.assert_array_equal(ops.dropout(x, p=0.0).asnumpy(), x.asnumpy())
    assert not ops.dropout(x, p=1.0).asnumpy().any()
    with pytest.raises(ValueError):
        ops.dropout(x, p=1.5)
    out, mask = ops.Dropout(keep_prob=0.8)(x)
    kept = out.asnumpy() != 0
    np.testing.assert_array_equal(mask.asnumpy(), kept.astype(np.float32))
    np.testing.assert_allclose(out.asnumpy()[kept], x.asnumpy()[kept] / 0.8, rtol=1e-6)


def test_dropout_gradient_is_mask_over_keep_prob(seeded):
    msx.set_seed(11)
    x = Tensor(positive(50))

    def f(x):
        return ops.sum(ops.dropout(x, p=0.25))

    msx.set_seed(11)
    out = ops.dropout(x, p=0.25).asnumpy()
    msx.set_seed(11)
    g = msx.grad(f)(x).asnumpy()
    np.testing.assert_allclose(g, (out != 0) / 0.75, rtol=1e-6)


def test_randint_and_uniform_validate(seeded):
    with pytest.raises(ValueError):
        ops.randint(5, 5, (3,))


def test_random_split_primitive_is_deterministic():
    key = jax.random.key_data(jax.random.key(0))
    a = ops.get_primitive("RandomSplit")(Tensor(key))
    b = ops.get_primitive("RandomSplit")(Tensor(key))
    assert len(a) == 2
    np.testing.assert_array_equal(a[0].asnumpy(), b[0].asnumpy())
    assert not np.array_equal(a[0].asnumpy(), a[1].asnumpy())


# --------------------------------------------------------------------------- printing
def test_print_in_program_order(capsys):
    ops.print_("first:", Tensor([1.0, 2.0]))
    ops.Print()("second", Tensor(3))
    ops.print_("third {braces}")
    out = capsys.readouterr().out
    lines = [ln for ln in out.splitlines() if ln.strip()]
    assert lines[0].startswith("first:") and "1." in lines[0] and "2." in lines[0]
    assert lines[1].startswith("second") and "3" in lines[1]
    assert lines[2] == "third {braces}"
    assert len(lines) == 3


def test_print_returns_nothing_and_records_print():
    spy = _Spy()
    recording.recorder = spy
    try:
        assert ops.print_("x", Tensor(1.0)) is None
    finally:
        recording.recorder = None
    assert spy.names == ["Print"]
