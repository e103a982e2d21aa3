"""More text corpora in their published layouts: the classification CSVs of Zhang et al. 2015 (`AmazonReviewDataset`,
`DBpediaDataset`, `YahooAnswersDataset`, `YelpReviewDataset`, `SogouNewsDataset`), `EnWik9Dataset`,
`Multi30kDataset`, the token-per-line tagging sets (`UDPOSDataset`, `CoNLL2000Dataset`) and `SQuADDataset`.

* The CSV sets: `dataset_dir/train.csv`, `test.csv`, one quoted record per line (`""` is a quote; `\\n` stays two
  characters, as MindSpore leaves it); every column a string. Columns: Amazon `label, title, content`; DBpedia
  `class, title, content`; Yahoo `class, title, content, answer`; Yelp `label, text`; Sogou `index, title, content`.
* EnWik9: `dataset_dir/enwik9`, column `text`, one line each (empty lines kept).
* Multi30k: `dataset_dir/training/train.<de|en>`, `validation/val.<de|en>`, `mmt16_task1_test/test.<de|en>`, the
  lines of the two languages paired; columns `text`, `translation` in `language_pair` order (default en, de).
* UDPOS: `dataset_dir/en-ud-tag.v2.<train|dev|test>.txt` (usage valid reads dev), lines `word<TAB>universal<TAB>
  stanford`; CoNLL2000: `dataset_dir/<train|test>.txt`, lines `word pos chunk`. A blank line ends a sentence; one
  row per sentence, each column a 1-D string array. A last sentence with no blank line after it is not yielded
  (as MindSpore 2.10 reads it).
* SQuAD 1.1 / 2.0: `dataset_dir/<train|dev>-v1.1.json` or `-v2.0.json`; one row per question: `context`,
  `question`, `text` (1-D strings: every answer; `[""]` for an unanswerable one), `answer_start` (1-D uint32;
  2**32 - 1 for none).

With usage "all" the files come in each reader's MindSpore order and their rows as MindSpore 2.10's reading
workers interleave them (`text_corpora.by_workers`). Every file is untrusted: a record that does not fit is a
DatasetError naming the file and line.
"""
from __future__ import annotations

import csv
import io
import json
import os
from typing import Any

import numpy as np

from ...errors import DatasetError
from .common import check_dir, reader_prelude
from .text_corpora import _TextRows, _need, _workers
from .text_files import Shuffle, _read_text, by_workers


def _parts(usage: str, order: tuple[str, ...]) -> tuple[str, ...]:
    return order if usage == "all" else (usage,)


class _ClassificationCSV(_TextRows):
    """A dataset of `dataset_dir/<train|test>.csv` with `columns` string fields a record."""

    columns: tuple[str, ...] = ()
    order: tuple[str, ...] = ("test", "train")  # the files' order under usage "all" (MindSpore's, per reader)

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: Any = Shuffle.GLOBAL,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        where = type(self).__name__
        root, usage = reader_prelude(where, dataset_dir, usage, ("train", "test", "all"))
        per_file = []
        for part in _parts(usage, self.order):
            path = _need(where, os.path.join(root, f"{part}.csv"))
            try:
                records = list(csv.reader(io.StringIO(_read_text(where, path)), strict=True))
            except csv.Error as exc:
                raise DatasetError(f"{where}: {path!r} is not a CSV file: {exc}") from None
            for number, record in enumerate(records, 1):
                if len(record) != len(self.columns):
                    raise DatasetError(f"{where}: {path!r} line {number} has {len(record)} fields, not the "
                                       f"{len(self.columns)} of {list(self.columns)}")
            per_file.append([tuple(r) for r in records])
        super().__init__(where, list(self.columns), by_workers(per_file, _workers(num_parallel_workers)),
                         num_samples, shuffle, num_shards, shard_id, num_parallel_workers)


