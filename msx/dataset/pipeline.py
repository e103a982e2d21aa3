"""The dataset pipeline: `Dataset` and its steps, with MindSpore's names and arguments, lowered to grain.

A dataset is a chain (a tree, with `zip`/`concat`) of lazy steps; a row is a
tuple with one value per column (a numpy array, or a Python dict where
MindSpore allows one). Nothing runs until an iterator asks for an epoch: then
every node lowers one pass to a grain dataset (see `_grain.py`). Every pass
gets a key (the iterator's epoch number, extended by each enclosing
`repeat`); shuffles and random transforms draw from (their seed, their place
in the chain, the key, the row index) alone, so the same seed gives the same
rows in the same order, run after run and for any worker count, while every
epoch differs.
"""
from __future__ import annotations

import abc
import itertools
from typing import Any, Callable, Iterator, Sequence

import grain
import numpy as np

from ..errors import DatasetError
from ..tensor import Tensor
from . import _random, config
from ._grain import GrainDataset, PyIterDataset, as_iter, passes

Row = tuple  # one value per column
Key = tuple  # of int: the epoch, then one index per enclosing repeat
ElementFn = Callable[[int, Any], Any]  # (index in the pass, element) -> element
Pending = tuple  # (grain dataset, ElementFn or None still to apply to its elements)

_KINDS = "biufcUS"  # bool, int, uint, float, complex, str, bytes


def column_value(value: Any, column: str, where: str, allow_dict: bool = False) -> Any:
    """`value` as a column value: a numpy array (numbers, booleans, strings), or a dict where allowed."""
    if isinstance(value, np.ndarray) and value.dtype.kind in _KINDS:
        return value
    if isinstance(value, Tensor):
        return value.asnumpy()
    if isinstance(value, dict) and allow_dict:
        return value
    try:
        array = np.asarray(value)
    except ValueError:
        raise DatasetError(f"{where}: column {column!r} is ragged: its elements have different shapes; "
                           f"pad them to one shape first") from None
    if array.dtype.kind not in _KINDS:
        what = "Python objects (ragged or mixed data)" if array.dtype.kind == "O" else f"dtype {array.dtype}"
        raise DatasetError(f"{where}: column {column!r} holds {what}; msx datasets hold numbers, booleans, strings "
                           f"and bytes (and dicts from a GeneratorDataset)")
    return array


def then(pending: Pending, fn: ElementFn) -> Pending:
    """`pending` followed by `fn` on every element, still as one function (see `Dataset._pending`)."""
    ds, first = pending
    if first is None:
        return ds, fn
    return ds, lambda i, element: fn(i, first(i, element))


def applied(pending: Pending) -> GrainDataset:
    """`pending` as a grain dataset: its function runs as one grain map."""
    ds, fn = pending
    return ds if fn is None else ds.map_with_index(fn)


def check_count(where: str, name: str, value: Any, allow_infinite: bool = False, allow_zero: bool = False) -> int:
    low = 0 if allow_zero else 1
    ok = isinstance(value, int) and not isinstance(value, bool) and (value >= low or (allow_infinite and value == -1))
    if not ok:
        what = "a non-negative" if allow_zero else "a positive"
        raise DatasetError(f"{where}: {name} must be {what} int{' or -1' if allow_infinite else ''}, got {value!r}")
    return value


def names_arg(where: str, what: str, value: Any) -> list[str]:
    names = [value] if isinstance(value, str) else list(value) if isinstance(value, (list, tuple)) else None
    if not names or not all(isinstance(n, str) and n for n in names):
        raise DatasetError(f"{where}: {what} must be a column name or a non-empty list of them, got {value!r}")
    if len(set(names)) != len(names):
        raise DatasetError(f"{where}: {what} repeats a name: {names}")
    return names


def _workers_arg(where: str, value: Any) -> int | None:
    if value is None:
        return None
    return check_count(where, "num_parallel_workers", value)


def _callable_name(op: Callable) -> str:
    return getattr(op, "__name__", None) or type(op).__name__


class BatchInfo:
    """What `per_batch_map` and a callable batch size learn about the batch being made (MindSpore's names)."""

    def __init__(self, batch_num: int, epoch_num: int) -> None:
        self._batch_num, self._epoch_num = batch_num, epoch_num

    def get_batch_num(self) -> int:
        """The batch's index within the epoch, from 0."""
        return self._batch_num

    def get_epoch_num(self) -> int:
        """The epoch's index, from 0."""
        return self._epoch_num


