"""JiebaTokenizer: Chinese word segmentation with cppjieba's algorithms (which MindSpore's kernel is), on the same
two files MindSpore takes — `mp_path`, cppjieba's dictionary (`word freq [tag]` lines), and `hmm_path`, its HMM
model (log start, transition and emission probabilities of the B/E/M/S states).

* MP: the maximum-probability path through the dictionary's word graph (weights `log(freq / total)`, a
  character not in the dictionary at the smallest weight); ASCII stays one character per token.
* HMM: Viterbi over B/E/M/S for runs of non-ASCII text; ASCII letters (with digits) and numbers are one token.
* MIX: MP, then HMM over each run of single characters MP left (cppjieba's MixSegment).

Spaces, tabs, newlines, `，` and `。` separate the text first and are tokens themselves, as cppjieba's pre-filter.
Offsets (`with_offsets`) are bytes. `add_word`/`add_dict` add user words (without a frequency: the median
weight, cppjieba's default).
"""
from __future__ import annotations

import enum
import math
import os
import re
from typing import Any

import numpy as np

from ...errors import DatasetError
from ..transforms.ops import TensorOperation
from .ops import _strings

_SEPARATORS = set(" \t\n\r\uff0c\u3002")
_MIN = -3.14e100
_PREV = {"B": "ES", "M": "MB", "S": "SE", "E": "BM"}


class JiebaMode(enum.IntEnum):
    """JiebaTokenizer's segmentation: MIX (MP, then HMM for unknown runs), MP or HMM."""

    MIX = 0
    MP = 1
    HMM = 2


def _read_lines(where: str, path: str, what: str) -> list[str]:
    if not isinstance(path, (str, os.PathLike)) or not os.path.isfile(path):
        raise DatasetError(f"{where}: {what} {path!r} is not a file")
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise DatasetError(f"{where}: cannot read {what} {os.fspath(path)!r}: {exc}") from None


def load_hmm(where: str, path: str) -> tuple[dict, dict, dict]:
    """(start, transition, emission) log-probabilities of cppjieba's hmm_model.utf8."""
    lines = [line.strip() for line in _read_lines(where, path, "hmm_path") if line.strip() and
             not line.lstrip().startswith("#")]
    if len(lines) != 9:
        raise DatasetError(f"{where}: {path!r} is not a cppjieba HMM model (start, 4 transition and 4 emission "
                           f"lines), it has {len(lines)} data lines")
    try:
        start = dict(zip("BEMS", map(float, lines[0].split())))
        trans = {a: dict(zip("BEMS", map(float, lines[1 + i].split()))) for i, a in enumerate("BEMS")}
        emit = {}
        for i, s in enumerate("BEMS"):
            table = {}
            for item in lines[5 + i].split(","):
                char, _, prob = item.rpartition(":")
                if char:
                    table[char] = float(prob)
            emit[s] = table
    except ValueError:
        raise DatasetError(f"{where}: {path!r} holds a probability that is not a number") from None
    if len(start) != 4 or any(len(t) != 4 for t in trans.values()):
        raise DatasetError(f"{where}: {path!r}: the start and transition lines need 4 values each")
    return start, trans, emit


