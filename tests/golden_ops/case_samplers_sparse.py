"""The deterministic ops of the `samplers` round against MindSpore 2.10 CPU: EditDistance, Coalesce,
sparse_segment_mean (ragged_sparse_ops.py: eager only), NoRepeatNGram (sequence_label_ops.py),
MatrixLogarithm and cond (matrix_function_ops.py), CheckNumerics and float_power_ext (numerics_ops.py).
RaggedRange (its Tsplits is a dtype object) and SampledSoftmaxLoss are recorded by tests/golden_samplers/record.py;
ConfusionMatrix and ComputeAccidentalHits have no CPU kernel (tests/test_samplers_ops.py checks them with numpy)."""
import numpy as np

_RNG = np.random.default_rng(11)
# hypothesis/truth SparseTensors of rank 3: sequences at (0, 0), (1, 0), (1, 1) and (0, 0), (0, 1), (1, 0)
_HI = np.array([[0, 0, 0], [0, 0, 1], [1, 0, 0], [1, 1, 0], [1, 1, 1]], np.int64)
_HV = np.array([1, 2, 3, 4, 5], np.int64)
_TI = np.array([[0, 0, 0], [0, 0, 1], [0, 0, 2], [1, 0, 0], [0, 1, 0]], np.int64)
_TV = np.array([1, 3, 3, 4, 7], np.int64)
_S223 = np.array([2, 2, 3], np.int64)
_HI2 = np.array([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [2, 0]], np.int64)  # rank 2: 3 sequences
_HV2 = np.array([1.0, 2.0, 3.0, 2.0, 2.0, 5.0], np.float32)
_TI2 = np.array([[0, 0], [0, 1], [1, 0], [1, 1], [1, 2], [1, 3]], np.int64)
_TV2 = np.array([1.0, 3.0, 2.0, 1.0, 2.0, 2.0], np.float32)
_STATE = np.array([[[1, 2, 1, 2, 5, 1, 2], [9, 3, 9, 5, 4, 1, 5]],
                   [[4, 8, 6, 4, 5, 6, 4], [4, 8, 8, 4, 3, 4, 8]]], np.int32)
_LOGP = (np.arange(40).reshape(2, 2, 10) / 40).astype(np.float32)
_C2 = np.array([[1 + 2j, 2 + 1j], [4 + 1j, 5 + 2j]], np.complex64)
_CB = (_RNG.standard_normal((2, 3, 3)) + 1j * _RNG.standard_normal((2, 3, 3)) + 3 * np.eye(3)).astype(np.complex128)
_A3 = np.array([[1.0, 0.0, -1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 1.0]], np.float32)
_AB = np.stack([_A3, 2 * np.eye(3, dtype=np.float32) + 0.1, _RNG.uniform(0.5, 1.5, (3, 3)).astype(np.float32)])
_X3 = np.array([[0, 1, 2], [1, 2, 3], [3, 6, 7]], np.float32)


def _ed(case_id, normalize, *arrays):
    return dict(id=case_id, primitive="EditDistance", call="ops.EditDistance", init=dict(normalize=normalize),
                inputs=list(arrays), eager_only=True)


def _cond(case_id, a, p):
    return dict(id=case_id, primitive="Norm", call="ops.cond", inputs=[a], args=[p])


