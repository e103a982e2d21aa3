"""Worker processes for `python_multiprocessing=True`: grain's `mp_prefetch`, kept alive across epochs.

grain slices the random-access pipeline between its processes (worker k
reads elements k, k + W, ...) and interleaves their outputs back in order,
so the rows are exactly those of one thread. Starting a process costs an
interpreter and an `import msx`, so one process stream serves several
epochs at once: the epochs' pipelines are concatenated (each keeps its own
shuffle) and an `EpochView` cuts the stream back into epochs. Rows become
device arrays in the main process, after they leave the workers.
"""
from __future__ import annotations

from typing import Any, Callable, Iterator, Sequence

import grain
import numpy as np
from absl import flags

from .readahead import ReadAhead

EPOCHS_PER_START = 16  # epochs one process stream reads before the workers are started anew (num_epochs=-1)


def process_stream(parts: Sequence[grain.MapDataset], workers: int, prefetch: int,
                   convert: Callable[[Any], Any]) -> Iterator:
    """The rows of `parts`, one after another, read by `workers` processes and `convert`ed here."""
    if not flags.FLAGS.is_parsed():  # grain's process code reads its absl flags; outside absl.app use defaults
        flags.FLAGS.mark_as_parsed()
    whole = parts[0] if len(parts) == 1 else grain.MapDataset.concatenate(list(parts))
    stream = whole.to_iter_dataset(grain.ReadOptions(num_threads=1, prefetch_buffer_size=max(prefetch, 1)))
    stream = stream.mp_prefetch(grain.MultiprocessingOptions(num_workers=workers,
                                                             per_worker_buffer_size=max(prefetch // workers, 1)))
    stream = stream.map(lambda row: convert(tuple(_own(v) for v in row)))
    return ReadAhead(iter(stream), prefetch)


def _own(value: Any) -> Any:
    """A plain numpy copy of an array that arrived in grain's shared memory, so the segment is freed at once
    (not when the user drops the row)."""
    return np.array(value) if isinstance(value, np.ndarray) and type(value) is not np.ndarray else value


class EpochView:
    """The next `length` items of a shared stream, then StopIteration (the stream stays open)."""

    def __init__(self, shared: Iterator, length: int) -> None:
        self._shared, self._left = shared, length

    def __next__(self) -> Any:
        if self._left <= 0:
            raise StopIteration
        self._left -= 1
        return next(self._shared)
