"""Transforms of an image together with its bounding boxes (object detection): each is called as
`op(image, bboxes)` and returns `(image, bboxes)`.

Boxes are rows `[x, y, width, height, ...]` in pixels (float32; extra columns such as a label ride along); a
crop clips the boxes to it and drops those left with no overlap, as MindSpore's kernels do. The given box array is
never changed in place (MindSpore's is).
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ...errors import DatasetError
from .. import _random
from .core import Border, ImageTensorOperation, Inter, check_inter, check_prob, hwc
from .crops import RandomResize
from .geometry import RandomCrop, RandomResizedCrop, flip, crop, pad, resize, size_arg


def check_boxes(op: str, image: np.ndarray, bboxes: Any) -> np.ndarray:
    boxes = np.asarray(bboxes)
    if boxes.ndim != 2 or boxes.shape[1] < 4 or boxes.dtype.kind not in "iuf":
        raise DatasetError(f"{op}: bboxes must be a 2-D array of [x, y, width, height, ...] rows, got dtype "
                           f"{boxes.dtype} shape {list(boxes.shape)}")
    h, w = image.shape[:2]
    xywh = boxes[:, :4].astype(np.float64)
    if (xywh < 0).any() or (xywh[:, 0] + xywh[:, 2] > w + 1e-4).any() or (xywh[:, 1] + xywh[:, 3] > h + 1e-4).any():
        raise DatasetError(f"{op}: a bounding box lies outside the {h}x{w} image: {xywh.tolist()}")
    return boxes.astype(np.float32)


def crop_boxes(boxes: np.ndarray, top: int, left: int, height: int, width: int) -> np.ndarray:
    """The boxes in the coordinates of the crop, clipped to it; boxes without overlap dropped."""
    x0, y0 = boxes[:, 0] - left, boxes[:, 1] - top
    x1, y1 = x0 + boxes[:, 2], y0 + boxes[:, 3]
    keep = (x0 < width) & (y0 < height) & (x1 > 0) & (y1 > 0)
    out = boxes[keep].copy()
    cx0, cy0 = np.clip(x0[keep], 0, width), np.clip(y0[keep], 0, height)
    out[:, 0], out[:, 1] = cx0, cy0
    out[:, 2], out[:, 3] = np.clip(x1[keep], 0, width) - cx0, np.clip(y1[keep], 0, height) - cy0
    return out


def scale_boxes(boxes: np.ndarray, sx: float, sy: float) -> np.ndarray:
    out = boxes.copy()
    out[:, [0, 2]] *= np.float32(sx)
    out[:, [1, 3]] *= np.float32(sy)
    return out


def _resized(op: str, image: Any, boxes: Any, size: Any, inter: Inter) -> tuple[Any, np.ndarray]:
    array = hwc(image, op)
    boxes = check_boxes(op, array, boxes)
    out = resize(image, size, inter, op)
    h, w = array.shape[:2]
    nh, nw = hwc(out, op).shape[:2]
    return out, scale_boxes(boxes, nw / w, nh / h)


class ResizeWithBBox(ImageTensorOperation):
    """Resize (as Resize) and scale the boxes with the image."""

    def __init__(self, size: Any, interpolation: Inter = Inter.BILINEAR) -> None:
        self.size = size_arg("ResizeWithBBox", size)
        self.interpolation = check_inter("ResizeWithBBox", interpolation)

    def __call__(self, image: Any, bboxes: Any) -> tuple[Any, np.ndarray]:
        return _resized("ResizeWithBBox", image, bboxes, self.size, self.interpolation)


class RandomResizeWithBBox(ImageTensorOperation):
    """RandomResize (a random interpolation) with the boxes scaled."""

    uses_rng = True

    def __init__(self, size: Any) -> None:
        self.size = size_arg("RandomResizeWithBBox", size)

    def __call__(self, image: Any, bboxes: Any) -> tuple[Any, np.ndarray]:
        inter = RandomResize.draw_interpolation()
        return _resized("RandomResizeWithBBox", image, bboxes, self.size, inter)


class _FlipWithBBox(ImageTensorOperation):
    uses_rng = True
    axis = 1

    def __init__(self, prob: float = 0.5) -> None:
        self.prob = check_prob(type(self).__name__, prob)

    def __call__(self, image: Any, bboxes: Any) -> tuple[Any, np.ndarray]:
        op = type(self).__name__
        array = hwc(image, op)
        boxes = check_boxes(op, array, bboxes)
        if _random.rng().random() >= self.prob:
            return image, boxes
        out = boxes.copy()
        if self.axis == 1:
            out[:, 0] = array.shape[1] - boxes[:, 0] - boxes[:, 2]
        else:
            out[:, 1] = array.shape[0] - boxes[:, 1] - boxes[:, 3]
        return flip(image, self.axis, op), out


class RandomHorizontalFlipWithBBox(_FlipWithBBox):
    """Mirror left-right with probability `prob`, boxes too."""

    axis = 1


class RandomVerticalFlipWithBBox(_FlipWithBBox):
    """Mirror top-bottom with probability `prob`, boxes too."""

    axis = 0


class RandomCropWithBBox(RandomCrop):
    """RandomCrop (with its padding options); the boxes move with the padding and are clipped to the crop."""

    def __init__(self, size: Any, padding: Any = None, pad_if_needed: bool = False, fill_value: Any = 0,
                 padding_mode: Border = Border.CONSTANT) -> None:
        super().__init__(size, padding, pad_if_needed, fill_value, padding_mode)

    def __call__(self, image: Any, bboxes: Any) -> tuple[Any, np.ndarray]:
        op = "RandomCropWithBBox"
        boxes = check_boxes(op, hwc(image, op), bboxes)
        if self.padding is not None:
            image = pad(image, self.padding, self.fill_value, self.padding_mode, op)
            boxes = boxes.copy()
            boxes[:, 0] += self.padding[0]
            boxes[:, 1] += self.padding[1]
        h, w = hwc(image, op).shape[:2]
        ch, cw = self.size
        if self.pad_if_needed and (h < ch or w < cw):
            ph, pw = max(ch - h, 0), max(cw - w, 0)
            image = pad(image, (pw, ph, pw, ph), self.fill_value, self.padding_mode, op)
            boxes = boxes.copy()
            boxes[:, 0] += pw
            boxes[:, 1] += ph
            h, w = h + 2 * ph, w + 2 * pw
        if h < ch or w < cw:
            raise DatasetError(f"{op}: the crop {ch}x{cw} is larger than the {h}x{w} image; pass padding or "
                               f"pad_if_needed=True")
        rng = _random.rng()
        top, left = int(rng.integers(0, h - ch + 1)), int(rng.integers(0, w - cw + 1))
        return crop(image, top, left, ch, cw, op), crop_boxes(boxes, top, left, ch, cw)


class RandomResizedCropWithBBox(RandomResizedCrop):
    """RandomResizedCrop; the boxes are clipped to the crop and scaled with the resize."""

    def __init__(self, size: Any, scale: Sequence[float] = (0.08, 1.0), ratio: Sequence[float] = (3.0 / 4.0, 4.0 / 3.0),
                 interpolation: Inter = Inter.BILINEAR, max_attempts: int = 10) -> None:
        super().__init__(size, scale, ratio, interpolation, max_attempts)

    def __call__(self, image: Any, bboxes: Any) -> tuple[Any, np.ndarray]:
        op = "RandomResizedCropWithBBox"
        array = hwc(image, op)
        boxes = check_boxes(op, array, bboxes)
        top, left, ch, cw = self._box(*array.shape[:2])
        out = resize(crop(image, top, left, ch, cw, op), self.size, self.interpolation, op)
        return out, scale_boxes(crop_boxes(boxes, top, left, ch, cw), self.size[1] / cw, self.size[0] / ch)


class BoundingBoxAugment(ImageTensorOperation):
    """Apply `transform` to the image inside a random `ratio` of the boxes (each region cut out, transformed,
    resized back if its size changed, and pasted in); the boxes stay."""

    uses_rng = True

    def __init__(self, transform: Any, ratio: float = 0.3) -> None:
        if not callable(transform):
            raise DatasetError(f"BoundingBoxAugment: transform must be a callable transform, got {transform!r}")
        self.transform, self.ratio = transform, check_prob("BoundingBoxAugment", ratio)

    def __call__(self, image: Any, bboxes: Any) -> tuple[np.ndarray, np.ndarray]:
        op = "BoundingBoxAugment"
        array = hwc(image, op)
        boxes = check_boxes(op, array, bboxes)
        count = int(round(len(boxes) * self.ratio))
        chosen = _random.rng().permutation(len(boxes))[:count]
        out = array.copy()
        for i in sorted(chosen):
            x, y, w, h = (int(v) for v in boxes[i, :4])
            if w == 0 or h == 0:
                continue
            region = hwc(self.transform(out[y:y + h, x:x + w].copy()), op)
            if region.shape[:2] != (h, w):
                region = resize(region, (h, w), Inter.BILINEAR, op)
            out[y:y + h, x:x + w] = region.reshape(out[y:y + h, x:x + w].shape)
        return out, boxes
