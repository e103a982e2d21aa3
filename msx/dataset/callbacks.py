"""`DSCallback`: MindSpore's dataset callbacks, hooks a `map(..., callbacks=[...])` runs around its rows.

A map with callbacks runs its operations in the pipeline's stream thread, one
row after another, so each hook sees the rows in order and exactly around
their processing: `ds_begin` once per iterator, `ds_epoch_begin` /
`ds_epoch_end` around each epoch, `ds_step_begin` / `ds_step_end` around
steps 1, 1 + step_size, 1 + 2 step_size, ... (a step is a row at that map).
The run context counts as MindSpore's does: `cur_epoch_num` from 1,
`cur_step_num_in_epoch` from 1 within the epoch, `cur_step_num` over the whole
iterator (0 at the first `ds_epoch_begin`).
"""
from __future__ import annotations

import threading
from typing import Any, Sequence

from ..errors import DatasetError
from . import config


class DSRunContext:
    """What a dataset callback learns about the pipeline's progress (MindSpore's `ds_run_context`)."""

    def __init__(self) -> None:
        self.cur_epoch_num = 0
        self.cur_step_num_in_epoch = 0
        self.cur_step_num = 0


class DSCallback:
    """Base of dataset callbacks; override the `ds_*` hooks. `step_size`: the step hooks run every that many rows."""

    def __init__(self, step_size: int = 1) -> None:
        if isinstance(step_size, bool) or not isinstance(step_size, int) or step_size < 1:
            raise DatasetError(f"DSCallback: step_size must be a positive int, got {step_size!r}")
        self.step_size = step_size

    def ds_begin(self, ds_run_context: DSRunContext) -> None:
        """Called once, before the pipeline's first epoch."""

    def ds_epoch_begin(self, ds_run_context: DSRunContext) -> None:
        """Called before each epoch."""

    def ds_epoch_end(self, ds_run_context: DSRunContext) -> None:
        """Called after each epoch."""

    def ds_step_begin(self, ds_run_context: DSRunContext) -> None:
        """Called before every `step_size`-th row, from the first."""

    def ds_step_end(self, ds_run_context: DSRunContext) -> None:
        """Called after every `step_size`-th row, from the first."""


