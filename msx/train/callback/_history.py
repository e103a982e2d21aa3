"""`History`: the per-epoch record of the training loss and the validation results, ready to plot."""
from __future__ import annotations

from ._callback import Callback, RunContext


class History(Callback):
    """Record, per epoch, the mean training loss (`history["net_output"]`) and every validation result of
    `Model.fit` (`history["accuracy"]`, `history["eval_loss"]`, ...). `epoch` lists the epoch numbers.

    MindSpore records the last step's output; msx records the epoch's mean, the
    value a loss curve wants. A validation result is recorded for the epochs
    that were validated (every `valid_frequency`-th); `eval_epoch` lists them.
    """

    def __init__(self) -> None:
        self.epoch: list[int] = []
        self.eval_epoch: list[int] = []
        self.history: dict[str, list[float]] = {}

    def on_train_begin(self, run_context: RunContext) -> None:
        self.epoch, self.eval_epoch, self.history = [], [], {}

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        cb = run_context.original_args()
        self.epoch.append(cb.cur_epoch_num)
        if cb.get("train_loss") is not None:
            self.history.setdefault("net_output", []).append(cb.train_loss)
        if cb.get("eval_results") and cb.get("eval_epoch") == cb.cur_epoch_num:
            self.eval_epoch.append(cb.cur_epoch_num)
            for name, value in cb.eval_results.items():
                self.history.setdefault(name, []).append(value)
