"""MindSpore's loss-scale wrappers (`nn.wrap.loss_scale`): `FixedLossScaleUpdateCell`, `DynamicLossScaleUpdateCell`
and `TrainOneStepWithLossScaleCell`."""
from __future__ import annotations

import numpy as np

from ... import dtype as mstype
from ...autograd import vjp_call
from ...ops import functional as F
from ...tensor import Parameter, Tensor
from ..cell import Cell
from .cell_wrapper import TrainOneStepCell



class FixedLossScaleUpdateCell(Cell):
    """A fixed loss scale: `construct(loss_scale, overflow)` returns `overflow` and changes nothing."""

    def __init__(self, loss_scale_value: float) -> None:
        super().__init__()
        self.loss_scale_value = float(loss_scale_value)

    def get_loss_scale(self) -> float:
        return self.loss_scale_value

    def construct(self, loss_scale: Tensor, overflow: Tensor) -> Tensor:
        return overflow


class DynamicLossScaleUpdateCell(Cell):
    """`construct(loss_scale, overflow)` updates the `loss_scale` Parameter in place: on overflow it is divided
    by `scale_factor` (not below 1); after `scale_window` overflow-free steps it is multiplied by it."""

    def __init__(self, loss_scale_value: float, scale_factor: int, scale_window: int) -> None:
        super().__init__()
        if scale_factor <= 1 or scale_window < 1:
            raise ValueError(f"DynamicLossScaleUpdateCell: need scale_factor > 1 and scale_window >= 1, got "
                             f"{scale_factor}, {scale_window}")
        self.loss_scale_value, self.scale_factor, self.scale_window = float(loss_scale_value), scale_factor, scale_window
        self.cur_iter = Parameter(Tensor(np.array([1], np.int32)), name="current_iterator_step", requires_grad=False)
        self.last_overflow_iter = Parameter(Tensor(np.array([0], np.int32)), name="last_overflow_iterator_step",
                                            requires_grad=False)

    def get_loss_scale(self) -> float:
        return self.loss_scale_value

    def construct(self, loss_scale: Parameter, overflow: Tensor) -> Tensor:
        overflow = F.cast(overflow, mstype.bool_)
        shrunk = F.maximum(loss_scale / self.scale_factor, 1.0)
        since = self.cur_iter - self.last_overflow_iter
        grow = F.logical_and(F.logical_not(overflow), F.equal(F.remainder(since, self.scale_window), 0))
        new_scale = F.where(overflow, shrunk, F.where(F.reshape(grow, loss_scale.shape), loss_scale * self.scale_factor,
                                                      loss_scale))
        loss_scale._rebind(F.cast(new_scale, loss_scale.dtype))
        self.last_overflow_iter._rebind(F.where(overflow, self.cur_iter, self.last_overflow_iter))
        self.cur_iter._rebind(self.cur_iter + 1)
        return overflow


class TrainOneStepWithLossScaleCell(TrainOneStepCell):
    """One step with loss scaling: grads of `loss * scale`, unscaled; when any is not finite the optimizer
    skips the step. `scale_sense`: a Tensor (fixed scale) or a loss-scale update Cell. Returns
    `(loss, overflow, scale)`."""

    def __init__(self, network: Cell, optimizer, scale_sense) -> None:
        super().__init__(network, optimizer)
        self.loss_scaling_manager = None
        if isinstance(scale_sense, Cell):
            self.loss_scaling_manager = scale_sense
            self.scale_sense = Parameter(Tensor(np.float32(scale_sense.get_loss_scale())), name="scale_sense",
                                         requires_grad=False)
        elif isinstance(scale_sense, Tensor):
            if scale_sense.size != 1:
                raise ValueError(f"TrainOneStepWithLossScaleCell: scale_sense must hold one value, got shape "
                                 f"{tuple(scale_sense.shape)}")
            self.scale_sense = Parameter(F.cast(F.reshape(scale_sense, ()), mstype.float32), name="scale_sense",
                                         requires_grad=False)
        else:
            raise TypeError(f"TrainOneStepWithLossScaleCell: scale_sense must be a Cell or a Tensor, got "
                            f"{type(scale_sense).__name__}")

    def construct(self, *inputs):
        scale = F.cast(self.scale_sense, mstype.float32)
        def scaled(*xs):
            loss = self.network(*xs)
            return F.sum(loss * F.cast(scale, loss.dtype)), loss

        (_, loss), _, grads = vjp_call(scaled, inputs, {}, None, list(self.weights), True, None)
        grads = tuple(F.cast(F.cast(g, mstype.float32) / scale, g.dtype) for g in grads)
        finite = F.all(F.stack([F.all(F.isfinite(g)) for g in grads]))
        overflow = F.logical_not(finite)
        if self.loss_scaling_manager is not None:
            overflow = self.loss_scaling_manager(self.scale_sense, overflow)
        if not bool(overflow):
            self.optimizer(grads)
        return loss, overflow, F.cast(self.scale_sense, mstype.float32)

    def set_sense_scale(self, sens: Tensor) -> None:
        self.scale_sense.set_data(F.cast(F.reshape(sens, ()), mstype.float32))
