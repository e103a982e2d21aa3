"""MindSpore's `nn.LARS(optimizer, epsilon=1e-05, coefficient=0.001, use_clip=False, lars_filter=...)`:
layer-wise adaptive rate scaling around another optimizer (You et al. 2017).

Each Parameter the filter keeps (by default: not LayerNorm, not a bias) gets its gradient replaced by
`coeff * (g + wd * w)` with `coeff = coefficient * |w| / (|g| + wd * |w| + epsilon)` (with `use_clip`:
`clip(coeff / lr, 0, 1)`), MindSpore's LarsV2Update kernel; the wrapped optimizer then steps with its own
weight decay switched off, as MindSpore switches it off. MindSpore quirks kept: the decay used here is the
optimizer's weight decay divided by its `loss_scale` (the gradients are unscaled first), and a Parameter
the filter drops gets its raw gradient, with no decay at all.

MindSpore 2.10 has no CPU kernel for LARSUpdate (its CPU `nn.LARS` fails at kernel selection); msx's values
are checked against that kernel's formula (`tests/test_lars.py`).
"""
from __future__ import annotations

import dataclasses
from typing import Callable, Sequence

from ... import dtype as mstype
from ...ops import functional as F
from ...tensor import Parameter, Tensor
from .optimizer import Optimizer


def _default_filter(p: Parameter) -> bool:
    return "LayerNorm" not in p.name and "bias" not in p.name


class LARS(Optimizer):
    """See the module docstring: `LARS(Momentum(params, lr, 0.9, weight_decay=1e-4))` steps as MindSpore's."""

    def __init__(self, optimizer: Optimizer, epsilon: float = 1e-05, coefficient: float = 0.001,
                 use_clip: bool = False, lars_filter: Callable[[Parameter], bool] = _default_filter) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"LARS: optimizer must be an nn.Optimizer, got {type(optimizer).__name__}")
        for name, value in (("epsilon", epsilon), ("coefficient", coefficient)):
            if isinstance(value, bool) or not isinstance(value, float):
                raise TypeError(f"LARS: {name} must be a float, got {type(value).__name__}")
        if not isinstance(use_clip, bool):
            raise TypeError(f"LARS: use_clip must be a bool, got {type(use_clip).__name__}")
        super().__init__(0.0, [Parameter(Tensor(0.0), name="fake_param")])
        self.opt = optimizer
        self.epsilon, self.coefficient, self.use_clip = epsilon, coefficient, use_clip
        self.parameters = optimizer.parameters
        self.global_step = optimizer.global_step
        self.lars_flag = tuple(bool(lars_filter(p)) for p in self.parameters)
        decays = [0.0] * len(self.parameters)
        for group in optimizer._groups:
            for i in group.indices:
                decays[i] = group.weight_decay
        self._decays = tuple(decays)
        # the decay goes into the LARS gradient instead of the wrapped optimizer's step
        optimizer._groups = [dataclasses.replace(g, weight_decay=0.0) for g in optimizer._groups]
        self._decay_schedule, optimizer._wd_schedule = optimizer._wd_schedule, None
        self.loss_scale, optimizer.loss_scale = optimizer.loss_scale, 1.0
        if use_clip and optimizer.is_group_lr and any(callable(g.lr) for g in optimizer._groups):
            raise ValueError("LARS: with use_clip=True the optimizer cannot have both group learning rates and "
                             "a dynamic learning rate (as in MindSpore)")

    def updates_elementwise(self) -> bool:
        return False  # the trust ratio reads whole-tensor norms

    def _decay_of(self, i: int) -> Tensor | float:
        if self._decay_schedule is not None:
            wd = F.reshape(F.cast(self._decay_schedule(self.global_step), mstype.float32), ())
            return wd / self.loss_scale
        return self._decays[i] / self.loss_scale

    def construct(self, gradients: Sequence[Tensor]) -> bool:
        grads = self._check_grads(gradients)
        if self.loss_scale != 1.0:
            grads = tuple(g / self.loss_scale for g in grads)
        lrs = self.opt.get_lr() if self.use_clip else None
        new = []
        for i, (p, g) in enumerate(zip(self.parameters, grads)):
            if not self.lars_flag[i]:
                new.append(g)
                continue
            decayed = self._decays[i] > 0 or self._decay_schedule is not None
            wd = self._decay_of(i) if decayed else 0.0
            w32, g32 = F.cast(p, mstype.float32), F.cast(g, mstype.float32)
            w_norm, g_norm = F.sqrt(F.sum(w32 * w32)), F.sqrt(F.sum(g32 * g32))
            coeff = self.coefficient * w_norm / (g_norm + wd * w_norm + self.epsilon)
            if self.use_clip:
                lr = lrs[i] if isinstance(lrs, tuple) else lrs
                coeff = F.clamp(coeff / F.cast(F.reshape(lr, ()), mstype.float32), 0.0, 1.0)
            new.append(F.cast((g32 + wd * w32) * coeff, g.dtype))
        return self.opt(tuple(new))


__all__ = ["LARS"]
