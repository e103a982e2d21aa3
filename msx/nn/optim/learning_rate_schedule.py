"""Learning-rate schedules (MindSpore's `nn.LearningRateSchedule` Cells) and per-step lr lists (`nn.*_lr`).

Schedules are Cells of the global step built from msx ops, so a compiled
train step records the lr computation instead of baking in one value.
"""
from __future__ import annotations

import math

from ... import dtype as mstype
from ... import ops
from ...tensor import Tensor
from ..cell import Cell


def _positive_int(name: str, value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{name} must be a positive int, got {value!r}")
    return value


class LearningRateSchedule(Cell):
    """Base of lr schedules: `construct(global_step) -> lr` (a float32 Tensor)."""

    def construct(self, global_step: Tensor) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} must define construct(global_step)")


class ExponentialDecayLR(LearningRateSchedule):
    """`learning_rate * decay_rate ** (step / decay_steps)`; the exponent is floored when `is_stair`."""

    def __init__(self, learning_rate: float, decay_rate: float, decay_steps: int, is_stair: bool = False) -> None:
        super().__init__()
        self.learning_rate, self.decay_rate = float(learning_rate), float(decay_rate)
        self.decay_steps = _positive_int("ExponentialDecayLR: decay_steps", decay_steps)
        self.is_stair = bool(is_stair)

    def construct(self, global_step: Tensor) -> Tensor:
        p = ops.cast(global_step, mstype.float32) / self.decay_steps
        if self.is_stair:
            p = ops.floor(p)
        return self.learning_rate * ops.pow(self.decay_rate, p)


class CosineDecayLR(LearningRateSchedule):
    """Half a cosine from `max_lr` down to `min_lr` over `decay_steps`, then `min_lr`."""

    def __init__(self, min_lr: float, max_lr: float, decay_steps: int) -> None:
        super().__init__()
        if not 0.0 <= min_lr < max_lr:
            raise ValueError(f"CosineDecayLR: need 0 <= min_lr < max_lr, got min_lr={min_lr}, max_lr={max_lr}")
        self.min_lr, self.max_lr = float(min_lr), float(max_lr)
        self.decay_steps = _positive_int("CosineDecayLR: decay_steps", decay_steps)

    def construct(self, global_step: Tensor) -> Tensor:
        p = ops.cast(ops.minimum(global_step, self.decay_steps), mstype.float32) / self.decay_steps
        return self.min_lr + 0.5 * (self.max_lr - self.min_lr) * (1.0 + ops.cos(math.pi * p))


class PolynomialDecayLR(LearningRateSchedule):
    """`(learning_rate - end_learning_rate) * (1 - step / decay_steps) ** power + end_learning_rate`.

    With `update_decay_steps`, decay_steps grows to the next multiple of itself
    past the step (a restarting decay) instead of the step being capped.
    """

    def __init__(self, learning_rate: float, end_learning_rate: float, decay_steps: int, power: float,
                 update_decay_steps: bool = False) -> None:
        super().__init__()
        self.learning_rate, self.end_learning_rate = float(learning_rate), float(end_learning_rate)
        self.decay_steps = _positive_int("PolynomialDecayLR: decay_steps", decay_steps)
        self.power, self.update_decay_steps = float(power), bool(update_decay_steps)

    def construct(self, global_step: Tensor) -> Tensor:
        step = ops.cast(global_step, mstype.float32)
        if self.update_decay_steps:
            decay_steps = self.decay_steps * ops.maximum(ops.ceil(step / self.decay_steps), 1.0)
        else:
            step, decay_steps = ops.minimum(step, float(self.decay_steps)), self.decay_steps
        p = 1.0 - step / decay_steps
        return (self.learning_rate - self.end_learning_rate) * ops.pow(p, self.power) + self.end_learning_rate


class WarmUpLR(LearningRateSchedule):
    """Linear warm-up: `learning_rate * min(step, warmup_steps) / warmup_steps`."""

    def __init__(self, learning_rate: float, warmup_steps: int) -> None:
        super().__init__()
        self.learning_rate = float(learning_rate)
        self.warmup_steps = _positive_int("WarmUpLR: warmup_steps", warmup_steps)

    def construct(self, global_step: Tensor) -> Tensor:
        p = ops.cast(ops.minimum(global_step, self.warmup_steps), mstype.float32) / self.warmup_steps
        return self.learning_rate * p


# ---------------------------------------------------------------- per-step lists (MindSpore's dynamic_lr)
class NaturalExpDecayLR(ExponentialDecayLR):
    """`learning_rate * exp(-decay_rate * p)` with p the global step itself (MindSpore's rule: not divided by
    decay_steps), or with `is_stair` the step rounded down to a multiple of decay_steps."""

    def construct(self, global_step: Tensor) -> Tensor:
        p = ops.cast(global_step, mstype.float32)
        if self.is_stair:
            p = ops.floor(p / self.decay_steps) * self.decay_steps
        return self.learning_rate * ops.exp(p * -self.decay_rate)


