"""Mixing augmentations over a batch of images and their one-hot labels: MixUp (Zhang et al.) and CutMix (Yun et
al.). Use them after `batch` (`dataset.batch(n).map([vision.MixUpBatch()], ["image", "label"])`); the mixing
weight is drawn from Beta(alpha, alpha) by `_random.rng()`, so MindSpore's own draws are not reproduced, only
its rules: the labels are mixed with the same weight as the pixels (for CutMix: the pasted area's share)."""
from __future__ import annotations

import enum
import math
from typing import Any

import numpy as np

from ...errors import DatasetError
from .. import _random
from .core import ImageTensorOperation, check_prob


class ImageBatchFormat(enum.IntEnum):
    """The layout of an image batch: NHWC or NCHW."""

    NHWC = 0
    NCHW = 1


def _alpha(op: str, alpha: Any) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or alpha <= 0:
        raise DatasetError(f"{op}: alpha must be a positive number, got {alpha!r}")
    return float(alpha)


def _batch(op: str, images: Any, labels: Any) -> tuple[np.ndarray, np.ndarray]:
    images, labels = np.asarray(images), np.asarray(labels)
    if images.ndim != 4:
        raise DatasetError(f"{op}: expected a batch of images <N, H, W, C> or <N, C, H, W> (use it after batch), "
                           f"got shape {list(images.shape)}")
    if labels.ndim not in (2, 3) or labels.shape[0] != images.shape[0]:
        raise DatasetError(f"{op}: expected one-hot labels <N, num_classes> (or <N, L, num_classes>) for the "
                           f"{images.shape[0]} images (apply OneHot first), got shape {list(labels.shape)}")
    if labels.dtype.kind not in "iuf":
        raise DatasetError(f"{op}: labels must be numbers, got dtype {labels.dtype}")
    return images, labels


def _cast(mixed: np.ndarray, like: np.ndarray) -> np.ndarray:
    if like.dtype.kind in "iu":
        info = np.iinfo(like.dtype)
        return np.clip(mixed, info.min, info.max).astype(like.dtype)
    return mixed.astype(like.dtype)


def _label_dtype(labels: np.ndarray) -> Any:
    return labels.dtype if labels.dtype.kind == "f" else np.float32


class MixUpBatch(ImageTensorOperation):
    """`lam * batch + (1 - lam) * shuffled batch` for images and labels alike, `lam ~ Beta(alpha, alpha)` once per
    batch."""

    uses_rng = True

    def __init__(self, alpha: float = 1.0) -> None:
        self.alpha = _alpha("MixUpBatch", alpha)

    def __call__(self, images: Any, labels: Any) -> tuple[np.ndarray, np.ndarray]:
        images, labels = _batch("MixUpBatch", images, labels)
        rng = _random.rng()
        lam = float(rng.beta(self.alpha, self.alpha))
        perm = rng.permutation(images.shape[0])
        mixed = lam * images.astype(np.float64) + (1 - lam) * images[perm].astype(np.float64)
        out_labels = lam * labels.astype(np.float64) + (1 - lam) * labels[perm].astype(np.float64)
        return _cast(mixed, images), out_labels.astype(_label_dtype(labels))


class CutMixBatch(ImageTensorOperation):
    """For each image, with probability `prob`: paste a box from another image of the batch (its sides
    `sqrt(1 - lam)` of the image's, `lam ~ Beta(alpha, alpha)`, centred at random and clipped), and mix the labels
    by the pasted area's share."""

    uses_rng = True

    def __init__(self, image_batch_format: ImageBatchFormat, alpha: float = 1.0, prob: float = 1.0) -> None:
        try:
            self.image_batch_format = ImageBatchFormat(image_batch_format)
        except ValueError:
            raise DatasetError(f"CutMixBatch: image_batch_format must be a vision.ImageBatchFormat, got "
                               f"{image_batch_format!r}") from None
        self.alpha = _alpha("CutMixBatch", alpha)
        self.prob = check_prob("CutMixBatch", prob)

    def __call__(self, images: Any, labels: Any) -> tuple[np.ndarray, np.ndarray]:
        images, labels = _batch("CutMixBatch", images, labels)
        nhwc = images if self.image_batch_format == ImageBatchFormat.NHWC else images.transpose(0, 2, 3, 1)
        out = nhwc.copy()
        out_labels = labels.astype(_label_dtype(labels))
        n, h, w = nhwc.shape[:3]
        rng = _random.rng()
        perm = rng.permutation(n)
        for i in range(n):
            if rng.random() >= self.prob:
                continue
            cut = math.sqrt(1 - float(rng.beta(self.alpha, self.alpha)))
            ch, cw = int(h * cut), int(w * cut)
            cy, cx = int(rng.integers(0, h)), int(rng.integers(0, w))
            y0, y1 = max(cy - ch // 2, 0), min(cy + ch // 2, h)
            x0, x1 = max(cx - cw // 2, 0), min(cx + cw // 2, w)
            out[i, y0:y1, x0:x1] = nhwc[perm[i], y0:y1, x0:x1]
            share = (y1 - y0) * (x1 - x0) / (h * w)
            out_labels[i] = (1 - share) * labels[i] + share * labels[perm[i]]
        if self.image_batch_format == ImageBatchFormat.NCHW:
            out = out.transpose(0, 3, 1, 2)
        return np.ascontiguousarray(out), out_labels


class MixUp(ImageTensorOperation):
    """MindSpore's Python MixUp over a batch of `batch_size`: each image i gets its own `lam_i ~ Beta(alpha,
    alpha)`; `is_single=True` mixes image i with image i + 1 of the same batch (the last with the first), False
    with image i of the previous batch (the first batch passes unchanged). Results are float64, as MindSpore's."""

    uses_rng = True

    def __init__(self, batch_size: int, alpha: float, is_single: bool = True) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise DatasetError(f"MixUp: batch_size must be a positive int, got {batch_size!r}")
        self.batch_size, self.alpha, self.is_single = batch_size, _alpha("MixUp", alpha), bool(is_single)
        self._previous: tuple[np.ndarray, np.ndarray] | None = None

    def __call__(self, image: Any, label: Any) -> tuple[np.ndarray, np.ndarray]:
        image, label = _batch("MixUp", image, label)
        if image.shape[0] != self.batch_size:
            raise DatasetError(f"MixUp: expected batches of {self.batch_size}, got {image.shape[0]} images")
        lam = _random.rng().beta(self.alpha, self.alpha, self.batch_size)
        if self.is_single:
            other_image, other_label = np.roll(image, -1, axis=0), np.roll(label, -1, axis=0)
        else:
            if self._previous is None:
                lam = np.ones(self.batch_size)
                other_image, other_label = image, label
            else:
                other_image, other_label = self._previous
            self._previous = (image, label)
        li = lam.reshape(-1, 1, 1, 1)
        ll = lam.reshape((-1,) + (1,) * (label.ndim - 1))
        return li * image + (1 - li) * other_image, ll * label + (1 - ll) * other_label
