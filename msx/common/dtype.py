"""`msx.common.dtype` (MindSpore's `mstype` module): every msx dtype and the dtype helpers."""
from __future__ import absolute_import  # noqa: F401  (mindspore.common.dtype exports it too)
import ml_dtypes as _ml_dtypes  # noqa: E402

from ..dtype import *  # noqa: F401,F403
from ..dtype import __all__  # noqa: F401
from inspect import isfunction  # noqa: F401,E402  (mindspore.common.dtype re-exports inspect's)
from .type_kinds import (AnythingType, COOTensorType, CSRTensorType, Ellipsis_, EnvType, MsClassType,  # noqa: F401,E402
                         RefKeyType, RefType, RowTensorType, SymbolicKeyType, UndeterminedType, coo_tensor,
                         csr_tensor, env_type, index_slices, symbolic_key, type_refkey, undetermined)
from .type_kinds import (Bool, Dict, Float, FunctionType, Int, List, NoneType, QuantDtype, Slice, String,  # noqa: F401,E402
                         TensorType, Tuple, UInt, function, list_, number, string, tensor_type, tuple_, type_none,
                         type_type, uint)

np_bfloat16 = _ml_dtypes.bfloat16  # numpy's bfloat16 scalar type (ml_dtypes'), what `Tensor.asnumpy()` of bfloat16 gives


def np_dtype_valid(check: bool) -> bool:
    """Whether numpy knows the bfloat16 dtype (MindSpore's check before it makes a bfloat16 numpy array):
    always True in msx, which stands on ml_dtypes; `check` (raise when it is not) has nothing to raise."""
    return True
