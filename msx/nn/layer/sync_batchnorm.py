"""`nn.SyncBatchNorm`: batch norm whose statistics are those of the whole batch across devices.

msx's data-parallel programs run one SPMD program over the global batch (docs/parallel.md), so the batch
statistics `BatchNorm2d` computes there are already the global ones; in one process they are the local ones, as
MindSpore's SyncBatchNorm gives on one device. `process_groups` (MindSpore's sub-groups of devices to sync
within) is not honoured: given, it warns once and the whole batch is used (`msx.ignored_args`).
"""
from __future__ import annotations

from ... import dtype as mstype
from ...ignored_args import not_honoured
from .normalization import _BatchNorm


class SyncBatchNorm(_BatchNorm):
    """Batch norm over (N, C) or (N, C, H, W) with the global batch's statistics (MindSpore's signature)."""

    ranks = (2, 4)

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.9, affine: bool = True,
                 gamma_init="ones", beta_init="zeros", moving_mean_init="zeros", moving_var_init="ones",
                 use_batch_statistics: bool | None = None, process_groups=None, dtype=mstype.float32) -> None:
        not_honoured("SyncBatchNorm", "process_groups", process_groups, None,
                     "statistics are those of the whole batch (every device), not of sub-groups")
        super().__init__(num_features, eps, momentum, affine, gamma_init, beta_init, moving_mean_init,
                         moving_var_init, use_batch_statistics, dtype=dtype)
        self.process_groups = process_groups
