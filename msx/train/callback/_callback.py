"""MindSpore's callback protocol: `Callback`, `RunContext` and the parameters a callback sees.

`Model` calls, in order: `on_train_begin`, then per epoch
`on_train_epoch_begin`, per step `on_train_step_begin` / `on_train_step_end`,
then `on_train_epoch_end`, and `on_train_end` (and the `on_eval_*` hooks
during `eval`). Each gets a `RunContext`; `run_context.original_args()` is
the `CallbackParams` (`cur_epoch_num`, `cur_step_num`, `batch_num`,
`epoch_num`, `net_outputs`, `network`, `optimizer`, ...), and
`run_context.request_stop()` ends training after the current step.
"""
from __future__ import annotations

import math
import sys
from typing import Any, Iterable

import numpy as np

from ...tensor import Tensor


class CallbackParams(dict):
    """A dict whose keys are also attributes (MindSpore's `_InternalCallbackParam`)."""

    def __getattr__(self, key: str) -> Any:
        try:
            return self[key]
        except KeyError:
            raise AttributeError(f"callback parameters have no {key!r}; they have {sorted(self)}") from None

    def __setattr__(self, key: str, value: Any) -> None:
        self[key] = value


class RunContext:
    """What a callback gets: the run's parameters and a way to stop the run."""

    def __init__(self, original_args: CallbackParams) -> None:
        self._original_args = original_args
        self._stop_requested = False

    def original_args(self) -> CallbackParams:
        return self._original_args

    def request_stop(self) -> None:
        """Stop training after the current step (the epoch-end and train-end hooks still run)."""
        self._stop_requested = True

    def get_stop_requested(self) -> bool:
        return self._stop_requested


class Callback:
    """Base of callbacks; override the hooks you need.

    As in MindSpore 2.x, the `on_train_*` and `on_eval_*` hooks call the
    older names (`begin`, `epoch_begin`, `step_begin`, `step_end`,
    `epoch_end`, `end`) by default, so 1.x-style callbacks keep working.
    """

    def begin(self, run_context: RunContext) -> None:
        """Called once before the run (1.x name)."""

    def epoch_begin(self, run_context: RunContext) -> None:
        """Called before each epoch (1.x name)."""

    def epoch_end(self, run_context: RunContext) -> None:
        """Called after each epoch (1.x name)."""

    def step_begin(self, run_context: RunContext) -> None:
        """Called before each step (1.x name)."""

    def step_end(self, run_context: RunContext) -> None:
        """Called after each step (1.x name)."""

    def end(self, run_context: RunContext) -> None:
        """Called once after the run (1.x name)."""

    def on_train_begin(self, run_context: RunContext) -> None:
        self.begin(run_context)

    def on_train_epoch_begin(self, run_context: RunContext) -> None:
        self.epoch_begin(run_context)

    def on_train_step_begin(self, run_context: RunContext) -> None:
        self.step_begin(run_context)

    def on_train_step_end(self, run_context: RunContext) -> None:
        self.step_end(run_context)

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        self.epoch_end(run_context)

    def on_train_end(self, run_context: RunContext) -> None:
        self.end(run_context)

    def on_eval_begin(self, run_context: RunContext) -> None:
        self.begin(run_context)

    def on_eval_epoch_begin(self, run_context: RunContext) -> None:
        self.epoch_begin(run_context)

    def on_eval_step_begin(self, run_context: RunContext) -> None:
        self.step_begin(run_context)

    def on_eval_step_end(self, run_context: RunContext) -> None:
        self.step_end(run_context)

    def on_eval_epoch_end(self, run_context: RunContext) -> None:
        self.epoch_end(run_context)

    def on_eval_end(self, run_context: RunContext) -> None:
        self.end(run_context)


class CallbackList:
    """Runs one hook on every callback, in the order they were given."""

    def __init__(self, callbacks: Iterable[Callback]) -> None:
        self.callbacks = list(callbacks)

    def __call__(self, hook: str, run_context: RunContext) -> None:
        for cb in self.callbacks:
            getattr(cb, hook)(run_context)


def as_callback_list(callbacks: Any) -> list[Callback]:
    """`callbacks` (None, a Callback, or a list of them) as a list; anything else is a TypeError."""
    if callbacks is None:
        return []
    items = list(callbacks) if isinstance(callbacks, (list, tuple)) else [callbacks]
    for cb in items:
        if not isinstance(cb, Callback) and not _is_waited_ds_callback(cb):
            raise TypeError(f"callbacks must be Callback instances (msx.train.Callback), got {type(cb).__name__}")
    return items


def _is_waited_ds_callback(cb: Any) -> bool:
    """A `dataset.WaitedDSCallback` (it is a training callback too)? Asked without importing msx.dataset (grain,
    scipy: about 0.9 s of `import msx`, issue 31): while it is not loaded no such callback can exist."""
    module = sys.modules.get("msx.dataset.callbacks")
    return module is not None and isinstance(cb, module.WaitedDSCallback)


def loss_tensor(outputs: Any) -> Tensor | None:
    """The loss in a step's outputs: the Tensor itself, or the first Tensor of a tuple (MindSpore's rule)."""
    if isinstance(outputs, (tuple, list)) and outputs and isinstance(outputs[0], Tensor):
        outputs = outputs[0]
    return outputs if isinstance(outputs, Tensor) else None


def loss_value(outputs: Any) -> float:
    """The loss in a step's outputs as a float (the mean of a non-scalar loss); NaN when there is none."""
    t = loss_tensor(outputs)
    if t is None:
        return float(outputs) if isinstance(outputs, (int, float, np.number)) else math.nan
    return float(np.mean(t.asnumpy()))


def write(message: str) -> None:
    """Print a line without breaking an active progress bar."""
    from tqdm import tqdm  # tqdm (8 ms) loads when a line is first written, not with `import msx`

    tqdm.write(message)
