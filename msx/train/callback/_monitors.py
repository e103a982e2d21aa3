"""Printing callbacks: `LossMonitor` (the loss every few steps) and `TimeMonitor` (time per epoch and step)."""
from __future__ import annotations

import math
import time

from ._callback import Callback, RunContext, loss_tensor, loss_value, write


class LossMonitor(Callback):
    """Print `epoch: E step: S, loss is L` every `per_print_times` steps (0: never), MindSpore's format.

    A NaN or infinite loss at a printed step raises ValueError and so stops
    training. After `Model.fit` validates, prints the validation results.
    """

    def __init__(self, per_print_times: int = 1) -> None:
        if isinstance(per_print_times, bool) or not isinstance(per_print_times, int) or per_print_times < 0:
            raise ValueError(f"LossMonitor: per_print_times must be an int >= 0, got {per_print_times!r}")
        self._per_print_times = per_print_times
        self._last_print_step = 0

    def on_train_begin(self, run_context: RunContext) -> None:
        self._last_print_step = run_context.original_args().cur_step_num

    def on_train_step_end(self, run_context: RunContext) -> None:
        cb = run_context.original_args()
        if self._per_print_times == 0 or cb.cur_step_num - self._last_print_step < self._per_print_times:
            return
        self._last_print_step = cb.cur_step_num
        step_in_epoch = (cb.cur_step_num - 1) % cb.batch_num + 1
        loss = loss_value(cb.net_outputs)
        if math.isnan(loss) or math.isinf(loss):
            if loss_tensor(cb.net_outputs) is not None:
                raise ValueError(f"epoch: {cb.cur_epoch_num} step: {step_in_epoch}. Invalid loss {loss}, "
                                 f"terminating training.")
        write(f"epoch: {cb.cur_epoch_num} step: {step_in_epoch}, loss is {loss}")

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        cb = run_context.original_args()
        if cb.get("eval_results") and cb.get("eval_epoch") == cb.cur_epoch_num:
            write(f"Eval result: epoch {cb.cur_epoch_num}, metrics: {cb.eval_results}")


def _sync(outputs) -> None:
    """Wait for the step that produced `outputs` (jax dispatches asynchronously)."""
    t = loss_tensor(outputs)
    if t is not None:
        t._data.block_until_ready()


class TimeMonitor(Callback):
    """Print the time of each epoch and the mean time per step (`data_size` steps, default the epoch's).

    `data_time=True` adds the mean host time per training step spent outside the step (between one step's end
    and the next one's begin: fetching the batch), MindSpore's " (data time: ... ms)"."""

    def __init__(self, data_size: int | None = None, data_time: bool = False) -> None:
        if data_size is not None and (isinstance(data_size, bool) or not isinstance(data_size, int) or data_size < 1):
            raise ValueError(f"TimeMonitor: data_size must be a positive int or None, got {data_size!r}")
        if not isinstance(data_time, bool):
            raise TypeError(f"TimeMonitor: data_time must be a bool, got {type(data_time).__name__}")
        self.data_size = data_size
        self.data_time = data_time
        self._start = {"Train": 0.0, "Eval": 0.0}  # fit validates inside a training epoch: two clocks
        self._steps = {"Train": 0, "Eval": 0}
        self._data_seconds = 0.0
        self._data_start = 0.0

    def _begin(self, what: str) -> None:
        self._start[what] = time.perf_counter()
        self._steps[what] = 0
        if what == "Train":
            self._data_seconds, self._data_start = 0.0, self._start[what]

    def _report(self, run_context: RunContext, what: str) -> None:
        cb = run_context.original_args()
        _sync(cb.get("net_outputs"))
        epoch_ms = (time.perf_counter() - self._start[what]) * 1000
        steps = self.data_size or self._steps[what] or 1
        line = f"{what} epoch time: {epoch_ms:.3f} ms, per step time: {epoch_ms / steps:.3f} ms"
        if self.data_time and what == "Train":
            line += f" (data time: {self._data_seconds * 1000 / steps:.3f} ms)"
        write(line)

    def on_train_epoch_begin(self, run_context: RunContext) -> None:
        self._begin("Train")

    def on_train_step_begin(self, run_context: RunContext) -> None:
        self._data_seconds += time.perf_counter() - self._data_start

    def on_train_step_end(self, run_context: RunContext) -> None:
        self._steps["Train"] += 1
        self._data_start = time.perf_counter()

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        self._report(run_context, "Train")

    def on_eval_epoch_begin(self, run_context: RunContext) -> None:
        self._begin("Eval")

    def on_eval_step_end(self, run_context: RunContext) -> None:
        self._steps["Eval"] += 1

    def on_eval_epoch_end(self, run_context: RunContext) -> None:
        self._report(run_context, "Eval")
