"""Record MindSpore 2.10's answers for tests/golden_nn/nn_cases.py (run once, and whenever cases change):

    /work/.venv-ms/bin/python tests/golden_nn/record.py [case ...]

Writes tests/golden_nn/data/<case>.npz (inputs, parameters, outputs, gradients) and index.json (MindSpore's
version, and the cases MindSpore itself cannot run on CPU with its error), atomically. The main suite
reads only these files; it never needs MindSpore.
"""
from __future__ import annotations

import json
import os
import sys
import traceback

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import mindspore as ms  # noqa: E402

from nn_cases import CASES, make_input, run_case  # noqa: E402

DATA = os.path.join(HERE, "data")


def _atomic_write(path: str, write) -> None:
    tmp = path + ".tmp"
    write(tmp)
    os.replace(tmp, path)


def main(names: list[str]) -> None:
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    os.makedirs(DATA, exist_ok=True)
    index_path = os.path.join(DATA, "index.json")
    index = json.load(open(index_path)) if os.path.exists(index_path) else {"unsupported": {}}
    index["mindspore"] = ms.__version__
    index["unsupported"] = {k: v for k, v in index["unsupported"].items() if k in CASES}
    for name in names or sorted(CASES):
        rng = np.random.default_rng(sum(map(ord, name)))
        inputs = [make_input(spec, rng) for spec in CASES[name]["inputs"]]
        try:
            stored, results = run_case(ms, name, inputs)
        except Exception as exc:  # MindSpore cannot run it here: say so in the index
            index["unsupported"][name] = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0][:200]}"
            print(f"{name}: MindSpore failed: {index['unsupported'][name]}")
            traceback.print_exc(limit=1)
            continue
        index["unsupported"].pop(name, None)
        arrays = {**stored, **{f"res.{k}": v for k, v in results.items()}}
        path = os.path.join(DATA, f"{name}.npz")
        _atomic_write(path, lambda tmp: np.savez(open(tmp, "wb"), **arrays))
        print(f"{name}: {len(results)} arrays")
    _atomic_write(index_path, lambda tmp: json.dump(index, open(tmp, "w"), indent=1, sort_keys=True))


if __name__ == "__main__":
    main(sys.argv[1:])
