"""AdjustHue / AdjustSaturation (msx/ops/color_adjust_ops.py) against MindSpore 2.10 CPU: random pixels plus
greys, black, white, ties between channels and pure primaries; deltas that wrap the hue circle."""
import numpy as np

_RNG = np.random.default_rng(5)
_SPECIAL = np.array([[0, 0, 0], [1, 1, 1], [0.5, 0.5, 0.5], [1, 0, 0], [0, 1, 0], [0, 0, 1], [0.3, 0.3, 0.9],
                     [0.9, 0.3, 0.3], [0.3, 0.9, 0.9], [0.2, 0.7, 0.2], [0.6, 0.6, 0.1], [1, 0.5, 0]], np.float32)
_IMG = np.concatenate([_RNG.uniform(0, 1, (2, 3, 4, 3)).reshape(-1, 3), _SPECIAL]).reshape(2, 6, 3, 3)
_IMG = _IMG.astype(np.float32)

CASES = [
    dict(id="adjust_hue", primitive="AdjustHue", call="ops.AdjustHue", init={}, inputs=[_IMG],
         args=[np.array(0.2, np.float32)]),
    dict(id="adjust_hue_negative_wrap", primitive="AdjustHue", call="ops.AdjustHue", init={}, inputs=[_IMG],
         args=[np.array(-0.45, np.float32)]),
    dict(id="adjust_hue_large", primitive="AdjustHue", call="ops.AdjustHue", init={},
         inputs=[_IMG.astype(np.float64)], args=[np.array(2.3, np.float32)]),
    dict(id="adjust_hue_f16", primitive="AdjustHue", call="ops.AdjustHue", init={},
         inputs=[_IMG[0].astype(np.float16)], args=[np.array(0.37, np.float32)]),
    dict(id="adjust_saturation", primitive="AdjustSaturation", call="ops.AdjustSaturation", init={},
         inputs=[_IMG], args=[np.array(0.4, np.float32)]),
    dict(id="adjust_saturation_up", primitive="AdjustSaturation", call="ops.AdjustSaturation", init={},
         inputs=[_IMG.astype(np.float64)], args=[np.array(2.5, np.float32)]),
    dict(id="adjust_saturation_negative", primitive="AdjustSaturation", call="ops.AdjustSaturation", init={},
         inputs=[_IMG], args=[np.array(-1.0, np.float32)]),
    dict(id="adjust_saturation_f16", primitive="AdjustSaturation", call="ops.AdjustSaturation", init={},
         inputs=[_IMG[1].astype(np.float16)], args=[np.array(1.7, np.float32)]),
]
