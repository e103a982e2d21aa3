"""`mindspore.boost`: MindSpore's training accelerations.

`GradientAccumulation` (and `grad_accumulation`'s two functions) work as in MindSpore. The other names are
Ascend cluster/algorithm accelerations (AdaSum, DimReduce, LessBN, gradient freezing, boosted train cells and
`AutoBoost` that picks among them); they exist so that `from mindspore.boost import X` imports, and
constructing one raises `MsxError` saying what to use instead.
"""
from __future__ import annotations

from ..unavailable import refuse
from . import grad_accumulation  # noqa: F401
from .grad_accumulation import GradientAccumulation, gradient_accumulation_op, gradient_clear_op  # noqa: F401

_WHAT = "an Ascend training acceleration"
_UNAVAILABLE = {
    (_WHAT, "train without it (boost_level 'O0' is plain training), or accumulate with GradientAccumulation"): (
        "AutoBoost"),
    (_WHAT, "use nn.TrainOneStepCell"): "BoostTrainOneStepCell",
    (_WHAT, "use nn.TrainOneStepWithLossScaleCell"): "BoostTrainOneStepWithLossScaleCell",
    (_WHAT, "use nn.DistributedGradReducer (a plain all-reduce mean)"): "AdaSum",
    (_WHAT, "train with the optimizer directly"): "DimReduce",
    (_WHAT, "keep the network's BatchNorm layers"): "LessBN",
    (_WHAT, "set requires_grad=False on the Parameters to freeze"): "GradientFreeze FreezeOpt",
    (_WHAT, "build the optimizer's parameter groups directly"): "OptimizerProcess ParameterProcess",
    (_WHAT, "use amp.DynamicLossScaleManager or amp.FixedLossScaleManager"): "GroupLossScaleManager",
}
_REFUSED = refuse(globals(), "mindspore.boost", _UNAVAILABLE)

__all__ = ["GradientAccumulation", *_REFUSED]
