"""`msx.experimental.optim` (torch-style optimizers and lr_scheduler) against MindSpore 2.10's recorded
trajectories and lrs (tests/golden_nn/record_exp_optim.py, cases in exp_optim_cases.py)."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import msx
from msx.experimental import optim

HERE = os.path.join(os.path.dirname(__file__), "golden_nn")
sys.path.insert(0, HERE)
from exp_optim_cases import OPTS, SCHEDULERS, run_opt, run_sched  # noqa: E402

DATA = os.path.join(HERE, "data", "exp_optim")


def _gold(key):
    return np.load(os.path.join(DATA, f"{key}.npz"))


def test_every_case_recorded():
    have = set(os.listdir(DATA))
    assert {f"opt_{n}.npz" for n in OPTS} | {f"sched_{n}.npz" for n in SCHEDULERS} <= have


@pytest.mark.parametrize("name", sorted(OPTS))
def test_optimizer_matches_mindspore(name):
    want, got = _gold(f"opt_{name}"), run_opt(msx, optim, name)
    for key in want.files:
        np.testing.assert_allclose(got[key], want[key], rtol=2e-5, atol=2e-6, err_msg=f"{name}: {key}")


@pytest.mark.parametrize("name", sorted(SCHEDULERS))
def test_scheduler_matches_mindspore(name):
    want, got = _gold(f"sched_{name}"), run_sched(msx, optim, name)
    np.testing.assert_allclose(got["lrs"], want["lrs"], rtol=1e-5, atol=1e-7, err_msg=name)
    np.testing.assert_allclose(got["p"], want["p"], rtol=1e-5, atol=1e-6)


def test_reduce_lr_on_plateau_and_errors():
    ps = [msx.Parameter(msx.Tensor(np.ones(2, np.float32)), name="p")]
    opt = optim.Adam(ps, lr=0.1)
    sched = optim.lr_scheduler.ReduceLROnPlateau(opt, patience=1, factor=0.5)
    lrs = []
    for metric in [1.0, 0.9, 0.95, 0.96, 0.97, 0.5]:
        sched.step(metric)
        lrs.append(round(float(sched.get_last_lr()[0].asnumpy()), 6))
    assert lrs == [0.1, 0.1, 0.1, 0.05, 0.05, 0.05]
    with pytest.raises(ValueError, match="expected 1 gradients"):
        opt((msx.Tensor(np.ones(2, np.float32)),) * 2)
    with pytest.raises(ValueError, match="more than one parameter group"):
        optim.SGD([{"params": ps}, {"params": ps}], lr=0.1)
