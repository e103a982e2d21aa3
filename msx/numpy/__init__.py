"""`msx.numpy`: MindSpore's `mindspore.numpy` on msx Tensors (`import msx.numpy as mnp`).

Every name of MindSpore 2.10's `mindspore.numpy`, with its semantics and result dtypes (float32 and int32
defaults), computed by `jax.numpy`. Each function is an msx op - an existing one (`mnp.sin` is `ops.sin`) or an
`Np*` primitive declared in `functions.py` - so it runs eagerly and is captured by `msx.jit` in every capture
mode. See docs/numpy.md.
"""
from __future__ import absolute_import  # noqa: F401  (mindspore.numpy exports it too)

from . import creation, functions
from .creation import (NINF, PINF, apply_along_axis, apply_over_axes, array, array_str, asarray, asfarray,  # noqa: F401
                       bool_, empty, empty_like, float16, float32, float64, float_, inf, int8, int16, int32, int64,
                       int_, isscalar, mgrid, nan, numeric_types, ogrid, pi, piecewise, promote_types, rand, randint,
                       randn, result_type, size, uint, uint8, uint16, uint32, uint64)

globals().update({k: v for k, v in functions.FUNCTIONS.items() if k not in vars(creation) or k == "copy"})
globals()["asfarray"] = creation.asfarray
# MindSpore's submodule aliases (`mnp.math_module` is its math_ops module): here the modules holding the names.
array_creations_module = array_ops_module = logic_module = math_module = functions

__all__ = sorted(set(functions.FUNCTIONS) | {
    "NINF", "PINF", "apply_along_axis", "apply_over_axes", "array", "array_str", "asarray", "asfarray", "bool_",
    "empty", "empty_like", "float16", "float32", "float64", "float_", "inf", "int8", "int16", "int32", "int64", "int_",
    "isscalar", "mgrid", "nan", "numeric_types", "ogrid", "pi", "piecewise", "promote_types", "rand", "randint",
    "randn", "result_type", "size", "uint", "uint8", "uint16", "uint32", "uint64"})
