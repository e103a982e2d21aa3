"""The dataset pipeline: `Dataset` and its steps (`map`, `batch`, `shuffle`, `repeat`, `take`).

A dataset is a chain of lazy steps; a row is a tuple of numpy arrays, one per
column. Nothing runs until an iterator asks for an epoch. Every pass gets a
key (the iterator's epoch number, extended by each enclosing `repeat`), and
a shuffling step draws its order from (its seed, its place in the chain, the
key) alone, so the same seed gives the same rows in the same order, run after
run, while every epoch is shuffled differently.
"""
from __future__ import annotations

import abc
import itertools
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from ..errors import DatasetError
from ..tensor import Tensor
from . import config

Row = tuple  # of np.ndarray, one per column
Key = tuple  # of int: the epoch, then one index per enclosing repeat

_NUMERIC_KINDS = "biufc"  # bool, int, uint, float, complex


def column_array(value: Any, column: str, where: str) -> np.ndarray:
    """`value` as a numpy array for `column`; ragged or non-numeric data is an error naming the column."""
    if isinstance(value, Tensor):
        value = value.asnumpy()
    try:
        array = np.asarray(value)
    except ValueError:
        raise DatasetError(f"{where}: column {column!r} is ragged: its elements have different shapes; "
                           f"pad them to one shape first") from None
    if array.dtype.kind not in _NUMERIC_KINDS:
        what = "Python objects (ragged or mixed data)" if array.dtype.kind == "O" else f"dtype {array.dtype}"
        raise DatasetError(f"{where}: column {column!r} holds {what}; msx datasets hold numbers and booleans")
    return array


def _check_count(where: str, name: str, value: Any, allow_infinite: bool = False) -> int:
    ok = isinstance(value, int) and not isinstance(value, bool) and (value >= 1 or (allow_infinite and value == -1))
    if not ok:
        raise DatasetError(f"{where}: {name} must be a positive int{' or -1' if allow_infinite else ''}, got {value!r}")
    return value


class Dataset(abc.ABC):
    """Base of every dataset: the pipeline steps, the iterators and the size queries (MindSpore's names)."""

    def __init__(self, children: Sequence["Dataset"] = (), column_names: Sequence[str] = ()) -> None:
        self.children = tuple(children)
        self._column_names = list(column_names)
        self._depth = self.children[0]._depth + 1 if self.children else 0

    # ------------------------------------------------------------ pipeline steps
    def map(self, operations: Callable | Sequence[Callable], input_columns: str | Sequence[str] | None = None,
            output_columns: str | Sequence[str] | None = None, num_parallel_workers: int | None = None,
            python_multiprocessing: bool = False) -> "MapDataset":
        """Apply `operations` (one callable or a list, in order) to `input_columns` (default: the first column).

        Each operation gets the column values (numpy arrays) as positional
        arguments and returns one value or a tuple; the results replace the
        input columns, named `output_columns` (default: the input names).
        `num_parallel_workers` and `python_multiprocessing` are accepted for
        MindSpore code: the pipeline runs in one background thread.
        """
        return MapDataset(self, operations, input_columns, output_columns)

    def batch(self, batch_size: int, drop_remainder: bool = False,
              num_parallel_workers: int | None = None) -> "BatchDataset":
        """Stack `batch_size` consecutive rows per column; `drop_remainder` drops a last, smaller batch."""
        return BatchDataset(self, batch_size, drop_remainder)

    def shuffle(self, buffer_size: int) -> "ShuffleDataset":
        """Shuffle through a buffer of `buffer_size` rows (>= the dataset size: a uniform shuffle)."""
        return ShuffleDataset(self, buffer_size)

    def repeat(self, count: int | None = None) -> "RepeatDataset":
        """Pass over the data `count` times (None or -1: without end); each pass is shuffled anew."""
        return RepeatDataset(self, count)

    def take(self, count: int = -1) -> "TakeDataset":
        """The first `count` rows (or batches, after `batch`); -1 takes all."""
        return TakeDataset(self, count)

    # ------------------------------------------------------------ iteration
    def create_tuple_iterator(self, columns: Sequence[str] | None = None, num_epochs: int = -1,
                              output_numpy: bool = False, do_copy: bool = True):
        """An iterator of lists of Tensors (numpy arrays with `output_numpy`), one list per row.

        Iterate it once per epoch, up to `num_epochs` times (-1: no limit). A
        background thread prepares `config.get_prefetch_size()` rows ahead.
        """
        from .iterators import TupleIterator

        return TupleIterator(self, columns, num_epochs, output_numpy)

    def create_dict_iterator(self, num_epochs: int = -1, output_numpy: bool = False, do_copy: bool = True):
        """Like `create_tuple_iterator`, yielding `{column name: Tensor}` dicts."""
        from .iterators import DictIterator

        return DictIterator(self, None, num_epochs, output_numpy)

    def __iter__(self):
        return iter(self.create_tuple_iterator(num_epochs=1))

    # ------------------------------------------------------------ queries
    def get_col_names(self) -> list[str]:
        return list(self._column_names)

    @abc.abstractmethod
    def get_dataset_size(self) -> int:
        """Rows (or batches, after `batch`) in one pass over the pipeline."""

    def get_batch_size(self) -> int:
        """The batch size of the last `batch` step, 1 without one."""
        return self.children[0].get_batch_size() if self.children else 1

    def get_repeat_count(self) -> int:
        """The count of the last `repeat` step (-1: without end), 1 without one."""
        return self.children[0].get_repeat_count() if self.children else 1

    def output_shapes(self) -> list[list[int]]:
        """The shape of each column of the first row."""
        return [list(a.shape) for a in self._first_row()]

    def output_types(self) -> list[np.dtype]:
        """The numpy dtype of each column of the first row."""
        return [a.dtype for a in self._first_row()]

    def _first_row(self) -> Row:
        row = next(iter(self._rows((0,))), None)
        if row is None:
            raise DatasetError(f"{type(self).__name__}: the dataset is empty")
        return row

    @abc.abstractmethod
    def _rows(self, key: Key) -> Iterator[Row]:
        """One pass over the rows; `key` decides the order of every shuffle inside."""

    def _endless(self) -> bool:
        """True when a `repeat(-1)` makes one pass never end."""
        return any(c._endless() for c in self.children)


