"""`msx.ops`: MindSpore's functional ops, class-style ops and the primitive registry."""
from . import array_ops, math_ops, nn_ops  # noqa: F401  (declare the primitives)
from . import optim_ops  # noqa: F401
from . import comm_ops  # noqa: F401
from .primitive import REGISTRY, Primitive, apply, get_primitive, primitive, register  # noqa: F401
from .functional import *  # noqa: F401,F403
from .functional import print_  # noqa: F401
from .functional import abs, all, any, max, min, pow, round, sum  # noqa: F401  (shadow builtins on purpose)
from .classes import *  # noqa: F401,F403
from .classes import PrimitiveOp  # noqa: F401
from .clip import clip_by_global_norm  # noqa: F401
from ..autograd import GradOperation  # noqa: F401
from .custom import Custom, CustomOpBuilder  # noqa: F401
from .comm_ops import AllGather, AllReduce, Broadcast, ReduceOp, ReduceScatter  # noqa: F401
from . import tensor_methods as _tensor_methods

_tensor_methods.attach()
