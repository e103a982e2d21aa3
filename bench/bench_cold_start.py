"""Cold start of real networks: msx against MindSpore 2.10 on the same MindSpore-style source (issue 31).

Per network (the ten of zoo_nets.py: eight CNNs including a ViT on batch 2 of 3x64x64, an LSTM and a
transformer encoder on 2 x 32 tokens; 1000 classes), each framework runs in a fresh process (`--repeat` of them,
medians printed): `import`, build the net (`set_seed(0)`), the first eager forward, a
second (warm) eager forward, the first jitted training step (`value_and_grad` + Momentum under `jit`, as a
MindSpore script writes it) and a second (warm) step; wall seconds, and for the forwards and steps also the
process's CPU seconds (all its threads), which other jobs on a shared machine inflate less. With
`--compile-cache DIR` msx runs twice more with `set_context(enable_compile_cache=True)`: a first run fills the
cache, the second is what a rerun of the script costs. MindSpore runs in its venv (`$MSX_MINDSPORE_PYTHON`, else
/work/main/.venv-ms/bin/python), skipped where there is none. Both import their packages from compiled
bytecode (MindSpore's pip install wrote its `.pyc`; msx's are compiled once before the runs, and the children
run without `PYTHONDONTWRITEBYTECODE`), so `import` compares loading, not compiling Python source.

    python bench/bench_cold_start.py [--nets resnet18,efficientnet_b0] [--repeat 3] [--compile-cache /tmp/msx_cc]
"""
from __future__ import annotations

import argparse
import compileall
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from zoo_nets import NETS

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PHASES = ("import", "build", "forward", "forward_warm", "step", "step_warm")


def child(framework: str, net_name: str, cache: str | None) -> None:
    """Runs in the measuring process: times each phase of one network; prints JSON."""
    t0 = time.perf_counter()
    if framework == "mindspore":
        import mindspore as fw
        fw.set_context(mode=fw.PYNATIVE_MODE, device_target="CPU")
    else:
        import msx as fw
        if cache:
            fw.set_context(enable_compile_cache=True, compile_cache_path=cache)
    from zoo_nets import example_inputs, momentum_train_step, networks

    times = {"import": time.perf_counter() - t0}
    fw.set_seed(0)
    start = time.perf_counter()
    net = networks(fw)[net_name]()
    times["build"] = time.perf_counter() - start
    x, y = example_inputs(fw, net_name)
    for phase in ("forward", "forward_warm"):
        start, cpu = time.perf_counter(), time.process_time()
        net(x).asnumpy()
        times[phase], times["cpu_" + phase] = time.perf_counter() - start, time.process_time() - cpu
    train_step = momentum_train_step(fw, net)

    for phase in ("step", "step_warm"):
        start, cpu = time.perf_counter(), time.process_time()
        float(train_step(x, y).asnumpy())
        times[phase], times["cpu_" + phase] = time.perf_counter() - start, time.process_time() - cpu
    print("RESULT " + json.dumps(times))


def measure(python: str, framework: str, net: str, root: str, cache: str | None = None) -> dict:
    env = dict(os.environ, PYTHONPATH=root, JAX_PLATFORMS="cpu")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    cmd = [python, os.path.abspath(__file__), "--child", framework, "--nets", net] + \
        (["--compile-cache", cache] if cache else [])
    with tempfile.TemporaryDirectory() as scratch:   # MindSpore writes rank_0/ dumps into its working folder
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=scratch)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    if proc.returncode or not lines:
        raise RuntimeError(f"{framework} {net} failed:\n{proc.stderr[-3000:]}")
    return json.loads(lines[-1][len("RESULT "):])


def median_of(repeat: int, *how) -> dict:
    """Each phase's median over `repeat` fresh processes (the runs alternate with nothing else)."""
    runs = [measure(*how) for _ in range(repeat)]
    return {key: statistics.median(run[key] for run in runs) for key in runs[0]}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nets", default=",".join(NETS))
    ap.add_argument("--repeat", type=int, default=1, help="fresh processes per row; medians are printed")
    ap.add_argument("--compile-cache", default=None, help="also time msx with a persistent cache in this folder")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args.child, args.nets, args.compile_cache)
    ms_python = os.environ.get("MSX_MINDSPORE_PYTHON", "/work/main/.venv-ms/bin/python")
    compileall.compile_dir(os.path.join(ROOT, "msx"), quiet=1)     # as `pip install` compiles MindSpore's
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {os.cpu_count()} CPUs; seconds per phase, "
          f"batch 2, medians of {args.repeat} fresh process(es)")
    print(f"{'network':<16} {'run':<22} " + " ".join(f"{p:>12}" for p in PHASES))
    for net in args.nets.split(","):
        runs = {"msx": median_of(args.repeat, sys.executable, "msx", net, ROOT)}
        if args.compile_cache:
            shutil.rmtree(args.compile_cache, ignore_errors=True)
            measure(sys.executable, "msx", net, ROOT, args.compile_cache)       # fills the cache
            runs["msx, warm compile cache"] = median_of(args.repeat, sys.executable, "msx", net, ROOT,
                                                        args.compile_cache)
        if os.path.exists(ms_python):
            runs["MindSpore 2.10"] = median_of(args.repeat, ms_python, "mindspore", net, HERE)
        for name, times in runs.items():
            print(f"{net:<16} {name:<22} " + " ".join(f"{times[p]:>12.3f}" for p in PHASES))
            print(f"{net:<16} {'  CPU s (all threads)':<22} {'':>12} {'':>12} "
                  + " ".join(f"{times['cpu_' + p]:>12.3f}" for p in PHASES[2:]))
        if "MindSpore 2.10" in runs:
            ms = runs["MindSpore 2.10"]
            for name in [n for n in runs if n != "MindSpore 2.10"]:
                print(f"{net:<16} {name + ' / MindSpore':<22} "
                      + " ".join(f"{runs[name][p] / ms[p]:>11.2f}x" for p in PHASES))


if __name__ == "__main__":
    main()
