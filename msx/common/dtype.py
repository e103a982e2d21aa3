"""`msx.common.dtype` (MindSpore's `mstype` module): every msx dtype and the dtype helpers."""
from __future__ import absolute_import  # noqa: F401  (mindspore.common.dtype exports it too)
from ..dtype import *  # noqa: F401,F403
from ..dtype import __all__  # noqa: F401
from .type_kinds import (Bool, Dict, Float, FunctionType, Int, List, NoneType, QuantDtype, Slice, String,  # noqa: F401,E402
                         TensorType, Tuple, UInt, function, list_, number, string, tensor_type, tuple_, type_none,
                         type_type, uint)
