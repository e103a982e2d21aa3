"""`LambdaCallback`, `LearningRateScheduler` and `ReduceLROnPlateau` (MindSpore's `mindspore.train` callbacks)."""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

from ...tensor import Parameter, Tensor
from ._callback import Callback, RunContext, write

_HOOKS = ("on_train_epoch_begin", "on_train_epoch_end", "on_train_step_begin", "on_train_step_end",
          "on_train_begin", "on_train_end", "on_eval_epoch_begin", "on_eval_epoch_end", "on_eval_step_begin",
          "on_eval_step_end", "on_eval_begin", "on_eval_end")


class LambdaCallback(Callback):
    """A callback from plain functions, one per hook (`on_train_step_end=lambda run_context: ...`)."""

    def __init__(self, on_train_epoch_begin=None, on_train_epoch_end=None, on_train_step_begin=None,
                 on_train_step_end=None, on_train_begin=None, on_train_end=None, on_eval_epoch_begin=None,
                 on_eval_epoch_end=None, on_eval_step_begin=None, on_eval_step_end=None, on_eval_begin=None,
                 on_eval_end=None) -> None:
        given = dict(zip(_HOOKS, (on_train_epoch_begin, on_train_epoch_end, on_train_step_begin, on_train_step_end,
                                  on_train_begin, on_train_end, on_eval_epoch_begin, on_eval_epoch_end,
                                  on_eval_step_begin, on_eval_step_end, on_eval_begin, on_eval_end)))
        for hook, fn in given.items():
            if fn is not None:
                if not callable(fn):
                    raise TypeError(f"LambdaCallback: {hook} must be callable, got {type(fn).__name__}")
                setattr(self, hook, fn)


def _lr_parameter(run_context: RunContext, who: str) -> Parameter:
    opt = run_context.original_args().get("optimizer")
    lr = getattr(opt, "learning_rate", None)
    if not isinstance(lr, Parameter) or lr.ndim != 0:
        raise ValueError(f"{who}: the optimizer's learning_rate must be a fixed number (a 0-d Parameter), not a "
                         f"schedule or per-step list, for the callback to change it")
    return lr


class LearningRateScheduler(Callback):
    """After every step, `lr = learning_rate_function(lr, cur_step_num)` (written into the optimizer's lr)."""

    def __init__(self, learning_rate_function: Callable[[float, int], float]) -> None:
        if not callable(learning_rate_function):
            raise TypeError("LearningRateScheduler: learning_rate_function must be callable")
        self.learning_rate_function = learning_rate_function

    def on_train_step_end(self, run_context: RunContext) -> None:
        lr = _lr_parameter(run_context, "LearningRateScheduler")
        cb = run_context.original_args()
        new = self.learning_rate_function(float(lr.asnumpy()), cb.cur_step_num)
        if new != float(lr.asnumpy()):
            lr.set_data(Tensor(np.float32(new)))


class ReduceLROnPlateau(Callback):
    """Multiply the optimizer's lr by `factor` when `monitor` ("eval_loss", "accuracy", ... from `Model.fit`,
    or "loss") has not improved by `min_delta` for `patience` epochs; then wait `cooldown` epochs."""

    def __init__(self, monitor: str = "eval_loss", factor: float = 0.1, patience: int = 10, verbose: bool = False,
                 mode: str = "auto", min_delta: float = 1e-4, cooldown: int = 0, min_lr: float = 0) -> None:
        if not 0 <= factor < 1:
            raise ValueError(f"ReduceLROnPlateau: factor must be in [0, 1), got {factor}")
        if mode not in ("auto", "min", "max"):
            raise ValueError(f"ReduceLROnPlateau: mode must be 'auto', 'min' or 'max', got {mode!r}")
        self.monitor, self.factor, self.patience, self.verbose = monitor, float(factor), int(patience), verbose
        self.mode = ("max" if "acc" in monitor else "min") if mode == "auto" else mode
        self.min_delta, self.cooldown, self.min_lr = abs(float(min_delta)), int(cooldown), float(min_lr)
        self.wait = self.cooldown_counter = 0
        self.best = math.inf if self.mode == "min" else -math.inf

    def on_train_begin(self, run_context: RunContext) -> None:
        self.wait = self.cooldown_counter = 0
        self.best = math.inf if self.mode == "min" else -math.inf

    def _value(self, cb) -> float | None:
        if self.monitor == "loss":
            return cb.get("train_loss")
        if cb.get("eval_epoch") != cb.cur_epoch_num:
            return None
        return (cb.get("eval_results") or {}).get(self.monitor)

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        cb = run_context.original_args()
        value = self._value(cb)
        if value is None:
            return
        value = float(value)
        better = value < self.best - self.min_delta if self.mode == "min" else value > self.best + self.min_delta
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if better:
            self.best, self.wait = value, 0
        elif self.cooldown_counter <= 0:
            self.wait += 1
            if self.wait >= self.patience:
                lr = _lr_parameter(run_context, "ReduceLROnPlateau")
                old = float(lr.asnumpy())
                if old > self.min_lr:
                    new = max(old * self.factor, self.min_lr)
                    lr.set_data(Tensor(np.float32(new)))
                    if self.verbose:
                        write(f"Epoch {cb.cur_epoch_num}: ReduceLROnPlateau reducing learning rate to {new}.")
                    self.cooldown_counter, self.wait = self.cooldown, 0
