"""`msx.experimental.optim`: MindSpore's torch-style optimizers (`SGD`, `Adam`, `AdamW`, `Adagrad`, `RMSprop`,
`Adadelta`, `Adamax`) and `lr_scheduler`."""
from . import lr_scheduler  # noqa: F401
from .optimizer import SGD, Adadelta, Adagrad, Adam, Adamax, AdamW, Optimizer, RMSprop  # noqa: F401