class Dataset(abc.ABC):
    """Base of every dataset: the pipeline steps, the iterators and the size queries (MindSpore's names)."""

    def __init__(self, children: Sequence["Dataset"] = (), column_names: Sequence[str] = (),
                 num_parallel_workers: int | None = None) -> None:
        self.children = tuple(children)
        self._column_names = list(column_names)
        self._depth = max((c._depth for c in self.children), default=-1) + 1
        self.num_parallel_workers = _workers_arg(type(self).__name__, num_parallel_workers)

    # ------------------------------------------------------------ pipeline steps
    def map(self, operations: Callable | Sequence[Callable], input_columns: str | Sequence[str] | None = None,
            output_columns: str | Sequence[str] | None = None, num_parallel_workers: int | None = None,
            python_multiprocessing: bool = False, **kwargs: Any) -> "MapDataset":
        """Apply `operations` (one callable or a list, in order) to `input_columns` (default: the first column).

        Each operation gets the column values as positional arguments and
        returns one value or a tuple; the results replace the input columns,
        named `output_columns` (default: the input names). The map runs on
        `num_parallel_workers` grain threads; rows keep their order, and random
        transforms draw per row, so any worker count gives the same rows.
        With `python_multiprocessing=True` the random-access part of the
        pipeline runs in `num_parallel_workers` worker processes instead
        (grain's `mp_prefetch`, started by "spawn": the operations must be
        picklable by cloudpickle, and a script needs the usual
        `if __name__ == "__main__":` guard) — same rows, no GIL.
        """
        if not isinstance(python_multiprocessing, bool):
            raise DatasetError(f"map: python_multiprocessing must be True or False, got {python_multiprocessing!r}")
        return MapDataset(self, operations, input_columns, output_columns, num_parallel_workers, kwargs,
                          python_multiprocessing)

    def batch(self, batch_size: int, drop_remainder: bool = False, num_parallel_workers: int | None = None,
              **kwargs: Any) -> "BatchDataset":
        """Stack `batch_size` consecutive rows per column; `drop_remainder` drops a last, smaller batch.

        kwargs (MindSpore's): `per_batch_map(*column lists, BatchInfo)` gets
        `input_columns` as lists of row values and returns the new column
        lists (named `output_columns`); `pad_info` pads as in `padded_batch`.
        """
        return BatchDataset(self, batch_size, drop_remainder, num_parallel_workers, **kwargs)

    def padded_batch(self, batch_size: int, drop_remainder: bool = False, num_parallel_workers: int | None = None,
                     pad_info: dict | None = None) -> "BatchDataset":
        """Batch rows of different shapes: `pad_info = {column: (shape or None, value)}` pads each row of the
        column to `shape` (None entries, or a None shape: the longest in the batch) with `value`."""
        return BatchDataset(self, batch_size, drop_remainder, num_parallel_workers, pad_info=pad_info or {})

    def shuffle(self, buffer_size: int) -> "ShuffleDataset":
        """Shuffle within a window of `buffer_size` rows (>= the dataset size: a uniform global shuffle)."""
        return ShuffleDataset(self, buffer_size)

    def repeat(self, count: int | None = None) -> "RepeatDataset":
        """Pass over the data `count` times (None or -1: without end); each pass is shuffled anew."""
        return RepeatDataset(self, count)

    def take(self, count: int = -1) -> "TakeDataset":
        """The first `count` rows (or batches, after `batch`); -1 takes all."""
        return TakeDataset(self, count)

    def skip(self, count: int) -> "SkipDataset":
        """All but the first `count` rows (or batches)."""
        return SkipDataset(self, count)

    def zip(self, datasets: "Dataset | Sequence[Dataset]") -> "ZipDataset":
        """Rows side by side: this dataset's columns, then each other's (names must not repeat); the shortest
        ends the pass."""
        others = [datasets] if isinstance(datasets, Dataset) else list(datasets)
        return ZipDataset([self, *others])

    def concat(self, datasets: "Dataset | Sequence[Dataset]") -> "ConcatDataset":
        """This dataset's rows, then each other's (same column names); also `a + b`."""
        others = [datasets] if isinstance(datasets, Dataset) else list(datasets)
        return ConcatDataset([self, *others])

    def __add__(self, other: "Dataset") -> "ConcatDataset":
        return self.concat(other)

    def project(self, columns: str | Sequence[str]) -> "ProjectDataset":
        """Only `columns`, in that order."""
        return ProjectDataset(self, columns)

    def rename(self, input_columns: str | Sequence[str], output_columns: str | Sequence[str]) -> "RenameDataset":
        """Rename `input_columns` to `output_columns`, one to one."""
        return RenameDataset(self, input_columns, output_columns)

    def filter(self, predicate: Callable[..., Any], input_columns: str | Sequence[str] | None = None,
               num_parallel_workers: int | None = None) -> "FilterDataset":
        """Keep the rows where `predicate(*input_columns)` (default: all columns) is true."""
        return FilterDataset(self, predicate, input_columns, num_parallel_workers)

    def split(self, sizes: Sequence[int | float], randomize: bool = True) -> list["Dataset"]:
        """Disjoint datasets of `sizes` rows (ints summing to the size, or fractions summing to 1); with
        `randomize` the rows are chosen at random (from the dataset seed) and each split reshuffles every epoch."""
        return split_dataset(self, sizes, randomize)

    def bucket_batch_by_length(self, column_names: str | Sequence[str], bucket_boundaries: Sequence[int],
                               bucket_batch_sizes: Sequence[int],
                               element_length_function: Callable[..., int] | None = None,
                               pad_info: dict | None = None, pad_to_bucket_boundary: bool = False,
                               drop_remainder: bool = False) -> "BucketBatchDataset":
        """Batch rows of similar length together: a row of length L goes to the bucket
        `bucket_boundaries[i-1] <= L < bucket_boundaries[i]`, which emits a padded batch when it holds
        `bucket_batch_sizes[i]` rows (leftovers at the end of the pass, unless `drop_remainder`)."""
        return BucketBatchDataset(self, column_names, bucket_boundaries, bucket_batch_sizes,
                                  element_length_function, pad_info, pad_to_bucket_boundary, drop_remainder)

    # ------------------------------------------------------------ iteration
    def create_tuple_iterator(self, columns: Sequence[str] | None = None, num_epochs: int = -1,
                              output_numpy: bool = False, do_copy: bool = True):
        """An iterator of lists of Tensors (numpy arrays with `output_numpy`), one list per row.

        Iterate it once per epoch, up to `num_epochs` times (-1: no limit).
        The pipeline runs `config.get_prefetch_size()` rows ahead in grain's
        threads, which also move the rows to the device, so reading and the
        training step overlap. String columns come as numpy arrays (MindSpore
        does the same: a Tensor holds no strings).
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

    def get_dataset_size(self) -> int:
        """Rows (or batches, after `batch`) in one pass over the pipeline (counted by reading where needed)."""
        return sum(1 for _ in as_iter(self._grain((0,)), self._workers(), config.get_prefetch_size()))

    def get_batch_size(self) -> int:
        """The batch size of the last `batch` step, 1 without one."""
        return self.children[0].get_batch_size() if self.children else 1

    def get_repeat_count(self) -> int:
        """The count of the last `repeat` step (-1: without end), 1 without one."""
        return self.children[0].get_repeat_count() if self.children else 1

    def get_class_indexing(self) -> dict:
        """`{class name: label}` of the source below (ImageFolderDataset); {} for other sources."""
        return self.children[0].get_class_indexing() if self.children else {}

    def num_classes(self) -> int | None:
        indexing = self.get_class_indexing()
        return len(indexing) if indexing else None

    def output_shapes(self, estimate: bool = False) -> list[list[int]]:
        """The shape of each column of the first row."""
        return [list(np.shape(a)) for a in self._first_row()]

    def output_types(self) -> list[np.dtype]:
        """The numpy dtype of each column of the first row."""
        return [np.asarray(a).dtype if not isinstance(a, dict) else np.dtype(object) for a in self._first_row()]

    def _first_row(self) -> Row:
        it = iter(as_iter(self._grain((0,)), 1, 1))
        row = next(it, None)
        if hasattr(it, "close"):
            it.close()
        if row is None:
            raise DatasetError(f"{type(self).__name__}: the dataset is empty")
        return row

    # ------------------------------------------------------------ lowering
    @abc.abstractmethod
    def _grain(self, key: Key) -> GrainDataset:
        """One pass over the rows as a grain dataset; `key` decides the order of every shuffle inside."""

    def _pending(self, key: Key) -> Pending:
        """One pass as (a grain dataset, a function still to run on each of its elements, or None).

        Steps that change one element at a time (a source's read by index,
        `map`, `project`, `rename`, a batch's stacking and the iterator's
        conversion) compose into one function that runs as ONE grain map: each
        grain map step costs its own per-element bookkeeping (~2 µs, more than
        a small transform), so a chain of them was what made msx slower than
        the same pipeline written directly with grain.
        """
        return self._grain(key), None

    def _batch_reader(self, key: Key) -> tuple[GrainDataset, Callable[[np.ndarray], tuple]] | None:
        """For a source that can read many rows at once: (a grain dataset of the row indices of pass `key`,
        a function reading the rows of an index array as stacked columns — equal to stacking the rows read
        one by one); None otherwise."""
        return None

    def _workers(self) -> int:
        """Threads that read this node's random-access part: the largest `num_parallel_workers` named below."""
        named = [w for w in self._named_workers() if w is not None]
        return max(named) if named else config.get_num_parallel_workers()

    def _named_workers(self) -> list[int | None]:
        return [self.num_parallel_workers] + [w for c in self.children for w in c._named_workers()]

    python_multiprocessing = False  # a map/batch asking for worker processes (see `map`)

    def _process_workers(self) -> int:
        """Worker processes the pipeline asks for: the largest `num_parallel_workers` of a step with
        `python_multiprocessing=True` (its default worker count if it names none); 0: threads only."""
        own = (self.num_parallel_workers or config.get_num_parallel_workers()) if self.python_multiprocessing else 0
        return max([own] + [c._process_workers() for c in self.children])

    def _stream(self, ds: GrainDataset) -> grain.IterDataset:
        return as_iter(ds, self._workers(), config.get_prefetch_size())

    def _endless(self) -> bool:
        """True when a `repeat(-1)` makes one pass never end."""
        return any(c._endless() for c in self.children)


