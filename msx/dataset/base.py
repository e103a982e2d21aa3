"""The base of the pipeline: `Dataset` (every step's method, the iterators, the size queries) and the helpers
the steps share; the steps themselves are in `map_batch.py` and `steps.py` (see `pipeline.py`).

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
from typing import TYPE_CHECKING, Any, Callable, Sequence

import grain
import numpy as np

from ..errors import DatasetError
from ..tensor import Tensor
from . import config
from ._grain import GrainDataset, as_iter
from . import validators as v

if TYPE_CHECKING:  # the steps' classes import this module
    from .map_batch import BatchDataset, MapDataset
    from .steps import (BucketBatchDataset, ConcatDataset, FilterDataset, ProjectDataset, RenameDataset,
                        RepeatDataset, ShuffleDataset, SkipDataset, TakeDataset, ZipDataset)


Row = tuple  # one value per column
Key = tuple  # of int: the epoch, then one index per enclosing repeat
ElementFn = Callable[[int, Any], Any]  # (index in the pass, element) -> element
Pending = tuple  # (grain dataset, ElementFn or None still to apply to its elements)

_KINDS = "biufcUS"  # bool, int, uint, float, complex, str, bytes

# What Dataset's methods build (map, batch, shuffle, ..., the iterators) lives in the modules above this one, which
# import it: each registers its classes and functions here by name when it is imported (the package imports them
# all), so the methods find them without an import cycle.
STEPS: dict[str, Callable[..., Any]] = {}


def register_steps(*builders: Callable[..., Any]) -> None:
    """Make `builders` (step classes, iterator classes, functions) what Dataset's methods call, by `__name__`."""
    STEPS.update((b.__name__, b) for b in builders)


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


