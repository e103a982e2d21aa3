"""The dataset pipeline: `Dataset` and its steps, with MindSpore's names and arguments, lowered to grain.

This module gathers the names; the code is in `base.py` (`Dataset`, shared helpers), `map_batch.py`
(`map`, `batch`) and `steps.py` (the other steps).

A dataset is a chain (a tree, with `zip`/`concat`) of lazy steps; a row is a
tuple with one value per column (a numpy array, or a Python dict where
MindSpore allows one). Nothing runs until an iterator asks for an epoch: then
every node lowers one pass to a grain dataset (see `_grain.py`). Every pass
gets a key (the iterator's epoch number, extended by each enclosing
`repeat`); shuffles and random transforms draw from (their seed, their place
in the chain, the key, the row index) alone, so the same seed gives the same
rows in the same order, run after run and for any worker count, while every
epoch differs.
"""
from __future__ import annotations

from .base import (Dataset, ElementFn, Key, Pending, Row, applied, check_count, column_value,  # noqa: F401
                   names_arg, then)
from .map_batch import BatchDataset, BatchInfo, MapDataset, stack_column  # noqa: F401
from .steps import (BucketBatchDataset, ConcatDataset, FilterDataset, ProjectDataset, RenameDataset,  # noqa: F401
                    RepeatDataset, ShuffleDataset, SkipDataset, TakeDataset, ZipDataset, split_dataset)
