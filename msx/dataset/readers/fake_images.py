"""`FakeImageDataset`: random images and labels made on the fly, for trying a pipeline or a model without data."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import DatasetError
from ..pipeline import Row
from ..sources import MappableSource


class FakeImageDataset(MappableSource):
    """`num_images` random uint8 images of `image_size` with uint32 labels below `num_classes`, each made from
    `base_seed` and its index (the same every pass; MindSpore's values differ, its generator is C++'s)."""

    def __init__(self, num_images: int = 1000, image_size: Any = (224, 224, 3), num_classes: int = 10,
                 base_seed: int = 0, num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: bool | None = None, sampler: Any = None, num_shards: int | None = None,
                 shard_id: int | None = None, cache: Any = None) -> None:
        where = "FakeImageDataset"
        for name, v in (("num_images", num_images), ("num_classes", num_classes)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise DatasetError(f"{where}: {name} must be a positive int, got {v!r}")
        if not (isinstance(image_size, (list, tuple)) and len(image_size) == 3 and
                all(isinstance(s, int) and s > 0 for s in image_size)):
            raise DatasetError(f"{where}: image_size must be (height, width, channels) positive ints, got "
                               f"{image_size!r}")
        if isinstance(base_seed, bool) or not isinstance(base_seed, int) or base_seed < 0:
            raise DatasetError(f"{where}: base_seed must be a non-negative int, got {base_seed!r}")
        self._count, self._size, self._classes, self._base = num_images, tuple(image_size), num_classes, base_seed
        super().__init__(where, ["image", "label"], num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers)

    def _length(self) -> int:
        return self._count

    def _row(self, index: int) -> Row:
        rng = np.random.default_rng([self._base, index])
        return (rng.integers(0, 256, self._size, dtype=np.uint8),
                np.array(rng.integers(0, self._classes), np.uint32))
