"""`msx.ops.operations` (`from mindspore.ops import operations as P`): every class-style op."""
from .classes import *  # noqa: F401,F403
from .classes import __all__  # noqa: F401
