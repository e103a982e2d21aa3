"""DeformableOffsets and ops.deformable_conv2d (msx/ops/deformable_ops.py) against MindSpore 2.10 CPU: offsets
that move taps between pixels and past the borders, masks in [0, 1], padding, strides, dilation, groups."""
import numpy as np

_RNG = np.random.default_rng(13)
_X = _RNG.standard_normal((2, 4, 5, 6)).astype(np.float32)


def _offsets(dg, kh, kw, oh, ow):
    shift = _RNG.uniform(-1.8, 1.8, (2, 2 * dg * kh * kw, oh, ow))
    mask = _RNG.uniform(0, 1, (2, dg * kh * kw, oh, ow))
    return np.concatenate([shift, mask], 1).astype(np.float32)


_O1 = _offsets(1, 2, 2, 4, 5)            # k 2x2, stride 1, no pad on 5x6
_O2 = _offsets(2, 3, 3, 3, 2)            # k 3x3, stride (2, 3), pads 1, dilation (1, 1)
_O3 = _offsets(1, 2, 3, 6, 2)            # k 2x3, dilation (2, 2), pads (1, 2, 0, 1), stride (1, 2)
_W1 = _RNG.standard_normal((3, 4, 2, 2)).astype(np.float32)
_W2 = _RNG.standard_normal((6, 2, 3, 3)).astype(np.float32)
_B2 = _RNG.standard_normal((6,)).astype(np.float32)

CASES = [
    dict(id="deformable_offsets", primitive="DeformableOffsets", call="ops.DeformableOffsets",
         init=dict(strides=(1, 1, 1, 1), pads=(0, 0, 0, 0), ksize=(2, 2)), inputs=[_X, _O1]),
    dict(id="deformable_offsets_groups_pad_stride", primitive="DeformableOffsets", call="ops.DeformableOffsets",
         init=dict(strides=(1, 1, 2, 3), pads=(1, 1, 1, 1), ksize=(3, 3), deformable_groups=2), inputs=[_X, _O2]),
    dict(id="deformable_offsets_dilated", primitive="DeformableOffsets", call="ops.DeformableOffsets",
         init=dict(strides=(1, 1, 1, 2), pads=(1, 2, 0, 1), ksize=(2, 3), dilations=(1, 1, 2, 2)),
         inputs=[_X, _O3]),
    dict(id="deformable_conv2d", primitive="DeformableOffsets", call="ops.deformable_conv2d",
         inputs=[_X, _W1, _O1], args=[(2, 2), (1, 1, 1, 1), (0, 0, 0, 0)]),
    dict(id="deformable_conv2d_groups_bias", primitive="DeformableOffsets", call="ops.deformable_conv2d",
         inputs=[_X, _W2, _O2], args=[(3, 3), (1, 1, 2, 3), (1, 1, 1, 1), _B2],
         kwargs=dict(groups=2, deformable_groups=2)),
]