class InverseDecayLR(ExponentialDecayLR):
    """`learning_rate / (1 + decay_rate * step / decay_steps)` (the ratio floored when `is_stair`)."""

    def construct(self, global_step: Tensor) -> Tensor:
        p = ops.cast(global_step, mstype.float32) / self.decay_steps
        if self.is_stair:
            p = ops.floor(p)
        return self.learning_rate / (p * self.decay_rate + 1.0)


def natural_exp_decay_lr(learning_rate: float, decay_rate: float, total_step: int, step_per_epoch: int,
                         decay_epoch: int, is_stair: bool = False) -> list[float]:
    """`learning_rate * e^(-decay_rate * epoch)` for each step, the epoch rounded down to a multiple of
    decay_epoch when `is_stair` (MindSpore's rule: the epoch is not divided by decay_epoch)."""
    f = (lambda x, y: math.floor(x / y) * y) if is_stair else (lambda x, y: x)
    return [learning_rate * math.e ** (-decay_rate * f(i // step_per_epoch, decay_epoch)) for i in range(total_step)]


def inverse_decay_lr(learning_rate: float, decay_rate: float, total_step: int, step_per_epoch: int,
                     decay_epoch: int, is_stair: bool = False) -> list[float]:
    """`learning_rate / (1 + decay_rate * epoch / decay_epoch)` for each step (floored ratio when `is_stair`)."""
    f = (lambda x, y: math.floor(x / y)) if is_stair else (lambda x, y: x / y)
    return [learning_rate / (1 + decay_rate * f(i // step_per_epoch, decay_epoch)) for i in range(total_step)]


def polynomial_decay_lr(learning_rate: float, end_learning_rate: float, total_step: int, step_per_epoch: int,
                        decay_epoch: int, power: float, update_decay_epoch: bool = False) -> list[float]:
    """`(lr - end) * (1 - min(epoch, decay_epoch) / decay_epoch) ** power + end` per step; with
    `update_decay_epoch` the decay period grows to the next multiple of decay_epoch instead of stopping."""
    out, delta = [], learning_rate - end_learning_rate
    for i in range(total_step):
        epoch = i // step_per_epoch
        if update_decay_epoch:
            period, t = decay_epoch * max(math.ceil(epoch / decay_epoch), 1), epoch
        else:
            period, t = decay_epoch, min(epoch, decay_epoch)
        out.append(delta * (1 - t / period) ** power + end_learning_rate)
    return out


def warmup_lr(learning_rate: float, total_step: int, step_per_epoch: int, warmup_epoch: int) -> list[float]:
    """`learning_rate * min(epoch, warmup_epoch) / warmup_epoch` per step."""
    return [learning_rate * min(i // step_per_epoch, warmup_epoch) / warmup_epoch for i in range(total_step)]


def piecewise_constant_lr(milestone: list[int], learning_rates: list[float]) -> list[float]:
    """`learning_rates[i]` for the steps before `milestone[i]` (strictly increasing), `milestone[-1]` steps in all."""
    if len(milestone) != len(learning_rates):
        raise ValueError(f"piecewise_constant_lr: {len(milestone)} milestones but {len(learning_rates)} rates")
    if any(b <= a for a, b in zip([0, *milestone], milestone)):
        raise ValueError(f"piecewise_constant_lr: milestone must be positive and increasing, got {milestone}")
    lrs: list[float] = []
    for end, lr in zip(milestone, learning_rates):
        lrs += [float(lr)] * (end - len(lrs))
    return lrs


def exponential_decay_lr(learning_rate: float, decay_rate: float, total_step: int, step_per_epoch: int,
                         decay_epoch: int, is_stair: bool = False) -> list[float]:
    """`learning_rate * decay_rate ** (epoch / decay_epoch)` for each of `total_step` steps."""
    lrs = []
    for i in range(total_step):
        p = (i // step_per_epoch) / decay_epoch
        lrs.append(learning_rate * decay_rate ** (math.floor(p) if is_stair else p))
    return lrs


def cosine_decay_lr(min_lr: float, max_lr: float, total_step: int, step_per_epoch: int,
                    decay_epoch: int) -> list[float]:
    """Half a cosine from `max_lr` to `min_lr` over `decay_epoch` epochs, for each of `total_step` steps."""
    delta = 0.5 * (max_lr - min_lr)
    return [min_lr + delta * (1.0 + math.cos(math.pi * min(i // step_per_epoch, decay_epoch) / decay_epoch))
            for i in range(total_step)]
