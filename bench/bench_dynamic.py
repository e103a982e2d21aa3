"""Dynamic shapes: 20 calls with 20 distinct batch sizes on the MLP forward (784-512-512-10).

Run: `python bench/bench_dynamic.py [--repeats N]`. Each variant starts from a
fresh jitted function (a fresh jax.jit too) and runs the 20 calls; the table
gives the median total wall time over the repeats, its ratio to plain
`jax.jit`, and the counters each msx variant reports (captures, pass-pipeline
runs, XLA compiles).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import jax
import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import msx  # noqa: E402
from bench import jax_forward, mlp_net, params_of  # noqa: E402

SIZES = [int(b) for b in np.random.default_rng(0).permutation(np.arange(1, 129))[:20]]


def inputs() -> list[np.ndarray]:
    rng = np.random.default_rng(1)
    return [rng.standard_normal((b, 784)).astype(np.float32) for b in SIZES]


def run_msx(net, xs, **how) -> tuple[float, dict]:
    if how.pop("declared", False):
        jf = msx.enable_dynamic(x=msx.Tensor(shape=[None, 784], dtype=msx.float32))(msx.jit(lambda x: net(x)))
    else:
        jf = msx.jit(net, **how)
    tensors = [msx.Tensor(x) for x in xs]
    start = time.perf_counter()
    for t in tensors:
        jf(t)._data.block_until_ready()
    return time.perf_counter() - start, jf.cache_info()


def run_jax(params, xs) -> float:
    forward = jax.jit(jax_forward("mlp"))
    start = time.perf_counter()
    for x in xs:
        forward(params, x).block_until_ready()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    repeats = parser.parse_args().repeats
    net, xs = mlp_net(), inputs()
    params = params_of(net)
    variants = {"msx jit dynamic=0": {"dynamic": 0}, "msx jit dynamic=1": {"dynamic": 1},
                "msx enable_dynamic(x=[None, 784])": {"declared": True}}
    times: dict[str, list[float]] = {name: [] for name in [*variants, "jax.jit"]}
    infos: dict[str, dict] = {}
    for _ in range(repeats):  # alternate the variants so machine noise hits all alike
        for name, how in variants.items():
            seconds, infos[name] = run_msx(net, xs, **dict(how))
            times[name].append(seconds)
        times["jax.jit"].append(run_jax(params, xs))
    ref = statistics.median(times["jax.jit"])
    print(f"20 calls, batch sizes {SIZES}; median of {repeats}\n")
    print("| variant | total wall time | vs jax.jit | captures | pass runs | XLA compiles |")
    print("|---|---|---|---|---|---|")
    for name, values in times.items():
        med = statistics.median(values)
        info = infos.get(name)
        counts = (f"{info['captures']} | {info['pass_runs']} | {info['xla_compiles']}" if info else "- | - | 20")
        print(f"| {name} | {med:.2f} s | {med / ref:.2f}x | {counts} |")


if __name__ == "__main__":
    main()
