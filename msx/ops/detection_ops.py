"""Box ops of MindSpore's detection networks (Faster R-CNN, SSD, YOLO heads): one primitive each.

`ops.BoundingBoxEncode(means, stds)(anchor_box, groundtruth_box)` gives the regression deltas
((gx - px) / pw, (gy - py) / ph, log(gw / pw), log(gh / ph)) normalised by `means`/`stds`, where a box
(x1, y1, x2, y2) has width x2 - x1 + 1 and centre ((x1 + x2) / 2, (y1 + y2) / 2) (MindSpore's pixel
convention); `ops.BoundingBoxDecode(max_shape, means, stds, wh_ratio_clip)(anchor_box, deltas)` inverts it,
clips log-ratios to |log(wh_ratio_clip)| and the corners to the image (`max_shape` = (height, width)).
"""
from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..errors import OpError
from ..tensor import Tensor
from .api import Api, Attr, expose
from .index_ops import eager_only
from .primitive import apply, known_value, primitive


def _floats4(v, what: str) -> tuple[float, ...]:
    vals = tuple(float(x) for x in v)
    if len(vals) != 4:
        raise ValueError(f"{what} must hold 4 numbers, got {v!r}")
    return vals


def _box_check(op: str):
    def check(a, b, **_) -> str | None:
        for what, t in (("anchor_box", a), ("the second input", b)):
            if len(t.shape) != 2 or t.shape[-1] != 4:
                return f"{what} must have shape (N, 4), got {tuple(t.shape)}"
            if not jnp.issubdtype(t.dtype, jnp.floating):
                return f"{what} must be float16 or float32, got {t.dtype}"
        if a.shape[0] != b.shape[0]:
            return f"anchor_box and the second input must hold as many boxes: {a.shape[0]} != {b.shape[0]}"
        return None
    return check


def _centre(b):
    w = b[:, 2] - b[:, 0] + 1.0
    h = b[:, 3] - b[:, 1] + 1.0
    return (b[:, 0] + b[:, 2]) * 0.5, (b[:, 1] + b[:, 3]) * 0.5, w, h


def _raise(reason: str | None) -> None:
    if reason is not None:
        raise ValueError(reason)


_ENCODE_CHECK = _box_check("BoundingBoxEncode")
_DECODE_CHECK = _box_check("BoundingBoxDecode")
_MEANS = Attr("means", (0.0, 0.0, 0.0, 0.0), lambda v: _floats4(v, "means"))
_STDS = Attr("stds", (1.0, 1.0, 1.0, 1.0), lambda v: _floats4(v, "stds"))


@primitive("BoundingBoxEncode", attrs=("means", "stds"), category="other", check=_ENCODE_CHECK,
           api=Api(ops="bounding_box_encode", cls="BoundingBoxEncode", args=("anchor_box", "groundtruth_box"),
                   attrs=(_MEANS, _STDS), init=("means", "stds")))
def bounding_box_encode(anchor_box, groundtruth_box, *, means=(0.0, 0.0, 0.0, 0.0), stds=(1.0, 1.0, 1.0, 1.0)):
    """Deltas of `groundtruth_box` relative to `anchor_box`, ((d - means) / stds), shape (N, 4)."""
    _raise(_ENCODE_CHECK(anchor_box, groundtruth_box))
    px, py, pw, ph = _centre(anchor_box)
    gx, gy, gw, gh = _centre(groundtruth_box)
    d = jnp.stack([(gx - px) / pw, (gy - py) / ph, jnp.log(gw / pw), jnp.log(gh / ph)], axis=-1)
    return ((d - jnp.asarray(means, d.dtype)) / jnp.asarray(stds, d.dtype)).astype(anchor_box.dtype)


def _shape2(v) -> tuple[int, int]:
    vals = tuple(int(x) for x in v)
    if len(vals) != 2:
        raise ValueError(f"BoundingBoxDecode: max_shape must be (height, width), got {v!r}")
    return vals


@primitive("BoundingBoxDecode", attrs=("max_shape", "means", "stds", "wh_ratio_clip"), category="other",
           check=_DECODE_CHECK,
           api=Api(ops="bounding_box_decode", cls="BoundingBoxDecode", args=("anchor_box", "deltas"),
                   attrs=(Attr("max_shape", convert=_shape2), _MEANS, _STDS, Attr("wh_ratio_clip", 0.016, float)),
                   init=("max_shape", "means", "stds", "wh_ratio_clip")))
