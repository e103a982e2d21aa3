"""`ops`/`mint.nn` names added in issue 32's third round (declared in the ops modules of their concerns, and new spellings of existing
declarations), recorded with MindSpore 2.10's CPU kernels. The names whose MindSpore kernels are Ascend-only (`swiglu`,
`argmax_ext`, `baddbmm_ext`, `mse_loss_ext`, the functional in-place ops) are checked against numpy in
tests/test_api_names_round3.py."""
import numpy as np

_R = np.random.default_rng(32)
_X = _R.standard_normal((2, 3)).astype(np.float32)
_COL = np.arange(1, 4, dtype=np.float32).reshape(3, 1)
_HSV = np.array([[0.0, 0.5, 0.8], [0.3, 1.0, 0.6], [0.55, 0.25, 1.0], [0.9, 0.7, 0.3]], np.float32).reshape(1, 2, 2, 3)
_C = (_R.standard_normal((2, 2)) + 1j * _R.standard_normal((2, 2))).astype(np.complex64)
_N = np.array([[1.0, np.nan, 3.0], [np.inf, 0.0, np.nan]], np.float32)
_IMG = _R.standard_normal((1, 2, 4, 4)).astype(np.float32)
_U = np.abs(_R.standard_normal((1, 8, 9))).astype(np.float32)
_X1 = _R.standard_normal((2, 3)).astype(np.float32)
_X2 = _R.standard_normal((2, 4)).astype(np.float32)
_W = _R.standard_normal((5, 3, 4)).astype(np.float32)
_BIAS = _R.standard_normal((5,)).astype(np.float32)

_UR = np.random.default_rng(3233)  # the unpooling cases' own draws (the ones above stay as recorded)
_UP1 = _UR.standard_normal((2, 3, 3)).astype(np.float32)
_UI1 = (np.arange(3) * 2 + _UR.integers(0, 2, (2, 3, 3))).astype(np.int64)
_UP2 = _UR.standard_normal((2, 3, 2, 2)).astype(np.float32)
_UI2 = np.array([[0, 3], [9, 15]], np.int64) * np.ones((2, 3, 1, 1), np.int64)
_UP3 = _UR.standard_normal((1, 2, 1, 2, 2)).astype(np.float32)
_UI3 = np.array([[0, 3], [13, 31]], np.int64) * np.ones((1, 2, 1, 1, 1), np.int64)
_AR = np.random.default_rng(3235)
_BLOCKS = _AR.standard_normal((1, 2, 4, 9)).astype(np.float32)
_BLOCKS4 = _AR.standard_normal((1, 2, 4, 9)).astype(np.float32)
_THETA2 = _AR.standard_normal((2, 2, 3)).astype(np.float32)
_THETA3 = _AR.standard_normal((1, 3, 4)).astype(np.float32)

CASES = [
    dict(id="ported_padding", primitive="Padding", call="ops.padding", inputs=[_COL], args=(4,)),
    dict(id="ported_padding_cls", primitive="Padding", call="ops.Padding", init={"pad_dim_size": 3}, inputs=[_COL]),
    dict(id="ported_hsv_to_rgb", primitive="HSVToRGB", call="ops.HSVToRGB", init={}, inputs=[_HSV]),
    dict(id="ported_view_as_real", primitive="ViewAsReal", call="ops.view_as_real", inputs=[_C]),
    dict(id="ported_bidense", primitive="Einsum", call="ops.bidense", inputs=[_X1, _X2, _W, _BIAS]),
    dict(id="ported_bidense_nobias", primitive="Einsum", call="ops.bidense", inputs=[_X1, _X2, _W]),
    dict(id="ported_clip_by_norm", primitive="Norm", call="ops.clip_by_norm", inputs=[_X], args=(1.0,)),
    # positive entries: MindSpore 2.10's order-1 norm sums the entries without abs() (a negative total scales x
    # by a negative factor); msx computes the true 1-norm (docs/api_surface.md)
    dict(id="ported_clip_by_norm_p1", primitive="Norm", call="ops.clip_by_norm", inputs=[np.abs(_X)],
         args=(0.5, 1.0)),
    dict(id="ported_isnan_ext", primitive="IsNan", call="ops.isnan_ext", inputs=[_N]),
    dict(id="ported_diff_ext", primitive="Diff", call="ops.diff_ext", inputs=[_X], kwargs={"dim": 1}),
    dict(id="ported_tensor_unfold", primitive="Im2Col", call="Tensor.unfold", inputs=[_IMG], args=(2,),
         kwargs={"stride": 2}),
    dict(id="ported_tensor_fold", primitive="Col2Im", call="Tensor.fold", inputs=[_U],
         args=(np.array([4, 4], np.int32), 2)),
    # max unpooling (msx/ops/unpool_ops.py): the indices a max pool with return_indices gives
    dict(id="ported_max_unpool1d", primitive="Scatter", call="ops.max_unpool1d",
         inputs=[_UP1, _UI1], args=(2,)),
    dict(id="ported_max_unpool2d", primitive="Scatter", call="ops.max_unpool2d",
         inputs=[_UP2, _UI2], args=(2,)),
    dict(id="ported_max_unpool2d_size", primitive="Scatter", call="ops.max_unpool2d",
         inputs=[_UP2, _UI2], args=(2,), kwargs={"output_size": (2, 3, 5, 5)}),
    dict(id="ported_max_unpool3d", primitive="Scatter", call="ops.max_unpool3d",
         inputs=[_UP3, _UI3], args=(2,)),
    dict(id="ported_max_unpool2d_cls", primitive="Scatter", call="ops.MaxUnpool2D",
         init={"ksize": 2, "strides": 2}, inputs=[_UP2, _UI2]),
    dict(id="ported_max_unpool3d_cls", primitive="Scatter", call="ops.MaxUnpool3D",
         init={"ksize": 2, "strides": 2}, inputs=[_UP3, _UI3]),
    # col2im with MindSpore's argument names, and affine grids (2-D, 3-D, corners)
    dict(id="ported_col2im", primitive="Col2Im", call="ops.col2im", inputs=[_BLOCKS],
         args=(np.array([4, 4], np.int32), 2, 1, 0, 1)),
    dict(id="ported_col2im_strided", primitive="Col2Im", call="ops.col2im", inputs=[_BLOCKS4],
         args=(np.array([5, 5], np.int32), 2, 1, 1, 2)),
    dict(id="ported_tensor_col2im", primitive="Col2Im", call="Tensor.col2im", inputs=[_BLOCKS],
         args=(np.array([4, 4], np.int32), 2, 1, 0, 1)),
    dict(id="ported_affine_grid", primitive="AffineGrid", call="ops.affine_grid", inputs=[_THETA2],
         args=((2, 1, 3, 4),)),
    dict(id="ported_affine_grid_corners", primitive="AffineGrid", call="ops.affine_grid", inputs=[_THETA2],
         args=((2, 1, 3, 4), True)),
    dict(id="ported_affine_grid_3d", primitive="AffineGrid", call="ops.affine_grid", inputs=[_THETA3],
         args=((1, 1, 2, 3, 4),)),
    dict(id="ported_affine_grid_cls", primitive="AffineGrid", call="ops.AffineGrid", init={"align_corners": True},
         inputs=[_THETA2], args=((2, 1, 3, 4),)),
]
