"""MindSpore's `experimental.optim.lr_scheduler` (torch's schedulers): each `step()` writes the new lr of
every parameter group into the group's lr Parameter; `get_last_lr()` returns them. The rules are torch's
chainable forms (MindSpore copies them), checked against MindSpore's recorded lrs."""
from __future__ import annotations

import math
from bisect import bisect_right
from typing import Callable, Sequence

from ... import dtype as mstype
from ...tensor import Tensor
from .optimizer import Optimizer


class LRScheduler:
    """Base: `optimizer`, `last_epoch` (-1: start), `base_lrs` (the groups' initial lrs)."""

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(self).__name__}: optimizer must be an experimental.optim.Optimizer, got "
                            f"{type(optimizer).__name__}")
        self.optimizer = optimizer
        for group in optimizer.param_groups:
            group.setdefault("initial_lr", float(group["lr"].asnumpy()))
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._last_lr = [float(g["lr"].asnumpy()) for g in optimizer.param_groups]
        self.step()

    def get_lr(self) -> list[float]:
        raise NotImplementedError

    def _current(self) -> list[float]:
        return [float(g["lr"].asnumpy()) for g in self.optimizer.param_groups]

    def step(self) -> None:
        self.last_epoch += 1
        values = self.get_lr()
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"].set_data(Tensor(float(lr), mstype.float32))
        self._last_lr = [float(v) for v in values]

    def get_last_lr(self) -> list[Tensor]:
        return [Tensor(v, mstype.float32) for v in self._last_lr]


class StepLR(LRScheduler):
    def __init__(self, optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1) -> None:
        self.step_size, self.gamma = int(step_size), float(gamma)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        lrs = self._current()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return lrs
        return [lr * self.gamma for lr in lrs]


class MultiStepLR(LRScheduler):
    def __init__(self, optimizer, milestones: Sequence[int], gamma: float = 0.1, last_epoch: int = -1) -> None:
        self.milestones, self.gamma = sorted(int(m) for m in milestones), float(gamma)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        lrs = self._current()
        times = self.milestones.count(self.last_epoch)
        return [lr * self.gamma ** times for lr in lrs] if times else lrs


