"""The other pipeline steps: shuffle, repeat, take, skip, project, rename, filter, zip, concat, split and
bucket_batch_by_length, each lowered to grain's own dataset where grain has one."""
from __future__ import annotations

import itertools
from typing import Any, Callable, Iterator, Sequence

import grain
import numpy as np

from ..errors import DatasetError
from . import _random, config
from ._grain import GrainDataset, PyIterDataset, passes
from . import validators as v
from .base import (Dataset, Key, Pending, Row, _OneChild, _callable_name, _workers_arg, applied, check_count,
                   names_arg, register_steps, then)
from .iterators import TupleIterator
from .map_batch import _check_pad_info, stack_column


class ShuffleDataset(_OneChild):
    def __init__(self, child: Dataset, buffer_size: int) -> None:
        super().__init__(child)
        ok = isinstance(buffer_size, int) and not isinstance(buffer_size, bool) and buffer_size >= 2
        if not ok:
            raise DatasetError(f"shuffle: buffer_size must be an int >= 2, got {buffer_size!r}")
        self.buffer_size = buffer_size
        self.seed = config.shuffle_seed()
        if child._sync_gates():
            raise DatasetError("shuffle: no shuffle after sync_wait (MindSpore refuses it too): the gate counts rows "
                               "in order; shuffle before sync_wait")

    def _grain(self, key: Key) -> GrainDataset:
        seed = _random.derive(self.seed, self._depth, *key)
        ds = self.child._grain(key)
        if isinstance(ds, grain.MapDataset) and self.buffer_size >= len(ds):
            return ds.shuffle(seed)  # the buffer holds everything: a uniform shuffle, random access kept
        # grain's WindowShuffleMapDataset repeats rows of a short last window (grain 0.2.18); its stream form
        # is exact
        return grain.experimental.WindowShuffleIterDataset(self._stream(ds), window_size=self.buffer_size,
                                                           seed=seed)


class RepeatDataset(_OneChild):
    def __init__(self, child: Dataset, count: int | None) -> None:
        super().__init__(child)
        self.count = -1 if count is None else check_count("repeat", "count", count, allow_infinite=True)

    def get_dataset_size(self) -> int:
        if self.count == -1:
            raise DatasetError("get_dataset_size: the dataset repeats without end (repeat(-1)); it has no size")
        return self.child.get_dataset_size() * self.count

    def get_repeat_count(self) -> int:
        return self.count

    def _endless(self) -> bool:
        return self.count == -1 or super()._endless()

    def _grain(self, key: Key) -> GrainDataset:
        first = self.child._grain(key + (0,))
        if self.count != -1 and isinstance(first, grain.MapDataset) and len(first):
            rest = [self.child._grain(key + (r,)) for r in range(1, self.count)]
            return grain.MapDataset.concatenate([first, *rest])
        return passes(lambda r: first if r == 0 else self.child._grain(key + (r,)),
                      None if self.count == -1 else self.count, self._workers(), config.get_prefetch_size())


class TakeDataset(_OneChild):
    def __init__(self, child: Dataset, count: int) -> None:
        super().__init__(child)
        self.count = check_count("take", "count", count, allow_infinite=True)

    def get_dataset_size(self) -> int:
        if self.count == -1:
            return self.child.get_dataset_size()
        if self.child._endless():
            return self.count
        return min(self.count, self.child.get_dataset_size())

    def _endless(self) -> bool:
        return self.count == -1 and super()._endless()

    def _grain(self, key: Key) -> GrainDataset:
        ds = self.child._grain(key)
        if self.count == -1:
            return ds
        if isinstance(ds, grain.MapDataset):
            return ds.slice(slice(0, self.count))
        return grain.experimental.LimitIterDataset(ds, self.count)


class SkipDataset(_OneChild):
    def __init__(self, child: Dataset, count: int) -> None:
        super().__init__(child)
        self.count = check_count("skip", "count", count, allow_zero=True)

    def get_dataset_size(self) -> int:
        return max(self.child.get_dataset_size() - self.count, 0)

    def _grain(self, key: Key) -> GrainDataset:
        ds = self.child._grain(key)
        if isinstance(ds, grain.MapDataset):
            return ds.slice(slice(self.count, None))
        return PyIterDataset(lambda: itertools.islice(iter(ds), self.count, None))


