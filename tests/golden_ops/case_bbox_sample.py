"""SampleDistortedBoundingBoxV2 (msx/ops/bbox_sample_ops.py) against MindSpore 2.10 CPU where the answer does
not depend on the draw: an area range only the whole image meets, and the no-box fallback to the whole image with
min_object_covered 0; tests/test_bbox_sample_ops.py checks the random crops' rule."""
import numpy as np

_SIZE = np.array([40, 50, 3], np.int32)
_BOXES = np.array([[[0.1, 0.2, 0.6, 0.7], [0.3, 0.3, 0.9, 0.4]]], np.float32)

CASES = [
    dict(id="sample_distorted_bbox_whole_image", primitive="SampleDistortedBoundingBoxV2",
         call="ops.SampleDistortedBoundingBoxV2", init=dict(seed=3, max_attempts=3, area_range=(0.99, 1.0)),
         inputs=[_SIZE, _BOXES, np.array([1.0], np.float32)]),
    dict(id="sample_distorted_bbox_int64_fallback", primitive="SampleDistortedBoundingBoxV2",
         call="ops.SampleDistortedBoundingBoxV2", init=dict(seed=1, area_range=(0.98, 1.0), aspect_ratio_range=(
             0.5, 0.6)), inputs=[np.array([30, 20, 1], np.int64), _BOXES, np.array([0.5], np.float32)]),
]