class JiebaTokenizer(TensorOperation):
    """Segment Chinese text (one string per row) into words; see the module's notes for the modes."""

    def __init__(self, hmm_path: str, mp_path: str, mode: JiebaMode = JiebaMode.MIX, with_offsets: bool = False) -> None:
        where = "JiebaTokenizer"
        try:
            self.mode = JiebaMode(mode)
        except ValueError:
            raise DatasetError(f"{where}: mode must be a text.JiebaMode, got {mode!r}") from None
        self.with_offsets = bool(with_offsets)
        self.start, self.trans, self.emit = load_hmm(where, hmm_path)
        freqs: dict[str, float] = {}
        for number, line in enumerate(_read_lines(where, mp_path, "mp_path"), 1):
            parts = line.split()
            if not parts:
                continue
            try:
                freqs[parts[0]] = float(parts[1]) if len(parts) > 1 else 0.0
            except ValueError:
                raise DatasetError(f"{where}: line {number} of {mp_path!r} is not 'word freq [tag]'") from None
        total = sum(freqs.values())
        if not freqs or total <= 0:
            raise DatasetError(f"{where}: the dictionary {mp_path!r} has no words with a frequency")
        self.total = total
        self.weights = {w: math.log(f / total) if f > 0 else _MIN for w, f in freqs.items()}
        known = sorted(v for v in self.weights.values() if v > _MIN)
        self.min_weight, self.median_weight = known[0], known[len(known) // 2]
        self.max_len = max(len(w) for w in self.weights)
        self.user_words: set[str] = set()

    def add_word(self, word: str, freq: int | None = None) -> None:
        """Add a user word (`freq` None: the dictionary's median weight)."""
        if not isinstance(word, str) or not word:
            raise DatasetError(f"JiebaTokenizer.add_word: word must be a non-empty string, got {word!r}")
        if freq is not None and (isinstance(freq, bool) or not isinstance(freq, int) or freq < 0):
            raise DatasetError(f"JiebaTokenizer.add_word: freq must be a non-negative int or None, got {freq!r}")
        self.weights[word] = self.median_weight if freq is None else \
            math.log(freq / self.total) if freq > 0 else _MIN  # relative to the dictionary's total, as cppjieba
        self.max_len = max(self.max_len, len(word))
        self.user_words.add(word)

    def add_dict(self, user_dict: Any) -> None:
        """Add user words from a {word: freq or None} dict or a file of `word [freq]` lines."""
        if isinstance(user_dict, dict):
            for word, freq in user_dict.items():
                self.add_word(word, freq)
            return
        for number, line in enumerate(_read_lines("JiebaTokenizer.add_dict", user_dict, "user_dict"), 1):
            parts = line.split()
            if parts:
                if len(parts) > 1 and not parts[1].isdigit():
                    raise DatasetError(f"JiebaTokenizer.add_dict: line {number} of {user_dict!r} is not "
                                       f"'word [freq]'")
                self.add_word(parts[0], int(parts[1]) if len(parts) > 1 else None)

    def _mp(self, text: str) -> list[str]:
        n = len(text)
        route: list[tuple[float, int]] = [(0.0, 0)] * (n + 1)
        for i in range(n - 1, -1, -1):
            best = None
            for j in range(i + 1, min(n, i + self.max_len) + 1):
                word = text[i:j]
                weight = self.weights.get(word)
                if weight is None:
                    if j != i + 1:
                        continue
                    weight = self.min_weight
                value = weight + route[j][0]
                if best is None or value > best[0]:
                    best = (value, j)
            route[i] = best
        out, i = [], 0
        while i < n:
            j = route[i][1]
            out.append(text[i:j])
            i = j
        return out

    def _viterbi(self, text: str) -> list[str]:
        v = [{s: self.start[s] + self.emit[s].get(text[0], _MIN) for s in "BEMS"}]
        path = {s: [s] for s in "BEMS"}
        for ch in text[1:]:
            row, new = {}, {}
            for s in "BEMS":
                e = self.emit[s].get(ch, _MIN)
                prob, prev = max((v[-1][p] + self.trans[p][s] + e, p) for p in _PREV[s])
                row[s], new[s] = prob, path[prev] + [s]
            v.append(row)
            path = new
        states = path[max((v[-1][s], s) for s in "ES")[1]]
        out, begin = [], 0
        for i, s in enumerate(states):
            if s == "B":
                begin = i
            elif s == "E":
                out.append(text[begin:i + 1])
                begin = i + 1
            elif s == "S":
                out.append(text[i])
                begin = i + 1
        if begin < len(text):
            out.append(text[begin:])
        return out

    def _hmm(self, text: str) -> list[str]:
        out, i, run = [], 0, ""
        while i < len(text):
            ch = text[i]
            if ord(ch) >= 0x80:
                run += ch
                i += 1
                continue
            if run:
                out += self._viterbi(run)
                run = ""
            m = re.match(r"[A-Za-z][A-Za-z0-9]*|[0-9][0-9.]*", text[i:])
            j = i + (m.end() if m else 1)
            out.append(text[i:j])
            i = j
        if run:
            out += self._viterbi(run)
        return out

    def _mix(self, text: str) -> list[str]:
        out, singles = [], ""
        for word in self._mp(text):
            if len(word) == 1 and word not in self.user_words:
                singles += word
                continue
            if singles:
                out += self._hmm(singles)
                singles = ""
            out.append(word)
        if singles:
            out += self._hmm(singles)
        return out

    def _segment(self, text: str) -> list[str]:
        cut = {JiebaMode.MP: self._mp, JiebaMode.HMM: self._hmm, JiebaMode.MIX: self._mix}[self.mode]
        out, piece = [], ""
        for ch in text:
            if ch in _SEPARATORS:
                if piece:
                    out += cut(piece)
                    piece = ""
                out.append(ch)
            else:
                piece += ch
        if piece:
            out += cut(piece)
        return out

    def __call__(self, x: Any) -> Any:
        array = _strings(x, "JiebaTokenizer")
        if array.ndim != 0:
            raise DatasetError(f"JiebaTokenizer: expected one string per row, got shape {list(array.shape)}")
        words = self._segment(str(array))
        tokens = np.asarray(words, dtype=str)
        if not self.with_offsets:
            return tokens
        sizes = [len(w.encode()) for w in words]
        ends = np.cumsum(sizes, dtype=np.int64)
        return tokens, (ends - np.asarray(sizes)).astype(np.uint32), ends.astype(np.uint32)