class ProjectDataset(_OneChild):
    def __init__(self, child: Dataset, columns: str | Sequence[str]) -> None:
        chosen = names_arg("project", "columns", columns)
        names = child.get_col_names()
        for c in chosen:
            if c not in names:
                raise DatasetError(f"project: column {c!r} is not one of the dataset's columns {names}")
        super().__init__(child, chosen)
        self._indices = [names.index(c) for c in chosen]

    def _pending(self, key: Key) -> Pending:
        indices = self._indices
        return then(self.child._pending(key), lambda i, row: tuple(row[j] for j in indices))

    def _grain(self, key: Key) -> GrainDataset:
        return applied(self._pending(key))


class RenameDataset(_OneChild):
    def __init__(self, child: Dataset, input_columns: Any, output_columns: Any) -> None:
        old = names_arg("rename", "input_columns", input_columns)
        new = names_arg("rename", "output_columns", output_columns)
        names = child.get_col_names()
        if len(old) != len(new):
            raise DatasetError(f"rename: input_columns {old} and output_columns {new} differ in length")
        for c in old:
            if c not in names:
                raise DatasetError(f"rename: column {c!r} is not one of the dataset's columns {names}")
        mapping = dict(zip(old, new))
        renamed = [mapping.get(n, n) for n in names]
        if len(set(renamed)) != len(renamed):
            raise DatasetError(f"rename: the new names would repeat a column: {renamed}")
        super().__init__(child, renamed)

    def _pending(self, key: Key) -> Pending:
        return self.child._pending(key)

    def _grain(self, key: Key) -> GrainDataset:
        return self.child._grain(key)


class FilterDataset(_OneChild):
    def __init__(self, child: Dataset, predicate: Callable, input_columns: Any, num_parallel_workers: Any) -> None:
        if not callable(predicate):
            raise DatasetError(f"filter: predicate must be callable, got {predicate!r}")
        names = child.get_col_names()
        inputs = names if input_columns is None else names_arg("filter", "input_columns", input_columns)
        for c in inputs:
            if c not in names:
                raise DatasetError(f"filter: input column {c!r} is not one of the dataset's columns {names}")
        super().__init__(child, None, _workers_arg("filter", num_parallel_workers))
        self.predicate, self._positions, self._inputs = predicate, [names.index(c) for c in inputs], inputs

    def get_dataset_size(self) -> int:
        return Dataset.get_dataset_size(self)

    def _keep(self, row: Row) -> bool:
        try:
            return bool(np.all(self.predicate(*(row[p] for p in self._positions))))
        except Exception as exc:
            raise DatasetError(f"filter: predicate {_callable_name(self.predicate)} failed on columns "
                               f"{self._inputs}: {type(exc).__name__}: {exc}") from exc

    def _grain(self, key: Key) -> GrainDataset:
        return self._stream(self.child._grain(key).filter(self._keep))  # filtered in the workers, then streamed


def zip_datasets(datasets: Sequence[Dataset]) -> "ZipDataset":
    """MindSpore's module-level `dataset.zip(datasets)`: a tuple of at least two datasets, side by side."""
    if not isinstance(datasets, tuple) or len(datasets) <= 1:
        raise DatasetError(f"zip: expected a tuple of at least two datasets, got {datasets!r}")
    return ZipDataset(list(datasets))


class ZipDataset(Dataset):
    def __init__(self, datasets: Sequence[Dataset]) -> None:
        if len(datasets) < 2 or not all(isinstance(d, Dataset) for d in datasets):
            raise DatasetError(f"zip: expected msx Datasets to zip with, got {[type(d).__name__ for d in datasets]}")
        names = [n for d in datasets for n in d.get_col_names()]
        if len(set(names)) != len(names):
            raise DatasetError(f"zip: the datasets share column names {names}; rename them first")
        super().__init__(datasets, names)

    def get_dataset_size(self) -> int:
        return min(d.get_dataset_size() for d in self.children)

    def _grain(self, key: Key) -> GrainDataset:
        parts = [c._grain(key) for c in self.children]
        merge = lambda rows: tuple(v for row in rows for v in row)  # noqa: E731
        if all(isinstance(p, grain.MapDataset) for p in parts):
            shortest = min(len(p) for p in parts)
            return grain.experimental.ZipMapDataset([p.slice(slice(0, shortest)) for p in parts]).map(merge)
        streams = [self._stream(p) for p in parts]
        return grain.experimental.ZipIterDataset(streams, strict=False).map(merge)

    def _endless(self) -> bool:
        return all(c._endless() for c in self.children)