class ExponentialLR(LRScheduler):
    def __init__(self, optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = float(gamma)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        lrs = self._current()
        return lrs if self.last_epoch == 0 else [lr * self.gamma for lr in lrs]


class LambdaLR(LRScheduler):
    def __init__(self, optimizer, lr_lambda: Callable | Sequence[Callable], last_epoch: int = -1) -> None:
        n = len(optimizer.param_groups)
        self.lr_lambdas = list(lr_lambda) if isinstance(lr_lambda, (list, tuple)) else [lr_lambda] * n
        if len(self.lr_lambdas) != n:
            raise ValueError(f"LambdaLR: expected {n} lr_lambdas, got {len(self.lr_lambdas)}")
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [base * f(self.last_epoch) for f, base in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(LambdaLR):
    def get_lr(self):
        lrs = self._current()
        if self.last_epoch == 0:
            return lrs
        return [lr * f(self.last_epoch) for f, lr in zip(self.lr_lambdas, lrs)]


class ConstantLR(LRScheduler):
    def __init__(self, optimizer, factor: float = 1.0 / 3, total_iters: int = 5, last_epoch: int = -1) -> None:
        if not 0 < factor <= 1:
            raise ValueError(f"ConstantLR: factor must be in (0, 1], got {factor}")
        self.factor, self.total_iters = float(factor), int(total_iters)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        lrs = self._current()
        if self.last_epoch == 0:
            return [lr * self.factor for lr in lrs]
        if self.last_epoch != self.total_iters:
            return lrs
        return [lr / self.factor for lr in lrs]


class LinearLR(LRScheduler):
    def __init__(self, optimizer, start_factor: float = 1.0 / 3, end_factor: float = 1.0, total_iters: int = 5,
                 last_epoch: int = -1) -> None:
        self.start_factor, self.end_factor, self.total_iters = float(start_factor), float(end_factor), int(total_iters)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        lrs = self._current()
        if self.last_epoch == 0:
            return [lr * self.start_factor for lr in lrs]
        if self.last_epoch > self.total_iters:
            return lrs
        s, e, n, t = self.start_factor, self.end_factor, self.total_iters, self.last_epoch
        return [lr * (1.0 + (e - s) / (n * s + (t - 1) * (e - s))) for lr in lrs]


class PolynomialLR(LRScheduler):
    def __init__(self, optimizer, total_iters: int = 5, power: float = 1.0, last_epoch: int = -1) -> None:
        self.total_iters, self.power = int(total_iters), float(power)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        lrs = self._current()
        if self.last_epoch == 0 or self.last_epoch > self.total_iters:
            return lrs
        factor = ((1.0 - self.last_epoch / self.total_iters) / (1.0 - (self.last_epoch - 1) / self.total_iters)) \
            ** self.power
        return [lr * factor for lr in lrs]


class CosineAnnealingLR(LRScheduler):
    def __init__(self, optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1) -> None:
        self.T_max, self.eta_min = int(T_max), float(eta_min)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        lrs, t, n = self._current(), self.last_epoch, self.T_max
        if t == 0:
            return lrs
        if (t - 1 - n) % (2 * n) == 0:
            return [lr + (base - self.eta_min) * (1 - math.cos(math.pi / n)) / 2
                    for lr, base in zip(lrs, self.base_lrs)]
        return [(1 + math.cos(math.pi * t / n)) / (1 + math.cos(math.pi * (t - 1) / n)) * (lr - self.eta_min)
                + self.eta_min for lr in lrs]


class CosineAnnealingWarmRestarts(LRScheduler):
    def __init__(self, optimizer, T_0: int, T_mult: int = 1, eta_min: float = 0.0, last_epoch: int = -1) -> None:
        if T_0 <= 0 or T_mult < 1:
            raise ValueError(f"CosineAnnealingWarmRestarts: need T_0 > 0 and T_mult >= 1, got {T_0}, {T_mult}")
        self.T_0, self.T_i, self.T_mult, self.eta_min = int(T_0), int(T_0), int(T_mult), float(eta_min)
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [self.eta_min + (base - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
                for base in self.base_lrs]

    def step(self) -> None:
        self.T_cur += 1
        if self.T_cur >= self.T_i:
            self.T_cur -= self.T_i
            self.T_i *= self.T_mult
        super().step()


class SequentialLR(LRScheduler):
    """Run `schedulers[i]` until `milestones[i]`, then the next (restarting it from epoch 0)."""

    def __init__(self, optimizer, schedulers: Sequence[LRScheduler], milestones: Sequence[int],
                 last_epoch: int = -1) -> None:
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(f"SequentialLR: expected {len(schedulers) - 1} milestones, got {len(milestones)}")
        self.optimizer, self._schedulers, self._milestones = optimizer, list(schedulers), list(milestones)
        self.last_epoch = last_epoch + 1
        for group in optimizer.param_groups:
            group["lr"].set_data(Tensor(group["initial_lr"], mstype.float32))
        for s in self._schedulers:
            s.last_epoch -= 1
        self._schedulers[0].step()
        self._last_lr = self._schedulers[0]._last_lr

    def step(self) -> None:
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            for group, base in zip(self.optimizer.param_groups, scheduler.base_lrs):
                group["lr"].set_data(Tensor(base, mstype.float32))
            scheduler.last_epoch = -1
        scheduler.step()
        self._last_lr = scheduler._last_lr


class ReduceLROnPlateau:
    """Multiply the lrs by `factor` when the metric passed to `step(metric)` stops improving for
    `patience` epochs (torch's rule, with threshold, cooldown and min_lr)."""

    def __init__(self, optimizer: Optimizer, mode: str = "min", factor: float = 0.1, patience: int = 10,
                 threshold: float = 1e-4, threshold_mode: str = "rel", cooldown: int = 0, min_lr=0.0,
                 eps: float = 1e-8) -> None:
        if factor >= 1.0:
            raise ValueError(f"ReduceLROnPlateau: factor must be < 1, got {factor}")
        if mode not in ("min", "max") or threshold_mode not in ("rel", "abs"):
            raise ValueError(f"ReduceLROnPlateau: mode must be 'min'/'max' and threshold_mode 'rel'/'abs'")
        n = len(optimizer.param_groups)
        self.min_lrs = list(min_lr) if isinstance(min_lr, (list, tuple)) else [float(min_lr)] * n
        self.optimizer, self.mode, self.factor, self.patience = optimizer, mode, float(factor), int(patience)
        self.threshold, self.threshold_mode, self.cooldown, self.eps = float(threshold), threshold_mode, cooldown, eps
        self.best = math.inf if mode == "min" else -math.inf
        self.num_bad_epochs, self.cooldown_counter, self.last_epoch = 0, 0, 0
        self._last_lr = [float(g["lr"].asnumpy()) for g in optimizer.param_groups]

    def _better(self, a: float, best: float) -> bool:
        if self.mode == "min":
            return a < (best * (1 - self.threshold) if self.threshold_mode == "rel" else best - self.threshold)
        return a > (best * (1 + self.threshold) if self.threshold_mode == "rel" else best + self.threshold)

    def step(self, metrics) -> None:
        current = float(metrics.asnumpy()) if isinstance(metrics, Tensor) else float(metrics)
        self.last_epoch += 1
        if self._better(current, self.best):
            self.best, self.num_bad_epochs = current, 0
        else:
            self.num_bad_epochs += 1
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            for group, min_lr in zip(self.optimizer.param_groups, self.min_lrs):
                old = float(group["lr"].asnumpy())
                new = max(old * self.factor, min_lr)
                if old - new > self.eps:
                    group["lr"].set_data(Tensor(new, mstype.float32))
            self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0
        self._last_lr = [float(g["lr"].asnumpy()) for g in self.optimizer.param_groups]

    def get_last_lr(self) -> list[Tensor]:
        return [Tensor(v, mstype.float32) for v in self._last_lr]


__all__ = ["LRScheduler", "StepLR", "MultiStepLR", "ExponentialLR", "LambdaLR", "MultiplicativeLR", "ConstantLR",
           "LinearLR", "PolynomialLR", "CosineAnnealingLR", "CosineAnnealingWarmRestarts", "SequentialLR",
           "ReduceLROnPlateau"]
