"""`mint` names added in issue 32 whose MindSpore 2.10 CPU kernels run (the others -- Ascend-only `*Ext`
kernels -- are checked against numpy in tests/test_added_names_numpy.py)."""
import numpy as np

_A = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)
_B = np.array([[2.0, -1.0, 0.5], [1.5, 3.0, -2.0]], np.float32)
_M = np.array([[0.5, 1.5, 0.75], [1.25, 0.8, 1.1]], np.float32)
_N = np.array([[np.nan, 1.0, np.inf], [2.0, -np.inf, 3.0]], np.float32)
_Z = np.array([[0.0, 1.0, 2.0], [0.0, 0.0, 3.0]], np.float32)
_S = np.array([0.0, 1.0, 2.0, 3.0], np.float32)
_Q = np.array([0.5, 2.0, 3.5], np.float32)
_I = np.array([1, 3, 3, 0, 5, 5], np.int64)

CASES = [
    dict(id="mint_lerp", primitive="Lerp", call="mint.lerp", inputs=[_A, _B], kwargs={"weight": 0.3}),
    dict(id="mint_isclose", primitive="IsClose", call="mint.isclose", inputs=[_A, _A + 1e-6]),
    dict(id="mint_masked_select", primitive="MaskedSelect", call="mint.masked_select", inputs=[_A, _A > 2.5],
         eager_only=True),
    dict(id="mint_nan_to_num", primitive="NanToNum", call="mint.nan_to_num", inputs=[_N], kwargs={"nan": 0.5}),
    dict(id="mint_nansum", primitive="ReduceNanSum", call="mint.nansum", inputs=[_A], args=(1,), grad=True),
    dict(id="mint_nansum_nan", primitive="ReduceNanSum", call="mint.nansum",
         inputs=[np.where(np.isinf(_N), 1.0, _N).astype(np.float32)], args=(0, True)),
    dict(id="mint_nonzero", primitive="NonZero", call="mint.nonzero", inputs=[_Z], eager_only=True),
    dict(id="mint_polar", primitive="Polar", call="mint.polar", inputs=[_A, _B]),
    dict(id="mint_prod", primitive="ReduceProd", call="mint.prod", inputs=[_M], kwargs={"dim": 1}, grad=True),
    dict(id="mint_prod_all", primitive="ReduceProd", call="mint.prod", inputs=[_M]),
    dict(id="mint_searchsorted", primitive="SearchSorted", call="mint.searchsorted", inputs=[_S, _Q],
         kwargs={"right": True}),
    dict(id="mint_unbind", primitive="Unstack", call="mint.unbind", inputs=[_A], kwargs={"dim": 1}),
    dict(id="mint_unique_consecutive", primitive="UniqueConsecutive", call="mint.unique_consecutive",
         inputs=[_I], kwargs={"return_inverse": True, "return_counts": True}, eager_only=True),
    dict(id="mint_meshgrid", primitive="Meshgrid", call="mint.meshgrid", inputs=[_S, _Q]),
]
