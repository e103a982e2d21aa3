"""`ModelCheckpoint` and `CheckpointConfig`: save the training state during training, keep the last or best N.

Files are written through `msx.save_checkpoint` (MindSpore's protobuf `.ckpt` by
default, `CheckpointConfig(format=...)` otherwise; atomic: a crash mid-save
leaves the previous files intact) and named MindSpore's way,
`{prefix}-{epoch}_{step in epoch}.{ckpt|safetensors}`. If the directory already holds
files of that prefix from an earlier run, the prefix becomes `prefix_1`,
`prefix_2`, ... so nothing of that run is overwritten or deleted.
"""
from __future__ import annotations

import glob
import math
import os
import time
from typing import Any

import numpy as np

from ...checkpoint import FORMATS, _refuse_encryption, save_checkpoint, wait_async_save
from ...errors import CheckpointError
from ...nn.cell import Cell
from ._callback import Callback, RunContext, loss_tensor


class CheckpointConfig:
    """When to save, how many files to keep, and how to write them (MindSpore 2.10's arguments, in its order).

    `save_checkpoint_steps`: save every N steps (0: use the seconds);
    `save_checkpoint_seconds`: else every N seconds; `keep_checkpoint_max`:
    keep the newest N files (0 with `keep_checkpoint_per_n_minutes`: keep one
    file per N minutes instead, MindSpore's rule); `saved_network`: the Cell to
    save (default: the training network, i.e. the network with the optimizer's
    state); `append_info`: also save "epoch_num" / "step_num" and/or a dict of
    numbers. `integrated_save`, `async_save`, `crc_check` and `format`
    ("ckpt", the default, or "safetensors": MindSpore's files, which MindSpore
    loads; or "msx", msx's own with SHA-256 checksums) go to `save_checkpoint`
    for every file. msx refuses, when the config is made: `enc_key`
    (encryption), `exception_save` (msx's Model.train has no exception hook
    for it yet), `remove_redundancy=True` and the `incremental` /
    `enable_redundance` keywords (MapParameter, AITurbo).

    msx additions (keywords only): `monitor` keeps the best
    `keep_checkpoint_max` files by that value instead of the newest, in `mode`
    ("min" or "max"). "loss" is the mean training loss since the previous save
    (saved every N steps as above); any other name is a validation result of
    `Model.fit` (e.g. "accuracy"), and then a checkpoint is saved after each
    validation.
    """

    def __init__(self, save_checkpoint_steps: int = 1, save_checkpoint_seconds: int = 0, keep_checkpoint_max: int = 5,
                 keep_checkpoint_per_n_minutes: int = 0, integrated_save: bool = True, async_save: bool | str = False,
                 saved_network=None, append_info: list | None = None, enc_key: bytes | None = None,
                 enc_mode: str = "AES-GCM", exception_save: bool = False, crc_check: bool = False,
                 remove_redundancy: bool = False, format: str = "ckpt", *, monitor: str | None = None,
                 mode: str = "min", **kwargs: Any) -> None:
        for name, value in (("save_checkpoint_steps", save_checkpoint_steps),
                            ("save_checkpoint_seconds", save_checkpoint_seconds),
                            ("keep_checkpoint_max", keep_checkpoint_max),
                            ("keep_checkpoint_per_n_minutes", keep_checkpoint_per_n_minutes)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"CheckpointConfig: {name} must be an int >= 0, got {value!r}")
        if not save_checkpoint_steps and not save_checkpoint_seconds and (monitor is None or monitor == "loss"):
            raise ValueError("CheckpointConfig: save_checkpoint_steps and save_checkpoint_seconds can't both be 0")
        if monitor is not None and (not isinstance(monitor, str) or not monitor):
            raise ValueError(f"CheckpointConfig: monitor must be a name or None, got {monitor!r}")
        if monitor is not None and not keep_checkpoint_max:
            raise ValueError("CheckpointConfig: monitor keeps the best keep_checkpoint_max files; it must be >= 1")
        if mode not in ("min", "max"):
            raise ValueError(f"CheckpointConfig: mode must be 'min' or 'max', got {mode!r}")
        if saved_network is not None and not isinstance(saved_network, Cell):
            raise TypeError(f"CheckpointConfig: saved_network must be a Cell, got {type(saved_network).__name__}")
        for name, value in (("integrated_save", integrated_save), ("exception_save", exception_save),
                            ("crc_check", crc_check), ("remove_redundancy", remove_redundancy)):
            if not isinstance(value, bool):
                raise TypeError(f"CheckpointConfig: {name} must be a bool, got {type(value).__name__}")
        if not isinstance(async_save, (bool, str)) or (isinstance(async_save, str) and
                                                       async_save not in ("thread", "process")):
            raise ValueError(f"CheckpointConfig: async_save must be a bool, 'thread' or 'process', got {async_save!r}")
        if not isinstance(enc_mode, str):
            raise TypeError(f"CheckpointConfig: enc_mode must be a str, got {type(enc_mode).__name__}")
        if format not in FORMATS:
            raise ValueError(f"CheckpointConfig: format must be one of {', '.join(map(repr, FORMATS))}, "
                             f"got {format!r}")
        if format == "safetensors" and (enc_key is not None or enc_mode != "AES-GCM" or crc_check or exception_save):
            raise ValueError("CheckpointConfig: when format is 'safetensors', enc_key, enc_mode, crc_check and "
                             "exception_save must be left at their defaults (MindSpore's rule)")
        _refuse_encryption("CheckpointConfig", "enc_key", enc_key)
        if exception_save:
            raise CheckpointError("CheckpointConfig: exception_save=True (a checkpoint written when training raises) "
                                  "is not supported by msx yet; save in a try/except around Model.train instead")
        if remove_redundancy:
            raise CheckpointError("CheckpointConfig: remove_redundancy=True is not supported by msx (msx's "
                                  "load_checkpoint does not redistribute deduplicated slices)")
        unknown = set(kwargs) - {"incremental", "enable_redundance"}
        if unknown:
            raise TypeError(f"CheckpointConfig() got unexpected keyword arguments {sorted(unknown)}")
        if any(kwargs.values()):
            raise CheckpointError(f"CheckpointConfig: {', '.join(k for k, v in kwargs.items() if v)} (MapParameter "
                                  f"incremental saves, AITurbo redundancy) is not supported by msx")
        self.save_checkpoint_steps = save_checkpoint_steps
        self.save_checkpoint_seconds = 0 if save_checkpoint_steps else save_checkpoint_seconds
        # MindSpore's rule: keep_checkpoint_max wins; with neither, one file is kept
        self.keep_checkpoint_per_n_minutes = 0 if keep_checkpoint_max else keep_checkpoint_per_n_minutes
        self.keep_checkpoint_max = keep_checkpoint_max or (0 if keep_checkpoint_per_n_minutes else 1)
        self.integrated_save, self.async_save, self.crc_check = integrated_save, async_save, crc_check
        self.enc_key, self.enc_mode, self.exception_save = enc_key, enc_mode, exception_save
        self.remove_redundancy, self.format = remove_redundancy, format
        self.saved_network = saved_network
        self.append_info = _check_append_info(append_info)
        self.monitor, self.mode = monitor, mode

    @property
    def suffix(self) -> str:
        """The files' extension: MindSpore's `.<format>`; msx's own format keeps `.ckpt`."""
        return ".safetensors" if self.format == "safetensors" else ".ckpt"

    @property
    def saves_after_validation(self) -> bool:
        return self.monitor is not None and self.monitor != "loss"


