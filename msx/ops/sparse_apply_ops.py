"""MindSpore's sparse optimizer-update primitives (`ops.SparseApplyAdagrad`, `ops.SparseApplyFtrl`, ...) and the
dense `ops.ApplyFtrl` / `ops.ApplyAdagradDA`: one step, written in place.

The same mechanism as `apply_ops.py`: each class op's update rule is one primitive whose results are written
back into the variable and slot inputs with `Tensor._rebind` (a state write under `msx.jit`, in every capture
mode), and the op returns what MindSpore returns (the tuple of updated var and slots for the sparse ops, the
updated var for ApplyFtrl / ApplyAdagradDA).

A sparse op updates only the rows of `var` (and its slots) that `indices` names, with the matching row of
`grad`, as MindSpore 2.10's CPU kernels do:

- `SparseApplyAdagrad` first sums the gradient rows of a duplicated index, then applies one step to that row,
  and skips an index outside [0, var.shape[0]) (MindSpore's kernel drops it silently; msx too);
- the other ops apply one step per index, in order (a duplicated index is stepped twice), and refuse an index
  outside [0, var.shape[0]) by name (MindSpore aborts, or logs an error and skips it). Inside a compiled graph
  the values are known only when it runs: there an out-of-range row is skipped.

`use_locking` is accepted; `True` warns once that there is no lock to take (the update is computed
functionally and assigned as a whole, the values are the same).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ..errors import OpError, OpIndexError, OpTypeError
from ..ignored_args import not_honoured
from ..tensor import Tensor
from . import bounds
from .api import expose
from .apply_prim import apply, describe, known_value
from .primitive import primitive

NO_LOCKING = ("the update is computed functionally and assigned as a whole; there is no per-variable lock to take "
              "(the updated values are the same)")
_FLOATS = (np.dtype("float16"), np.dtype("float32"))


# ---------------------------------------------------------------- update rules (one row, or the whole var)
def _sqrt(x):
    return jnp.sqrt(x)


def _adagrad_v2_row(var, accum, g, *, lr, epsilon, update_slots):
    if update_slots:
        accum = accum + g * g
    return var - lr * g / (_sqrt(accum) + epsilon), accum


def _ftrl_row(var, accum, linear, g, lr, l1, l2, lr_power, l2_shrinkage=0.0, signed_l1=True):
    shrunk = g + 2 * l2_shrinkage * var if l2_shrinkage else g
    accum_new = accum + g * g
    if isinstance(lr_power, float) and lr_power == -0.5:
        new_pow, old_pow = _sqrt(accum_new), _sqrt(accum)
    else:
        new_pow, old_pow = jnp.power(accum_new, -lr_power), jnp.power(accum, -lr_power)
    linear = linear + shrunk - (new_pow - old_pow) / lr * var
    quadratic = new_pow / lr + 2 * l2
    # MindSpore's CPU ApplyFtrl kernel takes +l1 for every nonzero linear (not sign(linear) * l1): kept
    l1_term = jnp.sign(linear) * l1 if signed_l1 else jnp.where(linear != 0, l1, -l1)
    var = jnp.where(jnp.abs(linear) > l1, (l1_term - linear) / quadratic, jnp.zeros_like(var))
    return var, accum_new, linear


def _proximal_adagrad_row(var, accum, g, lr, l1, l2):
    accum = accum + g * g
    lr_t = lr / _sqrt(accum)
    prox = var - lr_t * g
    var = jnp.sign(prox) / (1 + lr_t * l2) * jnp.maximum(jnp.abs(prox) - lr_t * l1, 0.0)
    return var, accum


def _rmsprop_row(var, ms, mom, g, lr, rho, momentum, epsilon):
    ms = rho * ms + (1 - rho) * g * g
    mom = momentum * mom + lr * g / _sqrt(ms + epsilon)
    return var - mom, ms, mom


def _adadelta_row(var, accum, accum_update, g, lr, rho, epsilon):
    accum = rho * accum + (1 - rho) * g * g
    update = _sqrt(accum_update + epsilon) * g / _sqrt(accum + epsilon)
    accum_update = rho * accum_update + (1 - rho) * update * update
    return var - lr * update, accum, accum_update


def _row_by_row(step, slots: tuple, grad, indices):
    """`step(*rows, grad_row)` applied for each index in order (a duplicate is stepped twice); an index outside
    [0, n) leaves every row as it was."""
    n = slots[0].shape[0]
    grad = grad.astype(slots[0].dtype)

    def body(i, carry):
        r = indices[i].astype(jnp.int32)
        ok = (r >= 0) & (r < n)
        rc = jnp.clip(r, 0, n - 1)
        old = [c[rc] for c in carry]
        new = step(*old, grad[i])
        return tuple(c.at[rc].set(jnp.where(ok, nw.astype(c.dtype), o)) for c, nw, o in zip(carry, new, old))

    return jax.lax.fori_loop(0, indices.shape[0], body, tuple(slots))


def _scalar(x, dtype):
    return jnp.asarray(x).astype(dtype)


# ---------------------------------------------------------------- primitives
_STATE = {"category": "state", "multiple_results": True, "differentiable": False}


def _internal(op: str) -> str:
    return f"the update rule of the class op ops.{op}, which writes its results into the variable and slots"


@primitive("SparseApplyAdagradUpdate", attrs=("lr", "update_slots"), internal=_internal("SparseApplyAdagrad"),
           **_STATE)
def sparse_apply_adagrad_update(var, accum, grad, indices, *, lr, update_slots=True):
    """MindSpore's SparseApplyAdagrad: the gradient rows of one index summed, one step per touched row."""
    n = var.shape[0]
    idx = indices.astype(jnp.int32)
    idx = jnp.where((idx >= 0) & (idx < n), idx, n)  # n: dropped (as MindSpore's kernel drops it)
    g = jnp.zeros_like(var).at[idx].add(grad.astype(var.dtype), mode="drop")
    touched = jnp.zeros((n,), bool).at[idx].set(True, mode="drop").reshape((n,) + (1,) * (var.ndim - 1))
    new_accum = accum + g * g if update_slots else accum
    new_var = var - lr * g / _sqrt(new_accum)
    return jnp.where(touched, new_var, var), jnp.where(touched, new_accum, accum)


