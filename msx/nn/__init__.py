"""`msx.nn`: Cell, layers, losses, wrappers and optimizers."""
from .cell import Cell, ParameterTuple  # noqa: F401
