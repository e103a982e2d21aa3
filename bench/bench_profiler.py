"""What an inactive msx.Profiler costs (goal: <= 1.02x), and what recording costs.

The digits MLP jit step with no profiler and with one constructed with start_profile=False, as interleaved A/B
pairs in one process (each pair: --steps steps without, --steps with; every other pair in the other order, so a
trend in load cancels out), --pairs times; the ratio reported is the median of the pairs' ratios (on a busy
machine a pair's two halves, milliseconds apart, see about the same load; whole runs do not), with a bootstrap
95% interval of that median. An A/A control — the same pairs with no profiler in either half — shows what the
machine's noise alone gives. Beside it, a load-independent bound: with no profiler running, a compiled step's
only profiler code is one `hostevents.ACTIVE` check (in `XlaBackend.run`; an eager primitive has one too), so
its cost is that check's time against the step's.

    python bench/bench_profiler.py [--pairs 400] [--steps 10]
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


def run(jf, x, y, n: int) -> float:
    start = time.perf_counter()
    for _ in range(n):
        loss = jf(x, y)
    loss.asnumpy()
    return (time.perf_counter() - start) / n


def pairs(jf, x, y, count: int, steps: int, make_b) -> tuple[list[float], list[float]]:
    """(A times, B times) per step of `count` interleaved pairs; B runs while `make_b()`'s object exists."""
    a_times, b_times = [], []
    for k in range(count):
        if k % 2:  # every other pair runs B first
            held = make_b()
            b = run(jf, x, y, steps)
            del held
            a = run(jf, x, y, steps)
        else:
            a = run(jf, x, y, steps)
            held = make_b()
            b = run(jf, x, y, steps)
            del held
        a_times.append(a)
        b_times.append(b)
    return a_times, b_times


def median_ratio(a_times: list[float], b_times: list[float]) -> tuple[float, float, float]:
    """(median of the per-pair ratios B / A, bootstrap 95% interval of that median)."""
    ratios = np.asarray(b_times) / np.asarray(a_times)
    rng = np.random.default_rng(0)
    boot = np.median(rng.choice(ratios, (2000, len(ratios))), axis=1)
    return float(np.median(ratios)), float(np.quantile(boot, 0.025)), float(np.quantile(boot, 0.975))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=400)
    parser.add_argument("--steps", type=int, default=10)
    args = parser.parse_args()
    jf, _, _, _ = digits_step(hidden=128)
    rng = np.random.default_rng(0)
    x, y = ms.Tensor(rng.random((128, 64), dtype=np.float32)), ms.Tensor(rng.integers(0, 10, 128).astype(np.int64))
    run(jf, x, y, 20)
    folder = tempfile.mkdtemp()
    off, inactive = pairs(jf, x, y, args.pairs, args.steps,
                          lambda: ms.Profiler(start_profile=False, output_path=folder))
    ratio, low, high = median_ratio(off, inactive)
    assert not hostevents.ACTIVE
    off2, same = pairs(jf, x, y, args.pairs, args.steps, lambda: None)
    control, c_low, c_high = median_ratio(off2, same)
    recording = []
    prof = ms.Profiler(start_profile=False, output_path=folder)
    for _ in range(3):
        prof.start()
        recording.append(run(jf, x, y, 50))
        prof.stop()
    base = statistics.median(off)
    check = min(timeit.repeat("if h.ACTIVE: pass", globals={"h": hostevents}, number=1000000, repeat=7)) / 1e6
    bare = min(timeit.repeat("pass", number=1000000, repeat=7)) / 1e6
    cost = max(check - bare, 0.0)
    print(f"load average {os.getloadavg()[0]:.1f}; {args.pairs} pairs of {args.steps} + {args.steps} steps")
    print("| benchmark | time per step | ratio |\n|---|---|---|")
    print(f"| jit step, no profiler | {base * 1e6:.1f} us | 1.00x |")
    print(f"| jit step, inactive Profiler (median of {args.pairs} paired ratios; 95% interval {low:.3f}-{high:.3f}) | "
          f"{statistics.median(inactive) * 1e6:.1f} us | {ratio:.3f}x |")
    print(f"| A/A control: no profiler in either half (95% interval {c_low:.3f}-{c_high:.3f}) | "
          f"{statistics.median(same) * 1e6:.1f} us | {control:.3f}x |")
    print(f"| jit step, recording | {statistics.median(recording) * 1e6:.1f} us | "
          f"{statistics.median(recording) / base:.3f}x |")
    print(f"| bound: 1 `hostevents.ACTIVE` check per step, {cost * 1e9:.1f} ns | {cost * 1e6:.4f} us | "
          f"{1 + cost / base:.6f}x |")


if __name__ == "__main__":
    main()
