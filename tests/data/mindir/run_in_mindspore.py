"""Run `.mindir` files in real MindSpore (its own venv): `python run_in_mindspore.py jobs.json`.

jobs.json lists {"mindir": path, "inputs": [npy paths], "output": npy path}; for each, the file is loaded with
`mindspore.load`, run with `nn.GraphCell` and its (first) output saved. Errors are recorded per job in
`<output>.error.txt` so one bad file does not hide the others.
"""
import json
import sys
import traceback

import numpy as np
import mindspore as ms
from mindspore import nn


def main(jobs_path):
    for job in json.load(open(jobs_path)):
        try:
            cell = nn.GraphCell(ms.load(job["mindir"]))
            out = cell(*[ms.Tensor(np.load(p)) for p in job["inputs"]])
            out = out[0] if isinstance(out, (tuple, list)) else out
            np.save(job["output"], out.asnumpy())
        except Exception:  # reported to the test, which fails on it
            with open(job["output"] + ".error.txt", "w") as f:
                f.write(traceback.format_exc())


if __name__ == "__main__":
    main(sys.argv[1])
