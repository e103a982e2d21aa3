"""Pre-trained word vectors from local files (GloVe, FastText, CharNGram, any "word v1 v2 ..." text file) and
ToVectors, the lookup of tokens to their vectors (torchtext's rules, as MindSpore's: CharNGram averages the 2-,
3- and 4-grams of `#BEGIN#` + word + `#END#`). The files are parsed as text (no pickle); a malformed line is a
DatasetError naming the file and line."""
from __future__ import annotations

import os
from typing import Any, Sequence

import numpy as np

from ...errors import DatasetError
from ..transforms.ops import TensorOperation
from .ops import _strings


class Vectors:
    """Token -> vector table read by `from_file(file_path, max_vectors=None)`."""

    def __init__(self, tokens: dict[str, int], vectors: np.ndarray) -> None:
        self._index, self._vectors = tokens, vectors

    @property
    def dim(self) -> int:
        return int(self._vectors.shape[1])

    @classmethod
    def _check_path(cls, file_path: str) -> None:
        if not isinstance(file_path, (str, os.PathLike)):
            raise DatasetError(f"{cls.__name__}.from_file: file_path must be a path, got {file_path!r}")

    @classmethod
    def from_file(cls, file_path: str, max_vectors: int | None = None) -> "Vectors":
        cls._check_path(file_path)
        if max_vectors is not None and (isinstance(max_vectors, bool) or not isinstance(max_vectors, int)
                                        or max_vectors < 0):
            raise DatasetError(f"{cls.__name__}.from_file: max_vectors must be a non-negative int, got {max_vectors!r}")
        try:
            with open(file_path, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise DatasetError(f"{cls.__name__}.from_file: cannot read {os.fspath(file_path)!r}: {exc}") from None
        index: dict[str, int] = {}
        rows: list[list[float]] = []
        dim = None
        for number, line in enumerate(lines, 1):
            parts = line.rstrip().split(" ")
            if number == 1 and len(parts) == 2 and all(p.isdigit() for p in parts):
                continue  # FastText's "count dim" header
            if len(parts) < 2:
                continue
            try:
                values = [float(v) for v in parts[1:]]
            except ValueError:
                raise DatasetError(f"{cls.__name__}.from_file: line {number} of {os.fspath(file_path)!r} is not "
                                   f"'token v1 v2 ...'") from None
            if dim is None:
                dim = len(values)
            elif len(values) != dim:
                raise DatasetError(f"{cls.__name__}.from_file: line {number} of {os.fspath(file_path)!r} has "
                                   f"{len(values)} values, the first vector {dim}")
            if max_vectors is not None and len(rows) >= max_vectors:
                break
            if parts[0] not in index:
                index[parts[0]] = len(rows)
                rows.append(values)
        if dim is None:
            raise DatasetError(f"{cls.__name__}.from_file: {os.fspath(file_path)!r} holds no vectors")
        return cls(index, np.asarray(rows, np.float32).reshape(len(rows), dim))

    def lookup(self, token: str, unk: np.ndarray, lower_case_backup: bool) -> np.ndarray:
        i = self._index.get(token)
        if i is None and lower_case_backup:
            i = self._index.get(token.lower())
        return self._vectors[i] if i is not None else unk


class GloVe(Vectors):
    """GloVe vectors (a `glove.*.txt` file)."""

    @classmethod
    def _check_path(cls, file_path: str) -> None:
        super()._check_path(file_path)
        name = os.path.basename(os.fspath(file_path))
        if not (name.startswith("glove.") and name.endswith(".txt")):
            raise DatasetError(f"GloVe.from_file: expected a file named glove.*.txt, got {name!r}")


class FastText(Vectors):
    """FastText vectors (a `*.vec` file, its `count dim` header skipped)."""

    @classmethod
    def _check_path(cls, file_path: str) -> None:
        super()._check_path(file_path)
        if not os.fspath(file_path).endswith(".vec"):
            raise DatasetError(f"FastText.from_file: expected a *.vec file, got {os.fspath(file_path)!r}")


class CharNGram(Vectors):
    """Character n-gram vectors (keys `2gram-ab`, ...): a word's vector is the mean of its 2-, 3- and 4-grams'
    of `#BEGIN#` + characters + `#END#` that the table has."""

    def lookup(self, token: str, unk: np.ndarray, lower_case_backup: bool) -> np.ndarray:
        chars = ["#BEGIN#"] + list(token) + ["#END#"]
        found = [self._index[key] for n in (2, 3, 4) for i in range(len(chars) - n + 1)
                 if (key := f"{n}gram-{''.join(chars[i:i + n])}") in self._index]
        return self._vectors[found].mean(axis=0) if found else unk


class ToVectors(TensorOperation):
    """Tokens -> their vectors (float32, one row per token); an unknown token gets `unk_init` (zeros by default),
    after trying its lower case with `lower_case_backup`."""

    def __init__(self, vectors: Vectors, unk_init: Sequence[float] | None = None,
                 lower_case_backup: bool = False) -> None:
        if not isinstance(vectors, Vectors):
            raise DatasetError(f"ToVectors: vectors must be a text.Vectors/GloVe/FastText/CharNGram, got "
                               f"{type(vectors).__name__}")
        self.vectors, self.lower_case_backup = vectors, bool(lower_case_backup)
        unk = np.zeros(vectors.dim, np.float32) if unk_init is None else np.asarray(unk_init, np.float32)
        if unk.shape != (vectors.dim,):
            raise DatasetError(f"ToVectors: unk_init must hold {vectors.dim} values (the vector size), got "
                               f"{list(unk.shape)}")
        self.unk = unk

    def __call__(self, x: Any) -> np.ndarray:
        tokens = _strings(x, "ToVectors")
        if tokens.ndim > 1:
            raise DatasetError(f"ToVectors: expected a token or a 1-D array of tokens, got shape {list(tokens.shape)}")
        rows = [self.vectors.lookup(str(t), self.unk, self.lower_case_backup) for t in tokens.reshape(-1)]
        out = np.asarray(rows, np.float32).reshape(-1, self.vectors.dim)
        return out[0] if tokens.ndim == 0 else out
