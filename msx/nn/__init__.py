"""`msx.nn`: Cell, layers, losses, wrappers and optimizers."""
from __future__ import absolute_import  # noqa: F401  (mindspore.nn exports it too)
from .cell import Cell, ParameterTuple  # noqa: F401
from . import initializer  # noqa: F401  (the module: msx.nn.initializer.Normal, ...)
from .initializer import no_init_parameters  # noqa: F401
from .layer import *  # noqa: F401,F403
from .layer import get_activation  # noqa: F401
from . import layer  # noqa: F401  (MindSpore's `nn.layer` package: `nn.layer.basic`, `nn.layer.conv`, ...)
from .loss import *  # noqa: F401,F403
from .wrap import (DistributedGradReducer, DynamicLossScaleUpdateCell, FixedLossScaleUpdateCell,  # noqa: F401
                   ForwardValueAndGrad, ParameterUpdate, TrainOneStepCell, TrainOneStepWithLossScaleCell,
                   WithEvalCell, WithGradCell, WithLossCell)
from .graph_cell import GraphCell  # noqa: F401
from .optim import LARS, AdaFactor  # noqa: F401
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
from .micro_batch import (GradAccumulationCell, MicroBatchInterleaved, PipelineCell,  # noqa: E402,F401
                          PipelineGradReducer)
from .cell_grad import Jvp, Vjp  # noqa: E402,F401  (MindSpore's deprecated gradient Cells)
from . import refused as _refused  # noqa: E402  (MindSpore's Ascend-only/THOR Cells and Cell methods: they refuse use)
globals().update({_n: _refused.NAMES[_n] for _n in _refused.NN_NAMES})