class ConcatDataset(Dataset):
    def __init__(self, datasets: Sequence[Dataset]) -> None:
        if not all(isinstance(d, Dataset) for d in datasets):
            raise DatasetError(f"concat: expected msx Datasets, got {[type(d).__name__ for d in datasets]}")
        names = datasets[0].get_col_names()
        for d in datasets[1:]:
            if d.get_col_names() != names:
                raise DatasetError(f"concat: the datasets' columns differ: {names} and {d.get_col_names()}")
        super().__init__(datasets, names)

    def get_dataset_size(self) -> int:
        return sum(d.get_dataset_size() for d in self.children)

    def _grain(self, key: Key) -> GrainDataset:
        parts = [c._grain(key) for c in self.children]
        if all(isinstance(p, grain.MapDataset) for p in parts):
            return grain.MapDataset.concatenate(parts)
        return passes(lambda r: parts[r], len(parts), self._workers(), config.get_prefetch_size())


class _SubsetDataset(_OneChild):
    """One part of `split`: the rows of `indices` of a random-access dataset (its first pass's order)."""

    def __init__(self, child: Dataset, indices: np.ndarray, randomize: bool) -> None:
        super().__init__(child)
        self.indices, self.randomize, self.seed = indices, randomize, config.shuffle_seed()

    def get_dataset_size(self) -> int:
        return len(self.indices)

    def _grain(self, key: Key) -> GrainDataset:
        rows = self.child._grain((0,))
        picked = grain.MapDataset.source(self.indices)
        if self.randomize:
            picked = picked.shuffle(_random.derive(self.seed, self._depth, *key))
        return picked.map(lambda i: rows[int(i)])


def split_dataset(dataset: Dataset, sizes: Sequence[int | float], randomize: bool) -> list[Dataset]:
    if not isinstance(dataset._grain((0,)), grain.MapDataset):
        raise DatasetError(f"split: {type(dataset).__name__} is read as a stream (after a generator source, filter "
                           f"or a small shuffle buffer); split needs a random-access dataset")
    n = dataset.get_dataset_size()
    if not sizes or not all(isinstance(s, (int, float)) and not isinstance(s, bool) and s > 0 for s in sizes):
        raise DatasetError(f"split: sizes must be positive ints or fractions, got {sizes!r}")
    if all(isinstance(s, int) for s in sizes):
        if sum(sizes) != n:
            raise DatasetError(f"split: sizes {list(sizes)} sum to {sum(sizes)}, not the dataset size {n}")
        counts = list(sizes)
    elif all(isinstance(s, float) for s in sizes):
        if abs(sum(sizes) - 1) > 1e-6:
            raise DatasetError(f"split: fractions {list(sizes)} must sum to 1")
        counts = [int(round(s * n)) for s in sizes]
        counts[-1] += n - sum(counts)  # MindSpore puts the rounding error in the last split
        if min(counts) < 1:
            raise DatasetError(f"split: fractions {list(sizes)} of {n} rows leave a split empty: {counts}")
    else:
        raise DatasetError(f"split: sizes must be all ints or all fractions, got {sizes!r}")
    order = np.random.default_rng(config.shuffle_seed()).permutation(n) if randomize else np.arange(n)
    bounds = np.cumsum([0, *counts])
    return [_SubsetDataset(dataset, order[a:b], randomize) for a, b in zip(bounds[:-1], bounds[1:])]


