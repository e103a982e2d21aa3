"""Record MindSpore 2.10's parameter trajectories for optim_cases.py:
`/work/.venv-ms/bin/python tests/golden_nn/record_optim.py` -> data/optim/<case>.npz (atomic writes)."""
from __future__ import annotations

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import mindspore as ms  # noqa: E402

from optim_cases import OPT_CASES, run  # noqa: E402

OUT = os.path.join(HERE, "data", "optim")

if __name__ == "__main__":
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    os.makedirs(OUT, exist_ok=True)
    for name in sys.argv[1:] or sorted(OPT_CASES):
        try:
            values = run(ms, name)
        except Exception as exc:
            print(f"{name}: MindSpore failed: {type(exc).__name__}: {str(exc).strip().splitlines()[0][:200]}")
            continue
        path = os.path.join(OUT, f"{name}.npz")
        with open(path + ".tmp", "wb") as f:
            np.savez(f, **values)
        os.replace(path + ".tmp", path)
        print(f"{name}: recorded")
