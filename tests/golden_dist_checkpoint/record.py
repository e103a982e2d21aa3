"""Record MindSpore 2.10's answers on dist_cases.py's checkpoint (run with the MindSpore venv's python, from the
repository root): `/work/main/.venv-ms/bin/python tests/golden_dist_checkpoint/record.py`.
msx's writers make the input files (so this also checks MindSpore reads them); MindSpore transforms them."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import dist_cases as cases  # noqa: E402
import mindspore as ms  # noqa: E402

folder = tempfile.mkdtemp()
# the MindSpore venv has no jax: msx (the repository's python, `python` on PATH or $MSX_PYTHON) writes the inputs
subprocess.run([os.environ.get("MSX_PYTHON", "python"), "-c", f"import dist_cases; dist_cases.make({folder!r})"], cwd=HERE,
               env=dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(HERE))), check=True)
src_strategy, dst_strategy = os.path.join(folder, "src_strategy.ckpt"), os.path.join(folder, "dst_strategy.ckpt")
out = {"mindspore": ms.__version__, "rank_list": {}, "dp4": {}, "one": {}}
for rank in range(4):
    out["rank_list"][str(rank)] = [int(r) for r in ms.parallel.rank_list_for_transform(rank, src_strategy, dst_strategy)]
out["rank_list_one"] = [int(r) for r in ms.parallel.rank_list_for_transform(0, src_strategy, None)]
for key, dst in (("dp4", dst_strategy), ("one", None)):
    target = os.path.join(folder, key)
    ms.parallel.transform_checkpoints(os.path.join(folder, "src"), target, "net", src_strategy, dst)
    for rank in sorted(os.listdir(target)):
        r = int(rank.split("_")[1])
        params = ms.load_checkpoint(os.path.join(target, rank, f"net{r}.ckpt"))
        out[key][str(r)] = {n: {"shape": list(p.shape), "values": p.asnumpy().ravel().tolist()}
                            for n, p in sorted(params.items())}
strategy = ms.parallel.build_searched_strategy(src_strategy)
out["build_searched_strategy"] = {n: [list(v.dev_matrix[0].dim), list(v.tensor_map[0].dim)]
                                  for n, v in sorted(strategy.items())}
with open(os.path.join(HERE, "mindspore.json"), "w") as f:
    json.dump(out, f, indent=1)
print("recorded", sorted(out))
