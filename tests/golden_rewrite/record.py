"""Records tests/golden_rewrite/rewrite.json from MindSpore 2.10 (run in its venv):

    REWRITE_BACKEND=mindspore /work/main/.venv-ms/bin/python tests/golden_rewrite/record.py
"""
import json
import os
import sys

os.environ["REWRITE_BACKEND"] = "mindspore"
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import mindspore  # noqa: E402
import nets  # noqa: E402

data = {"mindspore": mindspore.__version__, "nets": nets.record(), "errors": nets.record_errors(),
        "sparsify": nets.record_sparsify()}
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rewrite.json")
with open(path + ".tmp", "w") as f:
    json.dump(data, f, indent=1, sort_keys=True)
os.replace(path + ".tmp", path)
print("wrote", path)
