"""MindSpore's fused optimizer-update class ops (`ops.FusedSparseAdam`, `ops.FusedAdaFactor`, `ops.LARSUpdate`,
`ops.LambApplyOptimizerAssign`, ...): one step, written in place.

The same mechanism as `apply_ops.py` / `sparse_apply_ops.py`: each op's update rule is one primitive whose
results are written back into the Parameters (or Tensors) it updates with `Tensor._rebind` (a state write under
`msx.jit`, in every capture mode).

- The `FusedSparse*` ops first sum the gradient rows of a duplicated index (MindSpore's kernels merge them), then
  step each touched row once; `FusedSparseAdam` also decays the moments of the rows `indices` does not name and
  steps them (dense Adam on a zero gradient there), `FusedSparseLazyAdam` leaves them alone. An index outside
  [0, var.shape[0]) is an `OpIndexError` naming the op (inside a compiled graph, where the values are known only
  when it runs, the row is skipped).
- What they return: MindSpore's CPU kernels never write their outputs ("the outputs are useless", its docs say;
  its CPU build gives zeros or stale memory there), so msx returns the updated values of the inputs they write,
  the tuple MindSpore's docs describe for `FusedCastAdamWeightDecay` (and a 1-tuple for `FusedAdaFactor*`).
- `FusedWeightScaleApplyMomentum`, `LARSUpdate`, `LambApplyOptimizerAssign` and `LambApplyWeightAssign` have no
  CPU kernel in MindSpore 2.10: their rules are the formulas of its GPU/Ascend kernels (and docs).

`use_locking` is accepted and type checked; `True` warns once (`sparse_apply_ops.NO_LOCKING`: the update is
computed functionally and assigned as a whole, there is no lock to take).
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from ..errors import OpError, OpTypeError
from ..tensor import Tensor
from .api import expose
from .apply_prim import apply, describe
from .primitive import primitive
from .sparse_apply_ops import (
    _attr_bool,
    _attr_float,
    _check,
    _dt,
    _ftrl_row,
    _locking,
    _proximal_adagrad_row,
    _write,
)

_STATE = {"category": "state", "multiple_results": True, "differentiable": False}
_EPS30 = 1e-30  # MindSpore's FusedAdaFactor kEps


def _internal(op: str) -> str:
    return f"the update rule of the class op ops.{op}, which writes its results into its Parameters"


def _merged(var, grad, indices):
    """The gradient rows summed per index into var's shape, and which rows were touched (an out-of-range index,
    possible only inside a compiled graph, touches nothing)."""
    n = var.shape[0]
    idx = indices.astype(jnp.int32)
    idx = jnp.where((idx >= 0) & (idx < n), idx, n)
    g = jnp.zeros(var.shape, jnp.float32).at[idx].add(grad.astype(jnp.float32), mode="drop")
    touched = jnp.zeros((n,), bool).at[idx].set(True, mode="drop").reshape((n,) + (1,) * (var.ndim - 1))
    return g, touched


def _f32(*xs):
    return tuple(jnp.asarray(x, jnp.float32).reshape(()) for x in xs)


def _adam_rows(var, m, v, g, b1p, b2p, lr, b1, b2, eps, nesterov):
    m = b1 * m + (1 - b1) * g
    v = b2 * v + (1 - b2) * g * g
    lr_t = lr * jnp.sqrt(1 - b2p) / (1 - b1p)
    step = m * b1 + (1 - b1) * g if nesterov else m
    return var - lr_t * step / (jnp.sqrt(v) + eps), m, v


# ---------------------------------------------------------------- primitives (the update rules)
@primitive("FusedSparseAdamUpdate", attrs=("lazy", "use_nesterov"),
           internal=_internal("FusedSparseAdam / FusedSparseLazyAdam"), **_STATE)
def fused_sparse_adam_update(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, indices, *,
                             lazy=False, use_nesterov=False):
    """Adam on the merged gradient rows; lazy: only the touched rows, else every row (zero gradient elsewhere)."""
    g, touched = _merged(var, grad, indices)
    scalars = _f32(beta1_power, beta2_power, lr, beta1, beta2, epsilon)
    new = _adam_rows(var.astype(jnp.float32), m.astype(jnp.float32), v.astype(jnp.float32), g, *scalars,
                     use_nesterov)
    if lazy:
        return tuple(jnp.where(touched, n.astype(o.dtype), o) for n, o in zip(new, (var, m, v)))
    if use_nesterov:  # MindSpore's kernel: the Nesterov moment is computed on the touched rows only (0 elsewhere)
        new = (jnp.where(touched, new[0], var),) + new[1:]
    return tuple(n.astype(o.dtype) for n, o in zip(new, (var, m, v)))


@primitive("FusedSparseFtrlUpdate", attrs=("lr", "l1", "l2", "lr_power"), internal=_internal("FusedSparseFtrl"),
           **_STATE)
def fused_sparse_ftrl_update(var, accum, linear, grad, indices, *, lr, l1, l2, lr_power):
    """FTRL on the merged gradient rows, the touched rows only."""
    g, touched = _merged(var, grad, indices)
    new = _ftrl_row(var, accum, linear, g.astype(var.dtype), lr, l1, l2, lr_power)
    return tuple(jnp.where(touched, n.astype(o.dtype), o) for n, o in zip(new, (var, accum, linear)))


@primitive("FusedSparseProximalAdagradUpdate", internal=_internal("FusedSparseProximalAdagrad"), **_STATE)
def fused_sparse_proximal_adagrad_update(var, accum, lr, l1, l2, grad, indices):
    """Proximal Adagrad on the merged gradient rows, the touched rows only."""
    g, touched = _merged(var, grad, indices)
    lr, l1, l2 = (jnp.asarray(x).astype(var.dtype).reshape(()) for x in (lr, l1, l2))
    new = _proximal_adagrad_row(var, accum, g.astype(var.dtype), lr, l1, l2)
    return tuple(jnp.where(touched, n.astype(o.dtype), o) for n, o in zip(new, (var, accum)))


@primitive("AdamNoUpdateParamUpdate", attrs=("use_nesterov",), internal=_internal("AdamNoUpdateParam"), **_STATE)
def adam_no_update_param_update(m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, *,
                                use_nesterov=False):
    """The new moments and the step `-lr_t * m / (sqrt(v) + eps)` that Adam would add to the parameter."""
    scalars = _f32(beta1_power, beta2_power, lr, beta1, beta2, epsilon)
    zero = jnp.zeros(m.shape, jnp.float32)
    delta, m2, v2 = _adam_rows(zero, m.astype(jnp.float32), v.astype(jnp.float32), grad.astype(jnp.float32),
                               *scalars, use_nesterov)
    return m2.astype(m.dtype), v2.astype(v.dtype), delta.astype(grad.dtype)


@primitive("FusedCastAdamWeightDecayUpdate", internal=_internal("FusedCastAdamWeightDecay"), **_STATE)
def fused_cast_adam_weight_decay_update(var, m, v, lr, beta1, beta2, epsilon, decay, grad, global_norm):
    """AdamWeightDecay in float32 on `grad / global_norm` (a norm below 1e-10 counts as 1), var cast back."""
    lr, b1, b2, eps, decay, norm = _f32(lr, beta1, beta2, epsilon, decay, global_norm)
    norm = jnp.where(norm < 1e-10, jnp.float32(1.0), norm)
    g = grad.astype(jnp.float32) * (1.0 / norm)
    w = var.astype(jnp.float32)
    m2 = m + (g - m) * (1 - b1)
    v2 = v + (g * g - v) * (1 - b2)
    update = m2 / (jnp.sqrt(v2) + eps)
    update = jnp.where(decay > 0, update + decay * w, update)
    return (w - lr * update).astype(var.dtype), m2, v2


def _rms(x):
    return jnp.sqrt(jnp.mean(jnp.square(x)))


@primitive("FusedAdaFactorUpdate", attrs=("scale_parameter", "first_moment", "weight_decay_on", "with_norm"),
           internal=_internal("FusedAdaFactor / FusedAdaFactorWithGlobalNorm"), **_STATE)
def fused_ada_factor_update(eps1, eps2, clip_threshold, beta1, beta2t, weight_decay, learning_rate, grad, param,
                            exp_avg, exp_avg_sq_row, exp_avg_sq_col, exp_avg_sq, global_norm, *, scale_parameter=False,
                            first_moment=False, weight_decay_on=False, with_norm=False):
    """MindSpore's CPU FusedAdaFactor kernel, step by step (its float32 arithmetic, its 1e-30 floors)."""
    eps1, eps2, clip, b1, b2t, wd, lr, gn = _f32(eps1, eps2, clip_threshold, beta1, beta2t, weight_decay,
                                                 learning_rate, global_norm)
    recip = jnp.where(gn < _EPS30, jnp.float32(1.0), 1.0 / gn) if with_norm else jnp.float32(1.0)
    g = grad.astype(jnp.float32) * recip
    sq = g * g + eps1
    row, col, full = exp_avg_sq_row, exp_avg_sq_col, exp_avg_sq
    if param.ndim >= 2:
        row32 = row.astype(jnp.float32) * b2t + jnp.mean(sq, axis=-1) * (1 - b2t)
        r_factor = jnp.sqrt(row32 / jnp.maximum(jnp.mean(row32, axis=-1, keepdims=True), _EPS30))
        col32 = jnp.maximum(col.astype(jnp.float32) * b2t + jnp.mean(sq, axis=-2) * (1 - b2t), _EPS30)
        norm = r_factor[..., :, None] * jnp.sqrt(col32)[..., None, :]
        update = g / jnp.maximum(norm, _EPS30)
        row, col = row32.astype(row.dtype), col32.astype(col.dtype)
    else:
        full32 = jnp.maximum(full.astype(jnp.float32) * b2t + sq * (1 - b2t), _EPS30)
        update = g / jnp.sqrt(full32)
        full = full32.astype(full.dtype)
    p32 = param.astype(jnp.float32)
    if scale_parameter:
        lr = lr * jnp.maximum(eps2, _rms(p32))
    update = update * (lr / jnp.maximum(_rms(update) / clip, 1.0))
    if first_moment:
        update = exp_avg.astype(jnp.float32) * b1 + update * (1 - b1)
        exp_avg = update.astype(exp_avg.dtype)
    if weight_decay_on:
        update = update + p32 * wd * lr
    return (p32 - update).astype(param.dtype), exp_avg, row, col, full