def bounding_box_decode(anchor_box, deltas, *, max_shape, means=(0.0, 0.0, 0.0, 0.0), stds=(1.0, 1.0, 1.0, 1.0),
                        wh_ratio_clip=0.016):
    """Boxes (x1, y1, x2, y2) from `anchor_box` and `deltas`, clipped to the (height, width) `max_shape`."""
    _raise(_DECODE_CHECK(anchor_box, deltas))
    d = deltas * jnp.asarray(stds, deltas.dtype) + jnp.asarray(means, deltas.dtype)
    limit = abs(math.log(wh_ratio_clip))
    dw, dh = jnp.clip(d[:, 2], -limit, limit), jnp.clip(d[:, 3], -limit, limit)
    px, py, pw, ph = _centre(anchor_box)
    gx, gy = px + pw * d[:, 0], py + ph * d[:, 1]
    gw, gh = pw * jnp.exp(dw), ph * jnp.exp(dh)
    height, width = max_shape
    x1 = jnp.clip(gx - gw * 0.5 + 0.5, 0, width)
    y1 = jnp.clip(gy - gh * 0.5 + 0.5, 0, height)
    x2 = jnp.clip(gx + gw * 0.5 - 0.5, 0, width)
    y2 = jnp.clip(gy + gh * 0.5 - 0.5, 0, height)
    return jnp.stack([x1, y1, x2, y2], axis=-1).astype(anchor_box.dtype)


# ---------------------------------------------------------------- non-maximum suppression
def _pair_iou(b, corners_sorted: bool):
    """(N, N) IoU of boxes (N, 4) with no +1 in the areas; `corners_sorted=False` takes each box's min/max corners
    (TensorFlow's NonMaxSuppressionV3 rule) and gives 0 where either box has no area."""
    if not corners_sorted:
        lo, hi = jnp.minimum(b[:, :2], b[:, 2:]), jnp.maximum(b[:, :2], b[:, 2:])
        b = jnp.concatenate([lo, hi], axis=1)
    area = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    lt = jnp.maximum(b[:, None, :2], b[None, :, :2])
    rb = jnp.minimum(b[:, None, 2:], b[None, :, 2:])
    wh = jnp.maximum(rb - lt, 0.0)
    inter = wh[..., 0] * wh[..., 1]
    union = area[:, None] + area[None, :] - inter
    iou = inter / jnp.where(union > 0, union, 1.0)
    if not corners_sorted:
        iou = jnp.where((area[:, None] <= 0) | (area[None, :] <= 0), 0.0, iou)
    return iou


def _greedy(suppress, alive):
    """Greedy NMS over boxes already in score order: box i is kept when it is `alive` and no kept box before it
    suppresses it (`suppress[j, i]`)."""
    n = suppress.shape[0]
    idx = jnp.arange(n)

    def body(i, keep):
        killed = jnp.any(keep & suppress[:, i] & (idx < i))
        return keep.at[i].set(alive[i] & ~killed)

    return lax.fori_loop(0, n, body, jnp.zeros((n,), bool))


def _nms_mask_check(bboxes, **_) -> str | None:
    if len(bboxes.shape) != 2 or bboxes.shape[1] != 5:
        return f"bboxes must have shape (N, 5) (x1, y1, x2, y2, score), got {tuple(bboxes.shape)}"
    if bboxes.dtype not in (jnp.float16, jnp.float32):
        return f"bboxes must be float16 or float32, got {bboxes.dtype}"
    return None


def _threshold(v) -> float:
    v = float(v)
    if not 0.0 <= v <= 1.0:
        raise ValueError(f"NMSWithMask: iou_threshold must be in [0, 1], got {v}")
    return v


def _bitonic_descending(scores):
    """The positions of `scores` from highest to lowest as MindSpore's CPU NMSWithMask orders them, equal scores
    included: an ascending bitonic sorting network over the scores padded to a power of two with the dtype's
    maximum, read backwards from position N - 1."""
    n = scores.shape[0]
    size = 1 << max(n - 1, 0).bit_length()
    data = jnp.concatenate([scores, jnp.full((size - n,), jnp.finfo(scores.dtype).max, scores.dtype)])
    index = jnp.arange(size)
    pos = np.arange(size)
    i = 2
    while i <= size:
        j = i >> 1
        while j > 0:
            partner = pos ^ j
            lo, hi = np.minimum(pos, partner), np.maximum(pos, partner)
            ascending = jnp.asarray((lo & i) == 0)
            swap = jnp.where(ascending, data[lo] > data[hi], data[lo] < data[hi])
            data = jnp.where(swap, data[partner], data)
            index = jnp.where(swap, index[partner], index)
            j >>= 1
        i <<= 1
    return index[:n][::-1]


