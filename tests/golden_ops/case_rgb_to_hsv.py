"""`ops.RGBToHSV()` (added in msx/ops/image_ops.py): values, and the MindIR file MindSpore exports for it."""
import numpy as np

_RNG = np.random.default_rng(7)
_IMG = _RNG.random((2, 4, 3)).astype(np.float32)
_IMG[0, 0] = (0.5, 0.5, 0.5)   # grey: hue 0, saturation 0
_IMG[0, 1] = (0.0, 0.0, 0.0)   # black: saturation 0
_IMG[0, 2] = (0.9, 0.1, 0.6)   # red is the max, hue wraps below 0
_IMG[0, 3] = (0.2, 0.8, 0.8)   # green and blue tie for the max

CASES = [
    dict(id="rgb_to_hsv", primitive="RGBToHSV", call="ops.RGBToHSV", init={}, inputs=[_IMG], mindir=True),
    dict(id="rgb_to_hsv_f64", primitive="RGBToHSV", call="ops.RGBToHSV", init={},
         inputs=[_RNG.random((3, 3)).astype(np.float64)], grad=True),
]
