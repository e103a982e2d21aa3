"""Optimizer cases for MindSpore (recorded by record_optim.py) and msx (test_golden_optim.py): two Parameters,
four steps of fixed gradients; the parameter values after every step are compared."""
from __future__ import annotations

import numpy as np

STEPS = 4


def _wd_schedule(ms):
    class WD(ms.nn.Cell):
        """weight decay 0.1 * (global_step + 1)"""

        def construct(self, global_step):
            return (ms.ops.cast(global_step, ms.float32) + 1.0) * 0.1
    return WD()


OPT_CASES = {
    "Adagrad": lambda ms, ps: ms.nn.Adagrad(ps, learning_rate=0.1),
    "Adagrad_wd": lambda ms, ps: ms.nn.Adagrad(ps, accum=0.2, learning_rate=0.05, weight_decay=0.1),
    "RMSProp": lambda ms, ps: ms.nn.RMSProp(ps, learning_rate=0.01),
    "RMSProp_momentum_centered": lambda ms, ps: ms.nn.RMSProp(ps, learning_rate=0.01, momentum=0.9, centered=True),
    "Adadelta": lambda ms, ps: ms.nn.Adadelta(ps, learning_rate=1.0),
    "AdaMax": lambda ms, ps: ms.nn.AdaMax(ps, learning_rate=0.01),
    "FTRL": lambda ms, ps: ms.nn.FTRL(ps, learning_rate=0.1, l2=0.02),
    "ProximalAdagrad": lambda ms, ps: ms.nn.ProximalAdagrad(ps, learning_rate=0.1),
    "Lamb": lambda ms, ps: ms.nn.Lamb(ps, learning_rate=0.01, weight_decay=0.01),
    "LazyAdam": lambda ms, ps: ms.nn.LazyAdam(ps, learning_rate=0.01),
    "Rprop": lambda ms, ps: ms.nn.Rprop(ps, learning_rate=0.01),
    "ASGD": lambda ms, ps: ms.nn.ASGD(ps, learning_rate=0.1, t0=2.0),
    "SGD_wd_schedule": lambda ms, ps: ms.nn.SGD(ps, learning_rate=0.1, weight_decay=_wd_schedule(ms)),
    "Momentum_wd_schedule": lambda ms, ps: ms.nn.Momentum(ps, 0.1, 0.9, weight_decay=_wd_schedule(ms)),
    "Adam_lr_schedule": lambda ms, ps: ms.nn.Adam(ps, learning_rate=ms.nn.ExponentialDecayLR(0.01, 0.5, 2)),
}


def initial():
    rng = np.random.default_rng(7)
    return {"w": rng.standard_normal((2, 3)).astype(np.float32), "b": rng.standard_normal(3).astype(np.float32)}


def grads(step):
    rng = np.random.default_rng(50 + step)
    g = {"w": rng.standard_normal((2, 3)).astype(np.float32), "b": rng.standard_normal(3).astype(np.float32)}
    if step == 2:
        g["b"] = -g["b"]  # sign flips for Rprop
    return g


def run(ms, name):
    init = initial()
    ps = [ms.Parameter(ms.Tensor(init[k]), name=k) for k in ("w", "b")]
    opt = OPT_CASES[name](ms, ps)
    out = {}
    for step in range(STEPS):
        g = grads(step)
        opt(tuple(ms.Tensor(g[k]) for k in ("w", "b")))
        for p in ps:
            out[f"{p.name}.{step}"] = p.asnumpy().copy()
    return out
