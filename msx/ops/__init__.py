"""`msx.ops`: MindSpore's functional ops, class-style ops and the primitive registry.

Built in one deterministic pass: first every module that declares ops is imported (`_DECLARING`, one fixed
order; each fills `api.SURFACE` from its declarations and `expose` wrappers), then the public namespaces
are published once from the finished tables: `ops.functional` (`functional.publish`), this module, and
`Tensor`'s methods (`tensor_methods.attach`). `__all__` is built once, below. Registry access for msx's own
layers lives in `msx.ops.primitive` (`REGISTRY`, `get_primitive`), kept here as documented msx additions.
"""
from __future__ import absolute_import  # noqa: F401  (mindspore.ops exports it too)
from importlib import import_module as _import_module
from pkgutil import iter_modules as _iter_modules

# the modules that declare primitives, in the order they were written; a new `<concern>_ops.py` file is found
# by its name (sorted, after these), so adding an op there touches that one file
_PRIMITIVES = (
    "array_ops", "math_ops", "nn_ops", "optim_ops", "index_ops", "layout_ops", "scatter_ops", "random_ops",
    "loss_ops", "apply_ops", "sort_ops", "comm_ops", "flash_attention_ops", "sdpa_ops", "rotary_ops", "special_ops",
    "linalg_ops", "matrix_ops",
    "fft_ops", "scalar_ops", "stats_ops", "norm_ops", "nn_layer_ops", "sharding_ops", "summary_ops",
)
_FOUND = tuple(sorted(m.name for m in _iter_modules(__path__) if m.name.endswith("_ops") and m.name not in _PRIMITIVES))
# then the hand-written views over them, whose namespaces are built from the finished tables
_VIEWS = ("functional", "functional_layers", "layer_classes", "array_classes", "classes", "clip", "custom",
          "composite", "comm_func", "operations")
for _name in _PRIMITIVES + _FOUND + _VIEWS:
    _import_module(f".{_name}", __name__)

from . import classes as _classes, comm_collective_ops as _comm_coll, comm_func as _comm_func, comm_func_objects as _comm_objs, composite as _composite, functional, operations  # noqa: E402,F401,E501
# ops.composite's helpers MindSpore's ops exports by the same names
_COMPOSITE_HELPERS = ("hyper_add", "tail", "zip_operation", "add_flags", "augassign_add", "augassign_sub",
                      "augassign_mul", "augassign_div", "augassign_floordiv", "augassign_mod", *_composite.REFUSED_NAMES)
from .api import SURFACE as _SURFACE  # noqa: E402
from .classes import DType as _DType, Partial as _Partial, PrimitiveOp  # noqa: E402,F401
from .primitive import REGISTRY, get_primitive  # noqa: E402,F401  (msx additions: the primitive registry)
from ..tensor import Tensor  # noqa: E402,F401  (MindSpore's ops exports Tensor too)
from .clip import clip_by_global_norm  # noqa: E402,F401
from .comm_ops import AllGather, AllReduce, Broadcast, ReduceOp, ReduceScatter  # noqa: E402,F401
from .composite import HyperMap, Map, MultitypeFuncGraph, constexpr  # noqa: E402,F401  (MindSpore's ops has them)
from .custom import Custom, CustomOpBuilder, CustomRegOp, DataType, custom_info_register, kernel, ms_kernel  # noqa: E402,F401,E501
from .nn_layer_ops import interpolate  # noqa: E402,F401
from .summary_ops import HistogramSummary, ImageSummary, ScalarSummary, TensorSummary  # noqa: E402,F401  (docs/summary.md)
from . import tensor_methods as _tensor_methods  # noqa: E402

dtype, partial, shape_ = _DType(), _Partial(), _classes.Shape()  # MindSpore's `ops.dtype`, `ops.partial`, `ops.shape_`
# are these primitive instances
# MindSpore's ops.functional also holds these class ops and helpers by the same names
for _name, _obj in {"dtype": dtype, "partial": partial, "shape_": shape_, "Roll": _classes.Roll, "Median": _classes.Median,
                    "UniqueConsecutive": _classes.UniqueConsecutive,
                    "AdaptiveMaxPool2D": _classes.AdaptiveMaxPool2D, "Primitive": PrimitiveOp,
                    "clip_by_global_norm": clip_by_global_norm, "interpolate": interpolate}.items():
    _SURFACE.add("ops", _name, _obj)

# ---------------------------------------------------------------- publish, once
functional.publish()
globals().update(_SURFACE["ops"])
globals().update({n: getattr(_classes, n) for n in _classes.__all__})
# MindSpore's ops.gather / ops.scatter are the array ops; the collectives of those names live in mint.distributed
_COMM_IN_OPS = [n for n in _comm_func.__all__ if n not in ("gather", "scatter")]
globals().update({n: getattr(_comm_func, n) for n in _COMM_IN_OPS})
globals().update({n: getattr(_comm_objs, n) for n in _comm_objs.__all__})
globals().update({n: getattr(_comm_coll, n) for n in _comm_coll.FUNCTIONS})  # ops names, not ops.functional's
globals().update({n: getattr(operations, n) for n in operations.UNAVAILABLE_NAMES})  # MindSpore's ops has them too
globals().update({n: getattr(_composite, n) for n in _COMPOSITE_HELPERS})
_tensor_methods.attach()
# GradOperation is defined by autograd, a higher layer; `msx/__init__.py` adds it to this namespace.
__all__ = sorted(set(_SURFACE["ops"]) | set(_classes.__all__) | set(_COMM_IN_OPS) | set(_comm_objs.__all__) | set(_comm_coll.FUNCTIONS) | {
    "REGISTRY", "get_primitive", "PrimitiveOp", "GradOperation", "Tensor", "Custom", "CustomOpBuilder",
    "CustomRegOp", "DataType", "custom_info_register", "kernel", "ms_kernel",
    "functional", "operations", "AllGather", "AllReduce", "Broadcast", "ReduceOp", "ReduceScatter",
    "HyperMap", "Map", "MultitypeFuncGraph", "constexpr",
    "HistogramSummary", "ImageSummary", "ScalarSummary", "TensorSummary"}
    | set(operations.UNAVAILABLE_NAMES) | set(_COMPOSITE_HELPERS))