@primitive("NMSWithMask", attrs=("iou_threshold",), category="other", check=_nms_mask_check,
           multiple_results=True, differentiable=False,
           api=Api(cls="NMSWithMask", args=("bboxes",), attrs=(Attr("iou_threshold", 0.5, _threshold),),
                   init=("iou_threshold",)))
def nms_with_mask(bboxes, *, iou_threshold=0.5):
    """(selected_boxes (N, 5): the boxes in descending score order (equal scores in the order of MindSpore's
    bitonic sort), selected_idx (N,) int32, selected_mask (N,)
    bool: which of the sorted boxes survive). A box is dropped when its IoU with a kept, higher-scoring box is
    above `iou_threshold`. `selected_idx` is 0..N-1, as MindSpore 2.10's CPU kernel answers."""
    _raise(_nms_mask_check(bboxes))
    b = bboxes[_bitonic_descending(bboxes[:, 4])]
    iou = _pair_iou(b[:, :4].astype(jnp.float32), corners_sorted=True)
    keep = _greedy(iou > iou_threshold, jnp.ones((b.shape[0],), bool))
    return b, jnp.arange(b.shape[0], dtype=jnp.int32), keep


def static_values(op: str, what: str, t) -> np.ndarray:
    """The values of `t` (a Tensor or Python values) that set a result's shape: known eagerly, or as a constant
    of the graph being captured; a graph input or computed value is refused, naming `op`."""
    if not isinstance(t, Tensor):
        return np.asarray(t)
    v = known_value(t)
    if isinstance(v, (jax.ShapeDtypeStruct, jax.core.Tracer)):
        raise OpError(f"{op}: the result's shape depends on the input values ({what}), which a compiled graph "
                      f"only knows when it runs; call it outside jit or pass {what} as a constant")
    return np.asarray(v)


def _scalar_of(op: str, what: str, t, kind):
    arr = static_values(op, what, t)
    if arr.size != 1:
        raise OpError(f"{op}: {what} must be a scalar, got shape {arr.shape}")
    return kind(arr.reshape(()))


def _select(op: str, suppress, scores, max_output_size: int, score_threshold: float):
    """Indices (int32, score order) that greedy NMS keeps among the scores above `score_threshold`, at most
    `max_output_size` of them."""
    order = jnp.argsort(-scores.astype(jnp.float32), stable=True)
    keep = _greedy(suppress[order][:, order], scores[order] > score_threshold)
    kept = np.asarray(order)[np.asarray(keep)]
    return jnp.asarray(kept[:max(max_output_size, 0)], jnp.int32)


def _nms_v3_check(boxes, scores, *_, **__) -> str | None:
    if len(boxes.shape) != 2 or boxes.shape[1] != 4:
        return f"boxes must have shape (N, 4), got {tuple(boxes.shape)}"
    if tuple(scores.shape) != (boxes.shape[0],):
        return f"scores must have shape ({boxes.shape[0]},) (one per box), got {tuple(scores.shape)}"
    for what, t in (("boxes", boxes), ("scores", scores)):
        if t.dtype not in (jnp.float16, jnp.float32):
            return f"{what} must be float16 or float32, got {t.dtype}"
    return None


@primitive("NonMaxSuppressionV3", attrs=("max_output_size", "iou_threshold", "score_threshold"), category="shape",
           check=_nms_v3_check, differentiable=False)
def non_max_suppression_v3(boxes, scores, *, max_output_size, iou_threshold, score_threshold):
    """Indices (int32) of the boxes greedy NMS keeps: scores above `score_threshold`, in descending score
    order, none with IoU above `iou_threshold` with a kept one, at most `max_output_size` (TensorFlow's rule:
    corners in either order, a box without area overlaps nothing)."""
    eager_only("NonMaxSuppressionV3", boxes, scores)
    _raise(_nms_v3_check(boxes, scores))
    suppress = _pair_iou(boxes.astype(jnp.float32), corners_sorted=False) > iou_threshold
    return _select("NonMaxSuppressionV3", suppress, scores, max_output_size, score_threshold)


def _max_size(op: str, v) -> int:
    n = _scalar_of(op, "max_output_size", v, int)
    if n < 0:
        raise OpError(f"{op}: max_output_size must not be negative, got {n}")
    return n


