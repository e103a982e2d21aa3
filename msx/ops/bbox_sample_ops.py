"""`ops.SampleDistortedBoundingBoxV2(seed, seed2, aspect_ratio_range, area_range, max_attempts,
use_image_if_no_bounding_boxes)(image_size, bounding_boxes, min_object_covered)`: a random crop of an image
(data augmentation), TensorFlow's `sample_distorted_bounding_box` rule, which MindSpore 2.10's CPU kernel follows.

Each of `max_attempts` draws an aspect ratio in `aspect_ratio_range` and a height between the heights whose
rounded areas fit `area_range` of the image (TensorFlow's integer rounding, `lrintf`), then a position; the first
attempt whose crop covers at least `min_object_covered` of some box (by the box's area) wins, else the whole
image. The attempts run side by side (fixed shapes: the same eagerly and under `msx.jit`). Results: begin
[y, x, 0] and size [h, w, -1] in `image_size`'s dtype, and the crop as a normalised (1, 1, 4) box.

Randomness, as MindSpore answers: a nonzero `seed` or `seed2` gives the same crop on every call (a key derived
from them); both zero draw from msx's global PRNG state (`set_seed`), new on each call. The numbers are not
MindSpore's (another generator); the rule they go through is, and tests/test_bbox_sample_ops.py checks it.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ..tensor import Tensor
from .api import expose
from .functional_random import _next_key
from .primitive import apply, primitive

_SIZE_DTYPES = (jnp.uint8, jnp.int8, jnp.int16, jnp.int32, jnp.int64)


def _check(key, image_size, boxes, covered, **_) -> str | None:
    if tuple(image_size.shape) != (3,) or image_size.dtype not in _SIZE_DTYPES:
        return (f"image_size must be a (3,) tensor (height, width, channels) of uint8, int8, int16, int32 or int64, "
                f"got {image_size.dtype}{tuple(image_size.shape)}")
    if len(boxes.shape) != 3 or boxes.shape[-1] != 4 or boxes.dtype != jnp.float32:
        return f"bounding_boxes must be a (batch, N, 4) float32 tensor, got {boxes.dtype}{tuple(boxes.shape)}"
    if tuple(covered.shape) != (1,) or covered.dtype != jnp.float32:
        return f"min_object_covered must be a (1,) float32 tensor, got {covered.dtype}{tuple(covered.shape)}"
    return None


def _lrint(v):
    return jnp.round(v).astype(jnp.int32)  # lrintf: round half to even


def _crops(key, height, width, ratio_range, area_range, attempts: int):
    """(ok, y, x, h, w) of `attempts` random crops, TensorFlow's GenerateRandomCrop."""
    k_ratio, k_height, k_y, k_x = jax.random.split(key, 4)
    hf, wf = height.astype(jnp.float32), width.astype(jnp.float32)
    ratio = jax.random.uniform(k_ratio, (attempts,), jnp.float32, ratio_range[0], ratio_range[1])
    min_area, max_area = area_range[0] * wf * hf, area_range[1] * wf * hf
    h = _lrint(jnp.sqrt(min_area / ratio))
    max_h = _lrint(jnp.sqrt(max_area / ratio))
    too_wide = _lrint(max_h * ratio) > width
    fit = ((wf + 0.5 - 1e-7) / ratio).astype(jnp.int32)
    fit = jnp.where(_lrint(fit * ratio) > width, fit - 1, fit)
    max_h = jnp.minimum(jnp.where(too_wide, fit, max_h), height)
    h = jnp.minimum(h, max_h)
    h = h + jnp.floor(jax.random.uniform(k_height, (attempts,)) * (max_h - h + 1)).astype(jnp.int32)
    w = _lrint(h * ratio)
    area = (w * h).astype(jnp.float32)
    grow = area < min_area
    h = jnp.where(grow, h + 1, h)
    w = jnp.where(grow, _lrint(h * ratio), w)
    area = (w * h).astype(jnp.float32)
    shrink = (area >= min_area) & (area > max_area)
    h = jnp.where(shrink, h - 1, h)
    w = jnp.where(shrink, _lrint(h * ratio), w)
    area = (w * h).astype(jnp.float32)
    ok = (area >= min_area) & (area <= max_area) & (w <= width) & (h <= height) & (w > 0) & (h > 0)
    y = jnp.where(h < height, jnp.floor(jax.random.uniform(k_y, (attempts,)) * (height - h)).astype(jnp.int32), 0)
    x = jnp.where(w < width, jnp.floor(jax.random.uniform(k_x, (attempts,)) * (width - w)).astype(jnp.int32), 0)
    return ok, y, x, h, w


@primitive("SampleDistortedBoundingBoxV2",
           attrs=("aspect_ratio_range", "area_range", "max_attempts", "use_image_if_no_bounding_boxes"),
           category="random", check=_check, multiple_results=True, differentiable=False)
