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

from typing import Any, Sequence

from ..errors import DatasetError


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


def check_callbacks(callbacks: Any) -> list[DSCallback]:
    if callbacks is None:
        return []
    cbs = list(callbacks) if isinstance(callbacks, (list, tuple)) else [callbacks]
    bad = [type(c).__name__ for c in cbs if not isinstance(c, DSCallback)]
    if bad:
        raise DatasetError(f"map: callbacks must be msx.dataset.DSCallback objects, got {bad}")
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