def _callable_name(op: Callable) -> str:
    return getattr(op, "__name__", None) or type(op).__name__


class MapDataset(Dataset):
    def __init__(self, child: Dataset, operations, input_columns, output_columns) -> None:
        ops = list(operations) if isinstance(operations, (list, tuple)) else [operations]
        if not ops or not all(callable(op) for op in ops):
            raise DatasetError(f"map: operations must be a callable or a non-empty list of callables, "
                               f"got {operations!r}")
        names = child.get_col_names()
        inputs = [names[0]] if input_columns is None else _names("map", "input_columns", input_columns)
        for c in inputs:
            if c not in names:
                raise DatasetError(f"map: input column {c!r} is not one of the dataset's columns {names}")
        outputs = inputs if output_columns is None else _names("map", "output_columns", output_columns)
        positions = [names.index(c) for c in inputs]
        first = min(positions)
        new_names = []
        for j, name in enumerate(names):
            if j == first:
                new_names.extend(outputs)
            elif j not in positions:
                new_names.append(name)
        if len(set(new_names)) != len(new_names):
            raise DatasetError(f"map: output columns {outputs} would repeat a column name: {new_names}")
        super().__init__([child], new_names)
        self.operations, self.input_columns, self.output_columns = ops, inputs, outputs
        self._positions, self._first = positions, first

    def get_dataset_size(self) -> int:
        return self.children[0].get_dataset_size()

    def _rows(self, key: Key) -> Iterator[Row]:
        positions, first = set(self._positions), self._first
        for index, row in enumerate(self.children[0]._rows(key)):
            values = tuple(row[p] for p in self._positions)
            for op in self.operations:
                try:
                    out = op(*values)
                except DatasetError:
                    raise
                except Exception as exc:
                    raise DatasetError(f"map: operation {_callable_name(op)} failed on columns {self.input_columns} "
                                       f"of row {index}: {type(exc).__name__}: {exc}") from exc
                values = out if isinstance(out, tuple) else (out,)
            if len(values) != len(self.output_columns):
                raise DatasetError(f"map: the operations returned {len(values)} values for row {index}, but "
                                   f"output_columns names {len(self.output_columns)}: {self.output_columns}")
            arrays = [column_array(v, c, "map") for v, c in zip(values, self.output_columns)]
            new_row = []
            for j, value in enumerate(row):
                if j == first:
                    new_row.extend(arrays)
                elif j not in positions:
                    new_row.append(value)
            yield tuple(new_row)


def _names(where: str, what: str, value) -> list[str]:
    names = [value] if isinstance(value, str) else list(value) if isinstance(value, (list, tuple)) else None
    if not names or not all(isinstance(n, str) and n for n in names):
        raise DatasetError(f"{where}: {what} must be a column name or a non-empty list of them, got {value!r}")
    if len(set(names)) != len(names):
        raise DatasetError(f"{where}: {what} repeats a name: {names}")
    return names


