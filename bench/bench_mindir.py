"""MindIR files in msx (on XLA) beside MindSpore 2.10 (CPU) on the same machine: load, first call, latency.

Run: `python bench/bench_mindir.py` (add `--quick` for fewer repetitions). msx runs in this process; MindSpore
runs in its own venv (`$MSX_MINDSPORE_PYTHON`, else /work/.venv-ms/bin/python), driven by this script through
a subprocess that times the same three things with the same repetitions and prints JSON. The files are the
MindSpore-made test files in tests/data/mindir. "load" is `msx.load` (parse, check, convert, verify) vs
`mindspore.load`; "first call" is GraphCell construction plus the first call (which compiles); "latency" is
the median steady-state call.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import jax
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import msx  # noqa: E402
from msx import nn  # noqa: E402

DATA = os.path.join(os.path.dirname(HERE), "tests", "data", "mindir")
CASES = ["mlp", "lenetish", "resblock", "transformer", "while_loop"]

MS_SCRIPT = r"""
import json, statistics, sys, time
import numpy as np, mindspore as ms
from mindspore import nn
cases, repeats = json.loads(sys.argv[1]), int(sys.argv[2])
def med(fn):
    ts = []
    for _ in range(repeats):
        t = time.perf_counter(); fn(); ts.append(time.perf_counter() - t)
    return statistics.median(ts)
out = {}
for name, path, inp in cases:
    x = ms.Tensor(np.load(inp))
    ms.load(path)
    load = med(lambda: ms.load(path))
    def first():
        cell = nn.GraphCell(ms.load(path)); cell(x).asnumpy()
    first_call = med(first)
    cell = nn.GraphCell(ms.load(path)); cell(x).asnumpy()
    latency = med(lambda: cell(x).asnumpy())
    out[name] = [load, first_call, latency]
print("RESULT" + json.dumps(out))
"""


def median(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def files(name: str) -> tuple[str, str]:
    entry = json.load(open(os.path.join(DATA, "index.json")))["cases"][name]
    return os.path.join(DATA, entry["file"]), os.path.join(DATA, entry["input"])


def msx_times(name: str, repeats: int) -> list[float]:
    path, inp = files(name)
    x = msx.Tensor(np.load(inp))
    msx.load(path)
    load = median(lambda: msx.load(path), repeats)

    def first():
        cell = nn.GraphCell(msx.load(path))
        jax.block_until_ready(cell(x)._data)

    first_call = median(first, repeats)
    cell = nn.GraphCell(msx.load(path))
    cell(x)
    latency = median(lambda: jax.block_until_ready(cell(x)._data), repeats * 20)
    return [load, first_call, latency]


def mindspore_times(repeats: int) -> dict | None:
    python = os.environ.get("MSX_MINDSPORE_PYTHON", "/work/.venv-ms/bin/python")
    if not os.path.exists(python):
        return None
    cases = [(n, *files(n)) for n in CASES]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run = subprocess.run([python, "-c", MS_SCRIPT, json.dumps(cases), str(repeats)], capture_output=True,
                         text=True, env=env)
    line = [ln for ln in run.stdout.splitlines() if ln.startswith("RESULT")]
    if not line:
        print(run.stderr[-2000:], file=sys.stderr)
        return None
    return json.loads(line[0][len("RESULT"):])


def fmt(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    return f"{seconds * 1e3:.2f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.1f} µs"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    repeats = 3 if parser.parse_args().quick else 7
    ours = {n: msx_times(n, repeats) for n in CASES}
    theirs = mindspore_times(repeats) or {}
    print("| file | what | msx (XLA CPU) | MindSpore 2.10 CPU | ratio |")
    print("|---|---|---|---|---|")
    for n in CASES:
        for i, what in enumerate(("load", "load + GraphCell + first call", "steady-state call")):
            a, b = ours[n][i], theirs.get(n, [None] * 3)[i]
            ratio = f"{a / b:.3g}x" if b else "—"
            print(f"| {n} | {what} | {fmt(a)} | {fmt(b)} | {ratio} |")


if __name__ == "__main__":
    main()
