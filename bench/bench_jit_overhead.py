"""Per-call overhead of a jitted call in every capture mode, beside `jax.jit` of the same function.

Run: `python bench/bench_jit_overhead.py` (`--quick` for fewer repetitions). Prints a markdown table of
medians and ratios (msx / jax.jit; lower is better), each row measured alternately with its reference in one
process. What it measures is the runtime's hit path: the signature key, the entry's state guards (globals,
attributes, Cells reached, `versions.EPOCH`), the Parameter checks and the executable call — on a tiny
16-32-4 Cell at batch 1, where that overhead is all there is, and on the 784-512-512-10 MLP at batch 1.
"""
from __future__ import annotations

import argparse
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bench  # noqa: E402  (bench/bench.py: shared builders and timing)
from bench_bytecode import SmallMLP, _interleaved, _small_jax  # noqa: E402
import msx  # noqa: E402
from msx import ops  # noqa: E402

MODES = ("ast", "trace", "bytecode")


def rows(repeats: int) -> list:
    msx.set_seed(0)
    small, mlp = SmallMLP(), bench.mlp_net()
    cases = [("Cell 16-32-4", small, jax.jit(_small_jax), np.ones((1, 16), np.float32), 2000),
             ("MLP 784-512-512-10", mlp, jax.jit(bench.jax_forward("mlp")), bench.batch("mlp", 1)[0], 300)]
    out = []
    for name, net, jax_fn, x, number in cases:
        xm, xj, params = msx.Tensor(x), jnp.asarray(x), bench.params_of(net)
        jitted = [msx.jit(net, capture_mode=m) for m in MODES]
        fns = [lambda f=f: bench._block(f(xm)) for f in jitted] + [lambda: jax_fn(params, xj)]
        *ours, ref = _interleaved(fns, number, repeats)
        out += [(f"{name} batch-1 call, {mode}", t, ref) for mode, t in zip(MODES, ours)]
    return out


class Branchy(SmallMLP):
    """SmallMLP with a decision on a tensor's value between its layers."""

    def construct(self, x):
        h = ops.relu(self.fc1(x))
        if h.sum() > 1.0:
            h = h * 0.5
        return self.fc2(h)


def _branchy_jax(params, x):
    h = jax.nn.relu(x @ params[0].T + params[1])
    h = jax.lax.cond(h.sum() > 1.0, lambda v: v * 0.5, lambda v: v, h)
    return h @ params[2].T + params[3]


def branch_rows(repeats: int) -> list:
    """Trace mode meeting `if h.sum() > 1.0:`: the graph has the branch (no host read of a guard per call)."""
    msx.set_seed(0)
    net = Branchy()
    x = np.ones((1, 16), np.float32)
    xm, xj, params = msx.Tensor(x), jnp.asarray(x), bench.params_of(net)
    jitted = msx.jit(net, capture_mode="trace")
    jitted(xm)
    guards = sum(len(c.guards) for entries in jitted.entries.table.values() for c in entries)
    ref = jax.jit(_branchy_jax)
    ours, theirs = _interleaved([lambda: bench._block(jitted(xm)), lambda: ref(params, xj).block_until_ready()],
                                2000, repeats)
    return [(f"Cell 16-32-4 with `if h.sum() > 1.0:` batch-1 call, trace ({guards} host-read guards)", ours, theirs)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    repeats = 5 if parser.parse_args().quick else 15
    print("| case | msx | jax.jit | ratio |")
    print("|---|---|---|---|")
    for name, ours, ref in rows(repeats) + branch_rows(repeats):
        print(f"| {name} | {ours * 1e6:.1f} µs | {ref * 1e6:.1f} µs | {ours / ref:.2f}x |")


if __name__ == "__main__":
    main()
