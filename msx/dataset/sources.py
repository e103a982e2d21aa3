"""Where rows come from in memory or Python: `NumpySlicesDataset`, `GeneratorDataset`, `PaddedDataset`,
`RandomDataset`, and `MappableSource`, the base of every random-access source (the file readers too).

A random-access source reads rows by index: its sampler (from `shuffle`,
`num_samples`, `num_shards`/`shard_id` or `sampler`, by MindSpore's rules)
gives the indices of each pass. Sources check their data when they are built
— ragged columns, columns of different lengths, unsupported values, a wrong
number of values per row — and name the column at fault.
"""
from __future__ import annotations

import abc
import collections.abc
import itertools
import types
import warnings
from typing import Any, Callable, Iterator, Sequence

import grain
import numpy as np

from .. import dtype as mstype
from ..errors import DatasetError
from ..tensor import Tensor
from . import _random, config
from ._grain import GrainDataset, PyIterDataset
from ._init_args import record_init
from .pipeline import Dataset, Key, Pending, Row, applied, column_value
from .samplers import Sampler, select_sampler


def column_names_arg(where: str, given: Any, count: int) -> list[str]:
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


def check_num_samples(where: str, num_samples: Any) -> int | None:
    if num_samples is None:
        return None
    if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples < 0:
        raise DatasetError(f"{where}: num_samples must be a non-negative int or None, got {num_samples!r}")
    return num_samples or None  # MindSpore: 0 reads everything


