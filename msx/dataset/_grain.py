"""The small glue between msx's dataset nodes and grain's datasets.

Every msx `Dataset` node lowers one pass over its rows to a grain dataset: a
`grain.MapDataset` (random access: reading, `map`, `batch`, `shuffle`,
`take`/`skip`, `zip`, `concat` stay lazy and indexable) while it can, a
`grain.IterDataset` once a step needs a stream (a generator source,
`filter`, a shuffle buffer smaller than the data, `bucket_batch_by_length`).
Turning a `MapDataset` into a stream is where workers run: grain reads
`num_threads` elements at once, in order, so the rows are the same for any
worker count. Two small pieces grain has no name for live here: a stream made
by a Python generator function, and a stream of consecutive passes.
"""
from __future__ import annotations

from typing import Any, Callable, Iterator

import grain

GrainDataset = grain.MapDataset | grain.IterDataset


def as_iter(ds: GrainDataset, workers: int, prefetch: int) -> grain.IterDataset:
    """`ds` as a stream; a random-access `ds` is read by `workers` threads, `prefetch` elements ahead."""
    if isinstance(ds, grain.MapDataset):
        options = grain.ReadOptions(num_threads=workers, prefetch_buffer_size=max(prefetch, workers))
        return ds.to_iter_dataset(options)
    return ds


class _PyIterator(grain.DatasetIterator):
    def __init__(self, items: Iterator) -> None:
        super().__init__()
        self._items = items
        self._position = 0

    def __next__(self) -> Any:
        item = next(self._items)
        self._position += 1
        return item

    def get_state(self) -> dict:
        return {"position": self._position}

    def set_state(self, state: dict) -> None:
        if state.get("position") != self._position:
            raise NotImplementedError("a stream made by a Python generator cannot seek; only its current "
                                      "position can be restored")

    def close(self) -> None:
        close = getattr(self._items, "close", None)
        if close is not None:
            close()


class PyIterDataset(grain.IterDataset):
    """A grain stream whose elements come from `make()`, a fresh Python iterator per pass."""

    def __init__(self, make: Callable[[], Iterator]) -> None:
        super().__init__()
        self._make = make

    def __iter__(self) -> grain.DatasetIterator:
        return _PyIterator(iter(self._make()))


def passes(make: Callable[[int], GrainDataset], count: int | None, workers: int, prefetch: int) -> PyIterDataset:
    """Passes `make(0)`, `make(1)`, ... (`count` of them, None: without end) one after another as one stream.

    An empty pass ends the stream: repeating it without end would never yield.
    """

    def rows() -> Iterator:
        r = 0
        while count is None or r < count:
            it = iter(as_iter(make(r), workers, prefetch))
            produced = False
            try:
                for row in it:
                    produced = True
                    yield row
            finally:
                close = getattr(it, "close", None)
                if close is not None:
                    close()
            if not produced:
                return
            r += 1

    return PyIterDataset(rows)
