"""MindSpore's `nn.AdaFactor` (Shazeer & Stern 2018): Adam-like steps whose second moment of a matrix is kept
as one row and one column vector (sublinear memory), each step clipped to RMS `clip_threshold`, and a
learning rate that by default follows the step number (`relative_step`) scaled by the parameter's RMS
(`scale_parameter`). Written as MindSpore's update rule with msx ops: eager, gradients of training loops and
capture see ordinary ops; the golden test compares it with MindSpore 2.10 step by step.
"""
from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

from ... import dtype as mstype
from ...ops import functional as F
from ...tensor import Parameter, Tensor
from .optimizer import LearningRate, Optimizer, _check_float


def _rms(x: Tensor) -> Tensor:
    return F.sqrt(F.mean(F.square(x)))


def _check_bool(name: str, value) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"AdaFactor: {name} must be a bool, got {type(value).__name__}")
    return value


class AdaFactor(Optimizer):
    """`AdaFactor(params, learning_rate=None, eps=(1e-30, 1e-3), clip_threshold=1.0, decay_rate=0.8, beta1=0.9,
    weight_decay=0.0, scale_parameter=True, relative_step=True, warmup_init=False, compression=False,
    loss_scale=1.0)`, MindSpore's arguments and checks.

    With `relative_step` the learning rate of step t is min(0.01, 1/sqrt(t)) (min(1e-6 t, 1/sqrt(t)) with
    `warmup_init`); `scale_parameter` multiplies it by max(eps[1], RMS(param)); a scheduled `learning_rate`
    turns `scale_parameter` off, as in MindSpore. `compression` keeps a vector's second moment in float16."""

    def __init__(self, params: Iterable, learning_rate: LearningRate | None = None, eps=(1e-30, 1e-3),
                 clip_threshold: float = 1.0, decay_rate: float = 0.8, beta1: float | None = 0.9,
                 weight_decay: float = 0.0, scale_parameter: bool = True, relative_step: bool = True,
                 warmup_init: bool = False, compression: bool = False, loss_scale: float = 1.0) -> None:
        if learning_rate is not None and relative_step:
            raise ValueError("AdaFactor: a learning_rate cannot be combined with relative_step=True (the step "
                             "number sets it); pass relative_step=False")
        if warmup_init and not relative_step:
            raise ValueError("AdaFactor: warmup_init=True needs relative_step=True")
        if learning_rate is None and not relative_step:
            raise ValueError("AdaFactor: relative_step=False needs a learning_rate")
        learning_rate = 0.0 if learning_rate is None else learning_rate
        beta1 = 0.0 if beta1 is None else beta1
        self.scale_lr = isinstance(learning_rate, (float, int))
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        if not isinstance(eps, (list, tuple)) or len(eps) != 2:
            raise ValueError(f"AdaFactor: eps must be two floats (eps1, eps2), got {eps!r}")
        # Python floats >= 0 only: MindSpore's AdaFactor refuses an int here
        self.eps = tuple(_check_float("AdaFactor", f"eps{i}", e, floats_only=True) for i, e in enumerate(eps))
        self.clip_threshold = _check_float("AdaFactor", "clip_threshold", clip_threshold, floats_only=True)
        decay_rate = _check_float("AdaFactor", "decay_rate", decay_rate, floats_only=True)
        if not 0 < decay_rate < 1:
            raise ValueError(f"AdaFactor: decay_rate must be in (0, 1), got {decay_rate}")
        if not 0 <= self.weight_decay < 1:
            raise ValueError(f"AdaFactor: weight_decay must be in [0, 1), got {self.weight_decay}")
        if isinstance(beta1, bool) or not isinstance(beta1, (int, float)) or beta1 < 0:
            raise ValueError(f"AdaFactor: beta1 must be a number >= 0, got {beta1!r}")
        self.decay_rate, self.beta1 = decay_rate, float(beta1)
        self.scale_parameter = _check_bool("scale_parameter", scale_parameter) and self.scale_lr
        self.relative_step = _check_bool("relative_step", relative_step)
        self.warmup_init = bool(warmup_init)
        self.compression = _check_bool("compression", compression)
        self.use_first_moment = self.beta1 > 0
        self._init_adafactor_state()
        self.step = Parameter(Tensor(np.zeros(1, np.float32)), name="afactor_step", requires_grad=False)

    def _state(self, name: str, shape: tuple, dtype) -> Parameter:
        p = Parameter(Tensor(np.zeros(shape, mstype.to_np(dtype))), name=name, requires_grad=False)
        self.insert_param_to_cell(name, p, check_name_contain_dot=False)
        return p

    def _init_adafactor_state(self) -> None:
        """MindSpore's state: `exp_avg` (the first moment, when beta1 > 0), and per parameter either a row and
        a column second moment (a matrix or more) or a full one (a vector)."""
        if self.use_first_moment:
            self._init_state("exp_avg")
        rows, cols, full = [], [], []
        for p in self.parameters:
            if len(p.shape) > 1:
                rows.append(self._state(f"exp_avg_sq_row_{p.name}", p.shape[:-1], p.dtype))
                cols.append(self._state(f"exp_avg_sq_col_{p.name}", p.shape[:-2] + p.shape[-1:], p.dtype))
                full.append(None)
            else:
                rows.append(None)
                cols.append(None)
                dtype = mstype.float16 if self.compression else p.dtype
                full.append(self._state(f"exp_avg_sq_{p.name}", p.shape, dtype))
        object.__setattr__(self, "exp_avg_sq_row", rows)
        object.__setattr__(self, "exp_avg_sq_col", cols)
        object.__setattr__(self, "exp_avg_sq", full)

    def updates_elementwise(self) -> bool:
        return False  # the RMS terms and the factored moments read whole tensors

    def _learning_rate(self, step: Tensor, lr: Tensor) -> Tensor:
        if not (self.scale_lr and self.relative_step):
            return lr
        inverse_sqrt = 1.0 / F.sqrt(step)
        return F.minimum(1e-6 * step if self.warmup_init else F.full_like(inverse_sqrt, 1e-2), inverse_sqrt)

    def construct(self, gradients: Sequence[Tensor]) -> bool:
        grads = self._decay_by_schedule(self._check_grads(gradients))
        self.step._rebind(self.step + 1.0)
        step = F.reshape(self.step, ())
        beta2t = 1.0 - F.pow(step, -self.decay_rate)
        for group, lr in zip(self._groups, self._group_lrs()):
            lr = self._learning_rate(step, F.cast(lr, mstype.float32))
            for i in group.indices:
                self._update(i, grads[i], lr, beta2t, group.weight_decay)
        self.global_step._rebind(self.global_step + 1)
        return True

    def _update(self, i: int, grad: Tensor, lr: Tensor, beta2t: Tensor, weight_decay: float) -> None:
        param = self.parameters[i]
        grad = F.cast(grad, mstype.float32) if grad.dtype == mstype.float16 else grad
        if self.loss_scale != 1.0:
            grad = grad / self.loss_scale
        p = F.cast(param, mstype.float32) if param.dtype == mstype.float16 else param
        lr_update = lr * F.maximum(_rms(p), self.eps[1]) if self.scale_parameter else lr
        update = F.square(grad) + self.eps[0]
        row, col, full = self.exp_avg_sq_row[i], self.exp_avg_sq_col[i], self.exp_avg_sq[i]
        if row is not None:
            new_row = F.cast(row, grad.dtype) * beta2t + F.mean(update, -1) * (1.0 - beta2t)
            new_col = F.cast(col, grad.dtype) * beta2t + F.mean(update, -2) * (1.0 - beta2t)
            row._rebind(F.cast(new_row, row.dtype))
            col._rebind(F.cast(new_col, col.dtype))
            r_factor = F.expand_dims(1.0 / F.sqrt(new_row / F.mean(new_row, -1, keep_dims=True)), -1)
            c_factor = 1.0 / F.sqrt(F.expand_dims(new_col, -2))
            update = r_factor * c_factor * grad
        else:
            new_full = F.cast(full, grad.dtype) * beta2t + update * (1.0 - beta2t)
            full._rebind(F.cast(new_full, full.dtype))
            update = grad / F.sqrt(F.cast(full, grad.dtype))
        update = update / F.maximum(_rms(update) / self.clip_threshold, 1.0) * lr_update
        if self.use_first_moment:
            exp_avg = self.exp_avg[i]
            new_avg = F.cast(exp_avg, grad.dtype) * self.beta1 + update * (1.0 - self.beta1)
            exp_avg._rebind(F.cast(new_avg, exp_avg.dtype))
            update = F.cast(exp_avg, grad.dtype)
        if weight_decay:
            p = p + p * (-weight_decay) * lr_update
        param._rebind(F.cast(p - update, param.dtype))


__all__ = ["AdaFactor"]