@primitive("FusedWeightScaleApplyMomentumUpdate", internal=_internal("FusedWeightScaleApplyMomentum"), **_STATE)
def fused_weight_scale_apply_momentum_update(weight_decay, loss_scale, variable, accumulation, learning_rate,
                                             gradient, momentum):
    """MindSpore's GPU kernel: `g = (var * wd + grad) * scale; acc = mom * acc + g; var -= lr * acc`."""
    dt = variable.dtype
    wd, scale, lr, mom = (jnp.asarray(x).astype(dt).reshape(()) for x in (weight_decay, loss_scale, learning_rate,
                                                                          momentum))
    g = (variable * wd + gradient.astype(dt)) * scale
    acc = mom * accumulation + g
    return variable - lr * acc, acc


@primitive("LARSUpdate", attrs=("epsilon", "hyperpara", "use_clip"), category="elementwise", differentiable=False,
           internal="the rule of the class op ops.LARSUpdate (msx/ops/fused_optim_ops.py)")
def lars_update(weight, gradient, norm_weight, norm_gradient, weight_decay, learning_rate, *, epsilon=1e-5,
                hyperpara=0.001, use_clip=False):
    """LarsV2Update: `coeff * (g + wd * w)`, `coeff = hyperpara * |w| / (|g| + wd * |w| + epsilon)` from the sums
    of squares (with `use_clip`: `clip(coeff / lr, 0, 1)`), as `nn.LARS` (msx/nn/optim/lars.py)."""
    dt = gradient.dtype
    w_norm = jnp.sqrt(jnp.asarray(norm_weight, jnp.float32).reshape(()))
    g_norm = jnp.sqrt(jnp.asarray(norm_gradient, jnp.float32).reshape(()))
    wd, lr = _f32(weight_decay, learning_rate)
    coeff = hyperpara * w_norm / (g_norm + wd * w_norm + epsilon)
    if use_clip:
        coeff = jnp.clip(coeff / lr, 0.0, 1.0)
    return ((gradient.astype(jnp.float32) + wd * weight.astype(jnp.float32)) * coeff).astype(dt)