@primitive("SparseApplyAdagradV2Update", attrs=("lr", "epsilon", "update_slots"),
           internal=_internal("SparseApplyAdagradV2"), **_STATE)
def sparse_apply_adagrad_v2_update(var, accum, grad, indices, *, lr, epsilon, update_slots=True):
    """MindSpore's SparseApplyAdagradV2, one index at a time."""
    return _row_by_row(lambda v, a, g: _adagrad_v2_row(v, a, g, lr=lr, epsilon=epsilon, update_slots=update_slots),
                       (var, accum), grad, indices)


@primitive("SparseApplyFtrlUpdate", attrs=("lr", "l1", "l2", "lr_power", "l2_shrinkage"),
           internal=_internal("SparseApplyFtrl / SparseApplyFtrlV2"), **_STATE)
def sparse_apply_ftrl_update(var, accum, linear, grad, indices, *, lr, l1, l2, lr_power, l2_shrinkage=0.0):
    """MindSpore's SparseApplyFtrl (and V2 with `l2_shrinkage`), one index at a time."""
    return _row_by_row(lambda v, a, li, g: _ftrl_row(v, a, li, g, lr, l1, l2, lr_power, l2_shrinkage),
                       (var, accum, linear), grad, indices)


@primitive("SparseApplyProximalAdagradUpdate", internal=_internal("SparseApplyProximalAdagrad"), **_STATE)
def sparse_apply_proximal_adagrad_update(var, accum, lr, l1, l2, grad, indices):
    """MindSpore's SparseApplyProximalAdagrad, one index at a time."""
    lr, l1, l2 = (_scalar(x, var.dtype) for x in (lr, l1, l2))
    return _row_by_row(lambda v, a, g: _proximal_adagrad_row(v, a, g, lr, l1, l2), (var, accum), grad, indices)


