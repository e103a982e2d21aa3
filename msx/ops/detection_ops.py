"""Box ops of MindSpore's detection networks (Faster R-CNN, SSD, YOLO heads): one primitive each.

`ops.BoundingBoxEncode(means, stds)(anchor_box, groundtruth_box)` gives the regression deltas
((gx - px) / pw, (gy - py) / ph, log(gw / pw), log(gh / ph)) normalised by `means`/`stds`, where a box
(x1, y1, x2, y2) has width x2 - x1 + 1 and centre ((x1 + x2) / 2, (y1 + y2) / 2) (MindSpore's pixel
convention); `ops.BoundingBoxDecode(max_shape, means, stds, wh_ratio_clip)(anchor_box, deltas)` inverts it,
clips log-ratios to |log(wh_ratio_clip)| and the corners to the image (`max_shape` = (height, width)).
"""
from __future__ import annotations

import math

import jax.numpy as jnp

from .api import Api, Attr
from .primitive import primitive


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
