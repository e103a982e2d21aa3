"""`msx.common.initializer`: MindSpore's weight initializers (the same classes as `msx.nn.initializer`)."""
from ..nn.initializer import (Constant, HeNormal, HeUniform, Initializer, Normal, One, TruncatedNormal,  # noqa: F401
                              Uniform, XavierNormal, XavierUniform, Zero, initializer)
from ..context import get_seed  # noqa: F401
from ..tensor import Tensor  # noqa: F401
