"""`ops.TridiagonalMatMul` (matrix_ops.py), `ops.CompareAndBitpack` (special_ops.py), `ops.DataFormatDimMap` /
`ops.DataFormatVecPermute` (layout_ops.py), recorded with MindSpore 2.10's CPU kernels. `ops.HistogramFixedWidth`
(stats_ops.py) has no MindSpore CPU kernel: tests/test_sparse_apply_ops.py checks it against numpy."""
import numpy as np

_R = np.random.default_rng(2010)
_SUP = _R.standard_normal((2, 1, 4)).astype(np.float32)
_MAIN = _R.standard_normal((2, 1, 4)).astype(np.float32)
_SUB = _R.standard_normal((2, 1, 4)).astype(np.float32)
_RHS = _R.standard_normal((2, 4, 3)).astype(np.float32)
_BITS = _R.standard_normal((2, 16)).astype(np.float32)
_IBITS = _R.integers(-3, 4, (3, 8)).astype(np.int32)
_DIMS = np.array([-4, -3, -2, -1, 0, 1, 2, 3], np.int32)
_VEC = np.array([10, 20, 30, 40], np.int32)
_VEC2 = np.array([[1, 2], [3, 4], [5, 6], [7, 8]], np.int64)

CASES = [
    dict(id="tridiagonal_matmul", primitive="TridiagonalMatMul", call="ops.TridiagonalMatMul", init={},
         inputs=[_SUP, _MAIN, _SUB, _RHS]),
    dict(id="tridiagonal_matmul_2d", primitive="TridiagonalMatMul", call="ops.TridiagonalMatMul", init={},
         inputs=[_SUP[0], _MAIN[0], _SUB[0], _RHS[0]]),
    dict(id="compare_and_bitpack", primitive="CompareAndBitpack", call="ops.CompareAndBitpack", init={},
         inputs=[_BITS, np.array(0.1, np.float32)]),
    dict(id="compare_and_bitpack_int", primitive="CompareAndBitpack", call="ops.CompareAndBitpack", init={},
         inputs=[_IBITS, np.array(0, np.int32)]),
    dict(id="compare_and_bitpack_bool", primitive="CompareAndBitpack", call="ops.CompareAndBitpack", init={},
         inputs=[_IBITS > 0, np.array(False)]),
    dict(id="data_format_dim_map", primitive="DataFormatDimMap", call="ops.DataFormatDimMap", init={},
         inputs=[_DIMS]),
    dict(id="data_format_dim_map_nchw_nhwc", primitive="DataFormatDimMap", call="ops.DataFormatDimMap",
         init={"src_format": "NCHW", "dst_format": "NHWC"}, inputs=[_DIMS.reshape(2, 4)]),
    dict(id="data_format_vec_permute", primitive="DataFormatVecPermute", call="ops.DataFormatVecPermute", init={},
         inputs=[_VEC]),
    dict(id="data_format_vec_permute_2d", primitive="DataFormatVecPermute", call="ops.DataFormatVecPermute",
         init={"src_format": "NCHW", "dst_format": "NHWC"}, inputs=[_VEC2]),
]
