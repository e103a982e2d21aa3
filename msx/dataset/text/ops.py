"""Text transforms on string columns (numpy `str` arrays, as TextFileDataset and CSVDataset yield them).

Tokenizers turn one string into a 1-D array of tokens (`with_offsets=True`
adds the start and end byte offsets of each token, MindSpore's convention);
`Lookup` maps tokens to ids through a `Vocab`; `ToNumber` parses numbers.
"""
from __future__ import annotations

import re
import unicodedata
from typing import Any, Callable, Sequence

import numpy as np

from ... import dtype as mstype
from ...errors import DatasetError
from ..transforms.ops import TensorOperation, np_dtype


def _strings(x: Any, op: str) -> np.ndarray:
    array = np.asarray(x)
    if array.dtype.kind == "S":
        array = np.char.decode(array, "utf-8")
    if array.dtype.kind != "U":
        raise DatasetError(f"{op}: expected a string column, got dtype {array.dtype}")
    return array


def to_str(array: Any, encoding: str = "utf8") -> np.ndarray:
    """A bytes array as a str array."""
    return np.char.decode(np.asarray(array), encoding)


def to_bytes(array: Any, encoding: str = "utf8") -> np.ndarray:
    """A str array as a bytes array."""
    return np.char.encode(np.asarray(array), encoding)


