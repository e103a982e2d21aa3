"""Record MindSpore 2.10's answers for the ops added one file at a time (docs/ops.md "Adding an op").

Each `case_<op>.py` beside this script holds `CASES`: plain dicts, readable by both venvs --
`id`, `primitive` (the msx primitive the case must run), `call` ("mint.allclose", "Tensor.allclose" for a
method of the first input, or "ops.RGBToHSV" with `init` for a class op), `inputs` (numpy arrays), `args`
(Python values passed positionally after the inputs), `kwargs`,
`eager_only: True` for an op whose result shape depends on the values (jit must refuse it by name),
and `mindir: True` to also export the call with `mindspore.export(..., file_format="MINDIR")`.
For every case this writes `<id>.npz` (inputs `in<i>`, outputs `out<i>`, plain arrays) and `<id>.json`
(output kinds, the primitive, the MindIR file if any), run with MindSpore's venv from the repository root:

    /work/main/.venv-ms/bin/python tests/golden_ops/ops_record.py [case_file.py ...]

(naming case files records only theirs, leaving the other goldens untouched).
"""
from __future__ import annotations

import glob
import importlib.util
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def load_cases(only: tuple[str, ...] = ()) -> list[dict]:
    """Every case file's CASES, or only those of the files named in `only` (`case_ported_names.py`)."""
    cases = []
    for path in sorted(glob.glob(os.path.join(HERE, "case_*.py"))):
        if only and os.path.basename(path) not in only:
            continue
        spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        cases += mod.CASES
    return cases


def resolve(root, case: dict):
    """The callable `case["call"]` names in framework `root` (mindspore or msx), and the inputs it takes."""
    head, _, name = case["call"].rpartition(".")
    if head == "Tensor":
        return lambda x, *rest, **kw: getattr(x, name)(*rest, **kw)
    obj = root
    for part in case["call"].split("."):
        obj = getattr(obj, part)
    return obj(**case["init"]) if "init" in case else obj


def call(fn, inputs, case: dict):
    """The case's call: its tensor inputs, then its positional `args` (a numpy array there becomes a tensor of
    the inputs' framework), then its `kwargs`."""
    tensor = type(inputs[0])
    args = [tensor(a) if isinstance(a, np.ndarray) else a for a in case.get("args", ())]
    return fn(*inputs, *args, **case.get("kwargs", {}))


def outputs(result) -> tuple[list[np.ndarray], list[str]]:
    items = result if isinstance(result, (tuple, list)) else (result,)
    arrays, kinds = [], []
    for r in items:
        kinds.append(type(r).__name__ if isinstance(r, (bool, int, float)) else "tensor")
        arrays.append(np.asarray(r if isinstance(r, (bool, int, float)) else r.asnumpy()))
    return arrays, kinds


def _export(ms, case: dict, fn, inputs) -> np.ndarray:
    from mindspore import nn

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.op = fn

        def construct(self, x):
            return self.op(x)

    path = os.path.join(HERE, case["id"])
    ms.export(Net(), *inputs, file_name=path, file_format="MINDIR")
    graph = nn.GraphCell(ms.load(path + ".mindir"))
    return graph(*inputs).asnumpy()


def main() -> None:
    import mindspore as ms

    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    for case in load_cases(tuple(sys.argv[1:])):
        fn = resolve(ms, case)
        inputs = [ms.Tensor(a) for a in case["inputs"]]
        try:
            arrays, kinds = outputs(call(fn, inputs, case))
        except Exception as e:  # noqa: BLE001  (an Ascend-only kernel: say so and record the others)
            print(f"NOT RECORDED {case['id']}: {type(e).__name__}: {str(e).splitlines()[0]}")
            continue
        entry = {"primitive": case["primitive"], "call": case["call"], "kinds": kinds, "mindir": None,
                 "mindspore": ms.__version__}
        saved = {f"in{i}": np.asarray(a) for i, a in enumerate(case["inputs"])}
        saved.update({f"out{i}": a for i, a in enumerate(arrays)})
        if case.get("mindir"):
            saved["mindir_out"] = _export(ms, case, fn, inputs)
            entry["mindir"] = case["id"] + ".mindir"
        np.savez(os.path.join(HERE, case["id"] + ".npz"), **saved)
        with open(os.path.join(HERE, case["id"] + ".json"), "w") as f:
            json.dump(entry, f, indent=1, sort_keys=True)
            f.write("\n")
        print(case["id"], kinds)


if __name__ == "__main__":
    main()