class BatchDataset(Dataset):
    def __init__(self, child: Dataset, batch_size: int, drop_remainder: bool) -> None:
        super().__init__([child], child.get_col_names())
        self.batch_size = _check_count("batch", "batch_size", batch_size)
        if not isinstance(drop_remainder, bool):
            raise DatasetError(f"batch: drop_remainder must be True or False, got {drop_remainder!r}")
        self.drop_remainder = drop_remainder

    def get_dataset_size(self) -> int:
        n = self.children[0].get_dataset_size()
        return n // self.batch_size if self.drop_remainder else -(-n // self.batch_size)

    def get_batch_size(self) -> int:
        return self.batch_size

    def _rows(self, key: Key) -> Iterator[Row]:
        child = self.children[0]
        gather = getattr(child, "_gather", None)
        if gather is not None:  # straight from in-memory arrays: one fancy index per column and batch
            order = child._order(key)
            stop = len(order) - len(order) % self.batch_size if self.drop_remainder else len(order)
            for i in range(0, stop, self.batch_size):
                yield gather(order[i:i + self.batch_size])
            return
        pending: list[Row] = []
        for row in child._rows(key):
            pending.append(row)
            if len(pending) == self.batch_size:
                yield self._stack(pending)
                pending = []
        if pending and not self.drop_remainder:
            yield self._stack(pending)

    def _stack(self, rows: list[Row]) -> Row:
        columns = []
        for j, name in enumerate(self._column_names):
            parts = [r[j] for r in rows]
            shapes = sorted({p.shape for p in parts})
            if len(shapes) > 1:
                raise DatasetError(f"batch: column {name!r} has rows of different shapes {shapes}; "
                                   f"map them to one shape (pad or resize) before batch")
            columns.append(np.stack(parts))
        return tuple(columns)


class ShuffleDataset(Dataset):
    def __init__(self, child: Dataset, buffer_size: int) -> None:
        super().__init__([child], child.get_col_names())
        ok = isinstance(buffer_size, int) and not isinstance(buffer_size, bool) and buffer_size >= 2
        if not ok:
            raise DatasetError(f"shuffle: buffer_size must be an int >= 2, got {buffer_size!r}")
        self.buffer_size = buffer_size
        self.seed = config.shuffle_seed()

    def get_dataset_size(self) -> int:
        return self.children[0].get_dataset_size()

    def _rows(self, key: Key) -> Iterator[Row]:
        rng = np.random.default_rng([self.seed, self._depth, *key])
        buffer: list[Row] = []
        for row in self.children[0]._rows(key):
            if len(buffer) < self.buffer_size:
                buffer.append(row)
                continue
            i = int(rng.integers(self.buffer_size))
            yield buffer[i]
            buffer[i] = row
        for i in rng.permutation(len(buffer)):
            yield buffer[i]


class RepeatDataset(Dataset):
    def __init__(self, child: Dataset, count: int | None) -> None:
        super().__init__([child], child.get_col_names())
        self.count = -1 if count is None else _check_count("repeat", "count", count, allow_infinite=True)

    def get_dataset_size(self) -> int:
        if self.count == -1:
            raise DatasetError("get_dataset_size: the dataset repeats without end (repeat(-1)); it has no size")
        return self.children[0].get_dataset_size() * self.count

    def get_repeat_count(self) -> int:
        return self.count

    def _endless(self) -> bool:
        return self.count == -1 or super()._endless()

    def _rows(self, key: Key) -> Iterator[Row]:
        for r in itertools.count() if self.count == -1 else range(self.count):
            produced = False
            for row in self.children[0]._rows(key + (r,)):
                produced = True
                yield row
            if not produced:
                return  # an empty pass: repeating it forever would never yield


class TakeDataset(Dataset):
    def __init__(self, child: Dataset, count: int) -> None:
        super().__init__([child], child.get_col_names())
        self.count = _check_count("take", "count", count, allow_infinite=True)

    def get_dataset_size(self) -> int:
        if self.count == -1:
            return self.children[0].get_dataset_size()
        if self.children[0]._endless():
            return self.count
        return min(self.count, self.children[0].get_dataset_size())

    def _endless(self) -> bool:
        return self.count == -1 and super()._endless()

    def _rows(self, key: Key) -> Iterator[Row]:
        rows = self.children[0]._rows(key)
        return rows if self.count == -1 else itertools.islice(rows, self.count)
