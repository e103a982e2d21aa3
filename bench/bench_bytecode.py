"""Steady-state call overhead of capture_mode="bytecode" (guards + dispatch), beside jax.jit and the trace path.

Run: `python bench/bench_bytecode.py` (`--quick` for fewer repetitions). Prints a
markdown table of medians and ratios (msx / reference; lower is better),
measured alternately in one process (builders from bench/bench.py).

* batch-1 MLP inference: bench.py's 784-512-512-10 MLP, and a small 16-32-4
  MLP written as a user Cell, where per-call overhead dominates;
* a function with one graph break (a branch on a tensor's value): two graphs
  joined by Python glue, beside running it eagerly op by op.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bench  # noqa: E402  (bench/bench.py: shared builders and timing)
import msx  # noqa: E402
from msx import nn, ops  # noqa: E402


class SmallMLP(nn.Cell):
    """16-32-4, written as a user Cell: its `construct` is what the bytecode interpreter captures."""

    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Dense(16, 32)
        self.fc2 = nn.Dense(32, 4)

    def construct(self, x):
        return self.fc2(ops.relu(self.fc1(x)))


def _small_jax(params, x):
    h = jax.nn.relu(x @ params[0].T + params[1])
    return h @ params[2].T + params[3]


def _interleaved(fns: list, number: int, repeats: int) -> list[float]:
    """Median seconds per call of each function, timed in turn (machine noise hits all alike)."""
    for fn in fns:
        fn()   # warm up (and compile)
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(repeats):
        for t, fn in zip(times, fns):
            t.append(bench._time(fn, number))
    return [statistics.median(t) for t in times]


def _inference(name: str, net, jax_fn, params, x: np.ndarray, number: int, repeats: int) -> list:
    xm, xj = msx.Tensor(x), jnp.asarray(x)
    by_bytecode, by_trace = msx.jit(net, capture_mode="bytecode"), msx.jit(net, capture_mode="trace")
    ours, trace, ref = _interleaved([lambda: bench._block(by_bytecode(xm)), lambda: bench._block(by_trace(xm)),
                                     lambda: jax_fn(params, xj)], number, repeats)
    return [(f"{name} batch-1 call, bytecode", ours, ref, "jax.jit"),
            (f"{name} batch-1 call, trace (for comparison)", trace, ref, "jax.jit"),
            (f"{name} batch-1 call, bytecode", ours, trace, "msx trace")]


def inference_rows(repeats: int) -> list:
    net = bench.mlp_net()
    rows = _inference("MLP 784-512-512-10", net, jax.jit(bench.jax_forward("mlp")), bench.params_of(net),
                      bench.batch("mlp", 1)[0], 200, repeats)
    msx.set_seed(0)
    small = SmallMLP()
    rows += _inference("MLP 16-32-4 (user Cell)", small, jax.jit(_small_jax), bench.params_of(small),
                       np.ones((1, 16), np.float32), 2000, repeats)
    return rows


def dispatch_row(repeats: int) -> list:
    """The bytecode runtime's own cost per call: the generated guard check plus dispatch, with the graph's
    execution replaced by a stub that returns its last output (what is left is msx's bytecode layer alone)."""
    msx.set_seed(0)
    small = SmallMLP()
    x = msx.Tensor(np.ones((1, 16), np.float32))
    jitted = msx.jit(small, capture_mode="bytecode")
    out = jitted(x)
    entry = jitted.entries.root.entries[0]

    class Stub:
        def run(self, inputs):
            return [out]

    compiled, entry.compiled = entry.compiled, Stub()
    try:
        (own,) = _interleaved([lambda: jitted(x)], 20000, repeats)
    finally:
        entry.compiled = compiled
    return [(f"MLP 16-32-4: guards ({len(entry.guards)}) + dispatch only, graph run stubbed", own, None, "-")]


def graph_break_rows(repeats: int) -> list:
    msx.set_seed(0)
    net = SmallMLP()

    def with_break(x):
        h = net(x)
        if h.sum() > 0:        # a graph break: Python decides, then the second graph runs
            h = h * 2.0
        else:
            h = h - 1.0
        return ops.softmax(h, axis=-1)

    x = msx.Tensor(np.ones((8, 16), np.float32))
    jitted = msx.jit(with_break, capture_mode="bytecode")
    a, b = bench.paired(lambda: bench._block(jitted(x)), lambda: bench._block(with_break(x)), 300, repeats)
    report = jitted.explain(x)
    assert report.graph_count == 2 and report.break_count == 1, report
    return [("16-32-4 MLP + a tensor `if` (2 graphs + glue), bytecode", a, b, "msx eager")]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (noisier)")
    repeats = 3 if parser.parse_args().quick else 9
    rows = inference_rows(repeats) + dispatch_row(repeats) + graph_break_rows(repeats)
    print(f"jax {jax.__version__}, {jax.devices()[0].platform}, medians of {repeats} alternating runs\n")
    print("| benchmark | msx | reference | ratio | reference is |")
    print("|---|---|---|---|---|")
    for name, a, b, ref in rows:
        if b is None:
            print(f"| {name} | {bench._fmt(a)} | - | - | {ref} |")
        else:
            print(f"| {name} | {bench._fmt(a)} | {bench._fmt(b)} | {a / b:.2f}x | {ref} |")


if __name__ == "__main__":
    main()
