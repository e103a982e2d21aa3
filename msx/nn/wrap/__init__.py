"""`msx.nn.wrap`: training wrappers at MindSpore's module paths (`nn.wrap.cell_wrapper`, `nn.wrap.loss_scale`,
`nn.wrap.grad_reducer`)."""
from .cell_wrapper import (ForwardValueAndGrad, ParameterUpdate, TrainOneStepCell, WithEvalCell,  # noqa: F401
                           WithGradCell, WithLossCell)
from .grad_reducer import DistributedGradReducer  # noqa: F401
from .loss_scale import (DynamicLossScaleUpdateCell, FixedLossScaleUpdateCell,  # noqa: F401
                         TrainOneStepWithLossScaleCell)
