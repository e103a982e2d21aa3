"""Record MindSpore 2.10's experimental.optim trajectories and scheduler lrs (exp_optim_cases.py):
`/work/.venv-ms/bin/python tests/golden_nn/record_exp_optim.py` -> data/exp_optim/<case>.npz."""
from __future__ import annotations

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import mindspore as ms  # noqa: E402
from mindspore.experimental import optim  # noqa: E402

from exp_optim_cases import OPTS, SCHEDULERS, run_opt, run_sched  # noqa: E402

OUT = os.path.join(HERE, "data", "exp_optim")

if __name__ == "__main__":
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    os.makedirs(OUT, exist_ok=True)
    jobs = [(f"opt_{n}", run_opt, n) for n in OPTS] + [(f"sched_{n}", run_sched, n) for n in SCHEDULERS]
    for key, fn, name in jobs:
        try:
            values = fn(ms, optim, name)
        except Exception as exc:
            print(f"{key}: MindSpore failed: {type(exc).__name__}: {str(exc).strip().splitlines()[0][:200]}")
            continue
        path = os.path.join(OUT, f"{key}.npz")
        with open(path + ".tmp", "wb") as f:
            np.savez(f, **values)
        os.replace(path + ".tmp", path)
        print(f"{key}: recorded")
