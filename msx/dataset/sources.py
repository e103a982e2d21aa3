"""Where rows come from: `NumpySlicesDataset` (arrays sliced along axis 0) and `GeneratorDataset`.

Both check their data when they are built — ragged columns, columns of
different lengths, strings or Python objects, a wrong number of values per
row — and name the column at fault, so bad data never reaches a training step.
"""
from __future__ import annotations

import abc
import collections.abc
import itertools
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from .. import dtype as mstype
from ..errors import DatasetError
from ..tensor import Tensor
from . import config
from .pipeline import Dataset, Key, Row, column_array


def _column_names(where: str, given: Any, count: int) -> list[str]:
    if given is None:
        return [f"column_{i}" for i in range(count)]
    names = [given] if isinstance(given, str) else list(given) if isinstance(given, (list, tuple)) else None
    if names is None or not all(isinstance(n, str) and n for n in names):
        raise DatasetError(f"{where}: column_names must be a list of non-empty strings, got {given!r}")
    if len(set(names)) != len(names):
        raise DatasetError(f"{where}: column_names repeats a name: {names}")
    if count >= 0 and len(names) != count:
        raise DatasetError(f"{where}: column_names has {len(names)} names {names}, but the data has {count} columns")
    return names


def _check_num_samples(where: str, num_samples: Any) -> int | None:
    if num_samples is None:
        return None
    if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples < 1:
        raise DatasetError(f"{where}: num_samples must be a positive int or None, got {num_samples!r}")
    return num_samples


class _RandomAccess(Dataset):
    """A source read by index: it can shuffle globally (a new permutation every epoch) and knows its length."""

    def __init__(self, where: str, names: list[str], length: int, shuffle: bool | None, num_samples: int | None):
        super().__init__((), names)
        if shuffle not in (None, True, False):
            raise DatasetError(f"{where}: shuffle must be True, False or None, got {shuffle!r}")
        self._length = length
        self._shuffle = shuffle is not False
        self._num_samples = _check_num_samples(where, num_samples)
        self._seed = config.shuffle_seed() if self._shuffle else None

    def get_dataset_size(self) -> int:
        return self._length if self._num_samples is None else min(self._length, self._num_samples)

    def _order(self, key: Key) -> np.ndarray:
        if self._shuffle:
            order = np.random.default_rng([self._seed, self._depth, *key]).permutation(self._length)
        else:
            order = np.arange(self._length)
        return order[:self.get_dataset_size()]

    def _rows(self, key: Key) -> Iterator[Row]:
        for i in self._order(key):
            yield self._row(int(i))

    @abc.abstractmethod
    def _row(self, index: int) -> Row:
        """The row at `index` of the source."""


class NumpySlicesDataset(_RandomAccess):
    """Rows are slices along the first axis of the given data (MindSpore's `NumpySlicesDataset`).

    `data`: a dict `{column name: array}`, a tuple of arrays (one column
    each), or a list / array / Tensor (one column). Columns are named by the
    dict keys, `column_names`, or `column_0, column_1, ...`. `shuffle`
    (default: on) draws a new order every epoch from the dataset seed.
    """

    def __init__(self, data: Any, column_names: Sequence[str] | None = None, num_samples: int | None = None,
                 num_parallel_workers: int = 1, shuffle: bool | None = None, sampler=None,
                 num_shards: int | None = None, shard_id: int | None = None) -> None:
        where = "NumpySlicesDataset"
        if sampler is not None or num_shards is not None or shard_id is not None:
            raise DatasetError(f"{where}: sampler, num_shards and shard_id are not supported; "
                               f"shuffle with shuffle=True and split the data yourself")
        if isinstance(data, dict):
            keys = list(data)
            if column_names is not None and list(column_names) != keys:
                raise DatasetError(f"{where}: data is a dict with keys {keys}; column_names {list(column_names)} "
                                   f"must be None or equal them")
            names, values = _column_names(where, [str(k) for k in keys], len(keys)), list(data.values())
        elif isinstance(data, tuple):
            names, values = _column_names(where, column_names, len(data)), list(data)
        elif isinstance(data, (list, np.ndarray, Tensor)):
            names, values = _column_names(where, column_names, 1), [data]
        else:
            raise DatasetError(f"{where}: data must be a dict, a tuple, a list, a numpy array or a Tensor, "
                               f"got {type(data).__name__}")
        if not values:
            raise DatasetError(f"{where}: data has no columns")
        self._columns = [column_array(v, n, where) for v, n in zip(values, names)]
        for name, col in zip(names, self._columns):
            if col.ndim == 0:
                raise DatasetError(f"{where}: column {name!r} is a scalar; rows are slices along the first axis, "
                                   f"so each column needs one")
        lengths = {n: len(c) for n, c in zip(names, self._columns)}
        if len(set(lengths.values())) > 1:
            raise DatasetError(f"{where}: columns have different lengths {lengths}; every column needs one entry "
                               f"per row")
        super().__init__(where, names, len(self._columns[0]), shuffle, num_samples)

    def _row(self, index: int) -> Row:
        return tuple(np.array(c[index]) for c in self._columns)  # a copy: a map may not write into the source

    def _gather(self, indices: np.ndarray) -> Row:
        """The rows at `indices`, stacked per column (what `batch` makes of them, without a loop)."""
        return tuple(c[indices] for c in self._columns)