@primitive("LambApplyOptimizerAssignUpdate", internal=_internal("LambApplyOptimizerAssign"), **_STATE)
def lamb_apply_optimizer_assign_update(gradient, v, m, var, beta1, sub1, beta2, sub2, epsilon, steps, decay_flag,
                                       weight_decay):
    """LAMB's direction: the new moments, bias corrected with `beta ** steps`, and `r + flag * wd * var`."""
    dt = var.dtype
    b1, s1, b2, s2, eps, t, flag, wd = (jnp.asarray(x).astype(dt).reshape(()) for x in
                                        (beta1, sub1, beta2, sub2, epsilon, steps, decay_flag, weight_decay))
    m2 = b1 * m + s1 * gradient
    v2 = b2 * v + s2 * gradient * gradient
    r = (m2 / (1 - b1 ** t)) / (jnp.sqrt(v2 / (1 - b2 ** t)) + eps)
    return r + flag * wd * var, v2, m2


@primitive("LambApplyWeightAssignUpdate", internal=_internal("LambApplyWeightAssign"), **_STATE)
def lamb_apply_weight_assign_update(w_norm, g_norm, lr, update, var):
    """LAMB's step: `var - lr * ratio * update`, `ratio = w_norm / g_norm` (1 where either norm is 0)."""
    dt = var.dtype
    wn, gn, lr = (jnp.asarray(x).astype(dt).reshape(()) for x in (w_norm, g_norm, lr))
    ratio = jnp.where((wn > 0) & (gn > 0), wn / jnp.where(gn > 0, gn, 1), jnp.ones((), dt))
    return (var - lr * ratio * update,)


