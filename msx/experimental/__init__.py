"""`msx.experimental`: MindSpore's experimental APIs (`experimental.optim`: torch-style optimizers and schedulers)."""
from . import optim  # noqa: F401