@primitive("SparseApplyRMSPropUpdate", attrs=("rho", "momentum", "epsilon"),
           internal=_internal("SparseApplyRMSProp"), **_STATE)
def sparse_apply_rmsprop_update(var, ms, mom, lr, grad, indices, *, rho, momentum, epsilon):
    """MindSpore's SparseApplyRMSProp, one index at a time."""
    lr = _scalar(lr, var.dtype)
    return _row_by_row(lambda v, m, mo, g: _rmsprop_row(v, m, mo, g, lr, rho, momentum, epsilon), (var, ms, mom),
                       grad, indices)


@primitive("SparseApplyAdadeltaUpdate", attrs=("epsilon",), internal=_internal("SparseApplyAdadelta"), **_STATE)
def sparse_apply_adadelta_update(var, accum, accum_update, lr, rho, grad, indices, *, epsilon):
    """MindSpore's SparseApplyAdadelta, one index at a time."""
    lr, rho = _scalar(lr, var.dtype), _scalar(rho, var.dtype)
    return _row_by_row(lambda v, a, u, g: _adadelta_row(v, a, u, g, lr, rho, epsilon), (var, accum, accum_update),
                       grad, indices)


@primitive("ApplyFtrlUpdate", internal=_internal("ApplyFtrl"), **_STATE)
def apply_ftrl_update(var, accum, linear, grad, lr, l1, l2, lr_power):
    """MindSpore's ApplyFtrl over the whole variable."""
    lr, l1, l2, lr_power = (_scalar(x, var.dtype) for x in (lr, l1, l2, lr_power))
    return _ftrl_row(var, accum, linear, grad.astype(var.dtype), lr, l1, l2, lr_power, signed_l1=False)


@primitive("ApplyAdagradDAUpdate", internal=_internal("ApplyAdagradDA"), **_STATE)
def apply_adagrad_da_update(var, gradient_accumulator, gradient_squared_accumulator, grad, lr, l1, l2, global_step):
    """MindSpore's ApplyAdagradDA over the whole variable."""
    lr, l1, l2, step = (_scalar(x, var.dtype) for x in (lr, l1, l2, global_step))
    grad = grad.astype(var.dtype)
    ga = gradient_accumulator + grad
    gsq = gradient_squared_accumulator + grad * grad
    # MindSpore's CPU kernel: sign(ga) * |ga - l1 * global_step| when l1 > 0 (its docs write
    # sign(ga) * max(|ga| - l1 * global_step, 0)); kept, so that the values are MindSpore's
    tmp = jnp.where(l1 > 0, jnp.sign(ga) * jnp.abs(ga - l1 * step), ga)
    return -lr * tmp / (l2 * step * lr + _sqrt(gsq)), ga, gsq


# ---------------------------------------------------------------- checks (msx errors naming the op and inputs)
def _got(names, args) -> str:
    return ", ".join(f"{n}={describe(a)}" for n, a in zip(names, args))


