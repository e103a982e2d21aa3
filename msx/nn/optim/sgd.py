"""`nn.SGD`: stochastic gradient descent with optional momentum, dampening and Nesterov (optax.sgd)."""
from __future__ import annotations

from typing import Iterable

from .optimizer import LearningRate, Optimizer, _check_float


class SGD(Optimizer):
    """MindSpore's `nn.SGD`: `accum = momentum * accum + (1 - dampening) * grad` (the first step takes the
    grad undamped), `param -= lr * (grad + momentum * accum if nesterov else accum)`; weight decay is L2
    (added to the grad). The momentum buffers are `accum.<param name>` (only when momentum > 0).
    """

    def __init__(self, params: Iterable, learning_rate: LearningRate = 0.1, momentum: float = 0.0,
                 dampening: float = 0.0, weight_decay: float = 0.0, nesterov: bool = False,
                 loss_scale: float = 1.0) -> None:
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.momentum = _check_float("SGD", "momentum", momentum)
        self.dampening = _check_float("SGD", "dampening", dampening)
        self.nesterov = bool(nesterov)
        if self.nesterov and (self.momentum <= 0.0 or self.dampening != 0.0):
            raise ValueError(f"SGD: nesterov needs momentum > 0 and dampening == 0, "
                             f"got momentum={self.momentum}, dampening={self.dampening}")
        if self.momentum:
            self._init_state("accum")

    def _update_attrs(self, weight_decay: float) -> dict:
        return {"kind": "sgd", "weight_decay": weight_decay, "loss_scale": self.loss_scale,
                "momentum": self.momentum, "dampening": self.dampening, "nesterov": self.nesterov}
