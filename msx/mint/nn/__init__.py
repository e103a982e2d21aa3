"""`msx.mint.nn`: torch-style layer names (views of `msx.nn`)."""
from ...nn import (Dropout, Flatten, GELU, Linear, ReLU, Sigmoid, Tanh, Softmax,  # noqa: F401
                   L1Loss, MSELoss, BCEWithLogitsLoss, CrossEntropyLoss)
from . import functional  # noqa: F401
