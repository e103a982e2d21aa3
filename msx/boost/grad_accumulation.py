"""`mindspore.boost.grad_accumulation`: accumulate gradients over several steps, then update once.

The same cell and the same two `MultitypeFuncGraph`s as MindSpore 2.10's (mindcv's `TrainStep` subclasses
`GradientAccumulation` and maps the two functions itself): `gradient_accumulation_op(steps, acc, grad)` adds
`grad / steps` into `acc`, `gradient_clear_op(acc)` zeroes it. The accumulators are Parameters cloned from the
optimizer's (prefix "grad_accumulation", zeros), so they are state that jit reads and writes.
"""
from __future__ import annotations

from .. import dtype as mstype
from ..nn.cell import Cell
from ..ops import composite as C
from ..ops import functional as F
from ..ops import operations as P
from ..tensor import Parameter, Tensor

__all__ = ["GradientAccumulation", "gradient_accumulation_op", "gradient_clear_op"]

gradient_accumulation_op = C.MultitypeFuncGraph("gradient_accumulation_op")


@gradient_accumulation_op.register("Number", "Tensor", "Tensor")
def cumulative_grad_process(accumulation_step, cumulative_grad, grad):
    """Add `grad / accumulation_step` into the accumulator."""
    P.AssignAdd()(cumulative_grad, grad / accumulation_step)
    return cumulative_grad


gradient_clear_op = C.MultitypeFuncGraph("gradient_clear_op")


@gradient_clear_op.register("Tensor")
def clear_grad(cumulative_grad):
    """Zero the accumulator."""
    return F.assign(cumulative_grad, P.ZerosLike()(cumulative_grad))


class GradientAccumulation(Cell):
    """`GradientAccumulation(max_accumulation_step, optimizer)(loss, grads)`: adds `grads / max_accumulation_step`
    into its accumulators; every `max_accumulation_step`-th call runs `optimizer` on them and clears them.
    Returns `loss`."""

    def __init__(self, max_accumulation_step: int, optimizer: Cell) -> None:
        super().__init__()
        self._max_accumulation_step = max_accumulation_step
        self.optimizer = optimizer
        self.weights = optimizer.parameters
        self.hyper_map = C.HyperMap()
        self._grad_accumulation = self.weights.clone(prefix="grad_accumulation", init="zeros")
        self._accumulation_step = Parameter(Tensor(0, dtype=mstype.int32), name="accumulation_step")

    def construct(self, loss, grads):
        loss = F.depend(loss, self.hyper_map(F.partial(gradient_accumulation_op, self._max_accumulation_step),
                                             self._grad_accumulation, grads))
        self._accumulation_step += 1

        if self._accumulation_step >= self._max_accumulation_step:
            loss = F.depend(loss, self.optimizer(self._grad_accumulation))
            F.assign(self._accumulation_step, 0)

        if self._accumulation_step == 0:
            loss = F.depend(loss, self.hyper_map(F.partial(gradient_clear_op), self._grad_accumulation))

        return loss
