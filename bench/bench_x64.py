"""What scoping `jax_enable_x64` to msx's own calls would cost (docs/architecture.md, "jax_enable_x64").

Run: `python bench/bench_x64.py`. Times an eager jax op, a jitted call and a
per-primitive jitted op (msx's eager path) as they run today (x64 on for the
whole loop, like `import msx` sets it for the process) and with x64 off for
the process and `with jax.enable_x64(True):` around each call, the scope msx
would need; medians of alternating runs.
"""
from __future__ import annotations

import statistics
import time

import jax
import jax.numpy as jnp


def _per_call(fn, number: int = 2000, x64_around: bool = False) -> float:
    with jax.enable_x64(x64_around):
        fn()
        start = time.perf_counter()
        for _ in range(number):
            out = fn()
        jax.block_until_ready(out)
        return (time.perf_counter() - start) / number


def main() -> None:
    x = jnp.ones(4, jnp.float32)
    f, add = jax.jit(lambda a: a * 2 + 1), jax.jit(jnp.add)

    def scoped(fn):
        def run():
            with jax.enable_x64(True):
                return fn()
        return run

    calls = [("eager op (x + 1.0)", lambda: x + 1.0), ("jitted call f(x)", lambda: f(x)),
             ("per-primitive jitted add", lambda: add(x, x))]
    print(f"jax {jax.__version__}, {jax.devices()[0].platform}, medians of 9 alternating runs\n")
    print("| call | process-wide | scoped | cost |")
    print("|---|---|---|---|")
    for name, fn in calls:
        plain, inside = [], []
        for _ in range(9):
            plain.append(_per_call(fn, x64_around=True))
            inside.append(_per_call(scoped(fn)))
        a, b = statistics.median(plain), statistics.median(inside)
        print(f"| {name} | {a * 1e6:.1f} µs | {b * 1e6:.1f} µs | +{(b - a) * 1e6:.1f} µs ({b / a:.2f}x) |")


if __name__ == "__main__":
    main()  # without msx: jax's default (x64 off) outside the contexts
