"""The dataset pipeline: `Dataset` and its steps, with MindSpore's names and arguments, lowered to grain.

This module gathers the names; the code is in `base.py` (`Dataset`, shared helpers, and how a pipeline is
lowered and keyed per epoch), `map_batch.py` (`map`, `batch`), `steps.py` (the other steps), `sync.py`
(`sync_wait`), `save.py` (`save`) and `iterators.py`; each registers what `Dataset`'s methods build in
`base.STEPS`, so importing this module makes every method work.
"""
from __future__ import annotations

from .base import (Dataset, ElementFn, Key, Pending, Row, applied, check_count, column_value,  # noqa: F401
                   names_arg, then)
from .map_batch import BatchDataset, BatchInfo, MapDataset, PaddedBatchDataset, stack_column  # noqa: F401
from .steps import (BucketBatchByLengthDataset, BucketBatchDataset, ConcatDataset, FilterDataset, ProjectDataset, RenameDataset,  # noqa: F401
                    RepeatDataset, ShuffleDataset, SkipDataset, TakeDataset, TransferDataset, ZipDataset, split_dataset,
                    zip_datasets)
from .iterators import DictIterator, TupleIterator  # noqa: F401
from .save import save  # noqa: F401
from .sync import SyncWaitDataset, sync_update  # noqa: F401
