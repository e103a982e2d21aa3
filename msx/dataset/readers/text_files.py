"""`TextFileDataset` (one row per line) and `CSVDataset` (one row per record), read from the given files.

Both read every file when built (text datasets are small next to images)
and then behave as random-access sources: `shuffle` (MindSpore's default
`Shuffle.GLOBAL`, or True) draws a new order of all rows every pass, False
keeps MindSpore's order (the files' first rows, then their second rows, ...), and `num_shards`/`shard_id` take every num_shards-th row
(MindSpore distributes files first; msx shards rows, disjoint and covering).
"""
from __future__ import annotations

import csv
import enum
import glob
import io
import os
from typing import Any, Sequence

import numpy as np

from ...errors import DatasetError
from ..pipeline import Row
from ..sources import MappableSource


class Shuffle(str, enum.Enum):
    """MindSpore's shuffle modes of file datasets."""

    FALSE = "false"
    ADAPTIVE = "adaptive"
    GLOBAL = "global"
    PARTIAL = "partial"
    FILES = "files"
    INFILE = "infile"


def _shuffle_flag(where: str, shuffle: Any) -> bool:
    if shuffle in (True, False):
        return bool(shuffle)
    if shuffle in (Shuffle.GLOBAL, Shuffle.ADAPTIVE, Shuffle.PARTIAL):
        return True
    if shuffle is Shuffle.FALSE:
        return False
    if shuffle in (Shuffle.FILES, Shuffle.INFILE):
        raise DatasetError(f"{where}: shuffle={shuffle} (shuffling files or within files only) is not supported "
                           f"by msx; use Shuffle.GLOBAL, True or False")
    raise DatasetError(f"{where}: shuffle must be a Shuffle mode, True or False, got {shuffle!r}")


def expand_files(where: str, dataset_files: Any) -> list[str]:
    """The files `dataset_files` names (a path, a glob pattern, or a list of them), in the given order."""
    patterns = [dataset_files] if isinstance(dataset_files, str) else list(dataset_files) \
        if isinstance(dataset_files, (list, tuple)) else None
    if not patterns or not all(isinstance(p, str) for p in patterns):
        raise DatasetError(f"{where}: dataset_files must be a file path or a list of them, got {dataset_files!r}")
    files: list[str] = []
    for p in patterns:
        found = sorted(glob.glob(p)) if any(ch in p for ch in "*?[") else [p]
        for f in found:
            if not os.path.isfile(f):
                raise DatasetError(f"{where}: dataset file {f!r} does not exist")
        if not found:
            raise DatasetError(f"{where}: no file matches {p!r}")
        files.extend(found)
    return files


