"""Record MindSpore 2.10's initializer values for tests/golden_init/init_cases.py (run once, and whenever the
cases change):

    /work/main/.venv-ms/bin/python tests/golden_init/record.py

Writes tests/golden_init/seed<S>.npz for S in SEEDS ("<case>/<param>" -> array), atomically. The main
suite reads only these files; it never needs MindSpore.
"""
from __future__ import annotations

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import mindspore as ms  # noqa: E402

from init_cases import case_names, run  # noqa: E402

SEEDS = (0, 1, 1234)


def main() -> None:
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    for seed in SEEDS:
        out = {}
        for name in case_names(ms):
            ms.set_seed(seed)
            for key, value in run(ms, name).items():
                out[f"{name}/{key}"] = value
        path = os.path.join(HERE, f"seed{seed}.npz")
        with open(path + ".tmp", "wb") as f:
            np.savez_compressed(f, mindspore=np.array(ms.__version__), **out)
        os.replace(path + ".tmp", path)
        print(f"{path}: {len(out)} arrays")


if __name__ == "__main__":
    main()
