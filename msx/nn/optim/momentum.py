"""`nn.Momentum`: SGD with (Nesterov) momentum, MindSpore's ApplyMomentum (optax.sgd with momentum)."""
from __future__ import annotations

from typing import Iterable

from .optimizer import LearningRate, Optimizer, _check_float


class Momentum(Optimizer):
    """MindSpore's `nn.Momentum`: `moments = momentum * moments + grad`,
    `param -= lr * (grad + momentum * moments if use_nesterov else moments)`; weight decay is L2 (added to
    the grad). The buffers are `moments.<param name>`.
    """

    def __init__(self, params: Iterable, learning_rate: LearningRate, momentum: float, weight_decay: float = 0.0,
                 loss_scale: float = 1.0, use_nesterov: bool = False) -> None:
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.momentum = _check_float("Momentum", "momentum", momentum)
        self.use_nesterov = bool(use_nesterov)
        if self.momentum:
            self._init_state("moments")

    def _update_attrs(self, weight_decay: float) -> dict:
        return {"kind": "sgd", "weight_decay": weight_decay, "loss_scale": self.loss_scale,
                "momentum": self.momentum, "nesterov": self.use_nesterov}
