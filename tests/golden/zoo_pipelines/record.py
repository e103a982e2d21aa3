"""Record MindSpore 2.10's batches for the model-zoo pipelines of pipelines.py (ms210.npz, ms210.json):

    /work/venv-ms/bin/python tests/golden/zoo_pipelines/record.py
"""
import json
import os
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import pipelines  # noqa: E402

if __name__ == "__main__":
    arrays, meta = {}, {}
    for name, run in pipelines.PIPELINES.items():
        with tempfile.TemporaryDirectory() as tmp:
            out = run(tmp)
        meta[name] = {k: v for k, v in out.items() if not isinstance(v, np.ndarray)}
        arrays.update({f"{name}/{k}": v for k, v in out.items() if isinstance(v, np.ndarray)})
    np.savez(os.path.join(HERE, "ms210.npz"), **arrays)
    with open(os.path.join(HERE, "ms210.json"), "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
        f.write("\n")
    print(meta)