def sample_distorted_bounding_box(key, image_size, boxes, covered, *, aspect_ratio_range, area_range,
                                  max_attempts, use_image_if_no_bounding_boxes):
    """(begin, size, bboxes): the first of `max_attempts` random crops covering enough of a box."""
    reason = _check(key, image_size, boxes, covered)
    if reason is not None:
        raise ValueError(f"SampleDistortedBoundingBoxV2: {reason}")
    height, width = image_size[0].astype(jnp.int32), image_size[1].astype(jnp.int32)
    b = boxes.reshape(-1, 4)
    if b.shape[0] == 0:
        if not use_image_if_no_bounding_boxes:
            raise ValueError("SampleDistortedBoundingBoxV2: no bounding boxes were given (batch or N is 0); set "
                             "use_image_if_no_bounding_boxes=True to use the whole image")
        b = jnp.asarray([[0.0, 0.0, 1.0, 1.0]], jnp.float32)
    hf, wf = height.astype(jnp.float32), width.astype(jnp.float32)
    ymin, xmin = (b[:, 0] * hf).astype(jnp.int32), (b[:, 1] * wf).astype(jnp.int32)
    ymax, xmax = (b[:, 2] * hf).astype(jnp.int32), (b[:, 3] * wf).astype(jnp.int32)
    ok, y, x, h, w = _crops(jax.random.wrap_key_data(key), height, width, aspect_ratio_range, area_range,
                            max_attempts)
    inter_h = jnp.maximum(jnp.minimum(y[:, None] + h[:, None], ymax) - jnp.maximum(y[:, None], ymin), 0)
    inter_w = jnp.maximum(jnp.minimum(x[:, None] + w[:, None], xmax) - jnp.maximum(x[:, None], xmin), 0)
    box_area = ((ymax - ymin) * (xmax - xmin)).astype(jnp.float32)
    covered_frac = (inter_h * inter_w).astype(jnp.float32) / jnp.where(box_area > 0, box_area, 1)
    fits = jnp.any((box_area >= 1) & (covered_frac >= covered[0]), axis=1) & ((h * w) >= 1)
    good = ok & fits
    first = jnp.argmax(good)
    found = jnp.any(good)
    cy, cx = jnp.where(found, y[first], 0), jnp.where(found, x[first], 0)
    ch, cw = jnp.where(found, h[first], height), jnp.where(found, w[first], width)
    dt = image_size.dtype
    begin = jnp.stack([cy, cx, jnp.zeros((), jnp.int32)]).astype(dt)
    size = jnp.stack([ch, cw, -jnp.ones((), jnp.int32)]).astype(dt)
    bbox = jnp.stack([cy / hf, cx / wf, (cy + ch) / hf, (cx + cw) / wf]).astype(jnp.float32).reshape(1, 1, 4)
    return begin, size, bbox


def _floats(what: str, v) -> tuple[float, float]:
    if not isinstance(v, (list, tuple)) or len(v) != 2 or not all(isinstance(f, float) for f in v):
        raise TypeError(f"SampleDistortedBoundingBoxV2: {what} must be a list or tuple of 2 floats, got {v!r}")
    if not 0 < v[0] <= v[1]:
        raise ValueError(f"SampleDistortedBoundingBoxV2: {what} must hold 0 < low <= high, got {v!r}")
    return float(v[0]), float(v[1])


@expose(cls="SampleDistortedBoundingBoxV2",
        init=("seed", "seed2", "aspect_ratio_range", "area_range", "max_attempts", "use_image_if_no_bounding_boxes"),
        prim="SampleDistortedBoundingBoxV2")
def _sample_distorted_bounding_box_cls(image_size, bounding_boxes, min_object_covered, *, seed=0, seed2=0,
                                       aspect_ratio_range=(0.75, 1.33), area_range=(0.05, 1.0), max_attempts=100,
                                       use_image_if_no_bounding_boxes=False):
    op = "SampleDistortedBoundingBoxV2"
    for what, v in (("seed", seed), ("seed2", seed2), ("max_attempts", max_attempts)):
        if not isinstance(v, int) or isinstance(v, bool):
            raise TypeError(f"{op}: {what} must be an int, got {v!r}")
    if max_attempts < 1:
        raise ValueError(f"{op}: max_attempts must be a positive int, got {max_attempts}")
    if not isinstance(use_image_if_no_bounding_boxes, bool):
        raise TypeError(f"{op}: use_image_if_no_bounding_boxes must be a bool, got {use_image_if_no_bounding_boxes!r}")
    areas = _floats("area_range", area_range)
    if areas[1] > 1.0:
        raise ValueError(f"{op}: area_range must lie in (0, 1], got {area_range!r}")
    attrs = {"aspect_ratio_range": _floats("aspect_ratio_range", aspect_ratio_range), "area_range": areas,
             "max_attempts": max_attempts, "use_image_if_no_bounding_boxes": use_image_if_no_bounding_boxes}
    if seed or seed2:
        with jax.ensure_compile_time_eval():  # a constant of the graph, also while one is traced
            key = Tensor(np.asarray(jax.random.key_data(jax.random.fold_in(jax.random.key(seed % 2 ** 63),
                                                                            seed2 % 2 ** 32))))
    else:
        key = _next_key()
    return apply(sample_distorted_bounding_box, (key, image_size, bounding_boxes, min_object_covered), attrs)
