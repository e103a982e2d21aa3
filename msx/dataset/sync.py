"""`sync_wait` / `sync_update` (MindSpore's flow control): a pipeline that lets `num_batch` batches through,
then waits until the training loop calls `sync_update` — to feed the loop's results (a loss, a policy) back into
the data's preprocessing before the next batch is made.

The gate is a stream step: the rows below it are read as before (threads, in order), and its thread lets them
pass one at a time, counting. A `batch` above it counts in batches (MindSpore multiplies the gate's rows by the
batch size when the batch is built, and `sync_update(num_batch)` by `get_batch_size()`). The count starts again
for every new iterator, as in MindSpore; a wait longer than `config.get_callback_timeout()` seconds warns and
opens the gate for good (MindSpore's guard against a loop that never calls `sync_update`).
"""
from __future__ import annotations

import threading
import warnings
from typing import Any, Callable, Iterator

from ..errors import DatasetError
from . import config
from ._grain import GrainDataset, PyIterDataset
from .base import Dataset, Key, _OneChild, register_steps


class _Gate:
    """MindSpore's BlockReleasePair: `row_count` < 0 lets a row pass; release lowers it by the rows released."""

    def __init__(self, rows: int, callback: Callable | None) -> None:
        self.default_rows, self.callback = rows, callback
        self.row_count = -rows
        self.disabled = False
        self.generation = 0  # a new iterator starts a new generation; a reader of an older one stops waiting
        self.cv = threading.Condition()

    def reset(self) -> int:
        with self.cv:
            self.row_count, self.disabled = -self.default_rows, False
            self.generation += 1
            self.cv.notify_all()
            return self.generation

    def scale(self, batch_size: int) -> None:
        self.row_count *= batch_size
        self.default_rows *= batch_size

    def block(self, generation: int, name: str) -> bool:
        """Wait until a row may pass; False when a newer iterator took over the gate (the old pass ends)."""
        with self.cv:
            ok = self.cv.wait_for(lambda: self.row_count < 0 or self.disabled or self.generation != generation,
                                  timeout=config.get_callback_timeout())
            if self.generation != generation:
                return False
            if not ok:
                warnings.warn(f"sync_wait({name!r}): no sync_update came within {config.get_callback_timeout()} s "
                              f"(config.set_callback_timeout); the gate is opened and no longer waits", UserWarning)
                self.disabled = True
            self.row_count += 1
            return True

    def release(self, rows: int | None, data: Any) -> None:
        with self.cv:
            self.row_count -= self.default_rows if rows is None else rows
            if self.callback is not None:
                self.callback(data)
            self.cv.notify_all()

    def disable(self) -> None:
        with self.cv:
            self.disabled = True
            self.cv.notify_all()


class SyncWaitDataset(_OneChild):
    def __init__(self, child: Dataset, condition_name: str, num_batch: int, callback: Callable | None) -> None:
        if not isinstance(condition_name, str):
            raise DatasetError(f"sync_wait: condition_name must be a str, got {condition_name!r}")
        if isinstance(num_batch, bool) or not isinstance(num_batch, int) or num_batch <= 0:
            raise DatasetError(f"sync_wait: num_batch must be a positive int, got {num_batch!r}")
        if callback is not None and not callable(callback):
            raise DatasetError(f"sync_wait: callback must be callable or None, got {callback!r}")
        if condition_name in child._sync_gates():
            raise DatasetError(f"sync_wait: condition name {condition_name!r} is already in use in this pipeline")
        super().__init__(child)
        self.condition_name = condition_name
        self.gate = _Gate(num_batch, callback)

    def _sync_gates(self) -> dict[str, _Gate]:
        return {**self.child._sync_gates(), self.condition_name: self.gate}

    def _grain(self, key: Key) -> GrainDataset:
        below = self.child
        gate, name = self.gate, self.condition_name
        generation = gate.reset() if key[0] == 0 else gate.generation

        def rows() -> Iterator:
            for row in self._stream(below._grain(key)):
                if not gate.block(generation, name):
                    return
                yield row

        return PyIterDataset(rows)


def scale_gates(child: Dataset, batch_size: int) -> None:
    """A `batch` above `sync_wait` gates: they count rows, the user's `num_batch` means batches."""
    for gate in child._sync_gates().values():
        gate.scale(batch_size)


def sync_update(dataset: Dataset, condition_name: str, num_batch: int | None, data: Any) -> None:
    gates = dataset._sync_gates()
    if not isinstance(condition_name, str):
        raise DatasetError(f"sync_update: condition_name must be a str, got {condition_name!r}")
    if num_batch is not None and (isinstance(num_batch, bool) or not isinstance(num_batch, int) or num_batch <= 0):
        for gate in gates.values():
            gate.disable()
        raise DatasetError(f"sync_update: num_batch must be a positive int or None, got {num_batch!r}")
    if condition_name not in gates:
        for gate in gates.values():
            gate.disable()
        raise DatasetError(f"sync_update: no sync_wait named {condition_name!r} in this pipeline "
                           f"(it has {sorted(gates)}); its gates are opened")
    gates[condition_name].release(None if num_batch is None else num_batch * dataset.get_batch_size(), data)


class BlockReleasePair(_Gate):
    """MindSpore's blocking condition of `sync_wait`, under its own name and methods: `block_func()` waits until a
    row may pass (then counts it), `release_func(pass_rows, data)` lets `pass_rows` more through and calls
    `callback(data)`, `disable_lock()` opens it for good, `reset()` starts the count again. The pipeline's own
    `sync_wait` steps use the same gate."""

    def __init__(self, init_release_rows: int, callback: Callable | None = None) -> None:
        if isinstance(init_release_rows, int) and init_release_rows <= 0:
            raise DatasetError("release_rows need to be greater than 0.")
        super().__init__(init_release_rows, callback)

    def update_batched_size(self, batch_size: int) -> None:
        if isinstance(batch_size, int) and batch_size <= 0:
            raise DatasetError("batch_size need to be greater than 0.")
        self.scale(batch_size)

    def block_func(self) -> bool:
        self.block(self.generation, "BlockReleasePair")
        return True

    def release_func(self, pass_rows: int | None = None, data: Any = None) -> None:
        self.release(pass_rows, data)

    def disable_lock(self) -> None:
        _Gate.disable(self)

    @property
    def disable(self) -> Any:  # MindSpore's attribute is a flag; msx's gate method is `_Gate.disable`
        return self.disabled

    @disable.setter
    def disable(self, value: bool) -> None:
        self.disabled = bool(value)


register_steps(SyncWaitDataset, sync_update)
