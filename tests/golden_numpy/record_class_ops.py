"""Record MindSpore 2.10's answers for `class_op_cases.py` (run in the MindSpore venv, CPU):

    /work/main/.venv-ms/bin/python tests/golden_numpy/record_class_ops.py
"""
import json
import os
import sys

import numpy as np

import mindspore as ms
from mindspore import ops

HERE = os.path.dirname(__file__)
sys.path.insert(0, HERE)
from numpy_cases import to_numpy  # noqa: E402
from class_op_cases import CASES  # noqa: E402


def main():
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    arrays, table = {}, {}
    for name, case in sorted(CASES.items()):
        try:
            out = to_numpy(case(ops, ms.Tensor))
        except Exception as exc:  # noqa: BLE001
            table[name] = {"error": f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"}
            continue
        outs = out if isinstance(out, list) else [out]
        table[name] = {"n": len(outs), "single": not isinstance(out, list)}
        for i, o in enumerate(outs):
            if isinstance(o, np.ndarray):
                arrays[f"{name}.{i}"] = o
            else:
                table[name][f"value{i}"] = o
    np.savez(os.path.join(HERE, "class_ops_ms210.npz"), **arrays)
    with open(os.path.join(HERE, "class_ops_ms210.json"), "w") as f:
        json.dump(table, f, indent=1, sort_keys=True)
    print({k: v for k, v in table.items() if "error" in v})


if __name__ == "__main__":
    main()
