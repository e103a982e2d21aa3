"""Iterators over a dataset: one grain stream for all the epochs, running ahead of the consumer in grain's threads.

The epochs are read one after another as one stream — a random-access
pipeline's epochs as one grain `MapDataset` (`_Epochs`) read by grain's
threads, a stream pipeline's passes consecutively, with a marker between
epochs — so the next epoch's first batches are read while the consumer still
trains on the current epoch's last ones: the training loop does not wait at
an epoch's start. Each epoch is lowered with its own key (shuffles and random
transforms draw from the key alone), so reading ahead changes no row; and a
pass starts only after the previous one has been read to its end, so a source
whose `__iter__` restarts it is never read by two epochs at once. Rows become
device arrays (`jax.device_put`) in the reading threads, and the finished
items wait in a `ReadAhead` (`readahead.py`), so the consumer's `next()` only
takes an item already built. Errors raised in those threads reach the
consumer; stopping early (`stop()`, the iterator being collected) ends the
threads, and the next iteration starts the unfinished epoch again.
"""
from __future__ import annotations

import atexit
import weakref

import threading
import time
import warnings
from typing import Any, Callable, Iterator, Sequence

import grain
import jax
import numpy as np

from ..errors import DatasetError
from ..tensor import Tensor
from . import config
from ._grain import as_iter
from .base import Dataset, Row, applied, register_steps, then
from .processes import EPOCHS_PER_START, EpochView, process_stream
from . import readahead
from .readahead import ReadAhead
from .validators import set_iterator_cleanup

_EPOCH_END = object()  # between two epochs of a stream pipeline's shared stream
_ENDLESS = 2 ** 40  # the element count standing for "no end" (num_epochs=-1) in `_Epochs`


def _on_device(values: list) -> list:
    """A row's column values as the iterator yields them: Tensors, except strings/bytes (MindSpore: numpy); a
    dict's numeric values become Tensors too, as MindSpore's; the arrays go to the device in one
    `jax.device_put` (its fixed cost is most of a small batch's)."""
    at = [i for i, v in enumerate(values) if isinstance(v, np.ndarray) and v.dtype.kind not in "US"]
    for i, v in enumerate(values):
        if isinstance(v, dict):
            values[i] = {k: x if isinstance(x, dict) else _on_device([x])[0] if isinstance(x, np.ndarray) else x
                         for k, x in v.items()}
    if at:
        for i, array in zip(at, jax.device_put([values[i] for i in at])):
            values[i] = Tensor._from(array)
    return values


class _Epochs(grain.MapDataset):
    """Epochs `first`, `first + 1`, ... of a random-access pipeline as ONE random-access dataset, so grain's
    reading threads read the next epoch's first elements while the consumer is still on the current one's
    last. Each epoch is lowered (key `(e,)`, so its own shuffle) when a reading thread first reaches it."""

    def __init__(self, lower: Callable[[int], grain.MapDataset], first: grain.MapDataset, epoch: int,
                 epochs: int | None) -> None:
        super().__init__()
        self._lower, self._first, self._length = lower, epoch, len(first)
        self._size = _ENDLESS if epochs is None else epochs * self._length
        self._lock = threading.Lock()
        self._lowered: dict[int, grain.MapDataset] = {epoch: first}

    def __len__(self) -> int:
        return self._size

    def epoch(self, e: int) -> grain.MapDataset:
        with self._lock:
            ds = self._lowered.get(e)
            if ds is None:
                ds = self._lower(e)
                if len(ds) != self._length:
                    raise DatasetError(f"the dataset had {self._length} rows (or batches) in epoch {self._first} but "
                                       f"{len(ds)} in epoch {e}; an iterator reads epochs ahead, so the source's "
                                       f"size must stay the same (make a new iterator after changing it)")
                self._lowered = {k: v for k, v in self._lowered.items() if k >= e - 1}
                self._lowered[e] = ds
        return ds

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return self.slice(index)
        e, j = divmod(index, self._length)
        return self.epoch(self._first + e)[j]

    def __str__(self) -> str:
        return f"msx epochs from {self._first}"


def shared_epochs(dataset: Dataset, convert: Callable[[Row], Any], first: int,
                  end: int | None) -> tuple[Iterator, dict[int, int] | None]:
    """Epochs `first` .. `end` - 1 (None: without end) of `dataset` as one stream read ahead across the epochs'
    boundaries, and {epoch: length} for a random-access pipeline (else the stream marks each epoch's end with
    `_EPOCH_END`)."""
    workers, prefetch = dataset._workers(), config.get_prefetch_size()

    def lower(epoch: int) -> Any:
        return applied(then(dataset._pending((epoch,)), lambda _, row: convert(row)))

    ds = lower(first)
    if isinstance(ds, grain.MapDataset):
        n = len(ds)
        if n == 0:
            return iter(()), _Lengths(0)
        whole = _Epochs(lower, ds, first, None if end is None else end - first)
        # `prefetch` ahead of the consumer: one item in the making per reading thread, the rest built and waiting
        making = max(1, min(workers, prefetch - 1))
        reading = whole.to_iter_dataset(grain.ReadOptions(num_threads=workers, prefetch_buffer_size=making))
        return ReadAhead(iter(reading), prefetch - making), _Lengths(n)

    def rows() -> Iterator:  # a stream: each pass starts after the previous one was read to its end
        epoch = first
        while end is None or epoch < end:
            it = iter(as_iter(ds if epoch == first else lower(epoch), workers, prefetch))
            try:
                yield from it
            finally:
                close = getattr(it, "close", None)
                if close is not None:
                    close()
            yield _EPOCH_END
            epoch += 1

    return ReadAhead(rows(), prefetch), None