class Dataset(abc.ABC):
    """Base of every dataset: the pipeline steps, the iterators and the size queries (MindSpore's names)."""

    def __init__(self, children: Sequence["Dataset"] = (), column_names: Sequence[str] = (),
                 num_parallel_workers: int | None = None) -> None:
        self.children = tuple(children)
        self._column_names = list(column_names)
        self._depth = max((c._depth for c in self.children), default=-1) + 1
        self.num_parallel_workers = _workers_arg(type(self).__name__, num_parallel_workers)

    # ------------------------------------------------------------ pipeline steps
    @v.check_map
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
        return STEPS["MapDataset"](self, operations, input_columns, output_columns, num_parallel_workers, kwargs,
                          python_multiprocessing)

    @v.check_batch
    def batch(self, batch_size: int, drop_remainder: bool = False, num_parallel_workers: int | None = None,
              **kwargs: Any) -> "BatchDataset":
        """Stack `batch_size` consecutive rows per column; `drop_remainder` drops a last, smaller batch.

        kwargs (MindSpore's): `per_batch_map(*column lists, BatchInfo)` gets
        `input_columns` as lists of row values and returns the new column
        lists (named `output_columns`); `pad_info` pads as in `padded_batch`.
        """
        return STEPS["BatchDataset"](self, batch_size, drop_remainder, num_parallel_workers, **kwargs)

    @v.check_padded_batch
    def padded_batch(self, batch_size: int, drop_remainder: bool = False, num_parallel_workers: int | None = None,
                     pad_info: dict | None = None) -> "BatchDataset":
        """Batch rows of different shapes: `pad_info = {column: (shape or None, value)}` pads each row of the
        column to `shape` (None entries, or a None shape: the longest in the batch) with `value`."""
        return STEPS["PaddedBatchDataset"](self, batch_size, drop_remainder, num_parallel_workers, pad_info)

    @v.check_shuffle
    def shuffle(self, buffer_size: int) -> "ShuffleDataset":
        """Shuffle within a window of `buffer_size` rows (>= the dataset size: a uniform global shuffle)."""
        return STEPS["ShuffleDataset"](self, buffer_size)

    @v.check_repeat
    def repeat(self, count: int | None = None) -> "RepeatDataset":
        """Pass over the data `count` times (None or -1: without end); each pass is shuffled anew."""
        return STEPS["RepeatDataset"](self, count)

    @v.check_take
    def take(self, count: int = -1) -> "TakeDataset":
        """The first `count` rows (or batches, after `batch`); -1 takes all."""
        return STEPS["TakeDataset"](self, count)

    @v.check_skip
    def skip(self, count: int) -> "SkipDataset":
        """All but the first `count` rows (or batches)."""
        return STEPS["SkipDataset"](self, count)

    @v.check_zip_dataset
    def zip(self, datasets: "Dataset | Sequence[Dataset]") -> "ZipDataset":
        """Rows side by side: this dataset's columns, then each other's (names must not repeat); the shortest
        ends the pass."""
        others = [datasets] if isinstance(datasets, Dataset) else list(datasets)
        return STEPS["ZipDataset"]([self, *others])

    @v.check_concat
    def concat(self, datasets: "Dataset | Sequence[Dataset]") -> "ConcatDataset":
        """This dataset's rows, then each other's (same column names); also `a + b`."""
        others = [datasets] if isinstance(datasets, Dataset) else list(datasets)
        return STEPS["ConcatDataset"]([self, *others])

    def __add__(self, other: "Dataset") -> "ConcatDataset":
        return self.concat(other)

    @v.check_project
    def project(self, columns: str | Sequence[str]) -> "ProjectDataset":
        """Only `columns`, in that order."""
        return STEPS["ProjectDataset"](self, columns)

    @v.check_rename
    def rename(self, input_columns: str | Sequence[str], output_columns: str | Sequence[str]) -> "RenameDataset":
        """Rename `input_columns` to `output_columns`, one to one."""
        return STEPS["RenameDataset"](self, input_columns, output_columns)

    @v.check_filter
    def filter(self, predicate: Callable[..., Any], input_columns: str | Sequence[str] | None = None,
               num_parallel_workers: int | None = None) -> "FilterDataset":
        """Keep the rows where `predicate(*input_columns)` (default: all columns) is true."""
        return STEPS["FilterDataset"](self, predicate, input_columns, num_parallel_workers)

    @v.check_split
    def split(self, sizes: Sequence[int | float], randomize: bool = True) -> list["Dataset"]:
        """Disjoint datasets of `sizes` rows (ints summing to the size, or fractions summing to 1); with
        `randomize` the rows are chosen at random (from the dataset seed) and each split reshuffles every epoch."""
        return STEPS["split_dataset"](self, sizes, randomize)

    @v.check_bucket_batch_by_length
    def bucket_batch_by_length(self, column_names: str | Sequence[str], bucket_boundaries: Sequence[int],
                               bucket_batch_sizes: Sequence[int],
                               element_length_function: Callable[..., int] | None = None,
                               pad_info: dict | None = None, pad_to_bucket_boundary: bool = False,
                               drop_remainder: bool = False) -> "BucketBatchDataset":
        """Batch rows of similar length together: a row of length L goes to the bucket
        `bucket_boundaries[i-1] <= L < bucket_boundaries[i]`, which emits a padded batch when it holds
        `bucket_batch_sizes[i]` rows (leftovers at the end of the pass, unless `drop_remainder`)."""
        return STEPS["BucketBatchDataset"](self, column_names, bucket_boundaries, bucket_batch_sizes,
                                  element_length_function, pad_info, pad_to_bucket_boundary, drop_remainder)

    @v.check_sync_wait
    def sync_wait(self, condition_name: str, num_batch: int = 1, callback: Callable | None = None) -> "Dataset":
        """Let `num_batch` batches through, then wait for `sync_update(condition_name)` before each next one
        (`callback(data)` runs at every update); see `sync.py`."""
        return STEPS["SyncWaitDataset"](self, condition_name, num_batch, callback)

    @v.check_sync_update
    def sync_update(self, condition_name: str, num_batch: int | None = None, data: Any = None) -> None:
        """Release `num_batch` batches (default: the `sync_wait`'s own) of the gate `condition_name`, calling its
        callback with `data`."""
        STEPS["sync_update"](self, condition_name, num_batch, data)

    def _sync_gates(self) -> dict:
        """{condition name: gate} of the `sync_wait` steps below (see `sync.py`)."""
        return {k: g for c in self.children for k, g in c._sync_gates().items()}

    @v.check_save
    def save(self, file_name: str, num_files: int = 1, file_type: str = "mindrecord") -> None:
        """Write one pass of the pipeline as `num_files` MindRecord files (MindSpore's column mapping; see
        `save.py`), readable by `MindDataset` here and in MindSpore."""
        STEPS["save"](self, file_name, num_files, file_type)

    @v.check_device_send
    def device_que(self, send_epoch_end: bool = True, create_data_info_queue: bool = False,
                   queue_name: str = "") -> "Dataset":
        """A `TransferDataset` over this pipeline (MindSpore's step before a device queue; see `steps.py`)."""
        return STEPS["TransferDataset"](self, send_epoch_end, create_data_info_queue, queue_name)

    # ------------------------------------------------------------ iteration
    @v.check_tuple_iterator
    def create_tuple_iterator(self, columns: Sequence[str] | None = None, num_epochs: int = -1,
                              output_numpy: bool = False, do_copy: bool = True):
        """An iterator of lists of Tensors (numpy arrays with `output_numpy`), one list per row.

        Iterate it once per epoch, up to `num_epochs` times (-1: no limit).
        The pipeline runs `config.get_prefetch_size()` rows ahead in grain's
        threads, which also move the rows to the device, so reading and the
        training step overlap. String columns come as numpy arrays (MindSpore
        does the same: a Tensor holds no strings).
        """
        return STEPS["TupleIterator"](self, columns, num_epochs, output_numpy)

    @v.check_dict_iterator
    def create_dict_iterator(self, num_epochs: int = -1, output_numpy: bool = False, do_copy: bool = True):
        """Like `create_tuple_iterator`, yielding `{column name: Tensor}` dicts."""
        return STEPS["DictIterator"](self, None, num_epochs, output_numpy)

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

    @v.check_output_shape
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
