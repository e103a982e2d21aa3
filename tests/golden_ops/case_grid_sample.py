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

_X3 = _RNG.standard_normal((2, 2, 3, 4, 5)).astype(np.float32)
_G3 = _RNG.uniform(-1.2, 1.2, (2, 2, 3, 2, 3)).astype(np.float32)
CASES += [
    dict(id="grid_sampler_3d", primitive="GridSampler3D", call="ops.GridSampler3D", init={}, inputs=[_X3, _G3]),
    dict(id="grid_sampler_3d_border_ac", primitive="GridSampler3D", call="ops.GridSampler3D",
         init=dict(padding_mode="border", align_corners=True), inputs=[_X3, _G3]),
    dict(id="grid_sampler_3d_reflection_nearest", primitive="GridSampler3D", call="ops.GridSampler3D",
         init=dict(interpolation_mode="nearest", padding_mode="reflection"), inputs=[_X3, _G3]),
    dict(id="grid_sampler_3d_f64_reflection_ac", primitive="GridSampler3D", call="ops.GridSampler3D",
         init=dict(padding_mode="reflection", align_corners=True),
         inputs=[_X3.astype(np.float64), _G3.astype(np.float64)]),
    dict(id="grid_sample_5d", primitive="GridSampler3D", call="ops.grid_sample", inputs=[_X3, _G3],
         args=["nearest", "zeros", True]),
]