def _check_append_info(info: list | None) -> list:
    items = list(info or [])
    for item in items:
        ok = item in ("epoch_num", "step_num") or (isinstance(item, dict) and all(
            isinstance(k, str) and isinstance(v, (int, float)) and not isinstance(v, bool) for k, v in item.items()))
        if not ok:
            raise ValueError(f"CheckpointConfig: append_info holds 'epoch_num', 'step_num' or dicts of str -> number, "
                             f"got {item!r}")
    return items


class ModelCheckpoint(Callback):
    """MindSpore's `ModelCheckpoint(prefix='CKP', directory=None, config=None)`; see `CheckpointConfig`.

    `latest_ckpt_file_name` is the last file written; with a `monitor`,
    `best_ckpt_file_name` is the best kept one. A final checkpoint is written
    when training ends (unless the last step was just saved or a validation
    result is monitored).
    """

    def __init__(self, prefix: str = "CKP", directory: str | os.PathLike | None = None,
                 config: CheckpointConfig | None = None) -> None:
        if not isinstance(prefix, str) or not prefix or "/" in prefix or os.sep in prefix:
            raise ValueError(f"ModelCheckpoint: prefix must be a non-empty file-name prefix, got {prefix!r}")
        if config is not None and not isinstance(config, CheckpointConfig):
            raise TypeError(f"ModelCheckpoint: config must be a CheckpointConfig, got {type(config).__name__}")
        self._prefix = prefix
        self._directory = os.fspath(directory) if directory is not None else os.getcwd()
        self._config = config or CheckpointConfig()
        self._kept: list[tuple[float, str]] = []  # (monitored value or save order, path)
        self._latest: str | None = None
        self._last_saved_step = -1
        self._last_save_time = 0.0
        self._pending_losses: list = []
        self._file_prefix = prefix
        self._saved_at: dict[str, float] = {}  # path -> wall time it was saved (keep_checkpoint_per_n_minutes)

    @property
    def latest_ckpt_file_name(self) -> str | None:
        return self._latest

    @property
    def best_ckpt_file_name(self) -> str | None:
        if self._config.monitor is None or not self._kept:
            return None
        return self._kept[0][1]

    # ------------------------------------------------------------ hooks
    def on_train_begin(self, run_context: RunContext) -> None:
        os.makedirs(self._directory, exist_ok=True)
        self._file_prefix = self._free_prefix()
        self._kept, self._latest, self._pending_losses, self._saved_at = [], None, [], {}
        self._last_saved_step = -1
        self._last_save_time = time.monotonic()

    def on_train_step_end(self, run_context: RunContext) -> None:
        config = self._config
        if config.saves_after_validation:
            return
        cb = run_context.original_args()
        if config.monitor == "loss":
            loss = loss_tensor(cb.net_outputs)
            if loss is not None:
                self._pending_losses.append(loss)
        due = (cb.cur_step_num % config.save_checkpoint_steps == 0 if config.save_checkpoint_steps
               else time.monotonic() - self._last_save_time >= config.save_checkpoint_seconds)
        if due:
            self._save(cb)

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        cb = run_context.original_args()
        if not self._config.saves_after_validation or cb.get("eval_epoch") != cb.cur_epoch_num:
            return
        results = cb.get("eval_results") or {}
        if self._config.monitor not in results:
            raise ValueError(f"ModelCheckpoint: monitor {self._config.monitor!r} is not among the validation results "
                             f"{sorted(results)}")
        self._save(cb, float(results[self._config.monitor]))

    def on_train_end(self, run_context: RunContext) -> None:
        cb = run_context.original_args()
        if not self._config.saves_after_validation and cb.cur_step_num != self._last_saved_step \
                and cb.cur_step_num > 0:
            self._save(cb)
        if self._config.async_save:
            wait_async_save()  # as MindSpore's end(): the last file is complete when training returns

    # ------------------------------------------------------------ saving
    def _free_prefix(self) -> str:
        """The prefix, or prefix_N if files of an earlier run already use it (MindSpore's rule)."""
        prefix, n = self._prefix, 0
        def used(prefix: str) -> bool:
            return any(glob.glob(os.path.join(glob.escape(self._directory), glob.escape(prefix) + f"-*{suffix}"))
                       for suffix in (".ckpt", ".safetensors"))

        while used(prefix):
            n += 1
            prefix = f"{self._prefix}_{n}"
        return prefix

    def _monitored(self, cb) -> float:
        if self._config.monitor is None:
            return float(cb.cur_step_num)
        losses, self._pending_losses = self._pending_losses, []
        if not losses:
            return math.nan
        return float(np.mean([np.mean(t.asnumpy()) for t in losses]))

    def _save(self, cb, value: float | None = None) -> None:
        config = self._config
        self._last_saved_step = cb.cur_step_num
        self._last_save_time = time.monotonic()
        value = self._monitored(cb) if value is None else value
        ranked = config.monitor is not None
        if ranked and len(self._kept) >= config.keep_checkpoint_max and not self._better(value, self._kept[-1][0]):
            return  # not among the best N: nothing to write
        step_in_epoch = (cb.cur_step_num - 1) % cb.batch_num + 1
        path = os.path.join(self._directory,
                            f"{self._file_prefix}-{cb.cur_epoch_num}_{step_in_epoch}{config.suffix}")
        network = config.saved_network or cb.train_network
        if config.async_save:
            wait_async_save()  # the previous file is complete before any file is removed (its error raised here)
        if config.keep_checkpoint_per_n_minutes:
            self._keep_one_per_window(time.time())
        save_checkpoint(network, path, config.integrated_save, config.async_save,
                        append_dict=self._append_dict(cb) or None, crc_check=config.crc_check, format=config.format)
        self._latest = path
        self._kept = [(v, p) for v, p in self._kept if p != path] + [(value, path)]
        self._saved_at[path] = time.time()
        if not config.keep_checkpoint_max:  # one file per N minutes: _keep_one_per_window prunes
            return
        if ranked:
            self._kept.sort(key=lambda vp: -vp[0] if config.mode == "max" else vp[0])
        while len(self._kept) > config.keep_checkpoint_max:
            _, dropped = self._kept.pop(-1 if ranked else 0)
            try:
                os.remove(dropped)
            except FileNotFoundError:
                pass

    def _keep_one_per_window(self, now: float) -> None:
        """MindSpore's keep_checkpoint_per_n_minutes: of the files saved in the last N minutes, keep the oldest."""
        window = self._config.keep_checkpoint_per_n_minutes * 60
        recent = sorted((t, p) for p, t in self._saved_at.items() if now - t < window)
        for _, dropped in recent[1:]:
            self._kept = [(v, p) for v, p in self._kept if p != dropped]
            del self._saved_at[dropped]
            try:
                os.remove(dropped)
            except FileNotFoundError:
                pass

    def _better(self, value: float, than: float) -> bool:
        if math.isnan(value):
            return False
        return value > than if self._config.mode == "max" else value < than

    def _append_dict(self, cb) -> dict[str, Any]:
        extra: dict[str, Any] = {}
        for item in self._config.append_info:
            if item == "epoch_num":
                extra["epoch_num"] = int(cb.cur_epoch_num)
            elif item == "step_num":
                extra["step_num"] = int(cb.cur_step_num)
            else:
                extra.update(item)
        return extra