class MappableSource(Dataset):
    """A source read by index; its sampler decides which rows each pass reads, and in which order."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        record_init(cls)  # serialize stores a reader by its constructor's arguments

    def __init__(self, where: str, names: Sequence[str], num_samples: Any = None, shuffle: Any = None,
                 sampler: Any = None, num_shards: Any = None, shard_id: Any = None,
                 num_parallel_workers: Any = None) -> None:
        super().__init__((), names, num_parallel_workers)
        if (self.__dict__.get("_init_args") or {}).get("cache") is not None:
            raise DatasetError(f"{where}: cache= (a DatasetCache on MindSpore's cache server) is not supported by "
                               f"msx; drop it (every epoch reads the source again)")
        self._where = where
        self.sampler: Sampler = select_sampler(where, check_num_samples(where, num_samples), sampler, shuffle,
                                               num_shards, shard_id)
        self._seed = config.shuffle_seed()

    @abc.abstractmethod
    def _length(self) -> int:
        """Rows in the source."""

    @abc.abstractmethod
    def _row(self, index: int) -> Row:
        """The row at `index` of the source."""

    def _labels(self, column: str) -> np.ndarray:
        """`column` of every row (what PKSampler groups by)."""
        names = self.get_col_names()
        if column not in names:
            raise DatasetError(f"{self._where}: PKSampler's class_column {column!r} is not one of {names}")
        j = names.index(column)
        return np.asarray([self._row(i)[j] for i in range(self._length())])

    def get_dataset_size(self) -> int:
        return self.sampler._count_by_labels(self._length(), self._labels)

    _rows_at: Callable[[np.ndarray], tuple] | None = None  # reads the rows of many indices as stacked columns

    def _batch_reader(self, key: Key) -> tuple[GrainDataset, Callable[[np.ndarray], tuple]] | None:
        return None if self._rows_at is None else (self._pending(key)[0], self._rows_at)

    def _pending(self, key: Key) -> Pending:
        seed = _random.derive(self._seed, self._depth, *key)
        return self.sampler._indices(self._length(), seed, self._labels), lambda _, i: self._row(int(i))

    def _grain(self, key: Key) -> GrainDataset:
        return applied(self._pending(key))


class NumpySlicesDataset(MappableSource):
    """Rows are slices along the first axis of the given data (MindSpore's `NumpySlicesDataset`).

    `data`: a dict `{column name: array}`, a tuple of arrays (one column
    each), or a list / array / Tensor (one column). Columns are named by the
    dict keys, `column_names`, or `column_0, column_1, ...`. `shuffle`
    (default: on) draws a new order every epoch from the dataset seed.
    """

    def __init__(self, data: Any, column_names: Sequence[str] | None = None, num_samples: int | None = None,
                 num_parallel_workers: int = 1, shuffle: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None) -> None:
        where = "NumpySlicesDataset"
        if isinstance(data, dict):
            keys = list(data)
            if column_names is not None and list(column_names) != keys:
                raise DatasetError(f"{where}: data is a dict with keys {keys}; column_names {list(column_names)} "
                                   f"must be None or equal them")
            names, values = column_names_arg(where, [str(k) for k in keys], len(keys)), list(data.values())
        elif isinstance(data, tuple):
            names, values = column_names_arg(where, column_names, len(data)), list(data)
        elif isinstance(data, (list, np.ndarray, Tensor)):
            names, values = column_names_arg(where, column_names, 1), [data]
        else:
            raise DatasetError(f"{where}: data must be a dict, a tuple, a list, a numpy array or a Tensor, "
                               f"got {type(data).__name__}")
        if not values:
            raise DatasetError(f"{where}: data has no columns")
        self._columns = [column_value(v, n, where) for v, n in zip(values, names)]
        for name, col in zip(names, self._columns):
            if col.ndim == 0:
                raise DatasetError(f"{where}: column {name!r} is a scalar; rows are slices along the first axis, "
                                   f"so each column needs one")
        lengths = {n: len(c) for n, c in zip(names, self._columns)}
        if len(set(lengths.values())) > 1:
            raise DatasetError(f"{where}: columns have different lengths {lengths}; every column needs one entry "
                               f"per row")
        super().__init__(where, names, num_samples, shuffle, sampler, num_shards, shard_id, num_parallel_workers)

    def _length(self) -> int:
        return len(self._columns[0])

    def _row(self, index: int) -> Row:
        return tuple(np.array(c[index]) for c in self._columns)  # a copy: a map may not write into the source

    def _rows_at(self, indices: np.ndarray) -> tuple:
        return tuple(c[indices] for c in self._columns)

    def _labels(self, column: str) -> np.ndarray:
        names = self.get_col_names()
        if column not in names:
            return super()._labels(column)
        return self._columns[names.index(column)]


def _column_types(where: str, column_types: Sequence | None, names: list[str]) -> list:
    if column_types is None:
        return [None] * len(names)
    types_ = list(column_types)
    if len(types_) != len(names):
        raise DatasetError(f"{where}: column_types has {len(types_)} entries, column_names {len(names)}")
    try:
        return [mstype.to_np(t) for t in types_]
    except (TypeError, ValueError, KeyError) as exc:
        raise DatasetError(f"{where}: column_types must be msx dtypes: {exc}") from None


def _is_random_access(source: Any) -> bool:
    return hasattr(source, "__getitem__") and hasattr(source, "__len__") and not isinstance(source, (str, bytes))


class _Items:
    """Turns a source's items into rows: one value per column, checked and cast, errors naming column and row."""

    def __init__(self, where: str, names: list[str], dtypes: list) -> None:
        self.where, self.names, self.dtypes = where, names, dtypes

    def __call__(self, item: Any, index: int) -> Row:
        names = self.names
        if isinstance(item, tuple) or (isinstance(item, list) and len(names) > 1):
            values = item
        elif len(names) == 1:
            values = (item,)
        else:
            raise DatasetError(f"{self.where}: row {index} is a {type(item).__name__}; expected a tuple of "
                               f"{len(names)} values for the columns {names}")
        if len(values) != len(names):
            raise DatasetError(f"{self.where}: row {index} has {len(values)} values, but column_names has "
                               f"{len(names)}: {names}")
        row = []
        for value, name, dtype in zip(values, names, self.dtypes):
            v = column_value(value, name, f"{self.where} row {index}", allow_dict=True)
            row.append(v if dtype is None or isinstance(v, dict) else v.astype(dtype))
        return tuple(row)


class GeneratorDataset(Dataset):
    """Rows from Python (MindSpore's `GeneratorDataset`).

    `source`: a random-accessible object (`__getitem__` and `__len__`: it can
    be shuffled — default on — sampled and sharded), a callable returning an
    iterator (a generator function: called once per epoch), or an iterable
    (a list, or a class whose `__iter__` restarts it; a one-shot iterator such
    as a generator object is read once and replayed in later epochs, as
    MindSpore does). Each item is a tuple with one value per name in
    `column_names` (a bare value for one column): arrays, numbers, strings,
    or dicts. `column_types` casts the columns. The first row is checked
    when the dataset is built, every row as it is read.
    """

    def __new__(cls, source: Any = None, *args: Any, **kwargs: Any):
        if cls is GeneratorDataset and _is_random_access(source):
            return super().__new__(_RandomAccessGenerator)
        return super().__new__(cls)

    def __init__(self, source: Any, column_names: Sequence[str] | None = None, column_types: Sequence | None = None,
                 schema: Any = None, num_samples: int | None = None, num_parallel_workers: int = 1,
                 shuffle: bool | None = None, sampler: Any = None, num_shards: int | None = None,
                 shard_id: int | None = None, python_multiprocessing: bool = True, max_rowsize: Any = None,
                 batch_sampler: Any = None, collate_fn: Any = None) -> None:
        where = "GeneratorDataset"
        names, dtypes = _generator_columns(where, column_names, column_types, schema, batch_sampler, collate_fn)
        _check_iterable_source_args(where, shuffle, sampler, num_shards, shard_id)
        if isinstance(source, (types.GeneratorType, collections.abc.Iterator)) and \
                type(source).__iter__ is _builtin_iter(source):
            cache: list = []
            self._start: Callable[[], Iterator] = lambda: _replay(source, cache)
        elif callable(source):
            self._start = lambda: iter(source())
        elif isinstance(source, collections.abc.Iterable):
            self._start = lambda: iter(source)
        else:
            raise DatasetError(f"{where}: source must be callable, iterable or random-accessible, "
                               f"got {type(source).__name__}")
        super().__init__((), names, num_parallel_workers)
        self._items = _Items(where, names, dtypes)
        self._num_samples = check_num_samples(where, num_samples)
        self._size: int | None = None
        first = next(iter(self._rows()), None)
        if first is None and self._num_samples is None:
            self._size = 0

    def get_dataset_size(self) -> int:
        """Counted by reading one pass of the source (once; MindSpore does the same)."""
        if self._size is None:
            self._size = sum(1 for _ in self._rows())
        return self._size

    def _rows(self) -> Iterator[Row]:
        items = _drain(self._start())
        if self._num_samples is not None:
            items = itertools.islice(items, self._num_samples)
        for index, item in enumerate(items):
            yield self._items(item, index)

    def _grain(self, key: Key) -> GrainDataset:
        return PyIterDataset(self._rows)


def _check_iterable_source_args(where: str, shuffle: Any, sampler: Any, num_shards: Any, shard_id: Any) -> None:
    """MindSpore 2.10's rules for a source without `__getitem__`: a sampler or shards are refused (it cannot read
    rows by index); `shuffle=True` is accepted and the rows come in the source's order (MindSpore ignores it
    there), which msx says with a warning rather than silently."""
    if shuffle not in (None, True, False):
        raise DatasetError(f"{where}: shuffle must be True, False or None, got {shuffle!r}")
    for name, value in (("sampler", sampler), ("num_shards", num_shards), ("shard_id", shard_id)):
        if value is not None:
            raise DatasetError(f"{where}: {name} is not supported if source does not have attribute '__getitem__' "
                               f"(MindSpore refuses it too): a generator cannot be read by index; shard or sample "
                               f"it yourself, or give a source with __getitem__ and __len__")
    if shuffle:
        warnings.warn(f"{where}: shuffle=True has no effect on a source without __getitem__ and __len__ (a generator "
                      f"or an iterable): its rows come in the order it yields them, as in MindSpore 2.10; use "
                      f".shuffle(buffer_size) to shuffle a stream", UserWarning, stacklevel=3)


def _drain(items: Iterator) -> Iterator:
    """`items`' values by `next` alone: `enumerate`/`islice` would call `iter()` on it again, and the tutorial's
    IterableDataset, whose `__iter__` returns itself, restarts there."""
    while True:
        try:
            yield next(items)
        except StopIteration:
            return


def _builtin_iter(source: Any) -> Any:
    """`type(source).__iter__` when it is the C-level one of generators and builtin iterators (returns self)."""
    method = type(source).__iter__
    return method if not isinstance(method, types.FunctionType) else None


def _replay(source: Iterator, cache: list) -> Iterator:
    """The first pass reads the one-shot `source` and keeps its items; later passes replay them."""
    if cache and cache[-1] is _DONE:
        yield from cache[:-1]
        return
    yield from cache
    for item in source:
        cache.append(item)
        yield item
    cache.append(_DONE)


_DONE = object()


def _generator_columns(where: str, column_names: Any, column_types: Any, schema: Any, batch_sampler: Any,
                       collate_fn: Any) -> tuple[list[str], list]:
    if schema is not None or batch_sampler is not None or collate_fn is not None:
        raise DatasetError(f"{where}: schema, batch_sampler and collate_fn are not supported by msx; give "
                           f"column_names (and column_types), and batch with .batch(per_batch_map=...)")
    if column_names is None:
        raise DatasetError(f"{where}: give column_names, one name per value the source yields")
    names = column_names_arg(where, column_names, -1)
    return names, _column_types(where, column_types, names)


class _RandomAccessGenerator(GeneratorDataset, MappableSource):
    """A GeneratorDataset over a random-accessible source: read by index, shuffled, sampled and sharded."""

    def __init__(self, source: Any, column_names: Sequence[str] | None = None, column_types: Sequence | None = None,
                 schema: Any = None, num_samples: int | None = None, num_parallel_workers: int = 1,
                 shuffle: bool | None = None, sampler: Any = None, num_shards: int | None = None,
                 shard_id: int | None = None, python_multiprocessing: bool = True, max_rowsize: Any = None,
                 batch_sampler: Any = None, collate_fn: Any = None) -> None:
        where = "GeneratorDataset"
        names, dtypes = _generator_columns(where, column_names, column_types, schema, batch_sampler, collate_fn)
        self._items = _Items(where, names, dtypes)
        self._source = source
        MappableSource.__init__(self, where, names, num_samples, shuffle, sampler, num_shards, shard_id,
                                num_parallel_workers)
        if self._length():
            self._row(0)

    def _length(self) -> int:
        return len(self._source)

    def _row(self, index: int) -> Row:
        try:
            item = self._source[index]
        except Exception as exc:
            raise DatasetError(f"GeneratorDataset: source[{index}] failed: {type(exc).__name__}: {exc}") from exc
        return self._items(item, index)

    get_dataset_size = MappableSource.get_dataset_size
    _pending = MappableSource._pending
    _grain = MappableSource._grain


class PaddedDataset(MappableSource):
    """Rows given as a list of dicts `{column: value}` (every dict with the same keys); MindSpore uses it to pad
    a sharded dataset so that every shard has as many rows."""

    def __init__(self, padded_samples: Sequence[dict]) -> None:
        where = "PaddedDataset"
        if not isinstance(padded_samples, (list, tuple)) or not padded_samples or \
                not all(isinstance(s, dict) for s in padded_samples):
            raise DatasetError(f"{where}: padded_samples must be a non-empty list of dicts, got {padded_samples!r}")
        names = list(padded_samples[0])
        for i, s in enumerate(padded_samples):
            if list(s) != names:
                raise DatasetError(f"{where}: sample {i} has columns {list(s)}, sample 0 has {names}")
        self._samples = [tuple(column_value(s[n], n, f"{where} sample {i}") for n in names)
                         for i, s in enumerate(padded_samples)]
        super().__init__(where, names, shuffle=False)

    def _length(self) -> int:
        return len(self._samples)

    def _row(self, index: int) -> Row:
        return tuple(np.array(v) for v in self._samples[index])


class RandomDataset(MappableSource):
    """`total_rows` rows of random data (MindSpore's `RandomDataset`), for testing pipelines.

    `schema`: a dict `{column: (msx dtype, shape)}` (msx's form of
    MindSpore's Schema); without it, columns `c0`, `c1` of random shapes.
    Rows are drawn from (the seed, the row index), so they repeat exactly.
    """

    def __init__(self, total_rows: int | None = None, schema: dict | None = None, columns_list: Any = None,
                 num_samples: int | None = None, num_parallel_workers: int | None = None, cache: Any = None,
                 shuffle: bool | None = None, num_shards: int | None = None, shard_id: int | None = None) -> None:
        where = "RandomDataset"
        seed = config.shuffle_seed()
        rng = np.random.default_rng(seed)
        if schema is None:
            schema = {"c0": (mstype.float64, tuple(rng.integers(1, 32, 3))),
                      "c1": (mstype.int16, tuple(rng.integers(1, 32, 4)))}
        if not isinstance(schema, dict) or not schema:
            raise DatasetError(f"{where}: schema must be a dict {{column: (dtype, shape)}}, got {schema!r}")
        self._spec = [(n, mstype.to_np(t), tuple(int(s) for s in shape)) for n, (t, shape) in schema.items()]
        names = [n for n, _, _ in self._spec]
        if columns_list is not None:
            names = [n for n in names if n in list(columns_list)]
        self._total = check_num_samples(where, total_rows) or int(rng.integers(1, 1025))
        self._data_seed = seed
        super().__init__(where, names, num_samples, shuffle, None, num_shards, shard_id, num_parallel_workers)

    def _length(self) -> int:
        return self._total

    def _row(self, index: int) -> Row:
        rng = np.random.default_rng([self._data_seed, index])
        row = []
        for name, dtype, shape in self._spec:
            if name not in self._column_names:
                continue
            if dtype.kind == "f":
                row.append(rng.standard_normal(shape).astype(dtype))
            elif dtype.kind == "b":
                row.append(rng.integers(0, 2, shape).astype(bool))
            else:
                info = np.iinfo(dtype)
                row.append(rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True))
        return tuple(row)
