"""Record MindSpore 2.10's answers for `round3_cases.py` into `goldens.json` (run in MindSpore's venv, from the
repository root):

    /work/venv-ms/bin/python tests/golden/api_names_round3/round3_record.py

For each case: the outputs (flattened nested tuples, as float lists with their shapes and dtypes) and, for a
training case, every parameter after the call (the moving statistics a batch norm wrote); for each
`experimental.optim` case, the Parameters after each of three steps.
"""
from __future__ import annotations

import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from round3_cases import CASES, OPTIMIZERS, fill, run_optimizer  # noqa: E402


def flat(out) -> list:
    if isinstance(out, (tuple, list)):
        return [a for o in out for a in flat(o)]
    return [np.asarray(out.asnumpy() if hasattr(out, "asnumpy") else out)]


def encode(a: np.ndarray) -> dict:
    return {"shape": list(a.shape), "dtype": str(a.dtype), "values": a.astype(np.float64).ravel().tolist()}


def run(root, case_id: str) -> dict:
    build, inputs, train = CASES[case_id]
    net = build(root)
    fill(net)
    net.set_train(train)
    out = net(*[root.Tensor(a) for a in inputs])
    params = {name.rsplit(".", 1)[-1].replace("moving_", "") + "@" + name.rsplit(".", 2)[0]: encode(p.asnumpy())
              for name, p in net.parameters_and_names()} if train else {}
    return {"outputs": [encode(a) for a in flat(out)], "params": params}


def main() -> None:
    import mindspore as ms

    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    table = {"mindspore": ms.__version__, "cases": {}}
    for case_id in CASES:
        try:
            table["cases"][case_id] = run(ms, case_id)
            print(case_id, "ok")
        except Exception as e:  # noqa: BLE001  (an op without a CPU kernel: reported, checked against numpy)
            print(f"NOT RECORDED {case_id}: {type(e).__name__}: {str(e).splitlines()[0]}")
    table["optimizers"] = {}
    for case_id in OPTIMIZERS:
        table["optimizers"][case_id] = [[encode(a) for a in step] for step in run_optimizer(ms, case_id)]
        print(case_id, "ok")
    with open(os.path.join(HERE, "goldens.json"), "w") as f:
        json.dump(table, f, indent=0, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
