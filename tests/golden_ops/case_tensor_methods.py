"""Tensor methods added in issue 32 (msx/ops/tensor_overloads.py and `tensor=` on op declarations), against
MindSpore 2.10's answers where its CPU kernels run (the rest: tests/test_added_names_numpy.py)."""
import numpy as np

_A = np.array([[3.0, 1.0, 2.0], [0.5, 6.0, 4.0]], np.float32)
_B = np.array([[1.0, -2.0, 0.5], [2.5, 1.5, -1.0]], np.float32)
_Q = np.array([[0.5, 1.0, 2.0], [1.5, 0.25, 3.0], [2.0, 1.0, 0.75]], np.float32)
_S = np.array([0.0, 1.0, 2.0, 3.0], np.float32)
_I2 = np.array([[2, 0], [1, 1]], np.int64)
_SEG = np.array([0, 1], np.int32)


def _t(name, prim, inputs, grad=False, **kw):
    return dict(id=f"tensor_{name.replace('.', '_')}{kw.pop('tag', '')}", primitive=prim, call=f"Tensor.{name}",
                inputs=inputs, grad=grad, **kw)


CASES = [
    _t("sort", "Sort", [_A], kwargs={"dim": 1, "descending": True}),
    _t("topk", "TopK", [_A], args=(2,), kwargs={"dim": 1}),
    dict(id="tensor_gather", primitive="GatherD", call="Tensor.gather", inputs=[_A], args=(1, _I2)),
    _t("expand", "BroadcastTo", [_A[:1]], args=(2, 3), grad=True),
    _t("trace", "Diagonal", [_Q], grad=True),
    _t("searchsorted", "SearchSorted", [_S, np.array([0.5, 2.0, 3.5], np.float32)], kwargs={"side": "right"}),
    _t("count_nonzero", "ReduceSum", [np.array([[0.0, 1.0], [2.0, 0.0]], np.float32)], args=(1,)),
    _t("median", "Median", [_A], kwargs={"axis": 1}),
    _t("ptp", "ReduceMax", [_A], kwargs={"axis": 1}),
    _t("sum_to_size", "ReduceSum", [_A], args=(1, 3), grad=True),
    _t("diagflat", "DiagEmbed", [_A[0]], kwargs={"offset": 1}),
    _t("aminmax", "AMinMax", [_A], kwargs={"axis": 1}),
    _t("nanmedian", "Median", [_A], kwargs={"axis": 0}),
    _t("renorm", "Renorm", [_A], args=(2, 0, 2.0)),
    _t("reverse", "ReverseV2", [_A], kwargs={"axis": [1]}),
    _t("tensor_split", "Split", [_A], args=(3,), kwargs={"axis": 1}),
    _t("hsplit", "Split", [_A], args=(3,)),
    _t("msort", "Sort", [_A]),
    _t("ldexp", "Ldexp", [_A, np.array([1.0, 2.0, -1.0], np.float32)]),
    _t("matrix_determinant", "MatrixDeterminant", [_Q], grad=True),
    _t("cov", "Cov", [_A]),
    _t("unsorted_segment_max", "SegmentReduce", [_A, _SEG], args=(3,)),
    _t("fill_diagonal", "MaskedFill", [_Q], args=(9.0,)),
    _t("slice_scatter", "SliceScatter", [_A, _B[:, :1]], kwargs={"axis": 1, "start": 1, "end": 2}),
]