# ---------------------------------------------------------------- checks
_FLOAT_NAMES = ("float16", "float32")


def _scalar_in(op: str, name: str, a, got: str, floats=_FLOAT_NAMES):
    """A number, or a float Tensor of one element (MindSpore's shape (1,) or a scalar)."""
    if isinstance(a, Tensor):
        if a.size != 1 or _dt(a).name not in floats:
            raise OpTypeError(f"{op}: {name} must be a number or a one-element {'/'.join(floats)} Tensor, got "
                              f"{describe(a)}; got ({got})")
        return a
    if isinstance(a, bool) or not isinstance(a, (int, float, np.integer, np.floating)):
        raise OpTypeError(f"{op}: {name} must be a number or a one-element Tensor, got {describe(a)}; got ({got})")
    return float(a)


def _got(names, args) -> str:
    return ", ".join(f"{n}={describe(a)}" for n, a in zip(names, args))


def _same_as(op: str, names, args, ref: int, positions, got: str, dtype: bool = True):
    r = args[ref]
    for k in positions:
        a = args[k]
        if not isinstance(a, Tensor):
            raise OpTypeError(f"{op}: {names[k]} must be a Parameter or Tensor, got {type(a).__name__}; got ({got})")
        if tuple(a.shape) != tuple(r.shape) or (dtype and a.dtype != r.dtype):
            raise OpError(f"{op}: {names[k]} must have {names[ref]}'s shape{' and dtype' if dtype else ''} "
                          f"{describe(r)}, got {describe(a)}; got ({got})")