class GeneratorDataset(Dataset):
    """Rows from Python (MindSpore's `GeneratorDataset`).

    `source`: a random-accessible object (`__getitem__` and `__len__`: it can
    be shuffled, default on), a callable returning an iterator (a generator
    function: called once per epoch), or a re-iterable (a list). Each item is
    a tuple with one value per name in `column_names` (a bare value for one
    column). `column_types` casts the columns. The first row is checked when
    the dataset is built, every row as it is read; errors name the column and
    the row.
    """

    def __new__(cls, source: Any = None, *args, **kwargs):
        if cls is GeneratorDataset and _random_access(source):
            return super().__new__(_RandomAccessGenerator)
        return super().__new__(cls)

    def __init__(self, source: Any, column_names: Sequence[str] | None = None, column_types: Sequence | None = None,
                 schema=None, num_samples: int | None = None, num_parallel_workers: int = 1,
                 shuffle: bool | None = None, sampler=None, num_shards: int | None = None,
                 shard_id: int | None = None, python_multiprocessing: bool = False,
                 max_rowsize: int | None = None) -> None:
        where = "GeneratorDataset"
        _check_unsupported(where, schema, sampler, num_shards, shard_id)
        if column_names is None:
            raise DatasetError(f"{where}: give column_names, one name per value the source yields")
        names = _column_names(where, column_names, -1)
        self._types = _column_types(where, column_types, names)
        if shuffle:
            raise DatasetError(f"{where}: shuffle=True needs a random-accessible source (with __getitem__ and "
                               f"__len__); for a generator use .shuffle(buffer_size) on the dataset")
        if callable(source):
            self._start: Callable[[], Iterator] = lambda: iter(source())
        elif isinstance(source, collections.abc.Iterable):
            if iter(source) is source:
                raise DatasetError(f"{where}: source is a one-shot iterator ({type(source).__name__}), which cannot "
                                   f"restart for a second epoch; pass the generator function itself (callable)")
            self._start = lambda: iter(source)
        else:
            raise DatasetError(f"{where}: source must be callable, iterable or random-accessible, "
                               f"got {type(source).__name__}")
        super().__init__((), names)
        self._num_samples = _check_num_samples(where, num_samples)
        self._size: int | None = None
        first = next(self._start(), None)
        if first is not None:
            self._convert(first, 0)

    def _convert(self, item: Any, index: int) -> Row:
        names = self._column_names
        if isinstance(item, tuple) or (isinstance(item, list) and len(names) > 1):
            values = item
        elif len(names) == 1:
            values = (item,)
        else:
            raise DatasetError(f"GeneratorDataset: row {index} is a {type(item).__name__}; expected a tuple of "
                               f"{len(names)} values for the columns {names}")
        if len(values) != len(names):
            raise DatasetError(f"GeneratorDataset: row {index} has {len(values)} values, but column_names has "
                               f"{len(names)}: {names}")
        arrays = []
        for value, name, dtype in zip(values, names, self._types):
            array = column_array(value, name, f"GeneratorDataset row {index}")
            arrays.append(array if dtype is None else array.astype(dtype))
        return tuple(arrays)

    def get_dataset_size(self) -> int:
        """Counted by reading one pass of the source (once; MindSpore does the same)."""
        if self._size is None:
            self._size = sum(1 for _ in self._rows((0,)))
        return self._size

    def _rows(self, key: Key) -> Iterator[Row]:
        items = self._start()
        if self._num_samples is not None:
            items = itertools.islice(items, self._num_samples)
        for index, item in enumerate(items):
            yield self._convert(item, index)


class _RandomAccessGenerator(GeneratorDataset, _RandomAccess):
    """A GeneratorDataset over a random-accessible source: read by index, shuffled globally."""

    def __init__(self, source: Any, column_names: Sequence[str] | None = None, column_types: Sequence | None = None,
                 schema=None, num_samples: int | None = None, num_parallel_workers: int = 1,
                 shuffle: bool | None = None, sampler=None, num_shards: int | None = None,
                 shard_id: int | None = None, python_multiprocessing: bool = False,
                 max_rowsize: int | None = None) -> None:
        where = "GeneratorDataset"
        _check_unsupported(where, schema, sampler, num_shards, shard_id)
        if column_names is None:
            raise DatasetError(f"{where}: give column_names, one name per value the source yields")
        names = _column_names(where, column_names, -1)
        self._types = _column_types(where, column_types, names)
        self._source = source
        _RandomAccess.__init__(self, where, names, len(source), shuffle, num_samples)
        if self._length:
            self._row(0)

    def get_dataset_size(self) -> int:
        return _RandomAccess.get_dataset_size(self)

    def _rows(self, key: Key) -> Iterator[Row]:
        return _RandomAccess._rows(self, key)

    def _row(self, index: int) -> Row:
        return self._convert(self._source[index], index)


def _random_access(source: Any) -> bool:
    return hasattr(source, "__getitem__") and hasattr(source, "__len__") and not isinstance(source, (str, bytes))


def _check_unsupported(where: str, schema, sampler, num_shards, shard_id) -> None:
    if schema is not None or sampler is not None or num_shards is not None or shard_id is not None:
        raise DatasetError(f"{where}: schema, sampler, num_shards and shard_id are not supported; use column_names "
                           f"and column_types, and shuffle")


def _column_types(where: str, column_types: Sequence | None, names: list[str]) -> list:
    if column_types is None:
        return [None] * len(names)
    types = list(column_types)
    if len(types) != len(names):
        raise DatasetError(f"{where}: column_types has {len(types)} entries, column_names {len(names)}")
    try:
        return [mstype.to_np(t) for t in types]
    except (TypeError, ValueError, KeyError) as exc:
        raise DatasetError(f"{where}: column_types must be msx dtypes: {exc}") from None
