"""`msx.dataset`: MindSpore's dataset pipeline for in-memory and Python data.

    ds = msx.dataset.NumpySlicesDataset({"image": x, "label": y}, shuffle=True)
    ds = ds.map(lambda im: im / 16.0, input_columns="image").batch(64, drop_remainder=True)
    for image, label in ds.create_tuple_iterator(): ...

Shuffling is reproducible with `msx.set_seed` or `msx.dataset.config.set_seed`;
iterators prepare rows in a background thread while the training step runs.
"""
from . import config  # noqa: F401
from .iterators import DictIterator, TupleIterator  # noqa: F401
from .pipeline import (BatchDataset, Dataset, MapDataset, RepeatDataset, ShuffleDataset,  # noqa: F401
                       TakeDataset)
from .sources import GeneratorDataset, NumpySlicesDataset  # noqa: F401

__all__ = ["config", "Dataset", "NumpySlicesDataset", "GeneratorDataset", "TupleIterator", "DictIterator",
           "MapDataset", "BatchDataset", "ShuffleDataset", "RepeatDataset", "TakeDataset"]