class BucketBatchDataset(_OneChild):
    def __init__(self, child: Dataset, column_names: Any, bucket_boundaries: Sequence[int],
                 bucket_batch_sizes: Sequence[int], element_length_function: Callable | None, pad_info: Any,
                 pad_to_bucket_boundary: bool, drop_remainder: bool) -> None:
        where = "bucket_batch_by_length"
        super().__init__(child)
        names = child.get_col_names()
        self._inputs = names_arg(where, "column_names", column_names)
        for c in self._inputs:
            if c not in names:
                raise DatasetError(f"{where}: column {c!r} is not one of the dataset's columns {names}")
        bounds = list(bucket_boundaries)
        if not bounds or not all(isinstance(b, int) and b > 0 for b in bounds) or bounds != sorted(set(bounds)):
            raise DatasetError(f"{where}: bucket_boundaries must be increasing positive ints, got {bounds}")
        sizes = list(bucket_batch_sizes)
        if len(sizes) != len(bounds) + 1 or not all(isinstance(s, int) and s > 0 for s in sizes):
            raise DatasetError(f"{where}: bucket_batch_sizes needs len(bucket_boundaries) + 1 = {len(bounds) + 1} "
                               f"positive ints, got {sizes}")
        if element_length_function is None and len(self._inputs) != 1:
            raise DatasetError(f"{where}: without element_length_function, name exactly one column")
        self.bounds, self.sizes = bounds, sizes
        self.length_fn = element_length_function
        self.pad_info = _check_pad_info(where, pad_info, names)
        self.pad_to_boundary, self.drop_remainder = bool(pad_to_bucket_boundary), bool(drop_remainder)

    def get_dataset_size(self) -> int:
        return Dataset.get_dataset_size(self)

    def _length(self, row: Row) -> int:
        names = self.child.get_col_names()
        values = [row[names.index(c)] for c in self._inputs]
        if self.length_fn is None:
            return int(np.shape(values[0])[0]) if np.ndim(values[0]) else 1
        return int(self.length_fn(*values))

    def _batch(self, rows: list[Row], bucket: int) -> Row:
        names = self.child.get_col_names()
        out = []
        for j, name in enumerate(names):
            pad = self.pad_info.get(name)
            if pad is None and name in self._inputs:
                pad = (None, 0)
            if pad is not None and self.pad_to_boundary and bucket < len(self.bounds) and pad[0] is None:
                pad = ([self.bounds[bucket] - 1] + [None] * (np.ndim(rows[0][j]) - 1), pad[1])
            out.append(stack_column([r[j] for r in rows], name, pad))
        return tuple(out)

    def _rows(self, key: Key) -> Iterator[Row]:
        buckets: list[list[Row]] = [[] for _ in self.sizes]
        for row in self._stream(self.child._grain(key)):
            b = int(np.searchsorted(self.bounds, self._length(row), side="right"))
            buckets[b].append(row)
            if len(buckets[b]) == self.sizes[b]:
                yield self._batch(buckets[b], b)
                buckets[b] = []
        if not self.drop_remainder:
            for b, rows in enumerate(buckets):
                if rows:
                    yield self._batch(rows, b)

    def _grain(self, key: Key) -> GrainDataset:
        return PyIterDataset(lambda: self._rows(key))


BucketBatchByLengthDataset = BucketBatchDataset  # MindSpore's name of what bucket_batch_by_length returns


class TransferDataset(_OneChild):
    """What `device_que` returns (MindSpore's class): the pipeline's rows, to be sent to the device. msx has no
    device queue: `send(num_epochs)` starts an iterator that reads ahead on grain's threads and puts each row on
    the device (the same rows, as Tensors), held as `self.iterator` until `stop_send()`/`release()`; iterating a
    TransferDataset reads its rows as any dataset. `create_data_info_queue=True` (MindSpore's queue of shapes for
    Ascend sink mode) is refused."""

    def __init__(self, input_dataset: Dataset, send_epoch_end: bool = True, create_data_info_queue: bool = False,
                 queue_name: str = "") -> None:
        if create_data_info_queue:
            raise DatasetError("device_que: create_data_info_queue=True is not supported: msx has no device data "
                               "queue (its iterators already put the rows on the device)")
        super().__init__(input_dataset)
        self.send_epoch_end, self.queue_name = send_epoch_end, queue_name
        self.iterator: Any = None

    def _grain(self, key: Key) -> GrainDataset:
        return self.child._grain(key)

    def _pending(self, key: Key) -> Any:
        return self.child._pending(key)

    @v.check_to_device_send
    def send(self, num_epochs: int = -1) -> None:
        self.release()
        self.iterator = TupleIterator(self, None, num_epochs, False)

    def stop_send(self) -> None:
        if self.iterator is not None:
            self.iterator.stop()

    def release(self) -> None:
        self.stop_send()
        self.iterator = None


register_steps(ShuffleDataset, RepeatDataset, TakeDataset, SkipDataset, ZipDataset, ConcatDataset, ProjectDataset,
               RenameDataset, FilterDataset, split_dataset, BucketBatchDataset, TransferDataset)
