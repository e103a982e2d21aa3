"""`experimental.optim` optimizers and lr schedulers for MindSpore (record_exp_optim.py) and msx
(test_golden_exp_optim.py): parameter trajectories under a scheduler, and the lrs each scheduler yields."""
from __future__ import annotations

import numpy as np

from optim_cases import grads, initial

OPTS = {
    "SGD_momentum_nesterov": lambda o, ps: o.SGD(ps, lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01),
    "SGD_dampening": lambda o, ps: o.SGD(ps, lr=0.1, momentum=0.9, dampening=0.3),
    "Adam": lambda o, ps: o.Adam(ps, lr=0.01, weight_decay=0.01),
    "Adam_amsgrad_maximize": lambda o, ps: o.Adam(ps, lr=0.01, amsgrad=True, maximize=True),
    "AdamW": lambda o, ps: o.AdamW(ps, lr=0.01),
    "Adagrad": lambda o, ps: o.Adagrad(ps, lr=0.1, lr_decay=0.1, initial_accumulator_value=0.1),
    "RMSprop": lambda o, ps: o.RMSprop(ps, lr=0.01),
    "RMSprop_centered_momentum": lambda o, ps: o.RMSprop(ps, lr=0.01, momentum=0.5, centered=True),
    "Adadelta": lambda o, ps: o.Adadelta(ps, lr=1.0),
    "Adamax": lambda o, ps: o.Adamax(ps, lr=0.01),
    "groups_StepLR": lambda o, ps: o.SGD([{"params": [ps[0]], "lr": 0.2}, {"params": [ps[1]]}], lr=0.1),
}

SCHEDULERS = {
    "StepLR": lambda s, opt: s.StepLR(opt, step_size=2, gamma=0.5),
    "MultiStepLR": lambda s, opt: s.MultiStepLR(opt, milestones=[1, 3, 3], gamma=0.5),
    "ExponentialLR": lambda s, opt: s.ExponentialLR(opt, gamma=0.8),
    "LambdaLR": lambda s, opt: s.LambdaLR(opt, lambda e: 1.0 / (e + 1)),
    "MultiplicativeLR": lambda s, opt: s.MultiplicativeLR(opt, lambda e: 0.9),
    "ConstantLR": lambda s, opt: s.ConstantLR(opt, factor=0.5, total_iters=3),
    "LinearLR": lambda s, opt: s.LinearLR(opt, start_factor=0.25, total_iters=4),
    "PolynomialLR": lambda s, opt: s.PolynomialLR(opt, total_iters=4, power=2.0),
    "CosineAnnealingLR": lambda s, opt: s.CosineAnnealingLR(opt, T_max=3, eta_min=0.01),
    "CosineAnnealingWarmRestarts": lambda s, opt: s.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2),
    "SequentialLR": lambda s, opt: s.SequentialLR(opt, [s.ConstantLR(opt, factor=0.5, total_iters=2),
                                                        s.ExponentialLR(opt, gamma=0.9)], milestones=[2]),
}


def run_opt(ms, optim, name):
    init = initial()
    ps = [ms.Parameter(ms.Tensor(init[k]), name=k) for k in ("w", "b")]
    opt = OPTS[name](optim, ps)
    sched = optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5) if name.endswith("StepLR") else None
    out = {}
    for step in range(4):
        g = grads(step)
        opt(tuple(ms.Tensor(g[k]) for k in ("w", "b")))
        if sched is not None:
            sched.step()
        for p in ps:
            out[f"{p.name}.{step}"] = p.asnumpy().copy()
    return out


def run_sched(ms, optim, name):
    ps = [ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="p")]
    opt = optim.SGD(ps, lr=0.1)
    sched = SCHEDULERS[name](optim.lr_scheduler, opt)
    lrs = []
    for _ in range(8):
        opt((ms.Tensor(np.ones(2, np.float32)),))
        sched.step()
        lrs.append([float(x.asnumpy()) if hasattr(x, "asnumpy") else float(x) for x in sched.get_last_lr()])
    return {"lrs": np.asarray(lrs, np.float64), "p": ps[0].asnumpy()}
