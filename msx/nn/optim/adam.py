"""`nn.Adam` (L2 weight decay) and `nn.AdamW` / `nn.AdamWeightDecay` (decoupled weight decay), via optax."""
from __future__ import annotations

from typing import Iterable

from ...ignored_args import not_honoured
from .optimizer import NO_LOCKING, LearningRate, Optimizer, _check_float


def _check_betas(owner: str, beta1: float, beta2: float, eps: float) -> tuple[float, float, float]:
    b1, b2 = _check_float(owner, "beta1", beta1), _check_float(owner, "beta2", beta2)
    if b1 >= 1.0 or b2 >= 1.0:
        raise ValueError(f"{owner}: beta1 and beta2 must be in [0, 1), got {b1}, {b2}")
    return b1, b2, _check_float(owner, "eps", eps, strict=True)


class Adam(Optimizer):
    """MindSpore's `nn.Adam` computed by `optax.adam` (bias-corrected moments `moment1.<name>`,
    `moment2.<name>`; the step count is `global_step`). `weight_decay` is L2: added to the grad before the
    moments. `use_nesterov` uses optax's NAdam; `use_locking=True` warns once: there is no per-variable lock to take.

    optax adds `eps` to the bias-corrected `sqrt(v)` where MindSpore adds it to the raw one: results differ
    only through eps.
    """

    def __init__(self, params: Iterable, learning_rate: LearningRate = 1e-3, beta1: float = 0.9,
                 beta2: float = 0.999, eps: float = 1e-8, use_locking: bool = False, use_nesterov: bool = False,
                 weight_decay: float = 0.0, loss_scale: float = 1.0) -> None:
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        not_honoured(type(self).__name__, "use_locking", use_locking, False, NO_LOCKING)
        self.beta1, self.beta2, self.eps = _check_betas("Adam", beta1, beta2, eps)
        self.use_nesterov = bool(use_nesterov)
        self._init_state("moment1", "moment2")

    def _update_attrs(self, weight_decay: float) -> dict:
        return {"kind": "adam", "weight_decay": weight_decay, "loss_scale": self.loss_scale,
                "beta1": self.beta1, "beta2": self.beta2, "eps": self.eps, "nesterov": self.use_nesterov}


class AdamW(Optimizer):
    """Adam with decoupled weight decay, `optax.adamw`: `param -= lr * (adam_update + weight_decay * param)`
    (torch's and `mindspore.mint.optim.AdamW`'s rule). State: `moment1.<name>`, `moment2.<name>`.
    """

    _moment_names = ("moment1", "moment2")

    def __init__(self, params: Iterable, learning_rate: LearningRate = 1e-3, beta1: float = 0.9,
                 beta2: float = 0.999, eps: float = 1e-8, weight_decay: float = 1e-2) -> None:
        super().__init__(learning_rate, params, weight_decay)
        self.beta1, self.beta2, self.eps = _check_betas(type(self).__name__, beta1, beta2, eps)
        self._init_state(*self._moment_names)

    def _update_attrs(self, weight_decay: float) -> dict:
        return {"kind": "adamw", "weight_decay": weight_decay, "beta1": self.beta1, "beta2": self.beta2,
                "eps": self.eps}


class AdamWeightDecay(AdamW):
    """MindSpore's `nn.AdamWeightDecay` (its defaults and state names `adam_m.<name>`, `adam_v.<name>`),
    computed as `AdamW`. Unlike MindSpore's kernel the moments are bias-corrected (optax.adamw), which
    only changes the first steps noticeably.
    """

    _moment_names = ("adam_m", "adam_v")

    def __init__(self, params: Iterable, learning_rate: LearningRate = 1e-3, beta1: float = 0.9,
                 beta2: float = 0.999, eps: float = 1e-6, weight_decay: float = 0.0) -> None:
        super().__init__(params, learning_rate, beta1, beta2, eps, weight_decay)