class _OneChild(Dataset):
    """A step over one dataset, keeping its columns unless it says otherwise."""

    def __init__(self, child: Dataset, column_names: Sequence[str] | None = None,
                 num_parallel_workers: int | None = None) -> None:
        if not isinstance(child, Dataset):
            raise DatasetError(f"{type(self).__name__}: expected an msx Dataset, got {type(child).__name__}")
        names = child.get_col_names() if column_names is None else column_names
        super().__init__([child], names, num_parallel_workers)

    @property
    def child(self) -> Dataset:
        return self.children[0]

    def get_dataset_size(self) -> int:
        return self.child.get_dataset_size()


class MapDataset(_OneChild):
    def __init__(self, child: Dataset, operations, input_columns, output_columns, num_parallel_workers,
                 kwargs: dict, python_multiprocessing: bool = False) -> None:
        unknown = sorted(set(kwargs) - {"max_rowsize", "offload", "callbacks", "cache"})
        if unknown:
            raise DatasetError(f"map: unknown keyword argument(s) {unknown}")
        ops = list(operations) if isinstance(operations, (list, tuple)) else [operations]
        if not ops or not all(callable(op) for op in ops):
            raise DatasetError(f"map: operations must be a callable or a non-empty list of callables, "
                               f"got {operations!r}")
        names = child.get_col_names()
        inputs = [names[0]] if input_columns is None else names_arg("map", "input_columns", input_columns)
        for c in inputs:
            if c not in names:
                raise DatasetError(f"map: input column {c!r} is not one of the dataset's columns {names}")
        outputs = inputs if output_columns is None else names_arg("map", "output_columns", output_columns)
        positions = [names.index(c) for c in inputs]
        first = min(positions)
        new_names: list[str] = []
        for j, name in enumerate(names):
            if j == first:
                new_names.extend(outputs)
            elif j not in positions:
                new_names.append(name)
        if len(set(new_names)) != len(new_names):
            raise DatasetError(f"map: output columns {outputs} would repeat a column name: {new_names}")
        super().__init__(child, new_names, _workers_arg("map", num_parallel_workers))
        self.python_multiprocessing = python_multiprocessing
        self.operations, self.input_columns, self.output_columns = ops, inputs, outputs
        self._positions, self._first = positions, first
        self._single = positions[0] if len(positions) == 1 else None
        self._seed = config.shuffle_seed()
        self._uses_rng = any(getattr(op, "uses_rng", False) for op in _flatten(ops))

    def _batchable(self) -> bool:
        """True when this map may run once on a stacked batch: one column in and out, every operation an msx
        transform with a `batched` form (see `TensorOperation.batched`), none of them random."""
        return (self._single is not None and len(self.output_columns) == 1 and not self._uses_rng and
                all(callable(getattr(op, "batched", None)) for op in self.operations))

    def _run_batched(self, rows: np.ndarray) -> np.ndarray | None:
        """The operations on a stack of rows of one column, or None where one of them has no batched form."""
        for op in self.operations:
            rows = op.batched(rows)
            if rows is None or not (type(rows) is np.ndarray and rows.dtype.kind in _KINDS):
                return None
        return rows

    def _failed(self, op: Callable, index: int, exc: Exception) -> DatasetError:
        if isinstance(exc, DatasetError):
            return DatasetError(f"map: operation {_callable_name(op)} on columns {self.input_columns} of row {index}: "
                                f"{exc}")
        return DatasetError(f"map: operation {_callable_name(op)} failed on columns {self.input_columns} of row "
                            f"{index}: {type(exc).__name__}: {exc}")

    def _row_fn(self, key: Key) -> ElementFn:
        """The function this map runs on each row of pass `key` (index, row) -> row.

        Built once per pass with everything it needs bound to locals: it runs
        for every row, so its own overhead is kept to a few Python steps
        beside the operations themselves.
        """
        ops, positions, outputs = self.operations, self._positions, self.output_columns
        single, first, count = self._single, self._first, len(self.output_columns)
        entropy = (self._seed, self._depth, *key) if self._uses_rng else None
        kinds = _KINDS

        def run(values: tuple, index: int) -> tuple:
            op = ops[0]
            try:
                for op in ops:
                    out = op(*values)
                    values = out if isinstance(out, tuple) else (out,)
            except Exception as exc:
                raise self._failed(op, index, exc) from exc
            return values

        def apply(index: int, row: Row) -> Row:
            values = (row[single],) if single is not None else tuple(row[p] for p in positions)
            if entropy is None:
                values = run(values, index)
            else:  # msx's random transforms draw from a generator of (seed, place, epoch, row)
                with _random.row_scope((*entropy, index)):
                    values = run(values, index)
            if len(values) != count:
                raise DatasetError(f"map: the operations returned {len(values)} values for row {index}, but "
                                   f"output_columns names {count}: {outputs}")
            converted = tuple(v if type(v) is np.ndarray and v.dtype.kind in kinds else
                              column_value(v, c, "map", allow_dict=True) for v, c in zip(values, outputs))
            if single is not None:  # one column in its place: the common case, without the general rebuild
                return row[:single] + converted + row[single + 1:]
            new_row: list = []
            for j, value in enumerate(row):
                if j == first:
                    new_row.extend(converted)
                elif j not in positions:
                    new_row.append(value)
            return tuple(new_row)

        return apply

    def _pending(self, key: Key) -> Pending:
        return then(self.child._pending(key), self._row_fn(key))

    def _grain(self, key: Key) -> GrainDataset:
        return applied(self._pending(key))