def _check(op: str, names: tuple, args: tuple, *, n_slots: int, grad: int, indices: int | None = None,
           index_dtypes=("int32", "int64"), grad_full: bool = False, scalars=(), int_scalars=(),
           in_range: bool = True):
    got = _got(names, args)
    for name, a in zip(names[:n_slots], args[:n_slots]):
        if not isinstance(a, Tensor):
            raise OpTypeError(f"{op}: {name} must be a Parameter or Tensor, got {type(a).__name__}; got ({got})")
    var = args[0]
    if _dt(var) not in _FLOATS:
        raise OpTypeError(f"{op}: var must be float16 or float32, got {_dt(var).name}; got ({got})")
    if var.ndim < 1:
        raise OpError(f"{op}: var must have at least 1 dimension, got shape {tuple(var.shape)}; got ({got})")
    for name, a in zip(names[1:n_slots], args[1:n_slots]):
        if tuple(a.shape) != tuple(var.shape) or a.dtype != var.dtype:
            raise OpError(f"{op}: {name} must have var's shape and dtype {describe(var)}, got {describe(a)}; "
                          f"got ({got})")
    g = args[grad]
    if not isinstance(g, Tensor):
        raise OpTypeError(f"{op}: grad must be a Tensor, got {type(g).__name__}; got ({got})")
    if _dt(g) not in _FLOATS or _dt(g).itemsize > _dt(var).itemsize:
        raise OpTypeError(f"{op}: grad must be float16 or float32 and no wider than var ({_dt(var).name}),"
                          f" got {_dt(g).name}; got ({got})")
    if indices is None:
        if tuple(g.shape) != tuple(var.shape):
            raise OpError(f"{op}: grad must have var's shape {tuple(var.shape)}, got {tuple(g.shape)}; got ({got})")
    else:
        ix = args[indices]
        if not isinstance(ix, Tensor) or _dt(ix).name not in index_dtypes:
            kind = _dt(ix).name if isinstance(ix, Tensor) else type(ix).__name__
            raise OpTypeError(f"{op}: indices must be a {' or '.join(index_dtypes)} Tensor, got {kind}; got ({got})")
        if ix.ndim != 1:
            raise OpError(f"{op}: indices must be 1-D, got shape {tuple(ix.shape)}; got ({got})")
        if grad_full:
            if tuple(g.shape) != tuple(var.shape) or ix.shape[0] != var.shape[0]:
                raise OpError(f"{op}: grad must have var's shape {tuple(var.shape)} and indices var.shape[0] = "
                              f"{var.shape[0]} entries, got grad {tuple(g.shape)}, indices {tuple(ix.shape)}; "
                              f"got ({got})")
        elif g.ndim != var.ndim or tuple(g.shape[1:]) != tuple(var.shape[1:]) or g.shape[0] != ix.shape[0]:
            raise OpError(f"{op}: grad must have shape (len(indices),) + var.shape[1:] = "
                          f"{(ix.shape[0],) + tuple(var.shape[1:])}, got {tuple(g.shape)}; got ({got})")
        values = bounds.concrete(known_value(ix)) if in_range else None  # known eagerly, or a capture's constant
        bad = None if values is None else bounds.outside(values, 0, var.shape[0])
        if bad is not None:
            raise OpIndexError(f"{op}: indices value {bad} is out of range [0, {var.shape[0]}) (the rows of var); "
                               f"got ({got})")
    for pos in scalars + int_scalars:
        a = args[pos]
        integral = pos in int_scalars
        if isinstance(a, Tensor):
            ok = a.ndim == 0 and (np.issubdtype(_dt(a), np.integer) if integral
                                  else _dt(a) in _FLOATS)
        else:
            ok = isinstance(a, (int, np.integer)) if integral else isinstance(a, (int, float, np.floating))
            ok = ok and not isinstance(a, bool)
        if not ok:
            want = ("an int or a scalar int32/int64 Tensor" if integral
                    else "a number or a scalar float16/float32 Tensor")
            raise OpTypeError(f"{op}: {names[pos]} must be {want}, got {describe(a)}; got ({got})")


def _dt(a) -> np.dtype:
    return np.dtype(a._data.dtype)


