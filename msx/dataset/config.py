"""MindSpore's `dataset.config`: the dataset seed, the default worker count and the prefetch depth.

Shuffling and random transforms are reproducible when a seed is known when
the dataset is built: `msx.dataset.config.set_seed(seed)` if it was called,
else the global `msx.set_seed(seed)` (MindSpore needs both calls; msx honours
either). With neither, every run draws differently.
"""
from __future__ import annotations

import enum
import secrets
from typing import Any

from ..context import get_seed as global_seed
from ..errors import DatasetError
from ..ignored_args import not_honoured

_seed: int | None = None
_seed_generation = 0
_prefetch_size = 16
_num_parallel_workers = 8  # MindSpore's default


def _check_positive(where: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise DatasetError(f"dataset.config.{where}: expected a positive int, got {value!r}")
    return value


def set_seed(seed: int) -> None:
    """Seed the shuffles and random transforms of datasets built from now on (overrides `msx.set_seed`)."""
    global _seed, _seed_generation
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2 ** 32:
        raise DatasetError(f"dataset.config.set_seed: seed must be an int in [0, 2**32), got {seed!r}")
    _seed, _seed_generation = seed, _seed_generation + 1


def seed_generation() -> int:
    """How many times `set_seed` was called: the eager generator of `_random` starts over when it changes."""
    return _seed_generation


def get_seed() -> int | None:
    """The dataset seed: `dataset.config.set_seed`'s, else `msx.set_seed`'s, else None (unseeded)."""
    if _seed is not None:
        return _seed
    return global_seed()


def shuffle_seed() -> int:
    """The seed a shuffling or random step built now uses: the configured one, or a fresh random one."""
    seed = get_seed()
    return seed if seed is not None else secrets.randbits(32)


def set_prefetch_size(size: int) -> None:
    """How many rows or batches each iterator prepares ahead of the consumer."""
    global _prefetch_size
    _prefetch_size = _check_positive("set_prefetch_size", size)


def get_prefetch_size() -> int:
    return _prefetch_size


def set_num_parallel_workers(num: int) -> None:
    """The worker threads of a pipeline whose steps name no `num_parallel_workers` (MindSpore's default: 8)."""
    global _num_parallel_workers
    _num_parallel_workers = _check_positive("set_num_parallel_workers", num)


def get_num_parallel_workers() -> int:
    return _num_parallel_workers


_callback_timeout = 60  # MindSpore's default, seconds


def set_callback_timeout(timeout: int) -> None:
    """Seconds a `sync_wait` (or a `WaitedDSCallback`) waits for its release before it warns and stops waiting
    (MindSpore's deadlock guard; default 60)."""
    global _callback_timeout
    _callback_timeout = _check_positive("set_callback_timeout", timeout)


def get_callback_timeout() -> int:
    return _callback_timeout


# ---- the switches of MindSpore's dataset engine that msx's in-process grain pipeline has no use for: each is
# kept (its getter answers what was set), a value msx cannot act on warns (not_honoured) or is refused

_settings: dict[str, Any] = {"debug_mode": False, "enable_watchdog": True, "multiprocessing_timeout_interval": 300,
                             "multiprocessing_start_method": "fork", "video_backend": "CPU"}


class ErrorSamplesMode(enum.IntEnum):
    """What a pipeline does with a sample whose transform fails: RETURN raises (msx's only mode); REPLACE and SKIP
    are refused by `set_error_samples_mode`."""

    RETURN = 0
    REPLACE = 1
    SKIP = 2


_error_samples_mode = ErrorSamplesMode.RETURN


def set_debug_mode(debug_mode_flag: bool, debug_hook_list: Any = None) -> None:
    """MindSpore's debug mode (one thread, debug hooks between ops): msx runs the pipeline's Python in this
    process already, so the flag is kept and hooks are refused."""
    if not isinstance(debug_mode_flag, bool):
        raise DatasetError(f"set_debug_mode: debug_mode_flag must be True or False, got {debug_mode_flag!r}")
    if debug_hook_list:
        raise DatasetError("set_debug_mode: debug_hook_list (DebugHook objects) is not supported by msx")
    not_honoured("set_debug_mode", "debug_mode_flag", debug_mode_flag, False,
                 "msx's pipeline keeps its threads; set num_parallel_workers=1 to step through it")
    _settings["debug_mode"] = debug_mode_flag


def get_debug_mode() -> bool:
    return bool(_settings["debug_mode"])


def set_enable_watchdog(enable: bool) -> None:
    """MindSpore's watchdog kills hung worker processes; msx's grain workers are threads, so there is none."""
    if not isinstance(enable, bool):
        raise DatasetError(f"set_enable_watchdog: enable must be True or False, got {enable!r}")
    _settings["enable_watchdog"] = enable


def get_enable_watchdog() -> bool:
    return bool(_settings["enable_watchdog"])


def set_multiprocessing_timeout_interval(interval: int) -> None:
    """How often MindSpore warns of a slow worker process (seconds); kept for the getter (msx has no such warning)."""
    _settings["multiprocessing_timeout_interval"] = _check_positive("set_multiprocessing_timeout_interval", interval)


def get_multiprocessing_timeout_interval() -> int:
    return int(_settings["multiprocessing_timeout_interval"])


def set_multiprocessing_start_method(start_method: str = "fork") -> None:
    """The start method of MindSpore's worker processes ('fork', 'spawn'); msx's python_multiprocessing workers
    start as grain starts them, so another method warns."""
    if start_method not in ("fork", "spawn"):
        raise DatasetError(f"set_multiprocessing_start_method: start_method must be 'fork' or 'spawn', got "
                           f"{start_method!r}")
    not_honoured("set_multiprocessing_start_method", "start_method", start_method, "fork", "grain's start method")
    _settings["multiprocessing_start_method"] = start_method


def get_multiprocessing_start_method() -> str:
    return str(_settings["multiprocessing_start_method"])


def set_video_backend(backend: str) -> None:
    """The video decoder: 'CPU' (msx decodes on the host); 'Ascend' is refused."""
    if backend != "CPU":
        raise DatasetError(f"set_video_backend: backend {backend!r} is not supported by msx; 'CPU' is")
    _settings["video_backend"] = backend


def get_video_backend() -> str:
    return str(_settings["video_backend"])


def set_error_samples_mode(error_samples_mode: ErrorSamplesMode) -> None:
    """Only ErrorSamplesMode.RETURN (a failing sample raises): msx does not replace or skip failing samples."""
    if not isinstance(error_samples_mode, ErrorSamplesMode):
        raise DatasetError(f"set_error_samples_mode: expected an ErrorSamplesMode, got {error_samples_mode!r}")
    if error_samples_mode is not ErrorSamplesMode.RETURN:
        raise DatasetError(f"set_error_samples_mode: {error_samples_mode} is not supported by msx; a failing sample "
                           f"raises (ErrorSamplesMode.RETURN)")
    global _error_samples_mode
    _error_samples_mode = error_samples_mode


def get_error_samples_mode() -> ErrorSamplesMode:
    return _error_samples_mode
