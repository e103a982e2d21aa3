"""Small helpers `mindspore.dataset` exposes at its top level (MindSpore programs and tests call them): argument
normalisers and the dataset families' base classes.

The base classes are abstract classes that the matching msx readers are registered with, so that
`isinstance(d, ds.MappableDataset)`, `ds.VisionBaseDataset` and the rest answer as in MindSpore; they hold no
behaviour of their own (msx's pipeline methods live on `Dataset`).
"""
from __future__ import annotations

import abc
from typing import Any

from . import readers
from .pipeline import Dataset
from .readers.text_files import Shuffle
from .sources import GeneratorDataset, MappableSource


def to_list(items: Any) -> list:
    """`items` as a list: None -> [], a tuple -> its list, a list as is, anything else -> [items] (MindSpore's)."""
    if items is None:
        return []
    if isinstance(items, tuple):
        return list(items)
    return items if isinstance(items, list) else [items]


def replace_none(value: Any, default: Any) -> Any:
    """`value`, or `default` when it is None."""
    return value if value is not None else default


def flatten_single_lists(nested_list: Any) -> Any:
    """Remove list nesting of length 1, recursively: [[1, [2]]] -> [1, 2]."""
    if not isinstance(nested_list, list):
        return nested_list
    if len(nested_list) == 1 and isinstance(nested_list[0], list):
        return flatten_single_lists(nested_list[0])
    return [flatten_single_lists(item) for item in nested_list]


ShuffleToShuffleMode = {mode: mode for mode in Shuffle}  # MindSpore maps to its C++ modes; msx's are the enum's


def shuffle_to_shuffle_mode(shuffle: Any) -> Shuffle:
    """The shuffle mode a reader's `shuffle` argument means: a Shuffle as is, None or true GLOBAL, false FALSE."""
    if isinstance(shuffle, Shuffle):
        return ShuffleToShuffleMode[shuffle]
    return Shuffle.GLOBAL if shuffle is None or shuffle else Shuffle.FALSE


class UnionBaseDataset(abc.ABC):
    """The base of every dataset node (MindSpore's parent of `Dataset`)."""


class SourceDataset(UnionBaseDataset):
    """A dataset that reads rows (no input dataset): every reader, GeneratorDataset, NumpySlicesDataset, ..."""


class MappableDataset(SourceDataset):
    """A source read by index, which takes a sampler."""


class VisionBaseDataset(UnionBaseDataset):
    """The image datasets' family."""


class TextBaseDataset(UnionBaseDataset):
    """The text datasets' family."""


class AudioBaseDataset(UnionBaseDataset):
    """The audio datasets' family."""


UnionBaseDataset.register(Dataset)
SourceDataset.register(MappableSource)
SourceDataset.register(GeneratorDataset)
MappableDataset.register(MappableSource)

_TEXT = ("AGNewsDataset", "AmazonReviewDataset", "CLUEDataset", "CoNLL2000Dataset", "CSVDataset", "DBpediaDataset",
         "EnWik9Dataset", "IMDBDataset", "IWSLT2016Dataset", "IWSLT2017Dataset", "Multi30kDataset",
         "PennTreebankDataset", "SogouNewsDataset", "SQuADDataset", "SST2Dataset", "TextFileDataset", "UDPOSDataset",
         "WikiTextDataset", "YahooAnswersDataset", "YelpReviewDataset")
_AUDIO = ("CMUArcticDataset", "GTZANDataset", "LibriTTSDataset", "LJSpeechDataset", "SpeechCommandsDataset",
          "YesNoDataset")
for _name in readers.__dict__:
    _cls = getattr(readers, _name)
    if isinstance(_cls, type) and issubclass(_cls, MappableSource) and _name.endswith("Dataset") \
            and _name not in ("MindDataset", "TFRecordDataset"):
        (TextBaseDataset if _name in _TEXT else AudioBaseDataset if _name in _AUDIO else VisionBaseDataset).register(_cls)
