"""String rewriting: Unicode normalisation, regex replacement, and the Wikipedia-dump filter.

Python's `unicodedata` and `re` compute these (MindSpore uses ICU and RE2: the same normal forms; RE2's `$1`
group references are accepted and turned into Python's `\\1`). FilterWikipediaXML follows MindSpore's rules
(Matt Mahoney's wikifil: markup dropped, digits spelled out, only lower-case a-z and single spaces kept).
"""
from __future__ import annotations

import enum
import re
import string
import unicodedata
from typing import Any, Callable

import numpy as np

from ...errors import DatasetError
from ..transforms.ops import TensorOperation
from .ops import _strings


class NormalizeForm(enum.IntEnum):
    """Unicode normal forms (NONE: leave the text alone)."""

    NONE = 0
    NFC = 1
    NFKC = 2
    NFD = 3
    NFKD = 4


def normalize(text: str, form: NormalizeForm) -> str:
    return text if form == NormalizeForm.NONE else unicodedata.normalize(form.name, text)


def map_strings(x: Any, op: str, fn: Callable[[str], str]) -> np.ndarray:
    """`fn` on every string of a string array (any shape), the shape kept."""
    array = _strings(x, op)
    return np.asarray([fn(str(s)) for s in array.reshape(-1)], dtype=str).reshape(array.shape)


class NormalizeUTF8(TensorOperation):
    """Normalise every string to `normalize_form` (NFKC by default)."""

    def __init__(self, normalize_form: NormalizeForm = NormalizeForm.NFKC) -> None:
        try:
            self.normalize_form = NormalizeForm(normalize_form)
        except ValueError:
            raise DatasetError(f"NormalizeUTF8: normalize_form must be a text.NormalizeForm, got "
                               f"{normalize_form!r}") from None

    def __call__(self, x: Any) -> np.ndarray:
        return map_strings(x, "NormalizeUTF8", lambda s: normalize(s, self.normalize_form))


class RegexReplace(TensorOperation):
    """Replace matches of `pattern` by `replace` (all of them, or only the first with `replace_all=False`);
    `$1`/`\\1` refer to groups."""

    def __init__(self, pattern: str, replace: str, replace_all: bool = True) -> None:
        if not isinstance(pattern, str) or not isinstance(replace, str):
            raise DatasetError(f"RegexReplace: pattern and replace must be strings, got {pattern!r}, {replace!r}")
        try:
            self.regex = re.compile(pattern)
        except re.error as exc:
            raise DatasetError(f"RegexReplace: bad pattern {pattern!r}: {exc}") from None
        self.pattern, self.replace_all = pattern, bool(replace_all)
        self.replace = re.sub(r"\$(\d+)", r"\\\1", replace)

    def __call__(self, x: Any) -> np.ndarray:
        count = 0 if self.replace_all else 1
        return map_strings(x, "RegexReplace", lambda s: self.regex.sub(self.replace, s, count=count))


_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)
_DIGITS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


def filter_wikipedia(text: str) -> str:
    if re.search("#redirect", text, re.IGNORECASE):
        return ""
    text = re.sub(r"<.*>", " ", text)           # tags and what they enclose on the line
    text = re.sub(r"&[^;\s]*;", " ", text)      # character entities
    text = re.sub(r"[0-9]", lambda m: f" {_DIGITS[int(m.group())]} ", text)
    text = re.sub(r"[^a-z]+", " ", text.translate(_ASCII_LOWER))  # only A-Z is lowered, as wikifil
    return text.strip()


class FilterWikipediaXML(TensorOperation):
    """Clean text of a Wikipedia XML dump: redirects and markup dropped, A-Z lowered, digits spelled out,
    everything else a single space."""

    def __call__(self, x: Any) -> np.ndarray:
        return map_strings(x, "FilterWikipediaXML", filter_wikipedia)
