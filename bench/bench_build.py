"""How long building a network takes: msx against MindSpore 2.10 on the same MindSpore-style source.

The ten networks of zoo_nets.py (ImageNet-shaped CNNs, a ViT, an LSTM and a transformer encoder, 1000
classes), written once against whichever framework runs them, with MindSpore's default initializers. Each framework builds each
network `--repeat` times in its own fresh process (after `import` and `set_seed(0)`, not timed); the
first build of a process is what a user waits for, the best of the rest is the steady cost. MindSpore
runs in its venv (`$MSX_MINDSPORE_PYTHON`, else /work/main/.venv-ms/bin/python) and is skipped where
there is none; `--msx-root DIR` adds an older msx checkout (e.g. `git archive` of main) for a before/after.

    python bench/bench_build.py [--repeat 3] [--msx-root DIR]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

from zoo_nets import NETS, networks

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def child(framework: str, repeat: int) -> None:
    """Runs in the measuring process: import, then time each network's builds; prints JSON."""
    if framework == "mindspore":
        import mindspore as fw
        fw.set_context(mode=fw.PYNATIVE_MODE, device_target="CPU")
    else:
        import msx as fw
    nets = networks(fw)
    out = {}
    for name in NETS:
        times = []
        for _ in range(repeat):
            fw.set_seed(0)
            start = time.perf_counter()
            net = nets[name]()
            times.append(time.perf_counter() - start)
            params = sum(int(p.size) for p in net.get_parameters())
        out[name] = {"first": times[0], "best": min(times), "params": params}
    print("RESULT " + json.dumps(out))


def measure(python: str, framework: str, repeat: int, root: str) -> dict:
    env = dict(os.environ, PYTHONPATH=root, JAX_PLATFORMS="cpu")
    proc = subprocess.run([python, os.path.abspath(__file__), "--child", framework, "--repeat", str(repeat)],
                          capture_output=True, text=True, env=env, cwd=root)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    if proc.returncode or not lines:
        raise RuntimeError(f"{framework} bench failed:\n{proc.stderr[-3000:]}")
    return json.loads(lines[-1][len("RESULT "):])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--msx-root", default=None, help="an older msx checkout to time beside this one")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args.child, args.repeat)
    runs = {"msx": measure(sys.executable, "msx", args.repeat, ROOT)}
    if args.msx_root:
        runs["msx before"] = measure(sys.executable, "msx", args.repeat, os.path.abspath(args.msx_root))
    ms_python = os.environ.get("MSX_MINDSPORE_PYTHON", "/work/main/.venv-ms/bin/python")
    if os.path.exists(ms_python):
        runs["MindSpore 2.10"] = measure(ms_python, "mindspore", args.repeat, HERE)
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {os.cpu_count()} CPUs; build seconds, "
          f"first build in a fresh process / best of {args.repeat}")
    names = list(runs)
    print(f"{'network':<16} {'params':>10} " + " ".join(f"{n:>22}" for n in names)
          + ("  msx/MindSpore (first, best)" if "MindSpore 2.10" in runs else ""))
    for net in NETS:
        row = f"{net:<16} {runs['msx'][net]['params']:>10} "
        row += " ".join(f"{runs[n][net]['first']:>10.3f} / {runs[n][net]['best']:>9.3f}" for n in names)
        if "MindSpore 2.10" in runs:
            ms = runs["MindSpore 2.10"][net]
            row += (f"  {runs['msx'][net]['first'] / ms['first']:.2f}x, "
                    f"{runs['msx'][net]['best'] / ms['best']:.2f}x")
        print(row)


if __name__ == "__main__":
    main()