@expose(cls="NonMaxSuppressionV3", prim="NonMaxSuppressionV3")
def _non_max_suppression_v3_cls(boxes, scores, max_output_size, iou_threshold, score_threshold):
    """`ops.NonMaxSuppressionV3()(boxes, scores, max_output_size, iou_threshold, score_threshold)`; the last
    three are scalars (tensors in MindSpore) whose values set the result's length: eager only."""
    op = "NonMaxSuppressionV3"
    iou = _scalar_of(op, "iou_threshold", iou_threshold, float)
    if not 0.0 <= iou <= 1.0:
        raise OpError(f"{op}: iou_threshold must be in [0, 1], got {iou}")
    return apply(non_max_suppression_v3, (boxes, scores),
                 {"max_output_size": _max_size(op, max_output_size), "iou_threshold": iou,
                  "score_threshold": _scalar_of(op, "score_threshold", score_threshold, float)})


def _overlaps_check(overlaps, scores, *_, **__) -> str | None:
    if len(overlaps.shape) != 2 or overlaps.shape[0] != overlaps.shape[1]:
        return f"overlaps must be a square (N, N) matrix, got {tuple(overlaps.shape)}"
    if tuple(scores.shape) != (overlaps.shape[0],):
        return f"scores must have shape ({overlaps.shape[0]},) (one per box), got {tuple(scores.shape)}"
    for what, t in (("overlaps", overlaps), ("scores", scores)):
        if t.dtype not in (jnp.float16, jnp.float32):
            return f"{what} must be float16 or float32, got {t.dtype}"
    return None


@primitive("NonMaxSuppressionWithOverlaps", attrs=("max_output_size", "overlap_threshold", "score_threshold"),
           category="shape", check=_overlaps_check, differentiable=False)
def non_max_suppression_with_overlaps(overlaps, scores, *, max_output_size, overlap_threshold, score_threshold):
    """Indices (int32) greedy NMS keeps, a candidate i dropped when `overlaps[i, j]` is above
    `overlap_threshold` for a kept box j (MindSpore's CPU kernel reads the candidate's row); scores above `score_threshold`, at most `max_output_size`."""
    eager_only("NonMaxSuppressionWithOverlaps", overlaps, scores)
    _raise(_overlaps_check(overlaps, scores))
    return _select("NonMaxSuppressionWithOverlaps", overlaps.astype(jnp.float32).T > overlap_threshold, scores,
                   max_output_size, score_threshold)


@expose(cls="NonMaxSuppressionWithOverlaps", prim="NonMaxSuppressionWithOverlaps")
def _non_max_suppression_with_overlaps_cls(overlaps, scores, max_output_size, overlap_threshold, score_threshold):
    """`ops.NonMaxSuppressionWithOverlaps()(overlaps, scores, max_output_size, overlap_threshold,
    score_threshold)`: eager only (the values set the result's length)."""
    op = "NonMaxSuppressionWithOverlaps"
    return apply(non_max_suppression_with_overlaps, (overlaps, scores),
                 {"max_output_size": _max_size(op, max_output_size),
                  "overlap_threshold": _scalar_of(op, "overlap_threshold", overlap_threshold, float),
                  "score_threshold": _scalar_of(op, "score_threshold", score_threshold, float)})


# ---------------------------------------------------------------- ROIAlign
def _roi_check(features, rois, **_) -> str | None:
    if len(features.shape) != 4:
        return f"features must be 4-d (N, C, H, W), got shape {tuple(features.shape)}"
    if len(rois.shape) != 2 or rois.shape[1] != 5:
        return f"rois must have shape (R, 5) (batch index, x1, y1, x2, y2), got {tuple(rois.shape)}"
    for what, t in (("features", features), ("rois", rois)):
        if t.dtype not in (jnp.float16, jnp.float32):
            return f"{what} must be float16 or float32, got {t.dtype}"
    return None


