"""Where random transforms draw from: a per-row generator inside a pipeline, a seeded one when called eagerly.

Inside `map`, every row gets its own `numpy.random.Generator` made from (the
map's seed, its place in the chain, the epoch key, the row index), so a
random crop of row 7 is the same with 1 worker or 4, run after run.
Called eagerly (`vision.RandomCrop(8)(img)`), a transform draws from one
generator seeded by the dataset seed when it is first used.
"""
from __future__ import annotations

import threading

import numpy as np

from . import config


class _RowSeed(threading.local):
    entropy: tuple | None = None
    rng: np.random.Generator | None = None


_row = _RowSeed()
_eager: np.random.Generator | None = None
_eager_generation = -1  # the config.seed_generation() _eager was seeded under


class row_scope:
    """`with row_scope(entropy):` makes random transforms of this thread draw from a generator of `entropy`."""

    def __init__(self, entropy: tuple) -> None:
        self.entropy = entropy

    def __enter__(self) -> None:
        self.saved = (_row.entropy, _row.rng)
        _row.entropy, _row.rng = self.entropy, None

    def __exit__(self, *exc) -> None:
        _row.entropy, _row.rng = self.saved


def rng() -> np.random.Generator:
    """The generator a random transform draws from now."""
    global _eager, _eager_generation
    if _row.entropy is not None:
        if _row.rng is None:
            _row.rng = np.random.default_rng(list(_row.entropy))
        return _row.rng
    if _eager is None or _eager_generation != config.seed_generation():  # first use, or a new seed was set
        _eager, _eager_generation = np.random.default_rng(config.shuffle_seed()), config.seed_generation()
    return _eager


def derive(*entropy: int) -> int:
    """A 32-bit seed from several ints (for grain's shuffles, which take one int)."""
    return int(np.random.SeedSequence(list(entropy)).generate_state(1)[0])
