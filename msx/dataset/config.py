"""MindSpore's `dataset.config`: the dataset seed, the default worker count and the prefetch depth.

Shuffling and random transforms are reproducible when a seed is known when
the dataset is built: `msx.dataset.config.set_seed(seed)` if it was called,
else the global `msx.set_seed(seed)` (MindSpore needs both calls; msx honours
either). With neither, every run draws differently.
"""
from __future__ import annotations

import secrets

from ..errors import DatasetError

_seed: int | None = None
_prefetch_size = 16
_num_parallel_workers = 8  # MindSpore's default


def _check_positive(where: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise DatasetError(f"dataset.config.{where}: expected a positive int, got {value!r}")
    return value


def set_seed(seed: int) -> None:
    """Seed the shuffles and random transforms of datasets built from now on (overrides `msx.set_seed`)."""
    global _seed
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2 ** 32:
        raise DatasetError(f"dataset.config.set_seed: seed must be an int in [0, 2**32), got {seed!r}")
    _seed = seed
    from . import _random

    _random.reset_eager()


def get_seed() -> int | None:
    """The dataset seed: `dataset.config.set_seed`'s, else `msx.set_seed`'s, else None (unseeded)."""
    if _seed is not None:
        return _seed
    from ..context import get_seed as global_seed

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
