"""`ops.unfold` / `ops.fold` and their primitives `ops.Im2Col` / `ops.Col2Im` (msx/ops/patch_ops.py)."""
import numpy as np

_RNG = np.random.default_rng(5)
_X = _RNG.standard_normal((1, 2, 4, 5)).astype(np.float32)
_COLS = _RNG.standard_normal((2, 8, 6)).astype(np.float32)     # C=2, 2x2 kernel, 2x3 blocks of a 3x4 image
_COLS_P = _RNG.standard_normal((1, 4, 12)).astype(np.float32)  # C=1, 2x2 kernel, stride 2, padding 1 on 5x6

CASES = [
    dict(id="unfold", primitive="Im2Col", call="ops.unfold", inputs=[_X], args=[2, 1, 1, 2], grad=True),
    dict(id="unfold_dilated", primitive="Im2Col", call="ops.unfold", inputs=[_X],
         kwargs=dict(kernel_size=(2, 3), dilation=(1, 2))),
    dict(id="im2col", primitive="Im2Col", call="ops.Im2Col", init=dict(ksizes=2, strides=1, dilations=1, pads=1),
         inputs=[_X]),
    dict(id="fold", primitive="Col2Im", call="ops.fold", inputs=[_COLS],
         args=[np.array([3, 4], np.int32), 2], grad=True),
    dict(id="fold_stride_pad", primitive="Col2Im", call="ops.fold", inputs=[_COLS_P],
         args=[np.array([5, 6], np.int32), 2, 1, 1, 2]),
    dict(id="col2im", primitive="Col2Im", call="ops.Col2Im", init=dict(kernel_size=2),
         inputs=[_COLS.reshape(2, 2, 4, 6)], args=[np.array([3, 4], np.int32)]),
]
