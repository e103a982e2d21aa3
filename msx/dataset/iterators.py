"""Iterators over a dataset: one grain stream per epoch, running ahead of the consumer in grain's threads.

The rows are turned into device arrays inside the stream (by grain's reading
threads for a random-access pipeline, by one grain prefetch thread for a
stream), so reading, transforms and the host-to-device copy overlap the
training step. Errors raised in those threads reach the consumer; stopping
early (`break` + `stop()`, the iterator being collected) ends the threads.
"""
from __future__ import annotations

import time
import warnings
from typing import Any, Callable, Sequence

import grain
import jax.numpy as jnp
import numpy as np

from ..errors import DatasetError
from ..tensor import Tensor
from . import config
from .pipeline import Dataset, Row, applied, then
from .processes import EPOCHS_PER_START, EpochView, process_stream


def _device(value: Any) -> Any:
    """A column value as the iterator yields it: a Tensor, except strings/bytes/dicts (MindSpore: numpy/dict)."""
    if isinstance(value, np.ndarray) and value.dtype.kind not in "US":
        return Tensor._from(jnp.asarray(value))
    return value


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
        self._active: Any = None
        self._shared: Any = None  # worker processes' stream, serving epochs [self._epoch, self._shared_end)
        self._shared_end = 0
        self.wait_seconds = 0.0  # time the consumer spent waiting for rows (msx: to see if data is the bottleneck)

    def _converter(self) -> Callable[[Row], Any]:
        """Row -> what the iterator yields; it holds no reference to the iterator, so an iterator dropped
        mid-epoch is collected and its threads stopped."""
        indices, as_numpy = self._indices, self._output_numpy

        def convert(row: Row) -> list:
            values = [row[i] for i in indices]
            return values if as_numpy else [_device(v) for v in values]

        return convert

    def _start(self) -> None:
        if self._num_epochs != -1 and self._epoch >= self._num_epochs:
            raise DatasetError(f"the iterator was made for num_epochs={self._num_epochs} and all of them have been "
                               f"read; create a new iterator (or pass a larger num_epochs)")
        convert = self._converter()
        prefetch = config.get_prefetch_size()
        workers = self.dataset._process_workers()
        if workers and isinstance(applied(self.dataset._pending((self._epoch,))), grain.MapDataset):
            self._active = self._process_epoch(workers, prefetch, convert)
            return
        if workers:
            warnings.warn("python_multiprocessing=True: this pipeline is read as a stream (a generator source, "
                          "filter, a small shuffle buffer or bucket_batch_by_length), which grain cannot slice "
                          "between processes; it runs in threads", UserWarning, stacklevel=3)
        ds = applied(then(self.dataset._pending((self._epoch,)), lambda _, row: convert(row)))
        if isinstance(ds, grain.MapDataset):
            stream = self.dataset._stream(ds)
        else:
            stream = grain.experimental.ThreadPrefetchIterDataset(ds, prefetch_buffer_size=prefetch)
        self._active = iter(stream)

    def _process_epoch(self, workers: int, prefetch: int, convert: Callable[[Row], Any]) -> EpochView:
        """This epoch from the worker processes' stream, started (for several epochs) when needed."""
        if self._shared is None or self._epoch >= self._shared_end:
            self._close_shared()
            left = EPOCHS_PER_START if self._num_epochs == -1 else self._num_epochs - self._epoch
            count = min(left, EPOCHS_PER_START)
            parts = [applied(self.dataset._pending((e,))) for e in range(self._epoch, self._epoch + count)]
            self._lengths = {self._epoch + k: len(p) for k, p in enumerate(parts)}
            self._shared = process_stream(parts, workers, prefetch, convert)
            self._shared_end = self._epoch + count
        return EpochView(self._shared, self._lengths[self._epoch])

    def _close_shared(self) -> None:
        shared, self._shared = self._shared, None
        close = getattr(shared, "close", None)
        if close is not None:
            close()

    def __iter__(self) -> "_Iterator":
        if self._active is None:
            self._start()
        return self

    def __next__(self) -> Any:
        if self._active is None:
            self._start()
        start = time.perf_counter()
        try:
            item = next(self._active)
        except StopIteration:
            if isinstance(self._active, EpochView) and self._epoch + 1 < self._shared_end:
                self._active = None  # the worker processes go on with the next epoch
            else:
                self.stop()
            self._epoch += 1
            raise
        except BaseException:
            self.stop()  # the epoch ended in an error; iterating again restarts it
            raise
        finally:
            self.wait_seconds += time.perf_counter() - start
        return item

    def get_next(self) -> Any:
        return next(self)

    def stop(self) -> None:
        """End the current epoch's threads and worker processes (e.g. after an early `break`)."""
        active, self._active = self._active, None
        close = getattr(active, "close", None)
        if close is not None:
            close()
        self._close_shared()

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
