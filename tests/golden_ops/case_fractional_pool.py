"""Fractional max/avg pooling (msx/ops/fractional_pool_ops.py), AdaptiveMaxPool2D's indices and the functional
forms of AdaptiveMaxPool3D, CropAndResize and CTCGreedyDecoder against MindSpore 2.10 CPU. The fixed-ksize ops
are deterministic for given samples; FractionalMaxPool/AvgPool cases use sizes the ratio divides (then the pooling
sequence has no randomness); tests/test_fractional_pool_ops.py checks the random sequences (MindSpore's own, read
back from tests/golden_ops/fractional_sequences.npz) and their properties."""
import numpy as np

_RNG = np.random.default_rng(11)
_X4 = _RNG.standard_normal((2, 3, 7, 9)).astype(np.float32)
_S2 = _RNG.uniform(0, 1, (2, 3, 2)).astype(np.float32)
_X5 = _RNG.standard_normal((2, 2, 5, 6, 7)).astype(np.float32)
_S3 = _RNG.uniform(0, 1, (2, 2, 3)).astype(np.float32)
_S3_4D = _RNG.uniform(0, 1, (2, 1, 3)).astype(np.float32)
_TIES = np.round(_RNG.standard_normal((1, 2, 6, 6)) * 2).astype(np.float32)  # equal values: the first wins
_TIES[0, 1, 2:4, 2:4] = np.nan
_TIES[0, 1, 0, 0] = np.nan
_S_T = np.array([[[0.3, 0.6], [0.9, 0.1]]], np.float32)
_NHWC = _RNG.standard_normal((2, 6, 8, 3)).astype(np.float32)
_NHWC_I = _RNG.integers(-9, 9, (1, 6, 4, 2)).astype(np.int32)
_AMP = _RNG.standard_normal((2, 3, 5, 7)).astype(np.float32)
_AMP_NAN = _AMP.copy()
_AMP_NAN[0, 0, 0, :3] = np.nan
_IMG = _RNG.uniform(0, 1, (2, 5, 6, 3)).astype(np.float32)
_BOXES = np.array([[0.1, 0.2, 0.8, 0.9], [0.0, 0.0, 1.0, 1.0], [0.5, 0.4, 0.2, 0.1]], np.float32)
_LOGITS = _RNG.standard_normal((5, 3, 4)).astype(np.float32)
_SEQ = np.array([5, 3, 4], np.int32)