def _flatten(ops: Sequence[Callable]) -> Iterator[Callable]:
    """The operations and those they compose (transforms.Compose, RandomApply, ...)."""
    for op in ops:
        yield op
        inner = getattr(op, "transforms", None)
        if isinstance(inner, list):
            yield from _flatten(inner)


def _pad_to(value: np.ndarray, shape: Sequence[int], fill: Any, column: str) -> np.ndarray:
    if value.ndim != len(shape):
        raise DatasetError(f"batch: pad_info for column {column!r} has shape {list(shape)}, but a row has shape "
                           f"{list(value.shape)} (rank {value.ndim})")
    if any(s < v for s, v in zip(shape, value.shape)):
        raise DatasetError(f"batch: column {column!r} has a row of shape {list(value.shape)}, larger than the "
                           f"pad shape {list(shape)}")
    return np.pad(value, [(0, s - v) for s, v in zip(shape, value.shape)], constant_values=fill)


def stack_column(parts: list, column: str, pad: tuple | None = None) -> Any:
    """Rows of one column as one batch array; `pad = (shape or None, value)` pads them to one shape first."""
    if pad is None and isinstance(parts[0], np.ndarray):
        try:  # the common case: rows of one shape
            return np.stack(parts)
        except (ValueError, TypeError):
            pass  # explained below
    if any(isinstance(p, dict) for p in parts):
        raise DatasetError(f"batch: column {column!r} holds dicts, which cannot be stacked; map them to arrays "
                           f"or batch them with per_batch_map")
    parts = [np.asarray(p) for p in parts]
    if pad is not None:
        shape, fill = pad
        ranks = {p.ndim for p in parts}
        if len(ranks) > 1:
            raise DatasetError(f"batch: column {column!r} has rows of different ranks {sorted(ranks)}; cannot pad")
        longest = [max(p.shape[d] for p in parts) for d in range(parts[0].ndim)]
        target = longest if shape is None else [longest[d] if s is None else s for d, s in enumerate(shape)]
        fill = 0 if fill is None else fill
        parts = [_pad_to(p, target, fill, column) for p in parts]
    shapes = sorted({p.shape for p in parts})
    if len(shapes) > 1:
        raise DatasetError(f"batch: column {column!r} has rows of different shapes {shapes}; map them to one "
                           f"shape (pad or resize) before batch, or use padded_batch")
    return np.stack(parts)