class AmazonReviewDataset(_ClassificationCSV):
    """Amazon Review Polarity / Full: `train.csv`, `test.csv` of `label, title, content`."""

    columns = ("label", "title", "content")


class DBpediaDataset(_ClassificationCSV):
    """DBpedia ontology classification: `train.csv`, `test.csv` of `class, title, content`."""

    columns = ("class", "title", "content")


class YahooAnswersDataset(_ClassificationCSV):
    """Yahoo! Answers topics: `train.csv`, `test.csv` of `class, title, content, answer`."""

    columns = ("class", "title", "content", "answer")


class YelpReviewDataset(_ClassificationCSV):
    """Yelp Review Polarity / Full: `train.csv`, `test.csv` of `label, text`."""

    columns = ("label", "text")
    order = ("train", "test")


class SogouNewsDataset(_ClassificationCSV):
    """Sogou News: `train.csv`, `test.csv` of `index, title, content`."""

    columns = ("index", "title", "content")
    order = ("train", "test")


class EnWik9Dataset(_TextRows):
    """EnWik9: `dataset_dir/enwik9`, column `text`, one line each. Shuffled by default (`shuffle=True`), as
    MindSpore's."""

    def __init__(self, dataset_dir: str, num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: Any = True, num_shards: int | None = None, shard_id: int | None = None,
                 cache: Any = None) -> None:
        where = "EnWik9Dataset"
        path = _need(where, os.path.join(check_dir(where, dataset_dir), "enwik9"))
        super().__init__(where, ["text"], [(line,) for line in _read_text(where, path).splitlines()], num_samples,
                         shuffle, num_shards, shard_id, num_parallel_workers)


_MULTI30K = {"train": ("training", "train"), "valid": ("validation", "val"), "test": ("mmt16_task1_test", "test")}


class Multi30kDataset(_TextRows):
    """Multi30k (task 1): `training/train.{de,en}`, `validation/val.{de,en}`, `mmt16_task1_test/test.{de,en}`;
    columns `text` (the first language of `language_pair`, default en) and `translation` (the second)."""

    def __init__(self, dataset_dir: str, usage: str | None = None, language_pair: Any = None,
                 num_samples: int | None = None, num_parallel_workers: int | None = None, shuffle: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        where = "Multi30kDataset"
        root, usage = reader_prelude(where, dataset_dir, usage, ("train", "valid", "test", "all"))
        pair = ["en", "de"] if language_pair is None else list(language_pair) \
            if isinstance(language_pair, (list, tuple)) else None
        if pair not in (["en", "de"], ["de", "en"]):
            raise DatasetError(f"{where}: language_pair must be ['en', 'de'] or ['de', 'en'], got {language_pair!r}")
        per_file = []
        for part in _parts(usage, ("test", "train", "valid")):
            folder, stem = _MULTI30K[part]
            texts = [_read_text(where, _need(where, os.path.join(root, folder, f"{stem}.{lang}"))).splitlines()
                     for lang in pair]
            if len(texts[0]) != len(texts[1]):
                raise DatasetError(f"{where}: {folder}/{stem}.{pair[0]} has {len(texts[0])} lines but "
                                   f"{stem}.{pair[1]} has {len(texts[1])}")
            per_file.append(list(zip(*texts)))
        super().__init__(where, ["text", "translation"], by_workers(per_file, _workers(num_parallel_workers)),
                         num_samples, True if shuffle is None else shuffle, num_shards, shard_id,
                         num_parallel_workers)


def _sentences(where: str, path: str, sep: str | None) -> list[tuple[list[str], ...]]:
    """The sentences of a token-per-line file (three fields a line; a blank line ends a sentence), as three
    columns each; a sentence not closed by a blank line is left out, as MindSpore 2.10 does."""
    out, current = [], []
    for number, line in enumerate(_read_text(where, path).splitlines(), 1):
        if not line.strip():
            if current:
                out.append(tuple(list(c) for c in zip(*current)))
            current = []
            continue
        fields = line.split(sep)
        if len(fields) != 3:
            raise DatasetError(f"{where}: {path!r} line {number} has {len(fields)} fields, not 3")
        current.append(fields)
    return out


class _TaggedTokens(_TextRows):
    files: dict[str, str] = {}
    columns: tuple[str, ...] = ()
    sep: str | None = None

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 shuffle: Any = Shuffle.GLOBAL, num_shards: int | None = None, shard_id: int | None = None,
                 num_parallel_workers: int | None = None, cache: Any = None) -> None:
        where = type(self).__name__
        root, usage = reader_prelude(where, dataset_dir, usage, tuple(self.files) + ("all",))
        per_file = [_sentences(where, _need(where, os.path.join(root, self.files[part])), self.sep)
                    for part in _parts(usage, tuple(sorted(self.files, key=self.files.get)))]
        super().__init__(where, list(self.columns), by_workers(per_file, _workers(num_parallel_workers)),
                         num_samples, shuffle, num_shards, shard_id, num_parallel_workers)