CASES = [
    dict(id="fmp_fixed_2d", primitive="FractionalMaxPoolWithFixedKsize",
         call="ops.FractionalMaxPoolWithFixedKsize", init=dict(ksize=(2, 3), output_shape=(4, 5)),
         inputs=[_X4, _S2]),
    dict(id="fmp_fixed_2d_int_ksize", primitive="FractionalMaxPoolWithFixedKsize",
         call="ops.FractionalMaxPoolWithFixedKsize", init=dict(ksize=2, output_shape=(6, 8)),
         inputs=[_X4.astype(np.float64), _S2.astype(np.float64)]),
    dict(id="fmp_fixed_2d_ties_nan", primitive="FractionalMaxPoolWithFixedKsize",
         call="ops.FractionalMaxPoolWithFixedKsize", init=dict(ksize=(3, 3), output_shape=(3, 3)),
         inputs=[_TIES, _S_T]),
    dict(id="fmp_fixed_3d", primitive="FractionalMaxPool3DWithFixedKsize",
         call="ops.FractionalMaxPool3DWithFixedKsize", init=dict(ksize=(2, 2, 3), output_shape=(3, 4, 2)),
         inputs=[_X5, _S3]),
    dict(id="fmp_fixed_3d_4d_input", primitive="FractionalMaxPool3DWithFixedKsize",
         call="ops.FractionalMaxPool3DWithFixedKsize", init=dict(ksize=1, output_shape=(2, 3, 4)),
         inputs=[_X5[0], _S3_4D]),
    dict(id="fractional_max_pool2d_size", primitive="FractionalMaxPoolWithFixedKsize",
         call="ops.fractional_max_pool2d", inputs=[_X4], args=[(3, 2), (3, 4), None, True, _S2]),
    dict(id="fractional_max_pool2d_ratio_3d", primitive="FractionalMaxPoolWithFixedKsize",
         call="ops.fractional_max_pool2d", inputs=[_X4[0]], args=[2, None, (0.5, 0.7), False, _S2[:1]]),
    dict(id="fractional_max_pool3d_size", primitive="FractionalMaxPool3DWithFixedKsize",
         call="ops.fractional_max_pool3d", inputs=[_X5], args=[(1, 2, 2), (4, 4, 4), None, True, _S3]),
    dict(id="fractional_max_pool3d_ratio_4d", primitive="FractionalMaxPool3DWithFixedKsize",
         call="ops.fractional_max_pool3d", inputs=[_X5[0]], args=[2, None, 0.5, True, _S3_4D[:, :1].reshape(1, 2, 3)]),
    dict(id="fractional_max_pool_divisible", primitive="FractionalMaxPool", call="ops.FractionalMaxPool",
         init=dict(pooling_ratio=[1.0, 2.0, 2.0, 1.0]), inputs=[_NHWC]),
    dict(id="fractional_max_pool_overlap", primitive="FractionalMaxPool", call="ops.FractionalMaxPool",
         init=dict(pooling_ratio=[1.0, 3.0, 2.0, 1.0], overlapping=True, pseudo_random=True), inputs=[_NHWC]),
    dict(id="fractional_avg_pool_divisible", primitive="FractionalAvgPool", call="ops.FractionalAvgPool",
         init=dict(pooling_ratio=[1.0, 2.0, 4.0, 1.0], overlapping=True), inputs=[_NHWC]),
    dict(id="fractional_avg_pool_int", primitive="FractionalAvgPool", call="ops.FractionalAvgPool",
         init=dict(pooling_ratio=[1.0, 2.0, 2.0, 1.0]), inputs=[_NHWC_I]),
    dict(id="adaptive_max_pool2d_indices", primitive="AdaptiveMaxPool2D", call="ops.AdaptiveMaxPool2D",
         init=dict(output_size=(2, 3)), inputs=[_AMP]),
    dict(id="adaptive_max_pool2d_indices_none_3d", primitive="AdaptiveMaxPool2D", call="ops.adaptive_max_pool2d",
         inputs=[_AMP[0]], args=[(None, 4), True]),
    dict(id="adaptive_max_pool2d_fn_nan", primitive="AdaptiveMaxPool2D", call="ops.adaptive_max_pool2d",
         inputs=[_AMP_NAN], args=[3, True]),
    dict(id="nn_adaptive_max_pool2d_indices", primitive="AdaptiveMaxPool2D", call="nn.AdaptiveMaxPool2d",
         init=dict(output_size=(3, None), return_indices=True), inputs=[_AMP]),
    dict(id="nn_adaptive_max_pool3d_indices", primitive="AdaptiveMaxPool3D", call="nn.AdaptiveMaxPool3d",
         init=dict(output_size=(2, 3, 3), return_indices=True), inputs=[_X5]),
    dict(id="adaptive_max_pool3d_fn", primitive="AdaptiveMaxPool3D", call="ops.adaptive_max_pool3d",
         inputs=[_X5], args=[(2, 3, 3), True]),
    dict(id="adaptive_max_pool3d_fn_values", primitive="AdaptiveMaxPool3D", call="ops.adaptive_max_pool3d",
         inputs=[_X5[0]], args=[2]),
    dict(id="crop_and_resize_fn", primitive="CropAndResize", call="ops.crop_and_resize",
         inputs=[_IMG, _BOXES, np.array([0, 1, 1], np.int32)], args=[(3, 4)]),
    dict(id="crop_and_resize_fn_nearest", primitive="CropAndResize", call="ops.crop_and_resize",
         inputs=[_IMG, _BOXES, np.array([1, 0, 1], np.int32)], args=[(2, 2), "nearest", 0.5]),
    dict(id="ctc_greedy_decoder_fn", primitive="CTCGreedyDecoder", call="ops.ctc_greedy_decoder",
         inputs=[_LOGITS, _SEQ], eager_only=True),
    dict(id="ctc_greedy_decoder_fn_no_merge", primitive="CTCGreedyDecoder", call="ops.ctc_greedy_decoder",
         inputs=[_LOGITS, _SEQ], args=[False], eager_only=True),
]
