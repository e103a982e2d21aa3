"""MindSpore's samplers: which rows of a random-access source one pass reads, and in which order.

A sampler turns (the source's length, a per-pass seed) into a grain
`MapDataset` of row indices; the source maps it to rows. Random orders are
grain's global shuffles (`MapDataset.shuffle`), drawn anew every pass;
draws with replacement or by weight use numpy's generator from the same seed.

`DistributedSampler(num_shards, shard_id)` is what `num_shards`/`shard_id`
on a source build: shard k reads rows k, k + num_shards, ... of the (shuffled)
order, the order padded from its start to a multiple of num_shards so every
shard has ceil(n / num_shards) rows — MindSpore's layout, so the shards are
disjoint and cover the data when num_shards divides it.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Sequence

import grain
import numpy as np

from ..errors import DatasetError

M = grain.MapDataset
Labels = Callable[[str], np.ndarray]  # column name -> that column of every row


def _positive_or_none(where: str, name: str, value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise DatasetError(f"{where}: {name} must be a non-negative int or None, got {value!r}")
    return int(value) or None  # MindSpore: 0 means all


class Sampler:
    """Base of every sampler; subclass it and define `__iter__` (yielding row indices) for your own.

    A user sampler sees the source's length as `self.dataset_size` and may
    limit itself with `num_samples`.
    """

    def __init__(self, num_samples: int | None = None) -> None:
        self.num_samples = _positive_or_none(type(self).__name__, "num_samples", num_samples)
        self.dataset_size = 0

    def __iter__(self):
        raise DatasetError(f"{type(self).__name__}: a user sampler must define __iter__ yielding row indices")

    # A user sampler's `__init__` need not call this one (MindSpore's documented examples do not always):
    num_samples: int | None = None
    dataset_size = 0

    def get_num_samples(self) -> int | None:
        return self.num_samples

    def _limit(self, count: int) -> int:
        limit = _positive_or_none(type(self).__name__, "num_samples", self.num_samples)
        return count if limit is None else min(count, limit)

    def _count(self, n: int) -> int:
        """How many indices one pass yields over a source of `n` rows."""
        return self._limit(len(self._user_indices(n)))

    def _count_by_labels(self, n: int, labels: Labels) -> int:
        """`_count`, for the samplers whose count depends on a column (PKSampler)."""
        return self._count(n)

    def _yielded(self) -> Iterable:
        return iter(self)

    def _user_indices(self, n: int) -> list[int]:
        self.dataset_size = n
        try:
            indices = list(self._yielded())
        except DatasetError:
            raise
        except Exception as exc:
            raise DatasetError(f"{type(self).__name__}: iterating the sampler failed: {type(exc).__name__}: "
                               f"{exc}") from exc
        wrong = [i for i in indices if isinstance(i, bool) or not isinstance(i, (int, np.integer))]
        if wrong:
            raise DatasetError(f"{type(self).__name__}: a sampler yields row indices of type int, got "
                               f"{type(wrong[0]).__name__} {wrong[0]!r} (MindSpore refuses it too)")
        indices = [int(i) for i in indices]
        bad = [i for i in indices if not 0 <= i < n]
        if bad:
            raise DatasetError(f"{type(self).__name__}: yielded indices {bad[:5]} outside the source's {n} rows")
        return indices

    def _indices(self, n: int, seed: int, labels: Labels) -> M:
        indices = self._user_indices(n)  # once: a user's `__iter__` may differ every call
        return M.source(np.asarray(indices[:self._limit(len(indices))], np.int64))


class IterSampler(Sampler):
    """Any iterable of row indices given as `sampler=` (MindSpore wraps it the same way): read anew every pass,
    so a list repeats and a one-shot iterator yields its indices in the first pass only."""

    def __init__(self, sampler: Iterable, num_samples: int | None = None) -> None:
        super().__init__(num_samples)
        self.sampler = sampler

    def _yielded(self) -> Iterable:
        return iter(self.sampler)


class BuiltinSampler(Sampler):
    """A sampler msx knows how to draw from without calling `__iter__`."""

    def __iter__(self):
        return iter(self._indices(self.dataset_size, 0, _no_labels))


def _no_labels(column: str) -> np.ndarray:
    raise DatasetError(f"this source has no column {column!r} to sample by")


class SequentialSampler(BuiltinSampler):
    """Rows `start_index`, `start_index + 1`, ... in order."""

    def __init__(self, start_index: int | None = None, num_samples: int | None = None) -> None:
        super().__init__(num_samples)
        self.start_index = _positive_or_none("SequentialSampler", "start_index", start_index) or 0

    def _count(self, n: int) -> int:
        if self.start_index >= max(n, 1):
            raise DatasetError(f"SequentialSampler: start_index {self.start_index} is not below the source's "
                               f"{n} rows")
        return self._limit(n - self.start_index)

    def _indices(self, n: int, seed: int, labels: Labels) -> M:
        return M.range(self.start_index, self.start_index + self._count(n))


class RandomSampler(BuiltinSampler):
    """A new random order every pass; `replacement=True` draws rows independently (repeats possible)."""

    def __init__(self, replacement: bool = False, num_samples: int | None = None, shuffle: Any = None) -> None:
        super().__init__(num_samples)
        if not isinstance(replacement, bool):
            raise DatasetError(f"RandomSampler: replacement must be True or False, got {replacement!r}")
        self.replacement = replacement

    def _count(self, n: int) -> int:
        return self.num_samples if self.replacement and self.num_samples else self._limit(n)

    def _indices(self, n: int, seed: int, labels: Labels) -> M:
        if self.replacement:
            return M.source(np.random.default_rng(seed).integers(0, n, self._count(n)))
        return M.range(n).shuffle(seed).slice(slice(0, self._count(n)))


class DistributedSampler(BuiltinSampler):
    """Shard `shard_id` of `num_shards`: every num_shards-th row of the (shuffled) order, padded to equal shards."""

    def __init__(self, num_shards: int, shard_id: int, shuffle: bool = True, num_samples: int | None = None,
                 offset: int = -1) -> None:
        super().__init__(num_samples)
        check_shards("DistributedSampler", num_shards, shard_id)
        if not isinstance(shuffle, bool):
            raise DatasetError(f"DistributedSampler: shuffle must be True or False, got {shuffle!r}")
        if offset != -1:
            raise DatasetError("DistributedSampler: offset (the shard layout of a concatenated dataset) is not "
                               "supported by msx; shard each dataset before concat")
        self.num_shards, self.shard_id, self.shuffle = num_shards, shard_id, shuffle

    def _count(self, n: int) -> int:
        return self._limit(-(-n // self.num_shards))

    def _indices(self, n: int, seed: int, labels: Labels) -> M:
        order = M.range(n).shuffle(seed) if self.shuffle else M.range(n)
        per_shard = -(-n // self.num_shards)
        pad = per_shard * self.num_shards - n
        if pad:
            order = M.concatenate([order] + [order.slice(slice(0, min(pad, n)))] * (-(-pad // n)))
        shard = order.slice(slice(self.shard_id, per_shard * self.num_shards, self.num_shards))
        return shard.slice(slice(0, self._count(n)))


class SubsetSampler(BuiltinSampler):
    """The rows at `indices`, in that order."""

    def __init__(self, indices: Iterable[int], num_samples: int | None = None) -> None:
        super().__init__(num_samples)
        self.indices = _index_list(type(self).__name__, indices)

    def _count(self, n: int) -> int:
        bad = [i for i in self.indices if not -n <= i < n]
        if bad:
            raise DatasetError(f"{type(self).__name__}: indices {bad[:5]} are outside the source's {n} rows")
        return self._limit(len(self.indices))

    def _indices(self, n: int, seed: int, labels: Labels) -> M:
        chosen = np.asarray(self.indices, np.int64) % max(n, 1)
        return M.source(chosen).slice(slice(0, self._count(n)))


class SubsetRandomSampler(SubsetSampler):
    """The rows at `indices`, in a new random order every pass."""

    def _indices(self, n: int, seed: int, labels: Labels) -> M:
        chosen = np.asarray(self.indices, np.int64) % max(n, 1)
        return M.source(chosen).shuffle(seed).slice(slice(0, self._count(n)))


class WeightedRandomSampler(BuiltinSampler):
    """`num_samples` rows drawn with probability proportional to `weights` (one weight per row)."""

    def __init__(self, weights: Sequence[float], num_samples: int | None = None, replacement: bool = True) -> None:
        super().__init__(num_samples)
        w = np.asarray(weights, np.float64)
        if w.ndim != 1 or not len(w) or (w < 0).any() or not np.isfinite(w).all() or w.sum() <= 0:
            raise DatasetError(f"WeightedRandomSampler: weights must be a non-empty list of non-negative numbers "
                               f"with a positive sum, got {weights!r}")
        self.weights, self.replacement = w, bool(replacement)

    def _count(self, n: int) -> int:
        count = self.num_samples or len(self.weights)
        if not self.replacement and count > np.count_nonzero(self.weights):
            raise DatasetError(f"WeightedRandomSampler: {count} samples without replacement need as many rows of "
                               f"non-zero weight; there are {np.count_nonzero(self.weights)}")
        return count

    def _indices(self, n: int, seed: int, labels: Labels) -> M:
        if len(self.weights) > n:
            raise DatasetError(f"WeightedRandomSampler: {len(self.weights)} weights for a source of {n} rows")
        rng = np.random.default_rng(seed)
        p = self.weights / self.weights.sum()
        return M.source(rng.choice(len(p), self._count(n), replace=self.replacement, p=p))


class PKSampler(BuiltinSampler):
    """`num_val` rows of every class (by `class_column`), classes in ascending order; repeats a short class."""

    def __init__(self, num_val: int, num_class: int | None = None, shuffle: bool = False,
                 class_column: str = "label", num_samples: int | None = None) -> None:
        super().__init__(num_samples)
        if isinstance(num_val, bool) or not isinstance(num_val, int) or num_val < 1:
            raise DatasetError(f"PKSampler: num_val must be a positive int, got {num_val!r}")
        if num_class is not None:
            raise DatasetError("PKSampler: num_class is not supported (MindSpore does not support it either)")
        self.num_val, self.shuffle, self.class_column = num_val, bool(shuffle), class_column

    def _chosen(self, labels: Labels, seed: int) -> np.ndarray:
        classes = np.asarray(labels(self.class_column)).reshape(-1)
        rng = np.random.default_rng(seed)
        picks = []
        for c in np.unique(classes):
            rows = np.flatnonzero(classes == c)
            if len(rows) >= self.num_val:
                picks.append(rng.permutation(rows)[:self.num_val] if self.shuffle else rows[:self.num_val])
            else:
                picks.append(rng.choice(rows, self.num_val) if self.shuffle else np.resize(rows, self.num_val))
        order = np.concatenate(picks) if picks else np.zeros(0, np.int64)
        return rng.permutation(order) if self.shuffle else order

    def _count(self, n: int) -> int:
        raise DatasetError("PKSampler: the row count depends on the labels of its source; ask the dataset "
                           "(get_dataset_size) rather than the sampler")

    def _count_by_labels(self, n: int, labels: Labels) -> int:
        classes = np.unique(np.asarray(labels(self.class_column)).reshape(-1))
        return self._limit(len(classes) * self.num_val)

    def _indices(self, n: int, seed: int, labels: Labels) -> M:
        chosen = self._chosen(labels, seed)
        return M.source(chosen[:self._limit(len(chosen))])


def _index_list(where: str, indices: Any) -> list[int]:
    try:
        values = [i for i in indices]
    except TypeError:
        raise DatasetError(f"{where}: indices must be a list of ints, got {indices!r}") from None
    if not all(isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in values):
        raise DatasetError(f"{where}: indices must be ints, got {values[:5]}")
    return [int(i) for i in values]


def check_shards(where: str, num_shards: Any, shard_id: Any) -> None:
    if isinstance(num_shards, bool) or not isinstance(num_shards, int) or num_shards < 1:
        raise DatasetError(f"{where}: num_shards must be a positive int, got {num_shards!r}")
    if isinstance(shard_id, bool) or not isinstance(shard_id, int) or not 0 <= shard_id < num_shards:
        raise DatasetError(f"{where}: shard_id must be an int in [0, num_shards={num_shards}), got {shard_id!r}")


def select_sampler(where: str, num_samples: Any, sampler: Any, shuffle: Any, num_shards: Any,
                   shard_id: Any) -> Sampler:
    """The sampler a source's arguments mean, by MindSpore's rules (and its errors for conflicting ones)."""
    if shuffle not in (None, True, False):
        raise DatasetError(f"{where}: shuffle must be True, False or None, got {shuffle!r}")
    if (num_shards is None) != (shard_id is None):
        raise DatasetError(f"{where}: num_shards and shard_id go together; got num_shards={num_shards!r}, "
                           f"shard_id={shard_id!r}")
    if sampler is not None:
        if shuffle is not None or num_shards is not None:
            raise DatasetError(f"{where}: sampler cannot be combined with shuffle or num_shards/shard_id; "
                               f"the sampler decides the order and the shard")
        if isinstance(sampler, Sampler):
            if num_samples is not None:
                raise DatasetError(f"{where}: give num_samples to the sampler, not with it")
            return sampler
        if isinstance(sampler, (list, tuple, np.ndarray, range)):
            return SubsetSampler(sampler, num_samples)
        if isinstance(sampler, Iterable) and not isinstance(sampler, (str, bytes, dict)):
            return IterSampler(sampler, num_samples)
        raise DatasetError(f"{where}: sampler must be an msx.dataset sampler, a list of indices or an iterable "
                           f"of them, got {type(sampler).__name__}")
    if num_shards is not None:
        check_shards(where, num_shards, shard_id)
        return DistributedSampler(num_shards, shard_id, shuffle is not False, num_samples)
    if shuffle is False:
        return SequentialSampler(num_samples=num_samples)
    return RandomSampler(num_samples=num_samples)
