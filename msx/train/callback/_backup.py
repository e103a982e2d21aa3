"""`BackupAndRestore`: resume an interrupted training run from a backup checkpoint (MindSpore's callback)."""
from __future__ import annotations

import os

from ...checkpoint import load_checkpoint, save_checkpoint
from ._callback import Callback, RunContext


class BackupAndRestore(Callback):
    """`BackupAndRestore(backup_dir, save_freq='epoch', delete_checkpoint=True)`.

    Every `save_freq` epochs the train network's Parameters (optimizer state included) are saved to
    `backup_dir/backup.ckpt`; a run that starts while that file exists loads it first; a run that ends
    normally deletes it (unless `delete_checkpoint=False`).
    """

    def __init__(self, backup_dir: str, save_freq="epoch", delete_checkpoint: bool = True) -> None:
        if save_freq != "epoch" and (isinstance(save_freq, bool) or not isinstance(save_freq, int) or save_freq <= 0):
            raise ValueError(f"BackupAndRestore: save_freq must be 'epoch' or a positive int, got {save_freq!r}")
        if not isinstance(delete_checkpoint, bool):
            raise TypeError(f"BackupAndRestore: delete_checkpoint must be a bool, got {delete_checkpoint!r}")
        os.makedirs(os.fspath(backup_dir), exist_ok=True)
        self.backup_file = os.path.join(os.fspath(backup_dir), "backup.ckpt")
        self.save_freq = 1 if save_freq == "epoch" else save_freq
        self.delete_checkpoint = delete_checkpoint

    def on_train_begin(self, run_context: RunContext) -> None:
        if os.path.exists(self.backup_file):
            load_checkpoint(self.backup_file, net=run_context.original_args().train_network)

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        cb = run_context.original_args()
        if cb.cur_epoch_num % self.save_freq == 0:
            save_checkpoint(cb.train_network, self.backup_file)

    def on_train_end(self, run_context: RunContext) -> None:
        if self.delete_checkpoint and os.path.exists(self.backup_file):
            os.remove(self.backup_file)
