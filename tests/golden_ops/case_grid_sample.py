"""`ops.grid_sample`, `mint.nn.functional.grid_sample`, `ops.GridSampler2D` (msx/ops/sampling_ops.py)."""
import numpy as np

_RNG = np.random.default_rng(9)
_X = _RNG.standard_normal((2, 2, 4, 5)).astype(np.float32)
_G = _RNG.uniform(-1.2, 1.2, (2, 3, 4, 2)).astype(np.float32)  # some samples fall outside

CASES = [
    dict(id="grid_sample", primitive="GridSampler2D", call="ops.grid_sample", inputs=[_X, _G]),
    dict(id="grid_sample_border_ac", primitive="GridSampler2D", call="ops.grid_sample", inputs=[_X, _G],
         args=["bilinear", "border", True]),
    dict(id="grid_sample_reflection", primitive="GridSampler2D", call="ops.grid_sample", inputs=[_X, _G],
         kwargs=dict(padding_mode="reflection")),
    dict(id="grid_sample_reflection_ac", primitive="GridSampler2D", call="ops.grid_sample", inputs=[_X, _G],
         kwargs=dict(padding_mode="reflection", align_corners=True)),
    dict(id="grid_sample_nearest", primitive="GridSampler2D", call="mint.nn.functional.grid_sample",
         inputs=[_X, _G], kwargs=dict(mode="nearest")),
    dict(id="grid_sampler_2d", primitive="GridSampler2D", call="ops.GridSampler2D",
         init=dict(interpolation_mode="bilinear", padding_mode="zeros", align_corners=True), inputs=[_X, _G]),
]
