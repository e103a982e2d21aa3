"""MindSpore's `dataset.config`: the seed of dataset shuffling and the prefetch depth.

Shuffling is reproducible when a seed is known when the dataset is built:
`msx.dataset.config.set_seed(seed)` if it was called, else the global
`msx.set_seed(seed)` (MindSpore needs both calls; msx honours either). With
neither, every run shuffles differently.
"""
from __future__ import annotations

import secrets

from ..errors import DatasetError

_seed: int | None = None
_prefetch_size = 16


def set_seed(seed: int) -> None:
    """Seed the shuffling of datasets built from now on (overrides the global `msx.set_seed` for datasets)."""
    global _seed
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2 ** 32:
        raise DatasetError(f"dataset.config.set_seed: seed must be an int in [0, 2**32), got {seed!r}")
    _seed = seed


def get_seed() -> int | None:
    """The dataset seed: `dataset.config.set_seed`'s, else `msx.set_seed`'s, else None (unseeded)."""
    if _seed is not None:
        return _seed
    from ..context import get_seed as global_seed

    return global_seed()


def shuffle_seed() -> int:
    """The seed a shuffling step built now uses: the configured one, or a fresh random one."""
    seed = get_seed()
    return seed if seed is not None else secrets.randbits(32)


def set_prefetch_size(size: int) -> None:
    """How many rows or batches each iterator prepares ahead in its background thread."""
    global _prefetch_size
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise DatasetError(f"dataset.config.set_prefetch_size: size must be a positive int, got {size!r}")
    _prefetch_size = size


def get_prefetch_size() -> int:
    return _prefetch_size