def _float_tensor(op: str, name: str, a, got: str, floats=_FLOAT_NAMES):
    if not isinstance(a, Tensor):
        raise OpTypeError(f"{op}: {name} must be a Parameter or Tensor, got {type(a).__name__}; got ({got})")
    if _dt(a).name not in floats:
        raise OpTypeError(f"{op}: {name} must be {' or '.join(floats)}, got {_dt(a).name}; got ({got})")


def _float32_only(op: str, names, args, positions) -> None:
    """MindSpore's FusedSparse* CPU kernels take float32 only (its docs and kernel registrations)."""
    for k in positions:
        if _dt(args[k]).name != "float32":
            raise OpTypeError(f"{op}: {names[k]} must be float32, got {_dt(args[k]).name}; got ({_got(names, args)})")


# ---------------------------------------------------------------- class ops
_ADAM_NAMES = ("var", "m", "v", "beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon", "gradient",
               "indices")


def _sparse_adam(op, lazy, args, use_locking, use_nesterov):
    names = _ADAM_NAMES
    _check(op, names, args, n_slots=3, grad=9, indices=10, index_dtypes=("int32",))
    _float32_only(op, names, args, (0, 9))
    got = _got(names, args)
    args = args[:3] + tuple(_scalar_in(op, n, a, got) for n, a in zip(names[3:9], args[3:9])) + args[9:]
    _locking(op, use_locking)
    attrs = {"lazy": lazy, "use_nesterov": _attr_bool(op, "use_nesterov", use_nesterov)}
    return _write(args[:3], apply(fused_sparse_adam_update, args, attrs))


@expose(cls="FusedSparseAdam", init=("use_locking", "use_nesterov"), prim="FusedSparseAdamUpdate")
def fused_sparse_adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, gradient, indices, *,
                      use_locking=False, use_nesterov=False):
    return _sparse_adam("FusedSparseAdam", False, (var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon,
                                                   gradient, indices), use_locking, use_nesterov)


@expose(cls="FusedSparseLazyAdam", init=("use_locking", "use_nesterov"), prim="FusedSparseAdamUpdate")
def fused_sparse_lazy_adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, gradient, indices, *,
                           use_locking=False, use_nesterov=False):
    return _sparse_adam("FusedSparseLazyAdam", True, (var, m, v, beta1_power, beta2_power, lr, beta1, beta2,
                                                      epsilon, gradient, indices), use_locking, use_nesterov)


@expose(cls="FusedSparseFtrl", init=("lr", "l1", "l2", "lr_power", "use_locking"), prim="FusedSparseFtrlUpdate")
def fused_sparse_ftrl(var, accum, linear, grad, indices, *, lr, l1, l2, lr_power, use_locking=False):
    op = "FusedSparseFtrl"
    args = (var, accum, linear, grad, indices)
    _check(op, ("var", "accum", "linear", "grad", "indices"), args, n_slots=3, grad=3, indices=4,
           index_dtypes=("int32",))
    _float32_only(op, ("var", "accum", "linear", "grad"), args, (0, 3))
    _locking(op, use_locking)
    attrs = {k: _attr_float(op, k, x) for k, x in (("lr", lr), ("l1", l1), ("l2", l2), ("lr_power", lr_power))}
    if attrs["lr"] <= 0 or attrs["l1"] < 0 or attrs["l2"] < 0 or attrs["lr_power"] > 0:
        raise OpError(f"{op}: needs lr > 0, l1 >= 0, l2 >= 0 and lr_power <= 0, got lr={lr}, l1={l1}, l2={l2}, "
                      f"lr_power={lr_power}")
    return _write(args[:3], apply(fused_sparse_ftrl_update, args, attrs))


