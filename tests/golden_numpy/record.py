"""Record MindSpore 2.10's `mindspore.numpy` answers for `numpy_cases.py` (run in the MindSpore venv, CPU):

    /work/main/.venv-ms/bin/python tests/golden_numpy/record.py

Writes `numpy_ms210.npz` (arrays, key `name` or `name.i` for the i-th result of a sequence) and
`numpy_ms210.json` (per name: the result's structure, dtypes, Python values, or the error MindSpore raised on
CPU - such names are tested against numpy instead).
"""
import json
import os
import sys

import numpy as np

import mindspore as ms
import mindspore.numpy as mnp

sys.path.insert(0, os.path.dirname(__file__))
from numpy_cases import CASES, CONSTANTS, DTYPES, to_numpy  # noqa: E402

HERE = os.path.dirname(__file__)


def describe(name, value, arrays):
    if isinstance(value, list):
        return {"list": [describe(f"{name}.{i}", v, arrays) for i, v in enumerate(value)]}
    if isinstance(value, np.ndarray):
        arrays[name] = value
        return {"array": name, "dtype": str(value.dtype)}
    return {"value": value}


def main():
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    arrays, table = {}, {"mindspore_version": ms.__version__, "cases": {}, "constants": {}, "dtypes": {}}
    for name, case in sorted(CASES.items()):
        try:
            table["cases"][name] = describe(name, to_numpy(case(mnp, ms.Tensor)), arrays)
        except Exception as exc:  # noqa: BLE001  (a name MindSpore cannot run on CPU: tested against numpy)
            table["cases"][name] = {"error": f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"}
    for name in CONSTANTS:
        v = getattr(mnp, name)
        table["constants"][name] = [str(t) for t in v] if isinstance(v, (tuple, list)) else repr(float(v))
    for name in DTYPES:
        table["dtypes"][name] = str(getattr(mnp, name))
    np.savez(os.path.join(HERE, "numpy_ms210.npz"), **arrays)
    with open(os.path.join(HERE, "numpy_ms210.json"), "w") as f:
        json.dump(table, f, indent=1, sort_keys=True)
    errors = [n for n, v in table["cases"].items() if "error" in v]
    print(f"{len(CASES)} cases, {len(errors)} MindSpore errors: {errors}")


if __name__ == "__main__":
    main()
