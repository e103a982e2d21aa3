"""Text corpora in their published layouts: `IMDBDataset`, `AGNewsDataset`, `WikiTextDataset`,
`PennTreebankDataset`, `SST2Dataset`.

* IMDB (`aclImdb`): `dataset_dir/<train|test>/<pos|neg>/*.txt`, one review per file; columns `text` (the file's
  text) and `label` (int32: pos 1, neg 0); train before test, pos before neg, files in name order (`unsup` is
  not read, as in MindSpore).
* AG News: `dataset_dir/train.csv`, `test.csv`, lines `"class","title","description"` (CSV quoting, `""` for a
  quote); columns `index`, `title`, `description`, all strings.
* WikiText (-2, -103): `dataset_dir/wiki.<train|valid|test>.tokens`; column `text`, one non-empty line each.

With `usage="all"` the rows of the files (in file-name order) come as MindSpore 2.10 gives them unshuffled: its W
reading workers (`num_parallel_workers`; default the configured count, at most the machine's cores, as MindSpore
clamps it) take files k, k + W, ... each and yield one line each in turn. `shuffle`, `num_samples`,
`num_shards`/`shard_id` work as on every reader (AG News and WikiText take a `Shuffle` mode or a bool, as
MindSpore's).
"""
from __future__ import annotations

import csv
import io
import os
from typing import Any

import numpy as np

from ...errors import DatasetError
from ..pipeline import Row
from ..sources import MappableSource
from .. import config
from .common import reader_prelude
from .text_files import Shuffle, _read_text, _shuffle_flag, by_workers


def _usage(where: str, usage: Any, allowed: tuple[str, ...], dataset_dir: Any) -> tuple[str, ...]:
    """The parts `usage` reads ("all": every one of `allowed`), after the usual checks."""
    usage = reader_prelude(where, dataset_dir, usage, allowed + ("all",))[1]
    return allowed if usage == "all" else (usage,)


class IMDBDataset(MappableSource):
    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        where = "IMDBDataset"
        rows: list[tuple[str, int]] = []
        for part in _usage(where, usage, ("train", "test"), dataset_dir):
            for label, value in (("pos", 1), ("neg", 0)):
                folder = os.path.join(dataset_dir, part, label)
                if not os.path.isdir(folder):
                    raise DatasetError(f"{where}: {folder!r} does not exist; IMDB's layout is "
                                       f"<dataset_dir>/<train|test>/<pos|neg>/*.txt")
                rows += [(_read_text(where, os.path.join(folder, f)), value) for f in sorted(os.listdir(folder))
                         if f.endswith(".txt")]
        self._rows = rows
        super().__init__(where, ["text", "label"], num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers)

    def _length(self) -> int:
        return len(self._rows)

    def _row(self, index: int) -> Row:
        text, label = self._rows[index]
        return np.array(text), np.array(label, np.int32)

    def _labels(self, column: str) -> np.ndarray:
        return np.array([r[1] for r in self._rows], np.int32) if column == "label" else super()._labels(column)


class _TextRows(MappableSource):
    """Rows of string columns read from text files (what AG News and WikiText share)."""

    def __init__(self, where: str, names: list[str], rows: list[tuple[str, ...]], num_samples: Any, shuffle: Any,
                 num_shards: Any, shard_id: Any, num_parallel_workers: Any) -> None:
        self._rows = rows
        super().__init__(where, names, num_samples, _shuffle_flag(where, shuffle), None, num_shards, shard_id,
                         num_parallel_workers)

    def _length(self) -> int:
        return len(self._rows)

    def _row(self, index: int) -> Row:
        return tuple(np.array(v) for v in self._rows[index])


def _workers(num_parallel_workers: Any) -> int:
    """MindSpore's reading workers: the given count, else its default (8) clamped to the machine's cores."""
    return num_parallel_workers or min(config.get_num_parallel_workers(), os.cpu_count() or 1)


def _need(where: str, path: str) -> str:
    if not os.path.isfile(path):
        raise DatasetError(f"{where}: {path!r} does not exist")
    return path


class AGNewsDataset(_TextRows):
    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: Any = Shuffle.GLOBAL,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        where = "AGNewsDataset"
        per_file = []
        for part in sorted(_usage(where, usage, ("train", "test"), dataset_dir)):
            path = _need(where, os.path.join(dataset_dir, f"{part}.csv"))
            records = list(csv.reader(io.StringIO(_read_text(where, path))))
            bad = [i + 1 for i, r in enumerate(records) if len(r) != 3]
            if bad:
                raise DatasetError(f"{where}: {path!r} line {bad[0]} has not the 3 fields class, title, description")
            per_file.append([tuple(r) for r in records])
        super().__init__(where, ["index", "title", "description"], by_workers(per_file, _workers(num_parallel_workers)),
                         num_samples, shuffle,
                         num_shards, shard_id, num_parallel_workers)


class WikiTextDataset(_TextRows):
    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: Any = Shuffle.GLOBAL,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        where = "WikiTextDataset"
        per_file = []
        for part in sorted(_usage(where, usage, ("train", "valid", "test"), dataset_dir)):
            path = _need(where, os.path.join(dataset_dir, f"wiki.{part}.tokens"))
            per_file.append([(line,) if line else None for line in _read_text(where, path).splitlines()])
        super().__init__(where, ["text"], by_workers(per_file, _workers(num_parallel_workers)), num_samples, shuffle,
                         num_shards, shard_id, num_parallel_workers)


class PennTreebankDataset(_TextRows):
    """Penn Treebank (`ptb.<train|valid|test>.txt`): column `text`, one non-empty line each (an empty line takes
    no reading turn here, unlike WikiText's — both as MindSpore 2.10 reads them)."""

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: Any = Shuffle.GLOBAL,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        where = "PennTreebankDataset"
        per_file = []
        for part in sorted(_usage(where, usage, ("train", "valid", "test"), dataset_dir)):
            path = _need(where, os.path.join(dataset_dir, f"ptb.{part}.txt"))
            per_file.append([(line,) for line in _read_text(where, path).splitlines() if line])
        super().__init__(where, ["text"], by_workers(per_file, _workers(num_parallel_workers)), num_samples, shuffle,
                         num_shards, shard_id, num_parallel_workers)


class SST2Dataset(_TextRows):
    """SST-2 (GLUE: `train.tsv`, `dev.tsv` with a `sentence<TAB>label` header; `test.tsv` with `index<TAB>sentence`):
    columns `sentence`, `label` (both strings, as MindSpore gives them); test: `sentence` only."""

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: Any = Shuffle.GLOBAL,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        where = "SST2Dataset"
        dataset_dir, usage = reader_prelude(where, dataset_dir, usage, ("train", "dev", "test"), "train")
        path = _need(where, os.path.join(dataset_dir, f"{usage}.tsv"))
        lines = _read_text(where, path).splitlines()[1:]  # the header line names the columns
        rows = []
        for number, line in enumerate(lines, 2):
            if not line:
                continue
            fields = line.split("\t")
            if len(fields) != 2:
                raise DatasetError(f"{where}: {path!r} line {number} has {len(fields)} tab-separated fields, not 2")
            rows.append((fields[1],) if usage == "test" else (fields[0], fields[1]))
        names = ["sentence"] if usage == "test" else ["sentence", "label"]
        super().__init__(where, names, rows, num_samples, shuffle, num_shards, shard_id, num_parallel_workers)