@expose(cls="FusedSparseProximalAdagrad", init=("use_locking",), prim="FusedSparseProximalAdagradUpdate")
def fused_sparse_proximal_adagrad(var, accum, lr, l1, l2, grad, indices, *, use_locking=False):
    op = "FusedSparseProximalAdagrad"
    names = ("var", "accum", "lr", "l1", "l2", "grad", "indices")
    args = (var, accum, lr, l1, l2, grad, indices)
    _check(op, names, args, n_slots=2, grad=5, indices=6, index_dtypes=("int32",))
    _float32_only(op, names, args, (0, 5))
    got = _got(names, args)
    args = args[:2] + tuple(_scalar_in(op, n, a, got) for n, a in zip(names[2:5], args[2:5])) + args[5:]
    _locking(op, use_locking)
    return _write(args[:2], apply(fused_sparse_proximal_adagrad_update, args))


@expose(cls="AdamNoUpdateParam", init=("use_locking", "use_nesterov"), prim="AdamNoUpdateParamUpdate")
def adam_no_update_param(m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, gradient, *, use_locking=False,
                         use_nesterov=False) -> Tensor:
    op = "AdamNoUpdateParam"
    names = ("m", "v", "beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon", "gradient")
    args = (m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, gradient)
    got = _got(names, args)
    _float_tensor(op, "m", m, got, ("float32",))
    _same_as(op, names, args, 0, (1, 8), got)
    args = args[:2] + tuple(_scalar_in(op, n, a, got, ("float32",)) for n, a in zip(names[2:8], args[2:8])) + args[8:]
    _locking(op, use_locking)
    new = apply(adam_no_update_param_update, args, {"use_nesterov": _attr_bool(op, "use_nesterov", use_nesterov)})
    _write(args[:2], new[:2])
    return new[2]


@expose(cls="FusedCastAdamWeightDecay", init=("use_locking",), prim="FusedCastAdamWeightDecayUpdate")
def fused_cast_adam_weight_decay(var, m, v, lr, beta1, beta2, epsilon, decay, gradient, global_norm, *,
                                 use_locking=False):
    op = "FusedCastAdamWeightDecay"
    names = ("var", "m", "v", "lr", "beta1", "beta2", "epsilon", "decay", "gradient", "global_norm")
    args = (var, m, v, lr, beta1, beta2, epsilon, decay, gradient, global_norm)
    got = _got(names, args)
    _float_tensor(op, "var", var, got)
    _float_tensor(op, "m", m, got, ("float32",))
    _same_as(op, names, args, 1, (2,), got)
    _same_as(op, names, args, 1, (0,), got, dtype=False)
    _float_tensor(op, "gradient", gradient, got, ("float16",))
    _same_as(op, names, args, 0, (8,), got, dtype=False)
    args = args[:3] + tuple(_scalar_in(op, n, a, got) for n, a in zip(names[3:8], args[3:8])) + (
        gradient, _scalar_in(op, "global_norm", global_norm, got))
    _locking(op, use_locking)
    return _write(args[:3], apply(fused_cast_adam_weight_decay_update, args))


_AF_NAMES = ("epsilon", "clip_threshold", "beta1", "beta2", "weight_decay", "learning_rate", "gradient", "param",
             "exp_avg", "exp_avg_sq_row", "exp_avg_sq_col", "exp_avg_sq", "global_norm")