def _bilinear(plane, y, x):
    """Caffe2's ROIAlign sample of `plane` (C, H, W) at (y, x) arrays: 0 outside [-1, H] x [-1, W]."""
    h, w = plane.shape[-2:]
    outside = (y < -1.0) | (y > h) | (x < -1.0) | (x > w)
    y, x = jnp.maximum(y, 0.0), jnp.maximum(x, 0.0)
    y0, x0 = jnp.floor(y).astype(jnp.int32), jnp.floor(x).astype(jnp.int32)
    y_edge, x_edge = y0 >= h - 1, x0 >= w - 1
    y0, x0 = jnp.where(y_edge, h - 1, y0), jnp.where(x_edge, w - 1, x0)
    y1, x1 = jnp.where(y_edge, h - 1, y0 + 1), jnp.where(x_edge, w - 1, x0 + 1)
    y, x = jnp.where(y_edge, y0.astype(y.dtype), y), jnp.where(x_edge, x0.astype(x.dtype), x)
    ly, lx = y - y0, x - x0
    hy, hx = 1.0 - ly, 1.0 - lx
    v = (hy * hx * plane[:, y0, x0] + hy * lx * plane[:, y0, x1] + ly * hx * plane[:, y1, x0]
         + ly * lx * plane[:, y1, x1])
    return jnp.where(outside, 0.0, v)


@primitive("ROIAlign", attrs=("pooled_height", "pooled_width", "spatial_scale", "sample_num", "roi_end_mode"),
           category="other", check=_roi_check,
           api=Api(cls="ROIAlign", args=("features", "rois"),
                   attrs=(Attr("pooled_height", convert=int), Attr("pooled_width", convert=int),
                          Attr("spatial_scale", convert=float), Attr("sample_num", 2, int),
                          Attr("roi_end_mode", 1, int)),
                   init=("pooled_height", "pooled_width", "spatial_scale", "sample_num", "roi_end_mode")))
def roi_align(features, rois, *, pooled_height, pooled_width, spatial_scale, sample_num=2, roi_end_mode=1):
    """(R, C, pooled_height, pooled_width): each roi's bins averaged over `sample_num` x `sample_num` bilinear
    samples (Caffe2's ROIAlign); `roi_end_mode=1` moves each roi's end corner by +1 before scaling (MindSpore's
    CPU kernel), 0 keeps it and makes every scaled roi at least 1 x 1."""
    _raise(_roi_check(features, rois))
    if pooled_height < 1 or pooled_width < 1:
        raise ValueError(f"pooled_height and pooled_width must be positive, got {pooled_height}, {pooled_width}")
    if roi_end_mode not in (0, 1):
        raise ValueError(f"roi_end_mode must be 0 or 1, got {roi_end_mode}")
    if sample_num < 1:
        raise ValueError(f"sample_num={sample_num}: msx needs a positive sample_num (MindSpore's adaptive grid "
                         f"for sample_num <= 0 sizes each roi's grid from its values)")
    dt = jnp.float32
    r = rois.astype(dt)
    x1, y1 = r[:, 1] * spatial_scale, r[:, 2] * spatial_scale
    x2, y2 = (r[:, 3] + roi_end_mode) * spatial_scale, (r[:, 4] + roi_end_mode) * spatial_scale
    rw, rh = x2 - x1, y2 - y1
    if roi_end_mode == 0:
        rw, rh = jnp.maximum(rw, 1.0), jnp.maximum(rh, 1.0)
    bh, bw = rh / pooled_height, rw / pooled_width
    g = (jnp.arange(sample_num, dtype=dt) + 0.5) / sample_num
    ys = y1[:, None, None] + (jnp.arange(pooled_height, dtype=dt)[None, :, None] + g[None, None, :]) * bh[:, None,
                                                                                                          None]
    xs = x1[:, None, None] + (jnp.arange(pooled_width, dtype=dt)[None, :, None] + g[None, None, :]) * bw[:, None,
                                                                                                        None]
    batch = jnp.clip(r[:, 0].astype(jnp.int32), 0, features.shape[0] - 1)

    def one(b, yy, xx):  # yy (PH, S), xx (PW, S) -> (C, PH, PW)
        y = yy[:, :, None, None]
        x = xx[None, None, :, :]
        y, x = jnp.broadcast_arrays(y, x)  # (PH, S, PW, S)
        v = _bilinear(features[b].astype(dt), y, x)  # (C, PH, S, PW, S)
        return v.mean(axis=(2, 4))

    return jax.vmap(one)(batch, ys, xs).astype(features.dtype)


# ---------------------------------------------------------------- CombinedNonMaxSuppression
def _combined_check(boxes, scores, *_, **__) -> str | None:
    if len(boxes.shape) != 4 or boxes.shape[3] != 4:
        return f"boxes must have shape (batch, num_boxes, q, 4), got {tuple(boxes.shape)}"
    if len(scores.shape) != 3 or tuple(scores.shape[:2]) != tuple(boxes.shape[:2]):
        return f"scores must have shape ({boxes.shape[0]}, {boxes.shape[1]}, num_classes), got {tuple(scores.shape)}"
    if boxes.shape[2] not in (1, scores.shape[2]):
        return f"boxes' q ({boxes.shape[2]}) must be 1 or num_classes ({scores.shape[2]})"
    for what, t in (("boxes", boxes), ("scores", scores)):
        if t.dtype != jnp.float32:
            return f"{what} must be float32, got {t.dtype}"
    return None