CASES = [
    _ed("edit_distance", True, _HI, _HV, _S223, _TI, _TV, _S223),
    _ed("edit_distance_raw", False, _HI, _HV, _S223, _TI, _TV, _S223),
    _ed("edit_distance_shapes_differ", False, _HI, _HV, np.array([3, 2, 3], np.int64), _TI, _TV, _S223),
    _ed("edit_distance_rank2_f32", True, _HI2, _HV2, np.array([3, 3], np.int64), _TI2, _TV2,
        np.array([2, 4], np.int64)),
    _ed("edit_distance_unsorted", False, np.array([[0, 1], [0, 0], [1, 0], [1, 1]], np.int64),
        np.array([1, 2, 3, 4], np.float32), np.array([2, 3], np.int64), np.array([[0, 0], [0, 1], [1, 1]], np.int64),
        np.array([2, 1, 4], np.float32), np.array([2, 3], np.int64)),
    dict(id="coalesce_cls", primitive="Coalesce", call="ops.Coalesce", init={},
         inputs=[np.array([[0, 0, 1], [1, 1, 2]], np.int64), np.array([1, 5, 4], np.float32),
                 np.array([3, 3], np.int64)], eager_only=True),
    dict(id="coalesce_f16", primitive="Coalesce", call="ops.coalesce",
         inputs=[np.array([[2, 0, 1, 0, 2], [1, 1, 2, 1, 0]], np.int64), np.array([1, 5, 4, 2, 3], np.float16),
                 np.array([3, 3], np.int64)], eager_only=True),
    dict(id="sparse_segment_mean", primitive="SparseSegmentMean", call="ops.sparse_segment_mean",
         inputs=[_X3, np.array([0, 1, 2], np.int32), np.array([1, 2, 2], np.int32)], eager_only=True),
    dict(id="sparse_segment_mean_gap_i64", primitive="SparseSegmentMean", call="ops.sparse_segment_mean",
         inputs=[_RNG.standard_normal((4, 2, 3)).astype(np.float64)],
         args=[np.array([3, 0, 0, 2], np.int64), np.array([0, 0, 3, 3], np.int64)], grad=True),
    dict(id="no_repeat_ngram_3", primitive="NoRepeatNGram", call="ops.NoRepeatNGram", init=dict(ngram_size=3),
         inputs=[_STATE, _LOGP]),
    dict(id="no_repeat_ngram_1", primitive="NoRepeatNGram", call="ops.NoRepeatNGram", init=dict(ngram_size=1),
         inputs=[_STATE, _LOGP]),
    dict(id="no_repeat_ngram_6_f16", primitive="NoRepeatNGram", call="ops.NoRepeatNGram", init=dict(ngram_size=6),
         inputs=[np.array([[[1, 2, 1, 2, 1, 2, 1]], [[3, 3, 3, 3, 3, 3, 3]]], np.int32),
                 _LOGP[:, :1].astype(np.float16)]),
    dict(id="no_repeat_ngram_2_f64", primitive="NoRepeatNGram", call="ops.NoRepeatNGram", init=dict(ngram_size=2),
         inputs=[_STATE, _LOGP.astype(np.float64)]),
    dict(id="matrix_logarithm", primitive="MatrixLogarithm", call="ops.MatrixLogarithm", init={}, inputs=[_C2]),
    dict(id="matrix_logarithm_batch_c128", primitive="MatrixLogarithm", call="ops.MatrixLogarithm", init={},
         inputs=[_CB]),
    dict(id="check_numerics", primitive="CheckNumerics", call="ops.CheckNumerics", init={},
         inputs=[_RNG.standard_normal((2, 3)).astype(np.float32)], grad=True),  # its gradient passes through
    _cond("cond_default", _A3, None),
    _cond("cond_fro", _A3, "fro"),
    _cond("cond_nuc", _A3, "nuc"),
    _cond("cond_inf", _A3, float("inf")),
    _cond("cond_neg_inf", _A3, float("-inf")),
    _cond("cond_1", _A3, 1),
    _cond("cond_neg_1", _A3, -1),
    _cond("cond_neg_2", _A3, -2),
    _cond("cond_batch", _AB, None),
    _cond("cond_batch_f64_fro", _AB.astype(np.float64), "fro"),
    _cond("cond_f64", _A3.astype(np.float64), 1),
    dict(id="float_power_ext_int_scalar", primitive="FloatPower", call="ops.float_power_ext",
         inputs=[np.array([1, 2, 3], np.int64)], args=[2]),
    dict(id="float_power_ext_tensors", primitive="FloatPower", call="ops.float_power_ext",
         inputs=[np.array([1, 2, 3], np.int32), np.array([2.0, -3.0, -4.0], np.float32)]),
    dict(id="float_power_ext_f16_float", primitive="FloatPower", call="ops.float_power_ext",
         inputs=[np.array([-8.0, 4.0, 0.5], np.float16)], args=[0.5]),
]
