"""Per-rank memory of the parallel optimizer in DATA_PARALLEL (docs/parallel.md, "ZeRO-2 in DATA_PARALLEL").

`python bench/bench_zero_dp.py [--ranks 2]` launches an msrun job of `--ranks` CPU processes; each trains an
MLP 512-1024-1024-512 with Adam under `parallel_optimizer_threshold=0` at each level (off, level1, level2, one
jitted TrainOneStepCell step) and rank 0 prints, per level, the bytes this rank holds between steps
(parameters, optimizer state), the bytes of the reduced gradients the reducer hands the optimizer, and the
compiled step's `memory_analysis()` (arguments, temporaries). Memory only: no timing.
"""
import argparse
import json
import os
import subprocess
import sys


def _worker(out: str) -> None:
    import numpy as np

    import msx as ms
    from msx import nn
    from msx.communication import get_rank, init

    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    init()
    x = ms.Tensor(np.ones((8, 512), np.float32))
    y = ms.Tensor(np.zeros((8, 512), np.float32))
    rows = {}
    for level in ("off", "level1", "level2"):
        ms.set_auto_parallel_context(enable_parallel_optimizer=level != "off", parallel_optimizer_config={
            "parallel_optimizer_threshold": 0, **({} if level == "off" else {"optimizer_level": level})})
        ms.set_seed(0)
        net = nn.SequentialCell(nn.Dense(512, 1024), nn.ReLU(), nn.Dense(1024, 1024), nn.ReLU(), nn.Dense(1024, 512))
        optimizer = nn.Adam(net.trainable_params(), learning_rate=1e-3)
        step = ms.jit(nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), optimizer))
        step(x, y)
        grad_fn = ms.value_and_grad(lambda a, b: nn.MSELoss()(net(a), b), None, optimizer.parameters)
        reduced = nn.DistributedGradReducer(optimizer.parameters)(grad_fn(x, y)[1])
        memory = step.lower(x, y).compile().handle.compiled.memory_analysis()
        state = [b for prefix in optimizer._state_prefixes for b in getattr(optimizer, prefix)]
        rows[level] = {"parameters": sum(p._data.nbytes for p in optimizer.parameters),
                       "state": sum(b._data.nbytes for b in state),
                       "reduced_gradients": sum(g._data.nbytes for g in reduced),
                       "step_arguments": int(memory.argument_size_in_bytes),
                       "step_temporaries": int(memory.temp_size_in_bytes)}
    ms.set_auto_parallel_context(enable_parallel_optimizer=False, parallel_optimizer_config={})
    if get_rank() == 0:
        with open(out, "w") as f:
            json.dump(rows, f, indent=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return _worker(args.worker)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = os.path.join(root, "bench", ".zero_dp.json")
    env = dict(os.environ, JAX_PLATFORMS="cpu", PYTHONPATH=root)
    subprocess.run([sys.executable, "-m", "msx.run", f"--worker_num={args.ranks}", f"--local_worker_num={args.ranks}",
                    "--master_port=29611", "--log_dir=/tmp/bench_zero_dp", "--join=True", os.path.abspath(__file__),
                    "--worker", out], env=env, check=True, cwd=root)
    with open(out) as f:
        rows = json.load(f)
    os.remove(out)
    print("| level | parameters | optimizer state | reduced gradients | step arguments | step temporaries |")
    print("|---|---|---|---|---|---|")
    for level, r in rows.items():
        print(f"| {level} | {r['parameters']:,} | {r['state']:,} | {r['reduced_gradients']:,} | "
              f"{r['step_arguments']:,} | {r['step_temporaries']:,} |")


if __name__ == "__main__":
    main()