def _attr_float(op: str, name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
        raise OpTypeError(f"{op}: {name} must be a float, got {value!r}")
    return float(value)


def _attr_bool(op: str, name: str, value) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise OpTypeError(f"{op}: {name} must be a bool, got {value!r}")
    return bool(value)


def _locking(op: str, use_locking) -> None:
    _attr_bool(op, "use_locking", use_locking)
    not_honoured(op, "use_locking", use_locking, False, NO_LOCKING)


def _inputs(args: tuple) -> tuple:
    return tuple(float(a) if isinstance(a, (int, np.integer)) and not isinstance(a, bool) else a for a in args)


def _write(args: tuple, new: tuple):
    """Each result written into the input it updates (a Parameter or Tensor), as MindSpore does."""
    outs = []
    for target, value in zip(args, new):
        value = value if value.dtype == target.dtype else value.astype(target.dtype)
        outs.append(target._rebind(value))
    return tuple(outs)


# ---------------------------------------------------------------- class ops
@expose(cls="SparseApplyAdagrad", init=("lr", "update_slots", "use_locking"), prim="SparseApplyAdagradUpdate")
def sparse_apply_adagrad(var, accum, grad, indices, *, lr, update_slots=True, use_locking=False):
    op = "SparseApplyAdagrad"
    args = (var, accum, grad, indices)
    _check(op, ("var", "accum", "grad", "indices"), args, n_slots=2, grad=2, indices=3, index_dtypes=("int32",),
           in_range=False)  # MindSpore's kernel skips an index out of range
    _locking(op, use_locking)
    new = apply(sparse_apply_adagrad_update, args,
                {"lr": _attr_float(op, "lr", lr), "update_slots": _attr_bool(op, "update_slots", update_slots)})
    return _write(args, new)


@expose(cls="SparseApplyAdagradV2", init=("lr", "epsilon", "use_locking", "update_slots"),
        prim="SparseApplyAdagradV2Update")
def sparse_apply_adagrad_v2(var, accum, grad, indices, *, lr, epsilon, use_locking=False, update_slots=True):
    op = "SparseApplyAdagradV2"
    args = (var, accum, grad, indices)
    _check(op, ("var", "accum", "grad", "indices"), args, n_slots=2, grad=2, indices=3, index_dtypes=("int32",))
    _locking(op, use_locking)
    new = apply(sparse_apply_adagrad_v2_update, args,
                {"lr": _attr_float(op, "lr", lr), "epsilon": _attr_float(op, "epsilon", epsilon),
                 "update_slots": _attr_bool(op, "update_slots", update_slots)})
    return _write(args, new)


def _sparse_ftrl(op, var, accum, linear, grad, indices, lr, l1, l2, lr_power, l2_shrinkage, use_locking):
    args = (var, accum, linear, grad, indices)
    _check(op, ("var", "accum", "linear", "grad", "indices"), args, n_slots=3, grad=3, indices=4)
    _locking(op, use_locking)
    attrs = {k: _attr_float(op, k, v) for k, v in (("lr", lr), ("l1", l1), ("l2", l2), ("lr_power", lr_power),
                                                   ("l2_shrinkage", l2_shrinkage))}
    if attrs["lr"] <= 0 or attrs["l1"] < 0 or attrs["l2"] < 0 or attrs["lr_power"] > 0:
        raise OpError(f"{op}: needs lr > 0, l1 >= 0, l2 >= 0 and lr_power <= 0, got lr={lr}, l1={l1}, l2={l2}, "
                      f"lr_power={lr_power}")
    return _write(args, apply(sparse_apply_ftrl_update, args, attrs))


@expose(cls="SparseApplyFtrl", init=("lr", "l1", "l2", "lr_power", "use_locking"), prim="SparseApplyFtrlUpdate")
def sparse_apply_ftrl(var, accum, linear, grad, indices, *, lr, l1, l2, lr_power, use_locking=False):
    return _sparse_ftrl("SparseApplyFtrl", var, accum, linear, grad, indices, lr, l1, l2, lr_power, 0.0, use_locking)


@expose(cls="SparseApplyFtrlV2", init=("lr", "l1", "l2", "l2_shrinkage", "lr_power", "use_locking"),
        prim="SparseApplyFtrlUpdate")
def sparse_apply_ftrl_v2(var, accum, linear, grad, indices, *, lr, l1, l2, l2_shrinkage, lr_power, use_locking=False):
    return _sparse_ftrl("SparseApplyFtrlV2", var, accum, linear, grad, indices, lr, l1, l2, lr_power, l2_shrinkage,
                        use_locking)


@expose(cls="SparseApplyProximalAdagrad", init=("use_locking",), prim="SparseApplyProximalAdagradUpdate")
def sparse_apply_proximal_adagrad(var, accum, lr, l1, l2, grad, indices, *, use_locking=False):
    op = "SparseApplyProximalAdagrad"
    args = _inputs((var, accum, lr, l1, l2, grad, indices))
    _check(op, ("var", "accum", "lr", "l1", "l2", "grad", "indices"), args, n_slots=2, grad=5, indices=6,
           scalars=(2, 3, 4))
    _locking(op, use_locking)
    return _write(args, apply(sparse_apply_proximal_adagrad_update, args))


@expose(cls="SparseApplyRMSProp", init=("rho", "momentum", "epsilon", "use_locking"), prim="SparseApplyRMSPropUpdate")
def sparse_apply_rmsprop(var, ms, mom, lr, grad, indices, *, rho, momentum, epsilon, use_locking=False):
    op = "SparseApplyRMSProp"
    args = _inputs((var, ms, mom, lr, grad, indices))
    _check(op, ("var", "ms", "mom", "lr", "grad", "indices"), args, n_slots=3, grad=4, indices=5, grad_full=True,
           scalars=(3,))
    _locking(op, use_locking)
    attrs = {k: _attr_float(op, k, v) for k, v in (("rho", rho), ("momentum", momentum), ("epsilon", epsilon))}
    if not 0 <= attrs["rho"] <= 1 or attrs["momentum"] < 0 or attrs["epsilon"] <= 0:
        raise OpError(f"{op}: needs 0 <= rho <= 1, momentum >= 0 and epsilon > 0, got rho={rho}, "
                      f"momentum={momentum}, epsilon={epsilon}")
    return _write(args, apply(sparse_apply_rmsprop_update, args, attrs))


@expose(cls="SparseApplyAdadelta", init=("epsilon", "use_locking"), prim="SparseApplyAdadeltaUpdate")
def sparse_apply_adadelta(var, accum, accum_update, lr, rho, grad, indices, *, epsilon, use_locking=False):
    op = "SparseApplyAdadelta"
    args = _inputs((var, accum, accum_update, lr, rho, grad, indices))
    _check(op, ("var", "accum", "accum_update", "lr", "rho", "grad", "indices"), args, n_slots=3, grad=5,
           indices=6, grad_full=True, scalars=(3, 4))
    _locking(op, use_locking)
    eps = _attr_float(op, "epsilon", epsilon)
    if eps < 0:
        raise OpError(f"{op}: epsilon must be >= 0, got {epsilon}")
    return _write(args, apply(sparse_apply_adadelta_update, args, {"epsilon": eps}))


@expose(cls="ApplyFtrl", init=("use_locking",), prim="ApplyFtrlUpdate")
def apply_ftrl(var, accum, linear, grad, lr, l1, l2, lr_power, *, use_locking=False):
    op = "ApplyFtrl"
    args = _inputs((var, accum, linear, grad, lr, l1, l2, lr_power))
    _check(op, ("var", "accum", "linear", "grad", "lr", "l1", "l2", "lr_power"), args, n_slots=3, grad=3,
           scalars=(4, 5, 6, 7))
    _locking(op, use_locking)
    return _write(args, apply(apply_ftrl_update, args))[0]


@expose(cls="ApplyAdagradDA", init=("use_locking",), prim="ApplyAdagradDAUpdate")
def apply_adagrad_da(var, gradient_accumulator, gradient_squared_accumulator, grad, lr, l1, l2, global_step, *,
                     use_locking=False):
    op = "ApplyAdagradDA"
    args = (var, gradient_accumulator, gradient_squared_accumulator, grad) + _inputs((lr, l1, l2)) + (global_step,)
    _check(op, ("var", "gradient_accumulator", "gradient_squared_accumulator", "grad", "lr", "l1", "l2",
                "global_step"), args, n_slots=3, grad=3, scalars=(4, 5, 6), int_scalars=(7,))
    _locking(op, use_locking)
    return _write(args, apply(apply_adagrad_da_update, args))[0]
