"""ExtractVolumePatches (msx/ops/morphology_patch_ops.py) against MindSpore 2.10 CPU (Dilation2D has no working
CPU kernel there: tests/test_morphology_patch_ops.py)."""
import numpy as np

_RNG = np.random.default_rng(8)
_X = _RNG.standard_normal((2, 3, 4, 5, 6)).astype(np.float32)

CASES = [
    dict(id="extract_volume_patches_valid", primitive="ExtractVolumePatches", call="ops.ExtractVolumePatches",
         init=dict(kernel_size=(1, 1, 2, 3, 2), strides=(1, 1, 1, 2, 3), padding="VALID"), inputs=[_X]),
    dict(id="extract_volume_patches_same", primitive="ExtractVolumePatches", call="ops.ExtractVolumePatches",
         init=dict(kernel_size=(3, 2, 4), strides=2, padding="same"), inputs=[_X]),
    dict(id="extract_volume_patches_int8", primitive="ExtractVolumePatches", call="ops.ExtractVolumePatches",
         init=dict(kernel_size=2, strides=(1, 1, 1, 1, 2), padding="SAME"),
         inputs=[_RNG.integers(-100, 100, (1, 2, 3, 4, 5)).astype(np.int8)]),
]
