"""What an inactive msx.Profiler costs: the digits MLP jit step with no profiler and with one constructed with
start_profile=False (goal: <= 1.02x), alternating, medians of 9 runs of 50 steps; and the overhead of recording."""
from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
import msx as ms  # noqa: E402
from viz_programs import digits_step  # noqa: E402


def run(jf, x, y, n=50) -> float:
    start = time.perf_counter()
    for _ in range(n):
        loss = jf(x, y)
    loss.asnumpy()
    return (time.perf_counter() - start) / n


def main() -> None:
    jf, _, _, _ = digits_step(hidden=128)
    rng = np.random.default_rng(0)
    x, y = ms.Tensor(rng.random((128, 64), dtype=np.float32)), ms.Tensor(rng.integers(0, 10, 128).astype(np.int64))
    run(jf, x, y, 5)
    off, inactive, recording = [], [], []
    folder = tempfile.mkdtemp()
    for _ in range(9):
        off.append(run(jf, x, y))
        prof = ms.Profiler(start_profile=False, output_path=folder)
        inactive.append(run(jf, x, y))
        prof.start()
        recording.append(run(jf, x, y))
        prof.stop()
    base = statistics.median(off)
    print("| benchmark | time per step | ratio |\n|---|---|---|")
    print(f"| jit step, no profiler | {base * 1e6:.1f} us | 1.00x |")
    print(f"| jit step, inactive Profiler | {statistics.median(inactive) * 1e6:.1f} us | "
          f"{statistics.median(inactive) / base:.3f}x |")
    print(f"| jit step, recording | {statistics.median(recording) * 1e6:.1f} us | "
          f"{statistics.median(recording) / base:.3f}x |")


if __name__ == "__main__":
    main()
