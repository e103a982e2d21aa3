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
import xml.etree.ElementTree as ET
from typing import Any

import numpy as np

from ...errors import DatasetError
from .common import check_dir, check_usage, reader_prelude
from .text_corpora import _TextRows, _need, _workers
from .text_files import Shuffle, _read_text, by_workers, expand_files


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


# CLUE: each task/usage's columns (MindSpore 2.10 gives them sorted by name); ints are uint32, lists 1-D strings
_CLUE_COLUMNS = {
    "AFQMC": {"train": "label sentence1 sentence2", "test": "id sentence1 sentence2", "eval": "label sentence1 sentence2"},
    "TNEWS": {"train": "keywords label label_desc sentence", "test": "id keywords sentence",
              "eval": "keywords label label_desc sentence"},
    "IFLYTEK": {"train": "label label_des sentence", "test": "id sentence", "eval": "label label_des sentence"},
    "CMNLI": {"train": "label sentence1 sentence2", "test": "id sentence1 sentence2", "eval": "label sentence1 sentence2"},
    "WSC": {"train": "idx label span1_index span1_text span2_index span2_text text",
            "test": "idx span1_index span1_text span2_index span2_text text",
            "eval": "idx label span1_index span1_text span2_index span2_text text"},
    "CSL": {"train": "abst id keyword label", "test": "abst id keyword", "eval": "abst id keyword label"}}


def _clue_value(value: Any) -> Any:
    if isinstance(value, bool) or isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return np.uint32(value)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    raise TypeError(f"a value {value!r}")


