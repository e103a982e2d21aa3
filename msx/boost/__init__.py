"""`mindspore.boost`: MindSpore's training accelerations.

`GradientAccumulation` (and `grad_accumulation`'s two functions) work as in MindSpore. The other names are
Ascend cluster/algorithm accelerations (AdaSum, DimReduce, LessBN, gradient freezing, boosted train cells and
`AutoBoost` that picks among them); they exist so that `from mindspore.boost import X` imports, and
constructing one raises `MsxError` saying what to use instead.
"""
from __future__ import annotations

from ..errors import MsxError
from . import grad_accumulation  # noqa: F401
from .grad_accumulation import GradientAccumulation, gradient_accumulation_op, gradient_clear_op  # noqa: F401

_UNAVAILABLE = {
    "AutoBoost": "train without it (boost_level 'O0' is plain training), or accumulate with GradientAccumulation",
    "BoostTrainOneStepCell": "use nn.TrainOneStepCell",
    "BoostTrainOneStepWithLossScaleCell": "use nn.TrainOneStepWithLossScaleCell",
    "AdaSum": "use nn.DistributedGradReducer (a plain all-reduce mean)",
    "DimReduce": "train with the optimizer directly",
    "LessBN": "keep the network's BatchNorm layers",
    "GradientFreeze": "set requires_grad=False on the Parameters to freeze",
    "FreezeOpt": "set requires_grad=False on the Parameters to freeze",
    "OptimizerProcess": "build the optimizer's parameter groups directly",
    "ParameterProcess": "build the optimizer's parameter groups directly",
    "GroupLossScaleManager": "use amp.DynamicLossScaleManager or amp.FixedLossScaleManager",
}


def _unavailable(name: str, instead: str) -> type:
    def __init__(self, *args, **kwargs):
        raise MsxError(f"mindspore.boost.{name} is not available in msx (an Ascend training acceleration): "
                       f"{instead}")

    return type(name, (), {"__init__": __init__, "__module__": __name__,
                           "__doc__": f"Not available in msx: {instead}."})


for _name, _instead in _UNAVAILABLE.items():
    globals()[_name] = _unavailable(_name, _instead)

__all__ = ["GradientAccumulation", *_UNAVAILABLE]
