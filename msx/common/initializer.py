"""`msx.common.initializer`: MindSpore's weight initializers (the same classes as `msx.nn.initializer`)."""
from __future__ import absolute_import  # noqa: F401  (mindspore.common.initializer exports it too)
from functools import reduce  # noqa: F401  (so does its `reduce`, functools')
from ..nn.initializer import (Constant, Dirac, HeNormal, HeUniform, Identity, Initializer, Normal,  # noqa: F401
                              One, Orthogonal, Sparse, TruncatedNormal, Uniform, VarianceScaling, XavierNormal,
                              XavierUniform, Zero, _calculate_correct_fan, _calculate_fan_in_and_fan_out,
                              _calculate_gain, initializer)
from ..context import get_seed  # noqa: F401
from ..tensor import Tensor  # noqa: F401

__all__ = ["Initializer", "initializer", "TruncatedNormal", "Normal", "Uniform", "HeUniform", "HeNormal",
           "XavierUniform", "XavierNormal", "One", "Zero", "Constant", "Identity", "Sparse", "Dirac", "Orthogonal",
           "VarianceScaling"]
