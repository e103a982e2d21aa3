"""msx optimizers: MindSpore's classes, optax's math, state held in Parameters."""
from .adafactor import AdaFactor  # noqa: F401
from .lars import LARS  # noqa: F401
from .adam import Adam, AdamW, AdamWeightDecay  # noqa: F401
from .learning_rate_schedule import (CosineDecayLR, ExponentialDecayLR, InverseDecayLR,  # noqa: F401
                                     LearningRateSchedule, NaturalExpDecayLR, PolynomialDecayLR, WarmUpLR,
                                     cosine_decay_lr, exponential_decay_lr, inverse_decay_lr,
                                     natural_exp_decay_lr, piecewise_constant_lr, polynomial_decay_lr, warmup_lr)
from .momentum import Momentum  # noqa: F401
from .optimizer import Optimizer  # noqa: F401
from .sgd import SGD  # noqa: F401
from .elementwise import *  # noqa: F401,F403
