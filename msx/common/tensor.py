"""`msx.common.tensor`: `Tensor` and the tensor helpers; the module is callable like `ms.tensor(...)`."""
import sys

from ..tensor import Tensor, _CallableModule, from_numpy, is_tensor, tensor  # noqa: F401

sys.modules[__name__].__class__ = _CallableModule
