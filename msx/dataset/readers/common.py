"""Argument checks every reader of a train/test dataset directory makes the same way."""
from __future__ import annotations

import os

from ...errors import DatasetError


def check_usage_and_dir(where: str, usage: str | None, dataset_dir: str) -> str:
    """`usage` (None means "all") as MindSpore's readers take it, after checking it and `dataset_dir`."""
    usage = "all" if usage is None else usage
    if usage not in ("train", "test", "all"):
        raise DatasetError(f"{where}: usage must be 'train', 'test' or 'all', got {usage!r}")
    if not os.path.isdir(dataset_dir):
        raise DatasetError(f"{where}: dataset_dir {dataset_dir!r} is not a directory")
    return usage
