"""`msx.common.dtype` (MindSpore's `mstype` module): every msx dtype and the dtype helpers."""
from ..dtype import *  # noqa: F401,F403
from ..dtype import __all__  # noqa: F401
