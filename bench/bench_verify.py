"""The verifier with shape inference (`verify(graph, infer=True)`): time per node, with and without its cache.

Run: `PYTHONPATH=. python bench/bench_verify.py` (`--quick`: fewer repetitions). The graphs are
the MLP and CNN training steps of bench.py, captured with `capture_mode="trace"`
(a `Grad` node over the forward, then the optimizer). Per graph, microseconds per node
(subgraph nodes included), medians:

- uncached: every node's abstract re-derived with `jax.eval_shape` (what msx did before the cache);
- first verify: the cache emptied first, so only repeated (op, input types, attrs) hit it;
- cached: the cache warm, as for the verifier run after each pass of a pipeline.

It also runs against an msx without the cache (then only the first column is measured).
"""
from __future__ import annotations

import argparse
import statistics
import time

import jax

import msx
from bench import batch, cnn_net, mlp_net, msx_step
from msx.ir import interpret
from msx.ir.verifier import verify

HAS_CACHE = hasattr(interpret, "_INFER_CACHE")


def _nodes(graph) -> int:
    return len(graph.nodes) + sum(len(sub.nodes) for sub in graph.subgraphs())


def _median_us(fn, graph, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) / _nodes(graph) * 1e6


def row(name: str, graph, repeats: int) -> tuple:
    if HAS_CACHE:
        keyed = interpret._cache_key
        interpret._cache_key = lambda node, prim: None
        try:
            uncached = _median_us(lambda: verify(graph), graph, repeats)
        finally:
            interpret._cache_key = keyed

        def first():
            interpret._INFER_CACHE.clear()
            verify(graph)

        first_us = _median_us(first, graph, repeats)
        verify(graph)
        cached = _median_us(lambda: verify(graph), graph, repeats)
        return name, _nodes(graph), uncached, first_us, cached
    return name, _nodes(graph), _median_us(lambda: verify(graph), graph, repeats), None, None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (noisier)")
    repeats = 3 if parser.parse_args().quick else 9
    x, y = batch("mlp", 128)
    mlp = msx.jit(msx_step(mlp_net(), False), capture_mode="trace").capture(msx.Tensor(x), msx.Tensor(y))
    x, y = batch("cnn", 32)
    cnn = msx.jit(msx_step(cnn_net(), False), capture_mode="trace").capture(msx.Tensor(x), msx.Tensor(y))
    rows = [row("MLP 784-512-512-10 train step", mlp, repeats), row("CNN conv32-conv64-pool-128-10 train step",
                                                                     cnn, repeats)]
    print(f"jax {jax.__version__}, {jax.devices()[0].platform}, medians of {repeats} runs, us per node\n")
    print("| graph | nodes | uncached | first verify | cached | uncached / cached |")
    print("|---|---|---|---|---|---|")
    for name, n, a, b, c in rows:
        if c is None:
            print(f"| {name} | {n} | {a:.0f} | - | - | - |")
        else:
            print(f"| {name} | {n} | {a:.0f} | {b:.0f} | {c:.0f} | {a / c:.1f}x |")


if __name__ == "__main__":
    main()
