"""ExtractGlimpse (msx/ops/glimpse_ops.py) against MindSpore 2.10 CPU: windows inside the image (any noise mode,
nothing random is used) and windows leaving it with noise='zero'; tests/test_glimpse_ops.py checks the random
noise's range."""
import numpy as np

_RNG = np.random.default_rng(17)
_X = _RNG.standard_normal((3, 6, 7, 2)).astype(np.float32)
_INSIDE = np.array([[0.1, -0.2], [0.0, 0.0], [-0.3, 0.35]], np.float32)
_OUTSIDE = np.array([[0.9, -0.95], [-1.0, 1.2], [-0.05, 0.02]], np.float32)
_PIXELS = np.array([[1.0, 2.0], [5.5, -1.5], [-0.4, 6.6]], np.float32)

CASES = [
    dict(id="extract_glimpse_inside", primitive="ExtractGlimpse", call="ops.ExtractGlimpse", init={},
         inputs=[_X], args=[np.array([3, 2], np.int32), _INSIDE]),
    dict(id="extract_glimpse_zero_noise", primitive="ExtractGlimpse", call="ops.ExtractGlimpse",
         init=dict(uniform_noise=False, noise="zero"), inputs=[_X], args=[np.array([4, 5], np.int32), _OUTSIDE]),
    dict(id="extract_glimpse_pixels_uncentered", primitive="ExtractGlimpse", call="ops.ExtractGlimpse",
         init=dict(centered=False, normalized=False, uniform_noise=False, noise="zero"), inputs=[_X],
         args=[np.array([3, 3], np.int32), _PIXELS]),
    dict(id="extract_glimpse_normalized_uncentered", primitive="ExtractGlimpse", call="ops.ExtractGlimpse",
         init=dict(centered=False, uniform_noise=False, noise="zero"), inputs=[_X],
         args=[np.array([2, 4], np.int32), np.abs(_OUTSIDE)]),
]
