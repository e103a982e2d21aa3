"""`msx.nn`: Cell, layers, losses, wrappers and optimizers."""
from .cell import Cell, ParameterTuple  # noqa: F401
from . import initializer  # noqa: F401  (the module: msx.nn.initializer.Normal, ...)
from .layers import *  # noqa: F401,F403
from .layers import get_activation  # noqa: F401
from . import layers as layer  # noqa: F401  (MindSpore's `nn.layer` module name)
from .loss import (BCEWithLogitsLoss, CrossEntropyLoss, L1Loss, LossBase, MSELoss, NLLLoss,  # noqa: F401
                   SmoothL1Loss, SoftmaxCrossEntropyWithLogits)
from .loss_more import *  # noqa: F401,F403
from .wrap import TrainOneStepCell, WithLossCell  # noqa: F401
from .graph_cell import GraphCell  # noqa: F401
from .distributed import DistributedGradReducer  # noqa: F401
from .optim import (SGD, Adam, AdamW, AdamWeightDecay, CosineDecayLR, ExponentialDecayLR,  # noqa: F401
                    LearningRateSchedule, Momentum, Optimizer, PolynomialDecayLR, WarmUpLR, cosine_decay_lr,
                    exponential_decay_lr, piecewise_constant_lr)
from .optim.elementwise import *  # noqa: F401,F403
from . import metrics  # noqa: E402,F401
from .metrics import *  # noqa: E402,F401,F403
from .metrics import (MAE, MSE, Accuracy, Loss, Metric, get_metric_fn, get_metrics, names,  # noqa: E402,F401
                      rearrange_inputs)
from .optim import (InverseDecayLR, NaturalExpDecayLR, inverse_decay_lr, natural_exp_decay_lr,  # noqa: E402,F401
                    polynomial_decay_lr, warmup_lr)
from .optim import learning_rate_schedule  # noqa: E402,F401
from .optim import learning_rate_schedule as dynamic_lr  # noqa: E402,F401  (MindSpore's nn.dynamic_lr module)
from .wrap_more import *  # noqa: E402,F401,F403
from .micro_batch import (GradAccumulationCell, MicroBatchInterleaved, PipelineCell,  # noqa: E402,F401
                          PipelineGradReducer)
