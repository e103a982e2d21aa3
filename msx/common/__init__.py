"""`msx.common` (MindSpore's `mindspore.common`): dtypes, Tensor, Parameter, initializers and seeds.

The same objects as msx's top level, at the paths MindSpore's own tests and tutorials import from
(`from mindspore.common import dtype as mstype`, `from mindspore.common.initializer import Normal`).
"""
from __future__ import absolute_import  # noqa: F401  (mindspore.common exports it too)
from . import dtype, initializer, parameter, sparse_tensor, tensor  # noqa: F401
from .dtype import *  # noqa: F401,F403
from ..tensor import Parameter, ParameterTuple, Tensor, from_numpy, is_tensor  # noqa: F401
from ..context import get_seed, set_seed  # noqa: F401
from ..random_state import get_rng_state, initial_seed, manual_seed, seed, set_rng_state  # noqa: F401
from ..graph_hints import constexpr, jit_class, lazy_inline, mutable, no_inline  # noqa: F401
from ..jit import jit  # noqa: F401
from ..dynamic import Symbol, enable_dynamic  # noqa: F401
from ..dtype import Type  # noqa: F401
# the rest of mindspore.common's names: the same objects as msx's top level
from ..sparse_tensor import COOTensor, CSRTensor, RowTensor, RowTensorInner, SparseTensor  # noqa: F401,E402
from .device import DeviceCtx, set_recursion_limit  # noqa: F401,E402
from ..eager.saved_hooks import register_saved_tensors_hooks, saved_tensors_hooks  # noqa: F401,E402
from .generator import Generator, default_generator  # noqa: F401,E402
from .jit_config import JitConfig  # noqa: F401,E402
from .interop import swap_tensors  # noqa: F401,E402
from .mindir_files import load_mindir, save_mindir  # noqa: F401,E402
from .type_kinds import (Int, QuantDtype, TensorType, list_, number, string, tensor_type,  # noqa: F401,E402
                         tuple_, type_none, uint)
from ..refused_runtime import COMMON as _REFUSED_NAMES, NAMES as _REFUSED  # noqa: E402
globals().update({_n: _REFUSED[_n] for _n in _REFUSED_NAMES})  # Ascend runtime controls (msx.unavailable)