@primitive("CombinedNonMaxSuppression", attrs=("max_output_size_per_class", "max_total_size", "iou_threshold",
                                               "score_threshold", "pad_per_class", "clip_boxes"),
           category="shape", check=_combined_check, multiple_results=True, differentiable=False)
def combined_non_max_suppression(boxes, scores, *, max_output_size_per_class, max_total_size, iou_threshold,
                                 score_threshold, pad_per_class=False, clip_boxes=True):
    """(nmsed_boxes (B, K, 4), nmsed_scores (B, K), nmsed_classes (B, K) float, valid_detections (B,) int32):
    greedy NMS per batch and class (scores above `score_threshold`, at most `max_output_size_per_class`), then
    the best `max_total_size` of every class together in descending score order, zero-padded;
    K = min(max_total_size, max_output_size_per_class * num_classes) with `pad_per_class`, else max_total_size;
    `clip_boxes` clips the answered coordinates to [0, 1]."""
    eager_only("CombinedNonMaxSuppression", boxes, scores)
    _raise(_combined_check(boxes, scores))
    batch, _, q, _ = boxes.shape
    classes = scores.shape[2]
    k = min(max_total_size, max_output_size_per_class * classes) if pad_per_class else max_total_size
    out_boxes = np.zeros((batch, k, 4), np.float32)
    out_scores = np.zeros((batch, k), np.float32)
    out_classes = np.zeros((batch, k), np.float32)
    valid = np.zeros((batch,), np.int32)
    for b in range(batch):
        found = []  # (score, class, box)
        for c in range(classes):
            bx = boxes[b, :, c if q > 1 else 0, :]
            suppress = _pair_iou(bx, corners_sorted=False) > iou_threshold
            kept = np.asarray(_select("CombinedNonMaxSuppression", suppress, scores[b, :, c],
                                      max_output_size_per_class, score_threshold))
            sc, bxs = np.asarray(scores[b, :, c]), np.asarray(bx)
            found += [(float(sc[i]), c, bxs[i]) for i in kept]
        found.sort(key=lambda e: -e[0])  # stable: ties keep class order
        found = found[:k]
        valid[b] = len(found)
        for j, (s, c, bx) in enumerate(found):
            out_boxes[b, j], out_scores[b, j], out_classes[b, j] = bx, s, c
    if clip_boxes:
        out_boxes = np.clip(out_boxes, 0.0, 1.0)
    return jnp.asarray(out_boxes), jnp.asarray(out_scores), jnp.asarray(out_classes), jnp.asarray(valid)


@expose(cls="CombinedNonMaxSuppression", init=("pad_per_class", "clip_boxes"), prim="CombinedNonMaxSuppression")
def _combined_non_max_suppression_cls(boxes, scores, max_output_size_per_class, max_total_size, iou_threshold,
                                      score_threshold, *, pad_per_class=False, clip_boxes=True):
    """`ops.CombinedNonMaxSuppression(pad_per_class=False, clip_boxes=True)(boxes, scores,
    max_output_size_per_class, max_total_size, iou_threshold, score_threshold)`: the four scalars (tensors in
    MindSpore) set the result's shape, so the op runs eagerly only."""
    op = "CombinedNonMaxSuppression"
    per_class, total = _max_size(op, max_output_size_per_class), _max_size(op, max_total_size)
    if per_class < 1 or total < 1:
        raise OpError(f"{op}: max_output_size_per_class and max_total_size must be positive, got {per_class}, "
                      f"{total}")
    iou = _scalar_of(op, "iou_threshold", iou_threshold, float)
    if not 0.0 <= iou <= 1.0:
        raise OpError(f"{op}: iou_threshold must be in [0, 1], got {iou}")
    return apply(combined_non_max_suppression, (boxes, scores),
                 {"max_output_size_per_class": per_class, "max_total_size": total, "iou_threshold": iou,
                  "score_threshold": _scalar_of(op, "score_threshold", score_threshold, float),
                  "pad_per_class": bool(pad_per_class), "clip_boxes": bool(clip_boxes)})
