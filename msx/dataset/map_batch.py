"""`map` and `batch`: the row function of a map, and batching (stacking, padding, `per_batch_map`) with the
fast path that runs elementwise maps once per batch (see docs/dataset.md, "Fast path")."""
from __future__ import annotations

from typing import Any, Callable, Iterator, Sequence

import numpy as np

from ..errors import DatasetError
from . import _random, config
from ._grain import GrainDataset, PyIterDataset
from .base import (_KINDS, Dataset, ElementFn, Key, Pending, Row, _OneChild, _callable_name, _workers_arg, applied,
                   check_count, column_value, names_arg, register_steps, then)
from .callbacks import CallbackRun, check_callbacks
from .sync import scale_gates


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


class MapDataset(_OneChild):
    def __init__(self, child: Dataset, operations, input_columns, output_columns, num_parallel_workers,
                 kwargs: dict, python_multiprocessing: bool = False) -> None:
        unknown = sorted(set(kwargs) - {"max_rowsize", "offload", "callbacks", "cache"})
        if unknown:
            raise DatasetError(f"map: unknown keyword argument(s) {unknown}")
        if kwargs.get("cache") is not None:
            raise DatasetError("map: cache (MindSpore's cache server) is not supported by msx")
        if kwargs.get("offload"):
            raise DatasetError("map: offload=True (running the map on the device) is not supported by msx; the "
                               "iterator already moves finished rows to the device on its reading threads")
        self._callbacks = check_callbacks(kwargs.get("callbacks"))
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
                not self._callbacks and
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
        if self._callbacks:
            return self._grain(key), None
        return then(self.child._pending(key), self._row_fn(key))

    def _grain(self, key: Key) -> GrainDataset:
        if not self._callbacks:
            return applied(self._pending(key))
        # callbacks see each row exactly around its processing: the map runs in the stream's thread, in order
        if key[0] == 0 or self._run is None:
            self._run = CallbackRun(self._callbacks)
        run, fn, below = self._run, self._row_fn(key), self.child

        def rows() -> Iterator[Row]:
            if key[0] == 0:
                run.begin()
            run.epoch_begin(key[0])
            step = 0
            for step, row in enumerate(self._stream(below._grain(key)), 1):
                run.step(step, end=False)
                row = fn(step - 1, row)
                run.step(step, end=True)
                yield row
            run.epoch_end(step)

        return PyIterDataset(rows)

    _run: CallbackRun | None = None


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
        return _stack_dicts(parts, column)
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


def _stack_dicts(parts: list, column: str) -> dict:
    """Rows of a dict column as one dict of batch arrays, key by key (MindSpore 2.10 batches Python dicts so: each
    key's values become one numpy array; a value that does not make a numeric array is refused, as there)."""
    keys = list(parts[0]) if isinstance(parts[0], dict) else None
    for p in parts:
        if not isinstance(p, dict) or list(p) != keys:
            got = list(p) if isinstance(p, dict) else type(p).__name__
            raise DatasetError(f"batch: column {column!r} holds dicts whose keys differ between rows ({keys} and "
                               f"{got}); every row's dict needs the same keys to be batched")
    out = {}
    for key in keys:
        values = [p[key] for p in parts]
        try:
            array = np.asarray(values)
        except ValueError:
            array = None
        if array is None or array.dtype.kind not in _KINDS:
            raise DatasetError(f"batch: column {column!r}, key {key!r}: its values do not make one array (ragged, "
                               f"nested dicts or objects); make them arrays of one shape, or batch them with "
                               f"per_batch_map")
        out[key] = array
    return out


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
        scale_gates(child, self.batch_size)

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


class PaddedBatchDataset(BatchDataset):
    """What `padded_batch` returns (MindSpore's class): a batch whose rows are padded by `pad_info`
    (`{column: (shape or None, value)}`) to one shape per column."""

    def __init__(self, input_dataset: Dataset, batch_size: int, drop_remainder: bool = False,
                 num_parallel_workers: int | None = None, pad_info: dict | None = None) -> None:
        super().__init__(input_dataset, batch_size, drop_remainder, num_parallel_workers, pad_info=pad_info or {})


register_steps(MapDataset, BatchDataset, PaddedBatchDataset)
