"""The simulated Ascend beside the XLA "cpu" backend on bench.py's MLP training step.

Run: `python bench/bench_backends.py` (add `--quick` for fewer repetitions). Prints a
markdown table of medians; the ratio is ascend / cpu (the simulation's overhead).

- train step: one call of the compiled step on each backend, measured alternately;
  "force_fp16" runs the float16 roundings the simulation inserts, "must_keep_origin_dtype"
  runs none (what is left is the simulator's per-call bookkeeping);
- build: a fresh `jit(...).lower(x, y).compile()` (capture, passes, then the backend's build:
  for the simulation also the precision rewrite, the cost and the memory model);
- models: the precision rewrite plus the cost and memory models alone, on the step's graph.
"""
from __future__ import annotations

import argparse
import statistics
import time

import jax

import msx
from bench import _block, _fmt, batch, mlp_net, msx_step, paired
from msx.backends import get_backend
from msx.backends.ascend_sim.cost import CostModel
from msx.backends.ascend_sim.memory import MemoryModel
from msx.backends.ascend_sim.precision import PRECISION_MODES, apply_precision


def _step(backend: str, **options):
    return msx.jit(msx_step(mlp_net(), False), capture_mode="trace", backend=backend, **options)


def _median_time(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _models(graph, spec) -> None:
    rewritten = apply_precision(graph, PRECISION_MODES["force_fp16"])
    MemoryModel(rewritten.storage, rewritten.free).peak(rewritten.graph, capacity=spec.capacity_bytes)
    CostModel(spec, rewritten.storage, rewritten.free).rows(rewritten.graph)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (noisier)")
    repeats = 3 if parser.parse_args().quick else 9
    x, y = batch("mlp", 128)
    xm, ym = msx.Tensor(x), msx.Tensor(y)
    rows = []
    cpu, estimates = _step("cpu"), {}
    for mode in ("force_fp16", "must_keep_origin_dtype"):
        npu = _step("ascend", precision_mode=mode)
        a, b = paired(lambda: _block(npu(xm, ym)), lambda: _block(cpu(xm, ym)), 20, repeats)
        rows.append((f"MLP 784-512-512-10 b128 train step, ascend {mode}", a, b))
        estimates[mode] = get_backend("ascend").last_report.total_time_us * 1e-6

    def build(backend, **options):
        return lambda: _step(backend, **options).lower(xm, ym).compile()

    a, b = paired(build("ascend"), build("cpu"), 1, max(3, repeats // 2))
    rows.append(("MLP step capture + passes + build", a, b))
    graph = _step("cpu").lower(xm, ym).graph
    models = _median_time(lambda: _models(graph, get_backend("ascend").spec), repeats)

    print(f"jax {jax.__version__}, {jax.devices()[0].platform}, medians of {repeats} alternating runs\n")
    print("| benchmark | ascend (simulated) | cpu | ratio |")
    print("|---|---|---|---|")
    for name, a, b in rows:
        print(f"| {name} | {_fmt(a)} | {_fmt(b)} | {a / b:.2f}x |")
    print(f"| precision rewrite + cost + memory model of the step graph | {_fmt(models)} | — | — |")
    shown = ", ".join(f"{_fmt(t)} ({mode})" for mode, t in estimates.items())
    print(f"\nthe simulated Ascend 910's own estimate of one step: {shown} — a cost model, not a measurement")


if __name__ == "__main__":
    main()
