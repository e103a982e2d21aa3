"""`mint.allclose` / `Tensor.allclose` (added in msx/ops/special_ops.py): a Python bool, MindSpore's tolerances."""
import numpy as np

_A = np.array([[1.0, 2.0, 3.0], [4.0, -5.0, 6.0]], np.float32)
_B = _A + np.array([[0.0, 1e-6, 0.0], [0.0, 0.0, 0.05]], np.float32)
_N = np.array([1.0, np.nan, 3.0], np.float32)

CASES = [
    dict(id="allclose_default", primitive="AllClose", call="mint.allclose", inputs=[_A, _B]),
    dict(id="allclose_atol", primitive="AllClose", call="mint.allclose", inputs=[_A, _B], kwargs={"atol": 0.1}),
    dict(id="allclose_method_rtol", primitive="AllClose", call="Tensor.allclose", inputs=[_A, _B],
         kwargs={"rtol": 0.01}),
    dict(id="allclose_broadcast", primitive="AllClose", call="mint.allclose", inputs=[_A, _A[:1]]),
    dict(id="allclose_nan", primitive="AllClose", call="mint.allclose", inputs=[_N, _N]),
    dict(id="allclose_equal_nan", primitive="AllClose", call="Tensor.allclose", inputs=[_N, _N],
         kwargs={"equal_nan": True}),
]
