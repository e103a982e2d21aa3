"""The dataset pipeline: `Dataset` and its steps, with MindSpore's names and arguments, lowered to grain.

This module gathers the names; the code is in `base.py` (`Dataset`, shared helpers, and how a pipeline is
lowered and keyed per epoch), `map_batch.py` (`map`, `batch`) and `steps.py` (the other steps).
"""
from __future__ import annotations

from .base import (Dataset, ElementFn, Key, Pending, Row, applied, check_count, column_value,  # noqa: F401
                   names_arg, then)
from .map_batch import BatchDataset, BatchInfo, MapDataset, PaddedBatchDataset, stack_column  # noqa: F401
from .steps import (BucketBatchByLengthDataset, BucketBatchDataset, ConcatDataset, FilterDataset, ProjectDataset, RenameDataset,  # noqa: F401
                    RepeatDataset, ShuffleDataset, SkipDataset, TakeDataset, TransferDataset, ZipDataset, split_dataset,
                    zip_datasets)
