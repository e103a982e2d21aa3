"""`EarlyStopping`: stop training when a monitored value stops improving."""
from __future__ import annotations

import math

import numpy as np

from ._callback import Callback, RunContext, write


class EarlyStopping(Callback):
    """MindSpore's `EarlyStopping(monitor='eval_loss', min_delta=0, patience=0, verbose=False, mode='auto',
    baseline=None, restore_best_weights=False)`.

    Checked at each epoch end. `monitor` is "loss" (the epoch's mean training
    loss) or a validation result of `Model.fit` ("eval_loss", "accuracy",
    ...; an epoch without validation is skipped). Improvement means beating
    the best value by more than `min_delta` (and `baseline`, if given) in
    `mode`'s direction ("auto": "max" for names with "acc", else "min").
    After `patience` epochs without one, training stops. With
    `restore_best_weights`, the network's Parameters are set back to the best
    epoch's when training ends.
    """

    def __init__(self, monitor: str = "eval_loss", min_delta: float = 0, patience: int = 0, verbose: bool = False,
                 mode: str = "auto", baseline: float | None = None, restore_best_weights: bool = False) -> None:
        if not isinstance(monitor, str) or not monitor:
            raise ValueError(f"EarlyStopping: monitor must be a name, got {monitor!r}")
        if mode not in ("auto", "min", "max"):
            raise ValueError(f"EarlyStopping: mode must be 'auto', 'min' or 'max', got {mode!r}")
        if isinstance(patience, bool) or not isinstance(patience, int) or patience < 0:
            raise ValueError(f"EarlyStopping: patience must be an int >= 0, got {patience!r}")
        self.monitor, self.patience, self.verbose = monitor, patience, verbose
        self.baseline, self.restore_best_weights = baseline, restore_best_weights
        self.mode = ("max" if "acc" in monitor else "min") if mode == "auto" else mode
        self.min_delta = abs(float(min_delta)) * (1 if self.mode == "max" else -1)
        self.wait = 0
        self.stopped_epoch = 0
        self.best: float = math.nan
        self.best_epoch = 0
        self._best_weights: list | None = None

    def _improved(self, value: float, reference: float) -> bool:
        if math.isnan(reference):
            return True
        return value - self.min_delta > reference if self.mode == "max" else value - self.min_delta < reference

    def on_train_begin(self, run_context: RunContext) -> None:
        self.wait, self.stopped_epoch, self.best_epoch, self._best_weights = 0, 0, 0, None
        self.best = math.nan if self.baseline is None else float(self.baseline)

    def _value(self, run_context: RunContext) -> float | None:
        cb = run_context.original_args()
        if self.monitor == "loss":
            return cb.get("train_loss")
        if cb.get("eval_epoch") != cb.cur_epoch_num:
            return None  # no validation this epoch
        results = cb.get("eval_results") or {}
        if self.monitor not in results:
            raise ValueError(f"EarlyStopping: monitor {self.monitor!r} is not among the validation results "
                             f"{sorted(results)}; use 'loss' or a metric given to Model")
        return float(results[self.monitor])

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        value = self._value(run_context)
        if value is None:
            return
        cb = run_context.original_args()
        if self._improved(value, self.best):
            self.best, self.best_epoch, self.wait = value, cb.cur_epoch_num, 0
            if self.restore_best_weights:
                self._best_weights = [(p, np.array(p.asnumpy())) for p in cb.network.get_parameters()]
            return
        self.wait += 1
        if self.wait >= self.patience:
            self.stopped_epoch = cb.cur_epoch_num
            run_context.request_stop()
            if self.verbose:
                write(f"Epoch {cb.cur_epoch_num}: early stopping; best {self.monitor} {self.best:.6g} "
                      f"at epoch {self.best_epoch}")

    def on_train_end(self, run_context: RunContext) -> None:
        if self.restore_best_weights and self._best_weights is not None and self.best_epoch != \
                run_context.original_args().cur_epoch_num:
            for p, value in self._best_weights:
                p.set_data(value)
            if self.verbose:
                write(f"Restored the weights of epoch {self.best_epoch} ({self.monitor} {self.best:.6g})")
