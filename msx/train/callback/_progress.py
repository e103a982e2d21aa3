"""`ProgressBar` (an msx addition): a tqdm bar per epoch with the loss and the throughput.

`Model.train`, `fit` and `eval` add one by default when the output is a
terminal or a notebook (`progress_bar=None`); pass `progress_bar=False` to
silence it or give your own `ProgressBar(...)` in `callbacks`.
"""
from __future__ import annotations

import importlib.util
import sys
import time
from typing import Any, TextIO

from ._callback import Callback, RunContext, loss_tensor


def in_notebook() -> bool:
    """True inside a Jupyter kernel."""
    shell = getattr(sys.modules.get("IPython"), "get_ipython", lambda: None)()
    return type(shell).__name__ == "ZMQInteractiveShell"


def interactive() -> bool:
    """Whether a progress bar is wanted by default: a terminal on stderr, or a notebook."""
    stream = sys.stderr
    return in_notebook() or bool(getattr(stream, "isatty", lambda: False)())


def _tqdm_class():
    """tqdm's notebook widget when ipywidgets is there, else the text bar (which notebooks show as well)."""
    if in_notebook() and importlib.util.find_spec("ipywidgets") is not None:
        from tqdm.notebook import tqdm  # only inside a notebook (it loads ipywidgets and IPython)

        return tqdm
    from tqdm import tqdm  # tqdm (8 ms) loads when a bar is first drawn, not with `import msx`

    return tqdm


class ProgressBar(Callback):
    """One bar per epoch: steps done, loss, samples per second; the epoch's mean loss and validation results at
    its end. The loss shown is refreshed at most every `refresh_seconds` (reading it waits for the device)."""

    def __init__(self, file: TextIO | None = None, refresh_seconds: float = 0.2, leave: bool = True) -> None:
        self.file = file
        self.refresh_seconds = float(refresh_seconds)
        self.leave = leave
        self._bar: Any = None
        self._samples = 0
        self._start = 0.0
        self._last_refresh = 0.0

    def _open(self, total: int, desc: str) -> None:
        self._bar = _tqdm_class()(total=total, desc=desc, unit="step", file=self.file, leave=self.leave,
                                  dynamic_ncols=self.file is None, mininterval=self.refresh_seconds)
        self._samples, self._start, self._last_refresh = 0, time.perf_counter(), 0.0

    def _step(self, cb, show_loss: bool) -> None:
        if self._bar is None:
            return
        self._samples += cb.get("batch_size", 0)
        self._bar.update(1)
        now = time.perf_counter()
        if now - self._last_refresh >= self.refresh_seconds:
            self._last_refresh = now
            postfix = {}
            loss = loss_tensor(cb.get("net_outputs")) if show_loss else None
            if loss is not None:
                postfix["loss"] = f"{float(loss.asnumpy().mean()):.4f}"
            postfix["samples/s"] = f"{self._samples / max(now - self._start, 1e-9):.0f}"
            self._bar.set_postfix(postfix, refresh=False)

    def close(self, postfix: dict | None = None) -> None:
        """Close the open bar, if any (with `postfix` shown last)."""
        if self._bar is None:
            return
        if postfix:
            elapsed = max(time.perf_counter() - self._start, 1e-9)
            self._bar.set_postfix({**postfix, "samples/s": f"{self._samples / elapsed:.0f}"}, refresh=False)
        self._bar.close()
        self._bar = None

    # ------------------------------------------------------------ hooks
    def on_train_epoch_begin(self, run_context: RunContext) -> None:
        cb = run_context.original_args()
        self._open(cb.batch_num, f"epoch {cb.cur_epoch_num}/{cb.epoch_num}")

    def on_train_step_end(self, run_context: RunContext) -> None:
        self._step(run_context.original_args(), show_loss=True)

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        cb = run_context.original_args()
        postfix = {}
        if cb.get("train_loss") is not None:
            postfix["loss"] = f"{cb.train_loss:.4f}"
        if cb.get("eval_results") and cb.get("eval_epoch") == cb.cur_epoch_num:
            postfix.update({k: f"{v:.4f}" for k, v in cb.eval_results.items()})
        self.close(postfix)

    def on_train_end(self, run_context: RunContext) -> None:
        self.close()

    def on_eval_epoch_begin(self, run_context: RunContext) -> None:
        if self._bar is None:  # during fit, validation runs inside the epoch's bar
            self._open(run_context.original_args().batch_num, "eval")

    def on_eval_step_end(self, run_context: RunContext) -> None:
        cb = run_context.original_args()
        if cb.get("mode") == "eval" and not cb.get("in_fit"):
            self._step(cb, show_loss=False)

    def on_eval_end(self, run_context: RunContext) -> None:
        if not run_context.original_args().get("in_fit"):
            self.close()