def _check_pad_info(where: str, pad_info: Any, names: list[str]) -> dict:
    if pad_info is None:
        return {}
    if not isinstance(pad_info, dict):
        raise DatasetError(f"{where}: pad_info must be a dict {{column: (shape, value)}}, got {pad_info!r}")
    result = {}
    for column, spec in pad_info.items():
        if column not in names:
            raise DatasetError(f"{where}: pad_info names column {column!r}, not one of {names}")
        if spec is None:
            spec = (None, 0)
        if not (isinstance(spec, (tuple, list)) and len(spec) == 2):
            raise DatasetError(f"{where}: pad_info[{column!r}] must be (shape or None, pad value), got {spec!r}")
        shape, value = spec
        result[column] = (None if shape is None else list(shape), value)
    return result


class BatchDataset(_OneChild):
    def __init__(self, child: Dataset, batch_size: int, drop_remainder: bool, num_parallel_workers: int | None,
                 per_batch_map: Callable | None = None, input_columns: Any = None, output_columns: Any = None,
                 pad_info: dict | None = None, python_multiprocessing: bool = False, max_rowsize: Any = None,
                 **unknown: Any) -> None:
        if unknown:
            raise DatasetError(f"batch: unknown keyword argument(s) {sorted(unknown)}")
        if callable(batch_size):
            raise DatasetError("batch: a callable batch_size is not supported by msx; give an int")
        self.batch_size = check_count("batch", "batch_size", batch_size)
        if not isinstance(drop_remainder, bool):
            raise DatasetError(f"batch: drop_remainder must be True or False, got {drop_remainder!r}")
        self.drop_remainder = drop_remainder
        names = child.get_col_names()
        if per_batch_map is not None and not callable(per_batch_map):
            raise DatasetError(f"batch: per_batch_map must be callable, got {per_batch_map!r}")
        if per_batch_map is None and (input_columns is not None or output_columns is not None):
            raise DatasetError("batch: input_columns and output_columns go with per_batch_map")
        self.per_batch_map = per_batch_map
        self._inputs = (names if input_columns is None else names_arg("batch", "input_columns", input_columns))
        for c in self._inputs:
            if c not in names:
                raise DatasetError(f"batch: input column {c!r} is not one of the dataset's columns {names}")
        self._outputs = self._inputs if output_columns is None else names_arg("batch", "output_columns",
                                                                              output_columns)
        new_names = list(names)
        if per_batch_map is not None and self._outputs != self._inputs:
            first = min(names.index(c) for c in self._inputs)
            kept = [n for n in names if n not in self._inputs]
            new_names = kept[:first] + self._outputs + kept[first:]
        super().__init__(child, new_names, _workers_arg("batch", num_parallel_workers))
        if not isinstance(python_multiprocessing, bool):
            raise DatasetError(f"batch: python_multiprocessing must be True or False, got {python_multiprocessing!r}")
        self.python_multiprocessing = python_multiprocessing
        self.pad_info = _check_pad_info("batch", pad_info, new_names)

    def get_dataset_size(self) -> int:
        n = self.child.get_dataset_size()
        return n // self.batch_size if self.drop_remainder else -(-n // self.batch_size)

    def get_batch_size(self) -> int:
        return self.batch_size

    def _finish(self, key: Key, index: int, rows: Sequence[Row]) -> Row:
        names = self.child.get_col_names()
        if self.per_batch_map is None:
            return tuple(stack_column([r[j] for r in rows], n, self.pad_info.get(n)) for j, n in enumerate(names))
        columns = {n: [r[j] for r in rows] for j, n in enumerate(names)}
        order = names
        if self.per_batch_map is not None:
            try:
                out = self.per_batch_map(*(columns[c] for c in self._inputs), BatchInfo(index, key[0]))
            except DatasetError:
                raise
            except Exception as exc:
                raise DatasetError(f"batch: per_batch_map {_callable_name(self.per_batch_map)} failed on batch "
                                   f"{index}: {type(exc).__name__}: {exc}") from exc
            out = out if isinstance(out, tuple) else (out,)
            if len(out) != len(self._outputs):
                raise DatasetError(f"batch: per_batch_map returned {len(out)} columns for batch {index}, but "
                                   f"output_columns names {len(self._outputs)}: {self._outputs}")
            for c in self._inputs:
                del columns[c]
            columns.update({c: list(v) for c, v in zip(self._outputs, out)})
            order = self._column_names
        return tuple(stack_column(columns[c], c, self.pad_info.get(c)) for c in order)

    def _deferred_maps(self) -> tuple[list["MapDataset"], Dataset]:
        """The maps right below this batch that can run on the stacked batch instead (bottom first), and the
        node below them. None when the batch pads or has a per_batch_map."""
        maps: list[MapDataset] = []
        node = self.child
        if self.per_batch_map is None and not self.pad_info:
            while isinstance(node, MapDataset) and node._batchable():
                maps.append(node)
                node = node.child
        return maps[::-1], node

    def _pending(self, key: Key) -> Pending:
        maps, below = self._deferred_maps()
        if not maps and (self.per_batch_map is not None or self.pad_info or below._batch_reader(key) is None):
            batched = self.child._grain(key).batch(self.batch_size, drop_remainder=self.drop_remainder,
                                                   batch_fn=list)
            return batched, lambda i, rows: self._finish(key, i, rows)
        # Maps of elementwise msx transforms run once on the stacked column: the same IEEE operations as per
        # row, so the same values, at a fraction of the per-row Python cost; a source that can read a batch of
        # rows at once (numpy fancy indexing) does. Rows that do not stack alike (or an operation that fails)
        # take the per-row path, which gives the row's own result or error.
        reader = below._batch_reader(key)
        if reader is not None:
            indices, read = reader
            batched = indices.batch(self.batch_size, drop_remainder=self.drop_remainder,
                                    batch_fn=lambda xs: np.asarray(xs, np.int64))
        else:
            batched = below._grain(key).batch(self.batch_size, drop_remainder=self.drop_remainder, batch_fn=list)
        row_fns = [m._row_fn(key) for m in maps]
        size = self.batch_size
        names = self.child.get_col_names()

        def per_row(index: int, rows: list) -> Row:
            out = []
            for j, row in enumerate(rows):
                for fn in row_fns:
                    row = fn(index * size + j, row)
                out.append(row)
            return self._finish(key, index, out)

        def finish(index: int, batch: Any) -> Row:
            if reader is not None:
                columns, rows = list(read(batch)), None
            else:
                columns, rows = list(zip(*batch)), batch
            for m in maps:
                part = columns[m._single]
                if not isinstance(part, np.ndarray):
                    first = part[0]
                    if not (type(first) is np.ndarray and all(type(r) is np.ndarray and r.shape == first.shape and
                                                               r.dtype == first.dtype for r in part)):
                        part = None
                    else:
                        part = np.stack(part)
                try:
                    part = None if part is None else m._run_batched(part)
                except Exception:
                    part = None
                if part is None:
                    return per_row(index, rows if rows is not None else [below._row(int(i)) for i in batch])
                columns[m._single] = part
            return tuple(c if isinstance(c, np.ndarray) else stack_column(list(c), n) for c, n in zip(columns, names))

        return batched, finish

    def _grain(self, key: Key) -> GrainDataset:
        return applied(self._pending(key))


class ShuffleDataset(_OneChild):
    def __init__(self, child: Dataset, buffer_size: int) -> None:
        super().__init__(child)
        ok = isinstance(buffer_size, int) and not isinstance(buffer_size, bool) and buffer_size >= 2
        if not ok:
            raise DatasetError(f"shuffle: buffer_size must be an int >= 2, got {buffer_size!r}")
        self.buffer_size = buffer_size
        self.seed = config.shuffle_seed()

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
