"""Iterators over a dataset, with a background thread that prepares the next rows.

The thread runs the host pipeline (reading, `map`, `batch`) and turns each
row into device arrays while the consumer's training step runs, so the two
overlap. Errors raised in the thread reach the consumer unchanged; stopping
early (`break`, `stop()`, the iterator being collected) ends the thread.
"""
from __future__ import annotations

import queue
import threading
from typing import Any, Callable, Iterator, Sequence

import jax.numpy as jnp

from ..errors import DatasetError
from ..tensor import Tensor
from . import config
from .pipeline import Dataset, Row

_END = object()


class _Failure:
    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


def _put(q: queue.Queue, item: Any, stop: threading.Event) -> bool:
    """Put `item`, waking up to check `stop`; False when stopped first."""
    while not stop.is_set():
        try:
            q.put(item, timeout=0.05)
            return True
        except queue.Full:
            continue
    return False


def _produce(rows: Iterator[Row], convert: Callable[[Row], Any], q: queue.Queue, stop: threading.Event) -> None:
    try:
        for row in rows:
            if not _put(q, convert(row), stop):
                return
        _put(q, _END, stop)
    except BaseException as exc:  # handed to the consumer, which re-raises it
        _put(q, _Failure(exc), stop)
    finally:
        close = getattr(rows, "close", None)
        if close is not None:
            close()


class _Prefetcher:
    """One epoch of rows, produced `depth` items ahead in a daemon thread."""

    def __init__(self, rows: Iterator[Row], convert: Callable[[Row], Any], depth: int) -> None:
        self._queue: queue.Queue = queue.Queue(maxsize=depth)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=_produce, args=(rows, convert, self._queue, self._stop),
                                        name="msx-dataset-prefetch", daemon=True)
        self._thread.start()

    def get(self) -> Any:
        item = self._queue.get()
        if isinstance(item, _Failure):
            self.close()
            raise item.exc
        return item

    def close(self) -> None:
        self._stop.set()
        while True:  # unblock a producer waiting on a full queue
            try:
                self._queue.get_nowait()
            except queue.Empty:
                break
        self._thread.join(timeout=5)


class _Iterator:
    """Iterate once per epoch, up to `num_epochs` times (-1: no limit); epoch k is shuffled by (seed, k)."""

    def __init__(self, dataset: Dataset, columns: Sequence[str] | None, num_epochs: int, output_numpy: bool) -> None:
        if not isinstance(dataset, Dataset):
            raise DatasetError(f"an iterator needs an msx Dataset, got {type(dataset).__name__}")
        if isinstance(num_epochs, bool) or not isinstance(num_epochs, int) or not (num_epochs == -1 or num_epochs >= 1):
            raise DatasetError(f"num_epochs must be a positive int or -1, got {num_epochs!r}")
        names = dataset.get_col_names()
        chosen = names if columns is None else [columns] if isinstance(columns, str) else list(columns)
        unknown = [c for c in chosen if c not in names]
        if unknown:
            raise DatasetError(f"columns {unknown} are not among the dataset's columns {names}")
        self.dataset = dataset
        self.column_names = chosen
        self._indices = [names.index(c) for c in chosen]
        self._num_epochs = num_epochs
        self._output_numpy = output_numpy
        self._epoch = 0
        self._active: _Prefetcher | None = None

    def _converter(self) -> Callable[[Row], Any]:
        """Row -> what the iterator yields; it holds no reference to the iterator, so an iterator dropped
        mid-epoch is collected and its thread stopped."""
        indices, as_numpy = self._indices, self._output_numpy

        def convert(row: Row) -> list:
            values = [row[i] for i in indices]
            return values if as_numpy else [Tensor._from(jnp.asarray(v)) for v in values]

        return convert

    def _start(self) -> None:
        if self._num_epochs != -1 and self._epoch >= self._num_epochs:
            raise DatasetError(f"the iterator was made for num_epochs={self._num_epochs} and all of them have been "
                               f"read; create a new iterator (or pass a larger num_epochs)")
        rows = self.dataset._rows((self._epoch,))
        self._active = _Prefetcher(rows, self._converter(), config.get_prefetch_size())

    def __iter__(self) -> "_Iterator":
        if self._active is None:
            self._start()
        return self

    def __next__(self) -> Any:
        if self._active is None:
            self._start()
        try:
            item = self._active.get()
        except BaseException:
            self._active = None  # the epoch ended in an error; iterating again restarts it
            raise
        if item is _END:
            self._active.close()
            self._active = None
            self._epoch += 1
            raise StopIteration
        return item

    def get_next(self) -> Any:
        return next(self)

    def stop(self) -> None:
        """End the current epoch's background thread (e.g. after an early `break`)."""
        if self._active is not None:
            self._active.close()
            self._active = None

    def __del__(self) -> None:
        try:
            self.stop()
        except Exception:
            pass


class TupleIterator(_Iterator):
    """Yields a list of Tensors (or numpy arrays) per row, in column order."""


class DictIterator(_Iterator):
    """Yields `{column name: Tensor}` (or numpy arrays) per row."""

    def _converter(self) -> Callable[[Row], Any]:
        names, convert = list(self.column_names), super()._converter()
        return lambda row: dict(zip(names, convert(row)))