def _ada_factor(op, args, flags, with_norm):
    names = _AF_NAMES[:len(args)]
    got = _got(names, args)
    eps = args[0]
    eps = tuple(eps.asnumpy().reshape(-1).tolist()) if isinstance(eps, Tensor) else eps
    if not isinstance(eps, (tuple, list)) or len(eps) != 2:
        raise OpTypeError(f"{op}: epsilon must be a pair (eps1, eps2), got {describe(args[0])}; got ({got})")
    scalars = [_scalar_in(op, n, a, got) for n, a in zip(names[1:6], args[1:6])]
    if isinstance(scalars[0], float) and scalars[0] <= 0:
        raise OpError(f"{op}: clip_threshold must be > 0, got {scalars[0]}")
    for name, b in (("beta1", scalars[1]), ("beta2", scalars[2])):
        if isinstance(b, float) and not 0 <= b <= 1:
            raise OpError(f"{op}: {name} must be in [0, 1], got {b}")
    param = args[7]
    _float_tensor(op, "param", param, got)
    _same_as(op, names, args, 7, (6,), got)
    shape = tuple(param.shape)
    want = {8: shape if flags[1] else None, 9: shape[:-1] if len(shape) >= 2 else None,
            10: shape[:-2] + shape[-1:] if len(shape) >= 2 else None, 11: None if len(shape) >= 2 else shape}
    for k, s in want.items():
        a = args[k]
        _float_tensor(op, names[k], a, got)
        if s is not None and tuple(a.shape) != s:
            raise OpError(f"{op}: {names[k]} must have shape {s} for param {describe(param)}, got {describe(a)}; "
                          f"got ({got})")
    norm = _scalar_in(op, "global_norm", args[12], got) if with_norm else 1.0
    inputs = (float(eps[0]), float(eps[1])) + tuple(scalars) + tuple(args[6:12]) + (norm,)
    attrs = dict(zip(("scale_parameter", "first_moment", "weight_decay_on"), flags), with_norm=with_norm)
    new = apply(fused_ada_factor_update, inputs, attrs)
    written = _write(args[7:12], new)
    return (written[0],)


def _ada_flags(op, enable_scale_parameter, enable_first_moment, enable_weight_decay):
    return tuple(_attr_bool(op, n, x) for n, x in (("enable_scale_parameter", enable_scale_parameter),
                                                   ("enable_first_moment", enable_first_moment),
                                                   ("enable_weight_decay", enable_weight_decay)))


@expose(cls="FusedAdaFactor", init=("enable_scale_parameter", "enable_first_moment", "enable_weight_decay"),
        prim="FusedAdaFactorUpdate")
def fused_ada_factor(epsilon, clip_threshold, beta1, beta2, weight_decay, learning_rate, gradient, param, exp_avg,
                     exp_avg_sq_row, exp_avg_sq_col, exp_avg_sq, *, enable_scale_parameter=False,
                     enable_first_moment=False, enable_weight_decay=False):
    op = "FusedAdaFactor"
    flags = _ada_flags(op, enable_scale_parameter, enable_first_moment, enable_weight_decay)
    return _ada_factor(op, (epsilon, clip_threshold, beta1, beta2, weight_decay, learning_rate, gradient, param,
                            exp_avg, exp_avg_sq_row, exp_avg_sq_col, exp_avg_sq), flags, False)


@expose(cls="FusedAdaFactorWithGlobalNorm",
        init=("enable_scale_parameter", "enable_first_moment", "enable_weight_decay"), prim="FusedAdaFactorUpdate")
def fused_ada_factor_with_global_norm(epsilon, clip_threshold, beta1, beta2, weight_decay, learning_rate, gradient,
                                      param, exp_avg, exp_avg_sq_row, exp_avg_sq_col, exp_avg_sq, global_norm, *,
                                      enable_scale_parameter=False, enable_first_moment=False,
                                      enable_weight_decay=False):
    op = "FusedAdaFactorWithGlobalNorm"
    flags = _ada_flags(op, enable_scale_parameter, enable_first_moment, enable_weight_decay)
    return _ada_factor(op, (epsilon, clip_threshold, beta1, beta2, weight_decay, learning_rate, gradient, param,
                            exp_avg, exp_avg_sq_row, exp_avg_sq_col, exp_avg_sq, global_norm), flags, True)


