"""SampleDistortedBoundingBoxV2's random crops (msx/ops/bbox_sample_ops.py; the draw-independent answers are
MindSpore goldens in tests/golden_ops/case_bbox_sample.py): every crop lies in the image, meets the area and
aspect-ratio ranges (up to TensorFlow's integer rounding) and covers enough of a box; seeds fix the crop as in
MindSpore, zero seeds draw new ones; jit; the errors."""
from __future__ import annotations

import numpy as np
import pytest

import msx
from msx import ops

_SIZE = msx.Tensor(np.array([40, 50, 3], np.int32))
_BOXES = np.array([[[0.1, 0.2, 0.6, 0.7], [0.3, 0.3, 0.9, 0.4]]], np.float32)
_COVER = msx.Tensor(np.array([0.6], np.float32))


def _check(begin, size, bbox, area=(0.05, 1.0), ratio=(0.75, 1.33)):
    (y, x, z), (h, w, c) = begin.tolist(), size.tolist()
    assert z == 0 and c == -1 and y >= 0 and x >= 0 and y + h <= 40 and x + w <= 50
    np.testing.assert_allclose(bbox.reshape(-1), [y / 40, x / 50, (y + h) / 40, (x + w) / 50], rtol=1e-6)
    assert area[0] * 2000 <= h * w <= area[1] * 2000
    assert ratio[0] - 0.5 / h <= w / h <= ratio[1] + 0.5 / h  # w = round(h * ratio)
    boxes = [(int(a * 40), int(b * 50), int(cc * 40), int(d * 50)) for a, b, cc, d in _BOXES[0]]
    cover = [max(min(y + h, y1) - max(y, y0), 0) * max(min(x + w, x1) - max(x, x0), 0) / ((y1 - y0) * (x1 - x0))
             for y0, x0, y1, x1 in boxes]
    assert max(cover) >= 0.6


def test_random_crops_follow_the_rule_and_vary():
    op = ops.SampleDistortedBoundingBoxV2(area_range=(0.1, 0.6))
    seen = set()
    for _ in range(5):
        begin, size, bbox = (t.asnumpy() for t in op(_SIZE, msx.Tensor(_BOXES), _COVER))
        _check(begin, size, bbox, area=(0.1, 0.6))
        seen.add(tuple(begin.tolist() + size.tolist()))
    assert len(seen) > 1


def test_seeds_fix_the_crop_and_jit():
    runs = [tuple(t.asnumpy().ravel().tolist() for t in ops.SampleDistortedBoundingBoxV2(seed=4, seed2=1)(
        _SIZE, msx.Tensor(_BOXES), _COVER)) for _ in range(3)]
    assert runs[0] == runs[1] == runs[2]
    f = msx.jit(lambda s, b, m: ops.SampleDistortedBoundingBoxV2(seed=4, seed2=1)(s, b, m))
    got = tuple(t.asnumpy().ravel().tolist() for t in f(_SIZE, msx.Tensor(_BOXES), _COVER))
    assert got == runs[0]
    _check(*(np.asarray(v) for v in got[:2]), np.asarray(got[2]))


def test_no_boxes_and_errors():
    empty = msx.Tensor(np.zeros((1, 0, 4), np.float32))
    with pytest.raises(ValueError, match="use_image_if_no_bounding_boxes=True"):
        ops.SampleDistortedBoundingBoxV2()(_SIZE, empty, _COVER)
    begin, size, _ = ops.SampleDistortedBoundingBoxV2(use_image_if_no_bounding_boxes=True)(_SIZE, empty, _COVER)
    assert (begin.asnumpy() + size.asnumpy())[:2].tolist() <= [40, 50]
    with pytest.raises(ValueError, match=r"min_object_covered must be a \(1,\) float32"):
        ops.SampleDistortedBoundingBoxV2()(_SIZE, msx.Tensor(_BOXES), msx.Tensor(np.float32(0.1)))
    with pytest.raises(ValueError, match=r"bounding_boxes must be a \(batch, N, 4\)"):
        ops.SampleDistortedBoundingBoxV2()(_SIZE, msx.Tensor(_BOXES[0]), _COVER)
    with pytest.raises(TypeError, match="aspect_ratio_range must be a list or tuple of 2 floats"):
        ops.SampleDistortedBoundingBoxV2(aspect_ratio_range=(1, 2))(_SIZE, msx.Tensor(_BOXES), _COVER)
    with pytest.raises(ValueError, match="max_attempts must be a positive int"):
        ops.SampleDistortedBoundingBoxV2(max_attempts=0)(_SIZE, msx.Tensor(_BOXES), _COVER)