class WaitedDSCallback(DSCallback):
    """A dataset callback synchronised with training (MindSpore's): pass the same object to `map(callbacks=...)`
    and to `Model.train(callbacks=...)`. Before the pipeline makes step k > `step_size` (epoch e > 1) it waits
    until the training loop has ended its previous step (epoch), then calls `sync_step_begin(train_run_context,
    ds_run_context)` (`sync_epoch_begin`) with the training run context of that step; override those two.

    It is also a training callback: `msx.train.Model` accepts it and calls the hooks below (`step_end`,
    `epoch_end`, `end`), which release the waits. A wait longer than `config.get_callback_timeout()` seconds is a
    `DatasetError` (MindSpore's RuntimeError). Only the sync hooks a subclass overrides make the pipeline wait,
    and a subclass that overrides neither is refused by `map`, as in MindSpore.
    """

    def __init__(self, step_size: int = 1) -> None:
        super().__init__(step_size)
        self.step_event = threading.Event()
        self.step_run_context: Any = None
        self.epoch_event = threading.Event()
        self.epoch_run_context: Any = None
        self.training_ended = False

    def sync_epoch_begin(self, train_run_context: Any, ds_run_context: DSRunContext) -> None:
        """Called before a dataset epoch after the first, once the previous training epoch has ended."""

    def sync_step_begin(self, train_run_context: Any, ds_run_context: DSRunContext) -> None:
        """Called before a dataset step after the first `step_size` rows, once the previous training step ended."""

    def _overrides(self, name: str) -> bool:
        return getattr(type(self), name) is not getattr(WaitedDSCallback, name)

    # the dataset side: wait for the training loop
    def ds_epoch_begin(self, ds_run_context: DSRunContext) -> None:
        if not self._overrides("sync_epoch_begin") or ds_run_context.cur_epoch_num <= 1:
            return
        if not self.training_ended:
            ok = self.epoch_event.wait(timeout=config.get_callback_timeout())
            self.epoch_event.clear()
            if not ok:
                raise DatasetError(f"ds_epoch_begin timed out after {config.get_callback_timeout()} second(s).")
        self.sync_epoch_begin(self.epoch_run_context, ds_run_context)

    def ds_step_begin(self, ds_run_context: DSRunContext) -> None:
        if not self._overrides("sync_step_begin") or ds_run_context.cur_step_num <= self.step_size:
            return
        if not self.training_ended:
            ok = self.step_event.wait(timeout=config.get_callback_timeout())
            self.step_event.clear()
            if not ok:
                raise DatasetError(f"ds_step_begin timed out after {config.get_callback_timeout()} second(s).")
        self.sync_step_begin(self.step_run_context, ds_run_context)

    # the training side (msx.train.Callback's hooks): release the waits
    def epoch_end(self, run_context: Any) -> None:
        self.epoch_run_context = run_context
        self.epoch_event.set()

    def step_end(self, run_context: Any) -> None:
        self.step_run_context = run_context
        self.step_event.set()

    def end(self, run_context: Any) -> None:
        self.epoch_end(run_context)
        self.step_end(run_context)
        self.training_ended = True

    def begin(self, run_context: Any) -> None:
        self.training_ended = False

    def epoch_begin(self, run_context: Any) -> None:
        """A training hook WaitedDSCallback does not use."""

    def step_begin(self, run_context: Any) -> None:
        """A training hook WaitedDSCallback does not use."""

    def on_train_begin(self, run_context: Any) -> None:
        self.begin(run_context)

    def on_train_epoch_begin(self, run_context: Any) -> None:
        """Not used."""

    def on_train_step_begin(self, run_context: Any) -> None:
        """Not used."""

    def on_train_step_end(self, run_context: Any) -> None:
        self.step_end(run_context)

    def on_train_epoch_end(self, run_context: Any) -> None:
        self.epoch_end(run_context)

    def on_train_end(self, run_context: Any) -> None:
        self.end(run_context)

    def on_eval_begin(self, run_context: Any) -> None:
        """Evaluation does not release the training waits."""

    on_eval_epoch_begin = on_eval_step_begin = on_eval_step_end = on_eval_epoch_end = on_eval_end = on_eval_begin


def check_callbacks(callbacks: Any) -> list[DSCallback]:
    if callbacks is None:
        return []
    cbs = list(callbacks) if isinstance(callbacks, (list, tuple)) else [callbacks]
    bad = [type(c).__name__ for c in cbs if not isinstance(c, DSCallback)]
    if bad:
        raise DatasetError(f"map: callbacks must be msx.dataset.DSCallback objects, got {bad}")
    for cb in cbs:
        if isinstance(cb, WaitedDSCallback) and not (cb._overrides("sync_step_begin")
                                                     or cb._overrides("sync_epoch_begin")):
            raise DatasetError("Inheriting Callback class without overriding any methods, check the usage of user "
                               "defined Callback.")
    return cbs


class CallbackRun:
    """The counters of one iterator's run through a map with callbacks, and the hooks called in order."""

    def __init__(self, callbacks: Sequence[DSCallback]) -> None:
        self.callbacks = list(callbacks)
        self.context = DSRunContext()
        self.total = 0

    def begin(self) -> None:
        self.total = 0
        self.context = DSRunContext()
        for cb in self.callbacks:
            cb.ds_begin(self.context)

    def epoch_begin(self, epoch: int) -> None:
        c = self.context
        c.cur_epoch_num, c.cur_step_num_in_epoch, c.cur_step_num = epoch + 1, 0, self.total
        for cb in self.callbacks:
            cb.ds_epoch_begin(c)

    def step(self, step_in_epoch: int, end: bool) -> None:
        """The step hooks around row `step_in_epoch` (from 1) of the epoch; `end`: after it."""
        c = self.context
        if not end:
            self.total += 1
        c.cur_step_num_in_epoch, c.cur_step_num = step_in_epoch, self.total
        for cb in self.callbacks:
            if (step_in_epoch - 1) % cb.step_size == 0:
                (cb.ds_step_end if end else cb.ds_step_begin)(c)

    def epoch_end(self, steps: int) -> None:
        c = self.context
        c.cur_step_num_in_epoch, c.cur_step_num = steps, self.total
        for cb in self.callbacks:
            cb.ds_epoch_end(c)
