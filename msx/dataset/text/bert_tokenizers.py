"""BERT's tokenizers: BasicTokenizer (whitespace, punctuation and CJK splitting, optional lower-casing with
accents stripped), WordpieceTokenizer (greedy longest-match subwords from a Vocab) and BertTokenizer (the two
in a row), with MindSpore's arguments and its byte offsets.

The character classes are BERT's (ASCII symbols and Unicode P* as punctuation, the CJK ideograph blocks split
one by one, Cc/Cf characters turned into spaces), computed with `unicodedata`; lower-casing is NFKC case folding,
then NFD with the combining marks dropped. Offsets are byte positions in that normalised text. MindSpore 2.10's
lower-casing with `preserve_unused_token=True` repeats the text before each preserved token in its output (a
bug); msx returns each token once.
"""
from __future__ import annotations

import re
import unicodedata
from typing import Any

import numpy as np

from ...errors import DatasetError
from ..transforms.ops import TensorOperation
from .normalize import NormalizeForm, normalize
from .ops import Vocab, _strings

_UNUSED = re.compile(r"\[CLS\]|\[SEP\]|\[UNK\]|\[PAD\]|\[MASK\]|\[unused\d+\]")
_CJK = ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F), (0x2B740, 0x2B81F),
        (0x2B820, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F))


def is_punctuation(ch: str) -> bool:
    o = ord(ch)
    return 33 <= o <= 47 or 58 <= o <= 64 or 91 <= o <= 96 or 123 <= o <= 126 or \
        unicodedata.category(ch).startswith("P")


def is_cjk(ch: str) -> bool:
    o = ord(ch)
    return any(lo <= o <= hi for lo, hi in _CJK)


