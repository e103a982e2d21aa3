"""SentencePiece: train a model (`SentencePieceVocab.from_file` / `from_dataset`), save it, and tokenize with
it — on Google's `sentencepiece` package, which MindSpore also builds on (so a model trained by either tokenizes
the same in both)."""
from __future__ import annotations

import enum
import io
import os
from typing import Any, Iterator, Sequence

import numpy as np

from ...atomic import write_atomic
from ...errors import DatasetError
from ..transforms.ops import TensorOperation
from .ops import _strings


def _spm() -> Any:
    """The `sentencepiece` package, imported on first use: only these transforms need it (pip install
    'msx[text]')."""
    try:
        import sentencepiece  # optional msx[text]: only these transforms need it
    except ImportError:
        raise DatasetError("SentencePiece transforms need the 'sentencepiece' package: pip install sentencepiece") \
            from None
    return sentencepiece


class SentencePieceModel(enum.IntEnum):
    """The SentencePiece training algorithm."""

    UNIGRAM = 0
    BPE = 1
    CHAR = 2
    WORD = 3


class SPieceTokenizerOutType(enum.IntEnum):
    """What SentencePieceTokenizer returns: the pieces (STRING) or their ids (INT)."""

    STRING = 0
    INT = 1


class SPieceTokenizerLoadType(enum.IntEnum):
    """Where a SentencePiece model comes from: a model file or a trained SentencePieceVocab."""

    FILE = 0
    MODEL = 1


class SentencePieceVocab:
    """A trained SentencePiece model (its serialised bytes)."""

    def __init__(self, model: bytes) -> None:
        self.model = model

    @staticmethod
    def _train(op: str, sentences: Iterator[str] | None, files: Sequence[str] | None, vocab_size: int,
               character_coverage: float, model_type: SentencePieceModel, params: dict) -> "SentencePieceVocab":
        if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < 1:
            raise DatasetError(f"{op}: vocab_size must be a positive int, got {vocab_size!r}")
        if not isinstance(character_coverage, (int, float)) or not 0.98 <= character_coverage <= 1.0:
            raise DatasetError(f"{op}: character_coverage must be in [0.98, 1.0], got {character_coverage!r}")
        try:
            model_type = SentencePieceModel(model_type)
        except ValueError:
            raise DatasetError(f"{op}: model_type must be a text.SentencePieceModel, got {model_type!r}") from None
        if not isinstance(params, dict):
            raise DatasetError(f"{op}: params must be a dict of extra trainer options, got {params!r}")
        out = io.BytesIO()
        options = dict(vocab_size=vocab_size, character_coverage=float(character_coverage),
                       model_type=model_type.name.lower(), model_writer=out, minloglevel=2, **params)
        if files is not None:
            options["input"] = ",".join(files)
        else:
            options["sentence_iterator"] = sentences
        try:
            _spm().SentencePieceTrainer.train(**options)
        except (RuntimeError, OSError, ValueError) as exc:
            raise DatasetError(f"{op}: SentencePiece training failed: {exc}") from None
        return SentencePieceVocab(out.getvalue())

    @classmethod
    def from_file(cls, file_path: Sequence[str], vocab_size: int, character_coverage: float,
                  model_type: SentencePieceModel, params: dict) -> "SentencePieceVocab":
        """Train on the lines of the text files `file_path`."""
        files = [file_path] if isinstance(file_path, str) else list(file_path)
        for f in files:
            if not os.path.isfile(f):
                raise DatasetError(f"SentencePieceVocab.from_file: {f!r} is not a file")
        return cls._train("SentencePieceVocab.from_file", None, files, vocab_size, character_coverage, model_type,
                          params)

    @classmethod
    def from_dataset(cls, dataset: Any, col_names: Sequence[str], vocab_size: int, character_coverage: float,
                     model_type: SentencePieceModel, params: dict) -> "SentencePieceVocab":
        """Train on the strings of the column `col_names[0]` of `dataset` (one pass)."""
        names = [col_names] if isinstance(col_names, str) else list(col_names)
        if len(names) != 1:
            raise DatasetError(f"SentencePieceVocab.from_dataset: col_names must name one column, got {col_names!r}")

        def sentences() -> Iterator[str]:
            for row in dataset.create_dict_iterator(num_epochs=1, output_numpy=True):
                for s in np.atleast_1d(_strings(row[names[0]], "SentencePieceVocab.from_dataset")).reshape(-1):
                    yield str(s)
        return cls._train("SentencePieceVocab.from_dataset", sentences(), None, vocab_size, character_coverage,
                          model_type, params)

    @staticmethod
    def save_model(vocab: "SentencePieceVocab", path: str, filename: str) -> None:
        """Write the model to `path/filename` (a file `sentencepiece` and MindSpore load)."""
        if not isinstance(vocab, SentencePieceVocab):
            raise DatasetError(f"SentencePieceVocab.save_model: vocab must be a SentencePieceVocab, got "
                               f"{type(vocab).__name__}")
        if not os.path.isdir(path):
            raise DatasetError(f"SentencePieceVocab.save_model: {path!r} is not a folder")
        write_atomic(os.path.join(path, filename), [vocab.model])


class SentencePieceTokenizer(TensorOperation):
    """Tokenize a string with a SentencePiece model — a SentencePieceVocab or a model file path — into its
    pieces (`SPieceTokenizerOutType.STRING`) or ids (INT, int32)."""

    def __init__(self, mode: Any, out_type: SPieceTokenizerOutType) -> None:
        processor = _spm().SentencePieceProcessor()
        try:
            if isinstance(mode, SentencePieceVocab):
                processor.LoadFromSerializedProto(mode.model)
            elif isinstance(mode, (str, os.PathLike)):
                if not os.path.isfile(mode):
                    raise DatasetError(f"SentencePieceTokenizer: {os.fspath(mode)!r} is not a file")
                processor.Load(os.fspath(mode))
            else:
                raise DatasetError(f"SentencePieceTokenizer: mode must be a SentencePieceVocab or a model file "
                                   f"path, got {type(mode).__name__}")
        except (RuntimeError, OSError) as exc:
            raise DatasetError(f"SentencePieceTokenizer: cannot load the model: {exc}") from None
        try:
            self.out_type = SPieceTokenizerOutType(out_type)
        except ValueError:
            raise DatasetError(f"SentencePieceTokenizer: out_type must be a text.SPieceTokenizerOutType, got "
                               f"{out_type!r}") from None
        self.processor = processor

    def __call__(self, x: Any) -> np.ndarray:
        array = _strings(x, "SentencePieceTokenizer")
        if array.ndim != 0:
            raise DatasetError(f"SentencePieceTokenizer: expected one string per row, got shape {list(array.shape)}")
        if self.out_type == SPieceTokenizerOutType.INT:
            return np.asarray(self.processor.EncodeAsIds(str(array)), np.int32)
        return np.asarray(self.processor.EncodeAsPieces(str(array)), dtype=str)