def _read_text(where: str, path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as exc:
        raise DatasetError(f"{where}: cannot read {path!r}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise DatasetError(f"{where}: {path!r} is not UTF-8 text: {exc}") from None


def round_robin(per_file: list[list]) -> list:
    """Rows of several files in MindSpore's unshuffled order: the first row of each file, then the second, ..."""
    out = []
    for i in range(max((len(rows) for rows in per_file), default=0)):
        out.extend(rows[i] for rows in per_file if i < len(rows))
    return out


def by_workers(per_file: list[list], workers: int) -> list:
    """Rows of several files in the order MindSpore 2.10's text readers give them unshuffled with `workers`
    workers: worker k reads files k, k + workers, ... one after another, and the workers take turns, one line
    each (a line the reader skips, such as an empty one, still takes its turn: None in `per_file`)."""
    queues = [[line for f in per_file[k::workers] for line in f] for k in range(min(workers, len(per_file)))]
    out = []
    for i in range(max((len(q) for q in queues), default=0)):
        out.extend(q[i] for q in queues if i < len(q) and q[i] is not None)
    return out


class TextFileDataset(MappableSource):
    """MindSpore's `TextFileDataset(dataset_files, num_samples, num_parallel_workers, shuffle, num_shards,
    shard_id)`: column `text`, one string per line (line endings removed)."""

    def __init__(self, dataset_files: Any, num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: Any = Shuffle.GLOBAL, num_shards: int | None = None, shard_id: int | None = None,
                 cache: Any = None) -> None:
        where = "TextFileDataset"
        self._lines = round_robin([_read_text(where, f).splitlines() for f in expand_files(where, dataset_files)])
        super().__init__(where, ["text"], num_samples, _shuffle_flag(where, shuffle), None, num_shards, shard_id,
                         num_parallel_workers)

    def _length(self) -> int:
        return len(self._lines)

    def _row(self, index: int) -> Row:
        return (np.array(self._lines[index]),)


def _default_kind(where: str, value: Any) -> tuple[type, np.dtype | None]:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise DatasetError(f"{where}: column_defaults entries must be int, float or str, got {value!r}")
    return type(value), {int: np.dtype(np.int32), float: np.dtype(np.float32), str: None}[type(value)]


class CSVDataset(MappableSource):
    """MindSpore's `CSVDataset(dataset_files, field_delim, column_defaults, column_names, num_samples,
    num_parallel_workers, shuffle, num_shards, shard_id)`.

    `column_names` None: the first line of the first file is the header.
    `column_defaults` gives each column's type and the value of an empty
    field: an int (int32 column), a float (float32) or a str (string); a
    column without one is a string column, as in MindSpore.
    """

    def __init__(self, dataset_files: Any, field_delim: str = ",", column_defaults: Sequence | None = None,
                 column_names: Sequence[str] | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: Any = Shuffle.GLOBAL,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        where = "CSVDataset"
        if not isinstance(field_delim, str) or len(field_delim) != 1 or field_delim in "\"\r\n":
            raise DatasetError(f"{where}: field_delim must be one character (not a quote or newline), "
                               f"got {field_delim!r}")
        files = expand_files(where, dataset_files)
        per_file: list[list[tuple[str, int, list[str]]]] = []
        header: list[str] | None = None
        for f in files:
            rows = list(csv.reader(io.StringIO(_read_text(where, f)), delimiter=field_delim))
            start = 0
            if column_names is None and header is None:
                if not rows:
                    raise DatasetError(f"{where}: {f!r} is empty, so it has no header; give column_names")
                header, start = rows[0], 1
            per_file.append([(f, i + 1, r) for i, r in enumerate(rows[start:], start) if r])
        records = round_robin(per_file)
        names = list(column_names) if column_names is not None else header
        if not names or len(set(names)) != len(names) or not all(isinstance(n, str) and n for n in names):
            raise DatasetError(f"{where}: column names must be distinct non-empty strings, got {names!r}")
        defaults = list(column_defaults) if column_defaults is not None else [""] * len(names)
        if len(defaults) != len(names):
            raise DatasetError(f"{where}: column_defaults has {len(defaults)} entries for {len(names)} columns "
                               f"{names}")
        kinds = [_default_kind(where, d) for d in defaults]
        columns: list[list] = [[] for _ in names]
        for path, line, fields in records:
            if len(fields) != len(names):
                raise DatasetError(f"{where}: {path!r} line {line} has {len(fields)} fields, but there are "
                                   f"{len(names)} columns {names}")
            for j, (field, (kind, _), default) in enumerate(zip(fields, kinds, defaults)):
                if field == "":
                    columns[j].append(default)
                    continue
                try:
                    columns[j].append(kind(field))
                except ValueError:
                    raise DatasetError(f"{where}: {path!r} line {line}: column {names[j]!r} expects "
                                       f"{kind.__name__} (from column_defaults), got {field!r}") from None
        self._columns = [np.asarray(c, dtype) if dtype is not None else np.asarray(c, str)
                         for c, (_, dtype) in zip(columns, kinds)]
        self._count = len(records)
        super().__init__(where, names, num_samples, _shuffle_flag(where, shuffle), None, num_shards, shard_id,
                         num_parallel_workers)

    def _length(self) -> int:
        return self._count

    def _row(self, index: int) -> Row:
        return tuple(np.array(c[index]) for c in self._columns)
