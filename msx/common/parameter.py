"""`msx.common.parameter`: `Parameter` and `ParameterTuple`."""
from ..tensor import Parameter, ParameterTuple, Tensor  # noqa: F401
