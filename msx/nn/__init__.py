"""`msx.nn`: Cell, layers, losses, wrappers and optimizers."""
from .cell import Cell, ParameterTuple  # noqa: F401
from . import initializer  # noqa: F401  (the module: msx.nn.initializer.Normal, ...)
from .layers import (AvgPool2d, BatchNorm1d, BatchNorm2d, CellList, Conv2d, Dense, Dropout, Embedding,  # noqa: F401
                     Flatten, GELU, Identity, LayerNorm, LeakyReLU, Linear, LogSoftmax, MaxPool2d, ReLU, ReLU6,
                     SequentialCell, Sigmoid, SiLU, Softmax, Tanh, get_activation)
from .loss import (BCEWithLogitsLoss, CrossEntropyLoss, L1Loss, LossBase, MSELoss, NLLLoss,  # noqa: F401
                   SmoothL1Loss, SoftmaxCrossEntropyWithLogits)
from .wrap import TrainOneStepCell, WithLossCell  # noqa: F401
from .graph_cell import GraphCell  # noqa: F401
from .distributed import DistributedGradReducer  # noqa: F401
from .optim import (SGD, Adam, AdamW, AdamWeightDecay, CosineDecayLR, ExponentialDecayLR,  # noqa: F401
                    LearningRateSchedule, Momentum, Optimizer, PolynomialDecayLR, WarmUpLR, cosine_decay_lr,
                    exponential_decay_lr, piecewise_constant_lr)
