"""`msx.experimental.optim`: MindSpore's torch-style optimizers (`SGD`, `Adam`, `AdamW`, `Adagrad`, `RMSprop`,
`Adadelta`, `Adamax`) and `lr_scheduler`."""
from __future__ import absolute_import  # noqa: F401  (mindspore.experimental.optim exports it too)
from . import lr_scheduler  # noqa: F401
from .optimizer import SGD, Adadelta, Adagrad, Adam, Adamax, AdamW, Optimizer, RMSprop  # noqa: F401
from .more_optimizers import ASGD, NAdam, RAdam, Rprop  # noqa: F401,E402