class UDPOSDataset(_TaggedTokens):
    """UDPOS: `en-ud-tag.v2.<train|dev|test>.txt` (usage valid: dev), tab-separated `word universal stanford`."""

    files = {"train": "en-ud-tag.v2.train.txt", "valid": "en-ud-tag.v2.dev.txt", "test": "en-ud-tag.v2.test.txt"}
    columns = ("word", "universal", "stanford")
    sep = "\t"


class CoNLL2000Dataset(_TaggedTokens):
    """CoNLL-2000 chunking: `train.txt`, `test.txt`, space-separated `word pos_tag chunk_tag`."""

    files = {"train": "train.txt", "test": "test.txt"}
    columns = ("word", "pos_tag", "chunk_tag")
    sep = " "


_NO_ANSWER = 2 ** 32 - 1  # MindSpore's answer_start of an unanswerable question (-1 as uint32)


class SQuADDataset(_TextRows):
    """SQuAD 1.1 / 2.0: `<train|dev>-v1.1.json` or `-v2.0.json` in `dataset_dir` (whichever is there)."""

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: Any = Shuffle.GLOBAL,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        where = "SQuADDataset"
        root, usage = reader_prelude(where, dataset_dir, usage, ("train", "dev", "all"))
        per_file = []
        for part in _parts(usage, ("train", "dev")):
            found = [os.path.join(root, f"{part}-{v}.json") for v in ("v1.1", "v2.0")
                     if os.path.isfile(os.path.join(root, f"{part}-{v}.json"))]
            if not found:
                raise DatasetError(f"{where}: neither {part}-v1.1.json nor {part}-v2.0.json is in {root!r}")
            per_file.append(_squad_rows(where, found[0]))
        rows = by_workers(per_file, _workers(num_parallel_workers))
        super().__init__(where, ["context", "question", "text", "answer_start"], rows, num_samples, shuffle,
                         num_shards, shard_id, num_parallel_workers)

    def _row(self, index: int) -> tuple:
        context, question, texts, starts = self._rows[index]
        return (np.array(context), np.array(question), np.array(texts), np.array(starts, np.uint32))


def _squad_rows(where: str, path: str) -> list[tuple]:
    try:
        doc = json.loads(_read_text(where, path))
        rows = []
        for article in doc["data"]:
            for paragraph in article["paragraphs"]:
                context = str(paragraph["context"])
                for qa in paragraph["qas"]:
                    answers = qa.get("answers") or []
                    texts = [str(a["text"]) for a in answers] or [""]
                    starts = [int(a["answer_start"]) for a in answers] or [_NO_ANSWER]
                    rows.append((context, str(qa["question"]), texts, starts))
        return rows
    except (ValueError, RecursionError, KeyError, TypeError) as exc:
        raise DatasetError(f"{where}: {path!r} is not a SQuAD file ({type(exc).__name__}: {exc})") from None
