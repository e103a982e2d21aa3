"""What an inactive msx.Profiler costs (goal: <= 1.02x), and what recording costs.

The digits MLP jit step with no profiler and with one constructed with start_profile=False, in alternating pairs
(each pair: 50 steps without, 50 with, in turn first), --pairs times; the ratio reported is the median of the pairs' ratios (on
a busy machine a pair's two halves see about the same load, whole runs do not). Beside it, a load-independent
bound: with no profiler running, a compiled step's only profiler code is one `hostevents.ACTIVE` check (in
`XlaBackend.run`; an eager primitive has one too), so its cost is that check's time against the step's.

    python bench/bench_profiler.py [--pairs 41]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import timeit

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
import msx as ms  # noqa: E402
from msx import hostevents  # noqa: E402
from viz_programs import digits_step  # noqa: E402


def run(jf, x, y, n=50) -> float:
    start = time.perf_counter()
    for _ in range(n):
        loss = jf(x, y)
    loss.asnumpy()
    return (time.perf_counter() - start) / n


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=41)
    args = parser.parse_args()
    jf, _, _, _ = digits_step(hidden=128)
    rng = np.random.default_rng(0)
    x, y = ms.Tensor(rng.random((128, 64), dtype=np.float32)), ms.Tensor(rng.integers(0, 10, 128).astype(np.int64))
    run(jf, x, y, 5)
    folder = tempfile.mkdtemp()
    off, inactive, ratios = [], [], []
    for k in range(args.pairs):
        if k % 2:  # every other pair runs the inactive profiler first, so a trend in load cancels out
            prof = ms.Profiler(start_profile=False, output_path=folder)
            b = run(jf, x, y)
            del prof
            a = run(jf, x, y)
        else:
            a = run(jf, x, y)
            prof = ms.Profiler(start_profile=False, output_path=folder)
            b = run(jf, x, y)
            del prof
        off.append(a)
        inactive.append(b)
        ratios.append(b / a)
    recording = []
    prof = ms.Profiler(start_profile=False, output_path=folder)
    for _ in range(3):
        prof.start()
        recording.append(run(jf, x, y))
        prof.stop()
    base = statistics.median(off)
    q = statistics.quantiles(ratios, n=4)
    check = min(timeit.repeat("if h.ACTIVE: pass", globals={"h": hostevents}, number=1000000, repeat=7)) / 1e6
    bare = min(timeit.repeat("pass", number=1000000, repeat=7)) / 1e6
    cost = max(check - bare, 0.0)
    print("| benchmark | time per step | ratio |\n|---|---|---|")
    print(f"| jit step, no profiler | {base * 1e6:.1f} us | 1.00x |")
    print(f"| jit step, inactive Profiler (median of {args.pairs} paired ratios, IQR {q[0]:.3f}-{q[2]:.3f}) | "
          f"{statistics.median(inactive) * 1e6:.1f} us | {statistics.median(ratios):.3f}x |")
    print(f"| jit step, recording | {statistics.median(recording) * 1e6:.1f} us | "
          f"{statistics.median(recording) / base:.3f}x |")
    print(f"| bound: 1 `hostevents.ACTIVE` check per step, {cost * 1e9:.1f} ns | {cost * 1e6:.4f} us | "
          f"{1 + cost / base:.6f}x |")


if __name__ == "__main__":
    main()