class Vocab:
    """Token <-> id tables. Build with `Vocab.from_list`, `from_dict` or `from_dataset`."""

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}

    @classmethod
    def from_list(cls, word_list: Sequence[str], special_tokens: Sequence[str] | None = None,
                  special_first: bool = True) -> "Vocab":
        words = list(word_list)
        if len(set(words)) != len(words):
            raise DatasetError("Vocab.from_list: word_list repeats a word")
        specials = list(special_tokens or [])
        if set(specials) & set(words):
            raise DatasetError("Vocab.from_list: special_tokens overlap word_list")
        vocab = cls()
        vocab._ids = {w: i for i, w in enumerate(specials + words if special_first else words + specials)}
        return vocab

    @classmethod
    def from_dict(cls, word_dict: dict) -> "Vocab":
        if not all(isinstance(k, str) and isinstance(v, int) and v >= 0 for k, v in word_dict.items()):
            raise DatasetError("Vocab.from_dict: word_dict must map strings to non-negative int ids")
        vocab = cls()
        vocab._ids = dict(word_dict)
        return vocab

    @classmethod
    def from_file(cls, file_path: str, delimiter: str = "", vocab_size: int | None = None,
                  special_tokens: Sequence[str] | None = None, special_first: bool = True) -> "Vocab":
        """One word per line (the text before `delimiter` when one is given), the first `vocab_size` lines."""
        try:
            with open(file_path, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise DatasetError(f"Vocab.from_file: cannot read {file_path!r}: {exc}") from None
        words = [line.split(delimiter, 1)[0] if delimiter else line.strip() for line in lines]
        words = [w for w in words if w]
        if vocab_size is not None:
            if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < 1:
                raise DatasetError(f"Vocab.from_file: vocab_size must be a positive int, got {vocab_size!r}")
            words = words[:vocab_size]
        return cls.from_list(words, special_tokens, special_first)

    @classmethod
    def from_dataset(cls, dataset: Any, columns: Any = None, freq_range: tuple | None = None,
                     top_k: int | None = None, special_tokens: Sequence[str] | None = None,
                     special_first: bool = True) -> "Vocab":
        """Count the tokens of `columns` (default: all) over one pass; keep those with a count in `freq_range`,
        the `top_k` most frequent, ordered by count (then first appearance)."""
        names = dataset.get_col_names()
        chosen = names if columns is None else [columns] if isinstance(columns, str) else list(columns)
        counts: dict[str, int] = {}
        for row in dataset.create_dict_iterator(num_epochs=1, output_numpy=True):
            for c in chosen:
                for token in np.atleast_1d(_strings(row[c], "Vocab.from_dataset")).reshape(-1):
                    counts[str(token)] = counts.get(str(token), 0) + 1
        low, high = freq_range or (0, None)
        kept = [w for w, n in counts.items() if n >= (low or 0) and (high is None or n <= high)]
        kept.sort(key=lambda w: -counts[w])  # stable: ties keep their first appearance
        return cls.from_list(kept[:top_k] if top_k else kept, special_tokens, special_first)

    def vocab(self) -> dict[str, int]:
        return dict(self._ids)

    def tokens_to_ids(self, tokens: str | Sequence[str]) -> int | list[int]:
        if isinstance(tokens, str):
            return self._ids.get(tokens, -1)
        return [self._ids.get(t, -1) for t in tokens]

    def ids_to_tokens(self, ids: int | Sequence[int]) -> str | list[str]:
        inverse = {i: w for w, i in self._ids.items()}
        if isinstance(ids, int):
            return inverse.get(ids, "")
        return [inverse.get(int(i), "") for i in ids]


class Lookup(TensorOperation):
    """Tokens -> ids by `vocab`; an unknown token becomes `unknown_token`'s id (an error without one)."""

    def __init__(self, vocab: Vocab, unknown_token: str | None = None, data_type: Any = mstype.int32) -> None:
        if not isinstance(vocab, Vocab):
            raise DatasetError(f"Lookup: vocab must be a text.Vocab, got {type(vocab).__name__}")
        if unknown_token is not None and unknown_token not in vocab._ids:
            raise DatasetError(f"Lookup: unknown_token {unknown_token!r} is not in the vocab")
        self.vocab, self.unknown_token, self.data_type = vocab, unknown_token, np_dtype("Lookup", data_type)

    def __call__(self, tokens: Any) -> np.ndarray:
        array = _strings(tokens, "Lookup")
        ids = self.vocab._ids
        default = ids.get(self.unknown_token) if self.unknown_token is not None else None
        out = []
        for t in array.reshape(-1):
            i = ids.get(str(t), default)
            if i is None:
                raise DatasetError(f"Lookup: token {str(t)!r} is not in the vocab and no unknown_token is given")
            out.append(i)
        return np.asarray(out, self.data_type).reshape(array.shape)


class ToNumber(TensorOperation):
    """Strings -> numbers of `data_type`; a string that is not a number of that type is an error naming it."""

    def __init__(self, data_type: Any) -> None:
        self.data_type = np_dtype("ToNumber", data_type)
        if self.data_type.kind not in "iuf":
            raise DatasetError(f"ToNumber: data_type must be a numeric dtype, got {self.data_type}")

    def __call__(self, x: Any) -> np.ndarray:
        array = _strings(x, "ToNumber")
        parse = float if self.data_type.kind == "f" else int
        try:
            values = [parse(str(s)) for s in array.reshape(-1)]
        except ValueError as exc:
            raise DatasetError(f"ToNumber: {exc}") from None
        if self.data_type.kind in "iu":
            info = np.iinfo(self.data_type)
            bad = [v for v in values if not info.min <= v <= info.max]
            if bad:
                raise DatasetError(f"ToNumber: {bad[0]} is out of the range of {self.data_type}")
        return np.asarray(values, self.data_type).reshape(array.shape)


class CaseFold(TensorOperation):
    """Unicode case folding (lower case, `ß` -> `ss`)."""

    def __call__(self, x: Any) -> np.ndarray:
        array = _strings(x, "CaseFold")
        return np.asarray([str(s).casefold() for s in array.reshape(-1)]).reshape(array.shape)


class _Tokenizer(TensorOperation):
    def __init__(self, with_offsets: bool = False) -> None:
        self.with_offsets = bool(with_offsets)

    def _spans(self, text: str) -> list[tuple[int, int]]:
        raise NotImplementedError

    def __call__(self, x: Any) -> Any:
        array = _strings(x, type(self).__name__)
        if array.ndim != 0:
            raise DatasetError(f"{type(self).__name__}: expected one string per row, got shape {list(array.shape)}")
        text = str(array)
        spans = self._spans(text)
        tokens = np.asarray([text[a:b] for a, b in spans], dtype=str)
        if not self.with_offsets:
            return tokens
        starts = [len(text[:a].encode()) for a, _ in spans]
        ends = [len(text[:b].encode()) for _, b in spans]
        return tokens, np.asarray(starts, np.uint32), np.asarray(ends, np.uint32)


class WhitespaceTokenizer(_Tokenizer):
    """Split on runs of whitespace."""

    def _spans(self, text: str) -> list[tuple[int, int]]:
        return [m.span() for m in re.finditer(r"\S+", text)]


class UnicodeCharTokenizer(_Tokenizer):
    """One token per character."""

    def _spans(self, text: str) -> list[tuple[int, int]]:
        return [(i, i + 1) for i in range(len(text))]


def unicode_script(ch: str) -> str:
    """The script of a character for UnicodeScriptTokenizer: from its Unicode name for letters (LATIN, GREEK,
    CJK -> Han, HIRAGANA, ...), 'Inherited' for combining marks, 'Common' for digits, punctuation and symbols."""
    category = unicodedata.category(ch)
    if category.startswith("M"):
        return "Inherited"
    if not category.startswith("L"):
        return "Common"
    name = unicodedata.name(ch, "")
    if name.startswith(("CJK", "IDEOGRAPHIC")):
        return "Han"
    return name.split(" ", 1)[0] or "Unknown"


class UnicodeScriptTokenizer(_Tokenizer):
    """Split where the Unicode script changes (Latin, Han, Greek, digits and punctuation as 'Common', ...) and at
    whitespace, which is dropped unless `keep_whitespace`."""

    def __init__(self, keep_whitespace: bool = False, with_offsets: bool = False) -> None:
        super().__init__(with_offsets)
        self.keep_whitespace = bool(keep_whitespace)

    def _spans(self, text: str) -> list[tuple[int, int]]:
        spans, start, kind = [], 0, None
        for i, ch in enumerate(text + "\0"):
            k = None if i == len(text) else " " if ch.isspace() else unicode_script(ch)
            if k != kind:
                if kind is not None and (kind != " " or self.keep_whitespace):
                    spans.append((start, i))
                start, kind = i, k
        return spans


class RegexTokenizer(_Tokenizer):
    """Split at matches of `delim_pattern`; matches of `keep_delim_pattern` are kept as tokens."""

    def __init__(self, delim_pattern: str, keep_delim_pattern: str = "", with_offsets: bool = False) -> None:
        super().__init__(with_offsets)
        try:
            self.delim, self.keep = re.compile(delim_pattern), re.compile(keep_delim_pattern) \
                if keep_delim_pattern else None
        except re.error as exc:
            raise DatasetError(f"RegexTokenizer: bad pattern: {exc}") from None

    def _spans(self, text: str) -> list[tuple[int, int]]:
        spans, start = [], 0
        for m in self.delim.finditer(text):
            if m.start() > start:
                spans.append((start, m.start()))
            if self.keep is not None and self.keep.fullmatch(m.group()) and m.end() > m.start():
                spans.append(m.span())
            start = m.end()
        if start < len(text):
            spans.append((start, len(text)))
        return spans


class PythonTokenizer(TensorOperation):
    """Tokens from your function `tokenizer(str) -> list of str`."""

    def __init__(self, tokenizer: Callable[[str], Sequence[str]]) -> None:
        if not callable(tokenizer):
            raise DatasetError(f"PythonTokenizer: tokenizer must be callable, got {tokenizer!r}")
        self.tokenizer = tokenizer

    def __call__(self, x: Any) -> np.ndarray:
        return np.asarray(list(self.tokenizer(str(_strings(x, "PythonTokenizer")))), dtype=str)
