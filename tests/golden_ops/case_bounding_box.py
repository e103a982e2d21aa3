"""`ops.BoundingBoxEncode` / `ops.BoundingBoxDecode` (msx/ops/detection_ops.py) against MindSpore 2.10 CPU."""
import numpy as np

_RNG = np.random.default_rng(11)
_XY = _RNG.uniform(0, 20, (5, 2)).astype(np.float32)
_ANCHOR = np.concatenate([_XY, _XY + _RNG.uniform(1, 10, (5, 2)).astype(np.float32)], 1)
_XY2 = _RNG.uniform(0, 20, (5, 2)).astype(np.float32)
_GT = np.concatenate([_XY2, _XY2 + _RNG.uniform(1, 10, (5, 2)).astype(np.float32)], 1)
_DELTAS = _RNG.uniform(-2, 2, (5, 4)).astype(np.float32)
_DELTAS[0, 2:] = (6.0, -6.0)  # beyond |log(wh_ratio_clip)|: clipped

CASES = [
    dict(id="bounding_box_encode", primitive="BoundingBoxEncode", call="ops.BoundingBoxEncode",
         init=dict(means=(0.0, 0.0, 0.0, 0.0), stds=(1.0, 1.0, 1.0, 1.0)), inputs=[_ANCHOR, _GT]),
    dict(id="bounding_box_encode_fn", primitive="BoundingBoxEncode", call="ops.bounding_box_encode",
         inputs=[_ANCHOR, _GT], args=[(0.1, 0.0, -0.1, 0.2), (0.1, 0.1, 0.2, 0.2)]),
    dict(id="bounding_box_decode", primitive="BoundingBoxDecode", call="ops.BoundingBoxDecode",
         init=dict(max_shape=(24, 30)), inputs=[_ANCHOR, _DELTAS]),
    dict(id="bounding_box_decode_fn", primitive="BoundingBoxDecode", call="ops.bounding_box_decode",
         inputs=[_ANCHOR, _DELTAS], args=[(15, 20), (0.0, 0.1, 0.0, 0.0), (0.1, 0.1, 0.2, 0.2), 0.05]),
]
