"""Training wrappers: `WithLossCell` (network + loss) and `TrainOneStepCell` (one optimisation step)."""
from __future__ import annotations

from ..autograd import value_and_grad
from ..ops import functional as F
from ..tensor import Tensor
from ..parallel.context import ParallelMode, get_auto_parallel_context
from .cell import Cell
from .distributed import DistributedGradReducer


class WithLossCell(Cell):
    """`loss_fn(backbone(data), label)`; parameter names stay the backbone's (auto_prefix=False)."""

    def __init__(self, backbone: Cell, loss_fn: Cell) -> None:
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        self._loss_fn = loss_fn

    def construct(self, data: Tensor, label: Tensor) -> Tensor:
        return self._loss_fn(self._backbone(data), label)

    @property
    def backbone_network(self) -> Cell:
        return self._backbone


class TrainOneStepCell(Cell):
    """Computes the loss of `network(*inputs)` and the gradients of `optimizer.parameters`, applies
    `optimizer(grads)` and returns the loss.

    The forward runs once: the loss and the gradients come from the same call, so BatchNorm moving
    stats update once per step and a Dropout mask is shared by the loss and the gradients. `sens`
    scales the gradients (the loss's cotangent), e.g. for static loss scaling.
    """

    def __init__(self, network: Cell, optimizer, sens: float | None = None) -> None:
        super().__init__(auto_prefix=False)
        self.network = network
        self.optimizer = optimizer
        self.weights = optimizer.parameters
        self.sens = sens
        self._grad_fn = value_and_grad(self._forward, None, self.weights, has_aux=True)
        # MindSpore's reducer_flag: in a data-parallel job the gradients are reduced over the ranks
        data_parallel = get_auto_parallel_context("parallel_mode") == ParallelMode.DATA_PARALLEL
        self.grad_reducer = DistributedGradReducer(self.weights) if data_parallel else None

    def _forward(self, *inputs: Tensor) -> tuple[Tensor, Tensor]:
        """(loss * sens summed, loss): the first is differentiated, the second returned as is."""
        loss = self.network(*inputs)
        scaled = loss if self.sens is None else F.reduce_sum(F.mul(loss, self.sens))
        return scaled, loss

    def construct(self, *inputs: Tensor) -> Tensor:
        (_, loss), grads = self._grad_fn(*inputs)
        if self.grad_reducer is not None:
            grads = self.grad_reducer(grads)
        self.optimizer(grads)
        return loss