class _Lengths(dict):
    """{epoch: length} where every epoch has the same length."""

    def __init__(self, length: int) -> None:
        super().__init__()
        self.length = length

    def __missing__(self, epoch: int) -> int:
        return self.length


class _MarkedEpoch:
    """The items of a shared stream up to its next `_EPOCH_END`, then StopIteration (the stream stays open)."""

    def __init__(self, shared: Iterator) -> None:
        self._shared, self._done = shared, False

    def __next__(self) -> Any:
        if self._done:
            raise StopIteration
        item = next(self._shared)
        if item is _EPOCH_END:
            self._done = True
            raise StopIteration
        return item


ITERATORS_LIST: list = []  # weak references to the live iterators (MindSpore's name); stopped at exit


def _cleanup() -> None:
    """The dataset's exit handler: stop every live iterator (their reading threads and worker processes), as
    MindSpore does, then wait for the reading threads still running (`readahead.stop_all`)."""
    set_iterator_cleanup()
    for ref in reversed(ITERATORS_LIST):
        it = ref()
        if it is not None:
            it.stop()
    readahead.stop_all()


atexit.register(_cleanup)


HIDDEN_PREFIX = "_meta-"


class _Iterator:
    """Iterate once per epoch, up to `num_epochs` times (-1: no limit); epoch k is shuffled by (seed, k)."""

    def __init__(self, dataset: Dataset, columns: Sequence[str] | None, num_epochs: int, output_numpy: bool) -> None:
        if not isinstance(dataset, Dataset):
            raise DatasetError(f"an iterator needs an msx Dataset, got {type(dataset).__name__}")
        if isinstance(num_epochs, bool) or not isinstance(num_epochs, int) or not (num_epochs == -1 or num_epochs >= 1):
            raise DatasetError(f"num_epochs must be a positive int or -1, got {num_epochs!r}")
        names = dataset.get_col_names()
        # a reader's "_meta-" columns (CocoDataset(extra_metadata=True)) are left out unless renamed or asked for,
        # as MindSpore leaves them out
        chosen = [n for n in names if not n.startswith(HIDDEN_PREFIX)] if columns is None else \
            [columns] if isinstance(columns, str) else list(columns)
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
        self._shared: Any = None  # the stream serving epochs [self._epoch, self._shared_end) (None: no end)
        self._shared_end: int | None = 0
        self.wait_seconds = 0.0  # time the consumer spent waiting for rows (msx: to see if data is the bottleneck)
        ITERATORS_LIST[:] = [r for r in ITERATORS_LIST if r() is not None]
        ITERATORS_LIST.append(weakref.ref(self))

    def _converter(self) -> Callable[[Row], Any]:
        """Row -> what the iterator yields; it holds no reference to the iterator, so an iterator dropped
        mid-epoch is collected and its threads stopped."""
        indices, as_numpy = self._indices, self._output_numpy

        def convert(row: Row) -> list:
            values = [row[i] for i in indices]
            return values if as_numpy else _on_device(values)

        return convert

    def _start(self) -> None:
        if self._num_epochs != -1 and self._epoch >= self._num_epochs:
            raise DatasetError(f"the iterator was made for num_epochs={self._num_epochs} and all of them have been "
                               f"read; create a new iterator (or pass a larger num_epochs)")
        if self._shared is not None:  # the stream goes on with this epoch (already read ahead)
            self._active = self._view()
            return
        convert = self._converter()
        workers = self.dataset._process_workers()
        if workers and isinstance(applied(self.dataset._pending((self._epoch,))), grain.MapDataset):
            self._active = self._process_epoch(workers, config.get_prefetch_size(), convert)
            return
        if workers:
            warnings.warn("python_multiprocessing=True: this pipeline is read as a stream (a generator source, "
                          "filter, a small shuffle buffer or bucket_batch_by_length), which grain cannot slice "
                          "between processes; it runs in threads", UserWarning, stacklevel=3)
        self._shared_end = None if self._num_epochs == -1 else self._num_epochs
        self._shared, self._lengths = shared_epochs(self.dataset, convert, self._epoch, self._shared_end)
        self._active = self._view()

    def _view(self) -> Any:
        return _MarkedEpoch(self._shared) if self._lengths is None else EpochView(self._shared,
                                                                                  self._lengths[self._epoch])

    _lengths: dict | None = None  # epoch -> rows in the shared stream; None: it marks the epochs' ends

    def _process_epoch(self, workers: int, prefetch: int, convert: Callable[[Row], Any]) -> EpochView:
        """This epoch from the worker processes' stream, started for up to EPOCHS_PER_START epochs."""
        left = EPOCHS_PER_START if self._num_epochs == -1 else self._num_epochs - self._epoch
        count = min(left, EPOCHS_PER_START)
        parts = [applied(self.dataset._pending((e,))) for e in range(self._epoch, self._epoch + count)]
        self._lengths = {self._epoch + k: len(p) for k, p in enumerate(parts)}
        self._shared = process_stream(parts, workers, prefetch, convert)
        self._shared_end = self._epoch + count
        return self._view()

    def _close_shared(self) -> None:
        shared, self._shared, self._lengths = self._shared, None, None
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
            if self._shared is not None and (self._shared_end is None or self._epoch + 1 < self._shared_end):
                self._active = None  # the stream goes on with the next epoch
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
        """End the threads and worker processes (e.g. after an early `break`); iterating again restarts the
        unfinished epoch."""
        self._active = None
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


register_steps(TupleIterator, DictIterator)