def fold(text: str) -> str:
    """Lower-case for BERT's uncased models: NFKC case folding, NFD, combining marks (Mn) dropped."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    return "".join(c for c in unicodedata.normalize("NFD", folded) if unicodedata.category(c) != "Mn")


def _clean(text: str) -> str:
    return "".join(" " if unicodedata.category(c) in ("Cc", "Cf") else c for c in text)  # \t, \n, \r are Cc


def basic_spans(text: str, lower_case: bool, keep_whitespace: bool, form: NormalizeForm,
                preserve_unused_token: bool) -> tuple[str, list[tuple[int, int]]]:
    """The normalised text and the (start, end) character spans of its tokens."""
    pieces = []  # (text, is a preserved token)
    rest = text
    if preserve_unused_token:
        last = 0
        for m in _UNUSED.finditer(text):
            pieces.append((text[last:m.start()], False))
            pieces.append((m.group(), True))
            last = m.end()
        rest = text[last:]
    pieces.append((rest, False))
    out, spans = "", []
    for piece, preserved in pieces:
        if preserved:
            spans.append((len(out), len(out) + len(piece)))
            out += piece
            continue
        piece = _clean(fold(piece) if lower_case else normalize(piece, form))
        base, i = len(out), 0
        while i < len(piece):
            ch = piece[i]
            if ch.isspace():
                j = i
                while j < len(piece) and piece[j].isspace():
                    j += 1
                if keep_whitespace:
                    spans.append((base + i, base + j))
                i = j
            elif is_punctuation(ch) or is_cjk(ch):
                spans.append((base + i, base + i + 1))
                i += 1
            else:
                j = i
                while j < len(piece) and not (piece[j].isspace() or is_punctuation(piece[j]) or is_cjk(piece[j])):
                    j += 1
                spans.append((base + i, base + j))
                i = j
        out += piece
    return out, spans


def _byte_offsets(text: str, spans: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    starts = [len(text[:a].encode()) for a, _ in spans]
    ends = [len(text[:b].encode()) for _, b in spans]
    return np.asarray(starts, np.uint32), np.asarray(ends, np.uint32)


def _one_string(op: str, x: Any) -> str:
    array = _strings(x, op)
    if array.ndim != 0:
        raise DatasetError(f"{op}: expected one string per row, got shape {list(array.shape)}")
    return str(array)


def _form(op: str, value: Any) -> NormalizeForm:
    try:
        return NormalizeForm(value)
    except ValueError:
        raise DatasetError(f"{op}: normalization_form must be a text.NormalizeForm, got {value!r}") from None


class BasicTokenizer(TensorOperation):
    """Split a string on whitespace (kept as tokens with `keep_whitespace`), punctuation and CJK ideographs;
    `lower_case` folds case and strips accents (else `normalization_form` applies); `preserve_unused_token`
    keeps [CLS], [SEP], [UNK], [PAD], [MASK] and [unusedN] whole."""

    def __init__(self, lower_case: bool = False, keep_whitespace: bool = False,
                 normalization_form: NormalizeForm = NormalizeForm.NONE, preserve_unused_token: bool = True,
                 with_offsets: bool = False) -> None:
        self.lower_case, self.keep_whitespace = bool(lower_case), bool(keep_whitespace)
        self.normalization_form = _form(type(self).__name__, normalization_form)
        self.preserve_unused_token, self.with_offsets = bool(preserve_unused_token), bool(with_offsets)

    def _tokens(self, x: Any) -> tuple[str, list[tuple[int, int]]]:
        return basic_spans(_one_string(type(self).__name__, x), self.lower_case, self.keep_whitespace,
                           self.normalization_form, self.preserve_unused_token)

    def __call__(self, x: Any) -> Any:
        text, spans = self._tokens(x)
        tokens = np.asarray([text[a:b] for a, b in spans], dtype=str)
        return (tokens, *_byte_offsets(text, spans)) if self.with_offsets else tokens


def _vocab(op: str, vocab: Any) -> Vocab:
    if not isinstance(vocab, Vocab):
        raise DatasetError(f"{op}: vocab must be a text.Vocab, got {type(vocab).__name__}")
    return vocab


class _Wordpiece:
    def __init__(self, vocab: Vocab, suffix_indicator: str, max_bytes_per_token: int, unknown_token: str) -> None:
        op = type(self).__name__
        self.vocab = _vocab(op, vocab)
        if not isinstance(suffix_indicator, str) or not isinstance(unknown_token, str):
            raise DatasetError(f"{op}: suffix_indicator and unknown_token must be strings")
        if isinstance(max_bytes_per_token, bool) or not isinstance(max_bytes_per_token, int) or \
                max_bytes_per_token < 0:
            raise DatasetError(f"{op}: max_bytes_per_token must be a non-negative int, got {max_bytes_per_token!r}")
        self.suffix_indicator, self.max_bytes_per_token = suffix_indicator, max_bytes_per_token
        self.unknown_token = unknown_token

    def pieces(self, word: str) -> list[tuple[str, int, int]]:
        """(piece, start byte, end byte) of `word`, greedy longest match first; unknown: the whole word."""
        whole = [(self.unknown_token or word, 0, len(word.encode()))]
        if len(word.encode()) > self.max_bytes_per_token:
            return whole
        ids, out, start = self.vocab._ids, [], 0
        while start < len(word):
            end = len(word)
            while end > start:
                piece = word[start:end] if start == 0 else self.suffix_indicator + word[start:end]
                if piece in ids:
                    break
                end -= 1
            if end == start:
                return whole
            out.append((piece, len(word[:start].encode()), len(word[:end].encode())))
            start = end
        return out


class WordpieceTokenizer(_Wordpiece, TensorOperation):
    """Split each token of a 1-D string array into the longest pieces found in `vocab` (continuations prefixed
    by `suffix_indicator`); a token that cannot be split, or longer than `max_bytes_per_token` bytes, becomes
    `unknown_token` (itself when that is '')."""

    def __init__(self, vocab: Vocab, suffix_indicator: str = "##", max_bytes_per_token: int = 100,
                 unknown_token: str = "[UNK]", with_offsets: bool = False) -> None:
        super().__init__(vocab, suffix_indicator, max_bytes_per_token, unknown_token)
        self.with_offsets = bool(with_offsets)

    def __call__(self, x: Any) -> Any:
        words = _strings(x, "WordpieceTokenizer")
        if words.ndim > 1:
            raise DatasetError(f"WordpieceTokenizer: expected a 1-D array of tokens, got shape {list(words.shape)}")
        found = [p for w in words.reshape(-1).tolist() for p in self.pieces(w)]
        tokens = np.asarray([p for p, _, _ in found], dtype=str)
        if not self.with_offsets:
            return tokens
        return tokens, np.asarray([a for _, a, _ in found], np.uint32), np.asarray([b for _, _, b in found], np.uint32)


class BertTokenizer(_Wordpiece, TensorOperation):
    """BasicTokenizer, then WordpieceTokenizer on each of its tokens (offsets into the normalised string)."""

    def __init__(self, vocab: Vocab, suffix_indicator: str = "##", max_bytes_per_token: int = 100,
                 unknown_token: str = "[UNK]", lower_case: bool = False, keep_whitespace: bool = False,
                 normalization_form: NormalizeForm = NormalizeForm.NONE, preserve_unused_token: bool = True,
                 with_offsets: bool = False) -> None:
        super().__init__(vocab, suffix_indicator, max_bytes_per_token, unknown_token)
        self.basic = BasicTokenizer(lower_case, keep_whitespace, normalization_form, preserve_unused_token)
        self.with_offsets = bool(with_offsets)

    def __call__(self, x: Any) -> Any:
        text, spans = self.basic._tokens(x)
        tokens, starts, ends = [], [], []
        for a, b in spans:
            base = len(text[:a].encode())
            for piece, s, e in self.pieces(text[a:b]):
                tokens.append(piece)
                starts.append(base + s)
                ends.append(base + e)
        out = np.asarray(tokens, dtype=str)
        return (out, np.asarray(starts, np.uint32), np.asarray(ends, np.uint32)) if self.with_offsets else out
