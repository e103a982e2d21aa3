"""`msx.nn` layers."""
from .activation import (GELU, LeakyReLU, LogSoftmax, ReLU, ReLU6, Sigmoid, SiLU, Softmax, Tanh,  # noqa: F401
                         get_activation)
from .basic import Dense, Dropout, Embedding, Flatten, Identity, Linear  # noqa: F401
from .container import CellList, SequentialCell  # noqa: F401
from .conv import Conv2d  # noqa: F401
from .normalization import BatchNorm1d, BatchNorm2d, LayerNorm  # noqa: F401
from .pooling import AvgPool2d, MaxPool2d  # noqa: F401