@expose(cls="FusedWeightScaleApplyMomentum", init=(), prim="FusedWeightScaleApplyMomentumUpdate")
def fused_weight_scale_apply_momentum(weight_decay, loss_scale, variable, accumulation, learning_rate, gradient,
                                      momentum) -> Tensor:
    op = "FusedWeightScaleApplyMomentum"
    names = ("weight_decay", "loss_scale", "variable", "accumulation", "learning_rate", "gradient", "momentum")
    args = (weight_decay, loss_scale, variable, accumulation, learning_rate, gradient, momentum)
    got = _got(names, args)
    _float_tensor(op, "variable", variable, got)
    _same_as(op, names, args, 2, (3,), got)
    _same_as(op, names, args, 2, (5,), got, dtype=False)
    _float_tensor(op, "gradient", gradient, got)
    args = tuple(_scalar_in(op, n, a, got) for n, a in zip(names[:2], args[:2])) + args[2:4] + (
        _scalar_in(op, "learning_rate", learning_rate, got), gradient, _scalar_in(op, "momentum", momentum, got))
    return _write(args[2:4], apply(fused_weight_scale_apply_momentum_update, args))[0]


@expose(cls="LARSUpdate", init=("epsilon", "hyperpara", "use_clip"), prim="LARSUpdate")
def lars_update_op(weight, gradient, norm_weight, norm_gradient, weight_decay, learning_rate, *, epsilon=1e-05,
                   hyperpara=0.001, use_clip=False) -> Tensor:
    op = "LARSUpdate"
    names = ("weight", "gradient", "norm_weight", "norm_gradient", "weight_decay", "learning_rate")
    args = (weight, gradient, norm_weight, norm_gradient, weight_decay, learning_rate)
    got = _got(names, args)
    for name, x in (("epsilon", epsilon), ("hyperpara", hyperpara)):
        if isinstance(x, bool) or not isinstance(x, float):
            raise OpTypeError(f"{op}: {name} must be a float, got {x!r}")
    _attr_bool(op, "use_clip", use_clip)
    _float_tensor(op, "weight", weight, got)
    _same_as(op, names, args, 0, (1,), got)
    for k in (2, 3):
        if not isinstance(args[k], Tensor):
            raise OpTypeError(f"{op}: {names[k]} must be a Tensor, got {type(args[k]).__name__}; got ({got})")
    args = args[:2] + tuple(_scalar_in(op, n, a, got) for n, a in zip(names[2:], args[2:]))
    return apply(lars_update, args, {"epsilon": epsilon, "hyperpara": hyperpara, "use_clip": use_clip})


@expose(cls="LambApplyOptimizerAssign", init=(), prim="LambApplyOptimizerAssignUpdate")
def lamb_apply_optimizer_assign(gradient, v, m, var, beta1, sub1, beta2, sub2, epsilon, steps, decay_flag,
                                weight_decay):
    op = "LambApplyOptimizerAssign"
    names = ("gradient", "v", "m", "var", "beta1", "sub1", "beta2", "sub2", "epsilon", "steps", "decay_flag",
             "weight_decay")
    args = (gradient, v, m, var, beta1, sub1, beta2, sub2, epsilon, steps, decay_flag, weight_decay)
    got = _got(names, args)
    _float_tensor(op, "var", var, got)
    _same_as(op, names, args, 3, (0, 1, 2), got)
    args = args[:4] + tuple(_scalar_in(op, n, a, got) for n, a in zip(names[4:], args[4:]))
    update, v2, m2 = apply(lamb_apply_optimizer_assign_update, args)
    v2, m2 = _write((v, m), (v2, m2))
    return update, v2, m2


@expose(cls="LambApplyWeightAssign", init=(), prim="LambApplyWeightAssignUpdate")
def lamb_apply_weight_assign(w_norm, g_norm, lr, update, var) -> Tensor:
    op = "LambApplyWeightAssign"
    names = ("w_norm", "g_norm", "lr", "update", "var")
    args = (w_norm, g_norm, lr, update, var)
    got = _got(names, args)
    _float_tensor(op, "var", var, got)
    _same_as(op, names, args, 4, (3,), got)
    args = tuple(_scalar_in(op, n, a, got) for n, a in zip(names[:3], args[:3])) + (update, var)
    return _write((var,), apply(lamb_apply_weight_assign_update, args))[0]
