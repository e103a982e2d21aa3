"""Record MindSpore 2.10's answers of `export_split_mindir` (run with /work/main/.venv-ms/bin/python from the
repository root): its argument errors, and what its CPU build does with a real file (tests/data/mindir/mlp.mindir,
MindSpore's own export): SAPP runs, then the split fails in its Python layout code, so there is no split graph of
MindSpore's to compare values with."""
import json
import os

import mindspore as ms

HERE = os.path.dirname(os.path.abspath(__file__))
out = {"version": ms.__version__, "errors": {}}
for name, arg in (("not_str", 1), ("not_mindir", "net.txt"), ("missing", "no_such_net.mindir")):
    try:
        ms.export_split_mindir(arg)
    except Exception as exc:   # noqa: BLE001  (the class and message are the golden)
        out["errors"][name] = [type(exc).__name__, str(exc)]
try:
    graph = ms.export_split_mindir("tests/data/mindir/mlp.mindir", device_num=2, rank_id=0)
    out["cpu_split_of_mlp"] = ["ok", str(type(graph))]
except Exception as exc:   # noqa: BLE001
    out["cpu_split_of_mlp"] = [type(exc).__name__, str(exc)]
with open(os.path.join(HERE, "answers.json"), "w") as f:
    json.dump(out, f, indent=1)
print(json.dumps(out))
