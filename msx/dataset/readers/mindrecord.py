"""`MindDataset`: reading mindrecord files (MindSpore's own format; layout in `mindrecord_format.py`).

`dataset_files` is one file of a group (every shard the group's header
names is read, from the same folder, in order) or a list of shard files
(exactly those). Columns come sorted by name, as MindSpore yields them, or in
`columns_list` order. The rows are read into memory when the dataset is made.
`num_padded` copies of `padded_sample` are appended (MindSpore's way of making
the size divisible by `num_shards`), then the rows are sharded.
"""
from __future__ import annotations

import os
from typing import Any, Sequence

import numpy as np

from ...errors import DatasetError
from ..pipeline import Row
from ..sources import MappableSource
from . import mindrecord_format as fmt


def shard_files(dataset_files: Any, where: str = "MindDataset") -> list[str]:
    """The shard files `dataset_files` means: every shard the header of one file names, or the list given."""
    if isinstance(dataset_files, (str, os.PathLike)):
        first = os.fspath(dataset_files)
        if not os.path.isfile(first):
            raise DatasetError(f"{where}: dataset_files {first!r} is not a file")
        folder = os.path.dirname(first)
        return [os.path.join(folder, os.path.basename(a)) for a in fmt.read_header(first)["shard_addresses"]]
    if isinstance(dataset_files, (list, tuple)) and dataset_files and \
            all(isinstance(f, (str, os.PathLike)) for f in dataset_files):
        return [os.fspath(f) for f in dataset_files]
    raise DatasetError(f"{where}: dataset_files must be a file name or a non-empty list of them, got {dataset_files!r}")


def _padded_row(sample: dict, chosen: list[str], schema: dict) -> Row:
    """`padded_sample` as a row of the columns `chosen` (its values as FileWriter takes them: str, bytes, numbers,
    numpy arrays for array fields)."""
    missing = [c for c in chosen if c not in sample]
    if missing:
        raise DatasetError(f"MindDataset: padded_sample lacks the columns {missing} (it needs every column of "
                           f"columns_list {chosen})")
    row = []
    for name in chosen:
        spec, value = schema[name], sample[name]
        if "shape" in spec:
            value = np.asarray(value, fmt.TYPES[spec["type"]])
            if spec["shape"] and -1 not in spec["shape"]:
                value = value.reshape(spec["shape"])
            row.append(value)
        else:
            row.append(fmt.column(name, spec, value, "padded_sample"))
    return tuple(row)


class MindDataset(MappableSource):
    """Rows of mindrecord files written by MindSpore's (or msx's) `mindrecord.FileWriter`."""

    def __init__(self, dataset_files: str | Sequence[str], columns_list: Sequence[str] | None = None,
                 num_parallel_workers: int | None = None, shuffle: Any = None, num_shards: int | None = None,
                 shard_id: int | None = None, sampler: Any = None, padded_sample: dict | None = None,
                 num_padded: int | None = None, num_samples: int | None = None, cache: Any = None) -> None:
        where = "MindDataset"
        if (padded_sample is None) != (num_padded is None) or \
                (num_padded is not None and (isinstance(num_padded, bool) or not isinstance(num_padded, int) or
                                             num_padded < 0)) or (padded_sample is not None and
                                                                  not isinstance(padded_sample, dict)):
            raise DatasetError(f"{where}: padded_sample (a dict) and num_padded (an int >= 0) go together, got "
                               f"padded_sample={type(padded_sample).__name__}, num_padded={num_padded!r}")
        files = shard_files(dataset_files)
        schema, names, rows = None, None, []
        for path in files:
            if not os.path.isfile(path):
                raise DatasetError(f"{where}: mindrecord file {path!r} (named by the group's header) does not exist")
            header = fmt.read_header(path)
            this = header["schema"][0]
            if schema is None:
                schema = this["schema"]
                names = sorted(schema)
                chosen = names if columns_list is None else [columns_list] if isinstance(columns_list, str) \
                    else list(columns_list)
                unknown = [c for c in chosen if c not in schema]
                if unknown or not chosen:
                    raise DatasetError(f"{where}: columns_list {chosen} names fields not in the file's schema "
                                       f"{names}")
            elif this["schema"] != schema:
                raise DatasetError(f"{where}: {path!r} has a different schema than {files[0]!r}")
            f, size = fmt.open_shard(path)
            with f:
                rows += fmt.rows_from(f, size, path, header, chosen)
        if num_padded:
            rows += [_padded_row(padded_sample, chosen, schema)] * num_padded
            if num_shards is not None and len(rows) % num_shards:
                raise DatasetError(f"{where}: {len(rows) - num_padded} rows + num_padded={num_padded} = {len(rows)} "
                                   f"is not divisible by num_shards={num_shards}")
        self._rows = rows
        super().__init__(where, chosen, num_samples, shuffle, sampler, num_shards, shard_id, num_parallel_workers)

    def _length(self) -> int:
        return len(self._rows)

    def _row(self, index: int) -> Row:
        return tuple(v.copy() for v in self._rows[index])
