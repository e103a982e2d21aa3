"""`msx.ops`: MindSpore's functional ops, class-style ops and the primitive registry.

The public names are exactly `__all__`: the functional ops (`functional.__all__`), the class-style ops
(`operations.__all__`) and the few MindSpore names below. Registry access for msx's own layers lives in
`msx.ops.primitive` (`REGISTRY`, `get_primitive`), kept here as documented msx additions.
"""
from . import array_ops, math_ops, nn_ops  # noqa: F401  (declare the primitives)
from . import optim_ops  # noqa: F401
from . import index_ops, layout_ops, scatter_ops, random_ops, loss_ops, apply_ops, sort_ops  # noqa: F401  (more MindSpore ops: see docs/array_random_loss_ops.md)
from . import comm_ops  # noqa: F401
from . import attention_ops  # noqa: F401  (flash_attention_score, scaled_dot_product_attention, rotary: issue 35)
from . import special_ops, linalg_ops, matrix_ops, fft_ops, scalar_ops, stats_ops, norm_ops  # noqa: F401  (math/special/linalg/fft/windows/scalar ops)
from .primitive import REGISTRY, get_primitive  # noqa: F401  (msx additions: the primitive registry)
from .functional import *  # noqa: F401,F403
from .functional import abs, all, any, max, min, pow, round, sum  # noqa: F401  (shadow builtins on purpose)
from .classes import *  # noqa: F401,F403
from .classes import PrimitiveOp  # noqa: F401
from .clip import clip_by_global_norm  # noqa: F401
# GradOperation is defined by autograd, a higher layer; `msx/__init__.py` adds it to this namespace.
from ..tensor import Tensor  # noqa: F401  (MindSpore's ops exports Tensor too)
from .custom import Custom, CustomOpBuilder  # noqa: F401
from . import functional, classes  # noqa: F401
from . import composite, operations  # noqa: F401  (`from mindspore.ops import operations as P, composite as C`)
from .comm_ops import AllGather, AllReduce, Broadcast, ReduceOp, ReduceScatter  # noqa: F401
from . import tensor_methods as _tensor_methods

_tensor_methods.attach()

__all__ = sorted(set(functional.__all__) | set(classes.__all__) | {
    "REGISTRY", "get_primitive", "PrimitiveOp", "clip_by_global_norm", "GradOperation", "Tensor", "Custom",
    "CustomOpBuilder", "functional", "operations", "AllGather", "AllReduce", "Broadcast", "ReduceOp", "ReduceScatter"})
from .nn_layer_ops import interpolate  # noqa: F401  (layer primitives: PadV3, Conv3D, Conv*Transpose, Interpolate, ...)
from . import sharding_ops  # noqa: F401,E402  (the Shard primitive; Primitive.shard, ms.shard, Cell.shard)
from .summary_ops import HistogramSummary, ImageSummary, ScalarSummary, TensorSummary  # noqa: F401,E402  (docs/summary.md)
from .comm_func import *  # noqa: E402,F401,F403  (mindspore.ops' torch-style collectives: ops.all_reduce, ...)
from . import comm_func as _comm_func  # noqa: E402
__all__ = sorted(set(__all__) | set(_comm_func.__all__))
from . import nn_functional_ext  # noqa: E402  (nn functional ops: adaptive pools, group_norm, embedding, ...)
from .nn_functional_ext import *  # noqa: F401,F403,E402
vars(functional).update({n: getattr(nn_functional_ext, n) for n in nn_functional_ext.__all__})  # registered after it
functional.__all__ = sorted(set(functional.__all__) | set(nn_functional_ext.__all__))
__all__ = sorted(set(__all__) | set(nn_functional_ext.__all__))
from .composite import HyperMap, Map, MultitypeFuncGraph, constexpr  # noqa: F401,E402  (MindSpore's ops exports them)
from .classes import DType as _DType, Partial as _Partial  # noqa: E402
from .api import SURFACE as _SURFACE  # noqa: E402
dtype, partial = _DType(), _Partial()  # MindSpore's `ops.dtype` and `ops.partial` are these primitive instances
from . import array_classes as _array_classes, layer_classes as _layer_classes  # noqa: E402
# MindSpore's ops.functional also holds these class ops and helpers by the same names
_MORE_FUNCTIONAL = {"dtype": dtype, "partial": partial, "Roll": Roll, "Median": Median,  # noqa: F405
                    "UniqueConsecutive": UniqueConsecutive, "AdaptiveMaxPool2D": AdaptiveMaxPool2D,  # noqa: F405
                    "Primitive": PrimitiveOp, "clip_by_global_norm": clip_by_global_norm, "interpolate": interpolate}
for _name, _obj in _MORE_FUNCTIONAL.items():
    _SURFACE.add("ops", _name, _obj)
for _name in [n for n in _SURFACE["ops"] if not hasattr(functional, n)]:  # layer_classes' functions too
    setattr(functional, _name, _SURFACE["ops"][_name])
functional.__all__ = sorted(_SURFACE["ops"])
__all__ = sorted(set(__all__) | {"HyperMap", "Map", "MultitypeFuncGraph", "constexpr", "dtype", "partial"}
                 | {n for m in (_layer_classes, _array_classes) for n in m.__all__ if n[0].islower()})
globals().update({n: getattr(m, n) for m in (_layer_classes, _array_classes) for n in m.__all__ if n[0].islower()})