class CLUEDataset(_TextRows):
    """CLUE classification tasks (AFQMC, TNEWS, IFLYTEK, CMNLI, WSC, CSL): JSON-lines `dataset_files` (one object a
    line; WSC's `target` object gives the span columns); columns by task and usage, sorted by name as MindSpore
    2.10 gives them."""

    def __init__(self, dataset_files: Any, task: str = "AFQMC", usage: str = "train", num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: Any = Shuffle.GLOBAL,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        where = "CLUEDataset"
        task = "AFQMC" if task is None else task
        if task not in _CLUE_COLUMNS:
            raise DatasetError(f"{where}: task must be one of {list(_CLUE_COLUMNS)}, got {task!r}")
        usage = check_usage(where, usage, ("train", "test", "eval"), "train")
        names = _CLUE_COLUMNS[task][usage].split()
        per_file = []
        for path in expand_files(where, dataset_files):
            rows = []
            for number, line in enumerate(_read_text(where, path).splitlines(), 1):
                if not line.strip():
                    continue
                try:
                    doc = json.loads(line)
                    doc = {**doc, **doc.pop("target", {})} if task == "WSC" else doc
                    rows.append(tuple(_clue_value(doc[n]) for n in names))
                except (ValueError, RecursionError, KeyError, TypeError, AttributeError) as exc:
                    raise DatasetError(f"{where}: {path!r} line {number} is not a {task} {usage} record "
                                       f"({type(exc).__name__}: {exc})") from None
            per_file.append(rows)
        super().__init__(where, names, by_workers(per_file, _workers(num_parallel_workers)), num_samples, shuffle,
                         num_shards, shard_id, num_parallel_workers)

    def _row(self, index: int) -> tuple:
        return tuple(np.array(v) for v in self._rows[index])


def _tagged_lines(where: str, path: str) -> list[str]:
    """The text lines of an IWSLT `train.tags.*` file: every line not a `<tag>` line, stripped."""
    return [line.strip() for line in _read_text(where, _need(where, path)).splitlines()
            if line.strip() and not line.lstrip().startswith("<")]


def _xml_segments(where: str, path: str) -> list[str]:
    """The `<seg>` texts of an IWSLT XML file (the standard library's expat parser, no external entities)."""
    try:
        root = ET.parse(_need(where, path)).getroot()
    except ET.ParseError as exc:
        raise DatasetError(f"{where}: {path!r} is not an IWSLT XML file ({exc})") from None
    return [(seg.text or "").strip() for seg in root.iter("seg")]


class _IWSLT(_TextRows):
    def _read(self, where: str, folder: str, prefix: str, pair: list[str], sets: dict[str, str | None],
              usage: str, num_parallel_workers: Any) -> list:
        src, tgt = pair
        per_file = []
        for part in (("train", "valid", "test") if usage == "all" else (usage,)):
            if part == "train":
                sides = [_tagged_lines(where, os.path.join(folder, f"train.tags.{src}-{tgt}.{lang}")) for lang in pair]
            else:
                sides = [_xml_segments(where, os.path.join(folder, f"{prefix}.TED.{sets[part]}.{src}-{tgt}.{lang}.xml"))
                         for lang in pair]
            if len(sides[0]) != len(sides[1]):
                raise DatasetError(f"{where}: the {part} files of {src}-{tgt} have {len(sides[0])} and "
                                   f"{len(sides[1])} lines")
            per_file.append(list(zip(*sides)))
        return by_workers(per_file, _workers(num_parallel_workers))


def _pair(where: str, language_pair: Any, allowed: set) -> list[str]:
    pair = ["de", "en"] if language_pair is None else list(language_pair) \
        if isinstance(language_pair, (list, tuple)) else None
    if pair is None or tuple(pair) not in allowed:
        raise DatasetError(f"{where}: language_pair must be one of {sorted(allowed)}, got {language_pair!r}")
    return pair


_IWSLT16_PAIRS = {("en", "fr"), ("en", "de"), ("en", "cs"), ("en", "ar"), ("fr", "en"), ("de", "en"), ("cs", "en"),
                  ("ar", "en")}
_IWSLT16_SETS = ("dev2010", "tst2010", "tst2011", "tst2012", "tst2013", "tst2014")
_IWSLT17_LANGS = ("en", "nl", "de", "it", "ro")


class IWSLT2016Dataset(_IWSLT):
    """IWSLT 2016: `texts/<src>/<tgt>/<src>-<tgt>/train.tags.<src>-<tgt>.<lang>` (train: the non-tag lines) and
    `IWSLT16.TED.<set>.<src>-<tgt>.<lang>.xml` (valid: `valid_set`, default tst2013; test: `test_set`, default
    tst2014: the `<seg>` texts); columns `text` (source), `translation` (target)."""

    def __init__(self, dataset_dir: str, usage: str | None = None, language_pair: Any = None,
                 valid_set: str | None = None, test_set: str | None = None, num_samples: int | None = None,
                 shuffle: Any = Shuffle.GLOBAL, num_shards: int | None = None, shard_id: int | None = None,
                 num_parallel_workers: int | None = None, cache: Any = None) -> None:
        where = "IWSLT2016Dataset"
        root, usage = reader_prelude(where, dataset_dir, usage, ("train", "valid", "test", "all"))
        pair = _pair(where, language_pair, _IWSLT16_PAIRS)
        sets = {"valid": "tst2013" if valid_set is None else valid_set, "test": "tst2014" if test_set is None else test_set}
        for name, value in sets.items():
            if value not in _IWSLT16_SETS:
                raise DatasetError(f"{where}: {name}_set must be one of {list(_IWSLT16_SETS)}, got {value!r}")
        folder = os.path.join(root, "texts", pair[0], pair[1], f"{pair[0]}-{pair[1]}")
        rows = self._read(where, folder, "IWSLT16", pair, sets, usage, num_parallel_workers)
        super().__init__(where, ["text", "translation"], rows, num_samples, shuffle, num_shards, shard_id,
                         num_parallel_workers)


class IWSLT2017Dataset(_IWSLT):
    """IWSLT 2017: `texts/DeEnItNlRo/DeEnItNlRo/DeEnItNlRo-DeEnItNlRo/` holding `train.tags.<src>-<tgt>.<lang>`,
    `IWSLT17.TED.dev2010...xml` (valid) and `IWSLT17.TED.tst2010...xml` (test); columns `text`, `translation`."""

    def __init__(self, dataset_dir: str, usage: str | None = None, language_pair: Any = None,
                 num_samples: int | None = None, shuffle: Any = Shuffle.GLOBAL, num_shards: int | None = None,
                 shard_id: int | None = None, num_parallel_workers: int | None = None, cache: Any = None) -> None:
        where = "IWSLT2017Dataset"
        root, usage = reader_prelude(where, dataset_dir, usage, ("train", "valid", "test", "all"))
        pair = _pair(where, language_pair, {(a, b) for a in _IWSLT17_LANGS for b in _IWSLT17_LANGS if a != b})
        folder = os.path.join(root, "texts", "DeEnItNlRo", "DeEnItNlRo", "DeEnItNlRo-DeEnItNlRo")
        rows = self._read(where, folder, "IWSLT17", pair, {"valid": "dev2010", "test": "tst2010"}, usage,
                          num_parallel_workers)
        super().__init__(where, ["text", "translation"], rows, num_samples, shuffle, num_shards, shard_id,
                         num_parallel_workers)
