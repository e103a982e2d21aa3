"""The C++ `add3` custom op (XLA FFI, built by `ops.CustomOpBuilder`) against `x + y + z` in jax.numpy.

Run: `python bench/bench_custom_ops.py` (add `--quick` for fewer repetitions). Prints a
markdown table of medians, measured alternately; the ratio is custom / jnp (lower
is better for the custom op). Rows per size:

- eager, msx: `my_ops.add3(x, y, z)` on msx Tensors (msx dispatch + the FFI call) vs `x + y + z` on jax arrays;
- eager, jax.ffi: the same FFI target called with `jax.ffi.ffi_call` directly (no msx) vs `x + y + z`;
- jit: `msx.jit` of a function calling `add3` vs `jax.jit` of `x + y + z` (XLA fuses the two adds).

The build is cached (`~/.cache/msx/custom_ops`), so only the first run compiles.
"""
from __future__ import annotations

import argparse
import pathlib

import jax
import jax.numpy as jnp
import numpy as np

import msx
from bench import _fmt, paired
from msx import ops

SOURCE = pathlib.Path(__file__).resolve().parent.parent / "tests" / "cpp" / "add3.cc"


def rows_for(my_ops, n: int, number: int, repeats: int) -> list[tuple]:
    rng = np.random.default_rng(0)
    xs = [jnp.asarray(rng.normal(size=n).astype(np.float32)) for _ in range(3)]
    ts = [msx.Tensor(x) for x in xs]
    target = my_ops.add3.target
    ffi = jax.ffi.ffi_call(target, jax.ShapeDtypeStruct((n,), jnp.float32))

    def jnp_add3(x, y, z):
        return x + y + z

    jnp_jit = jax.jit(jnp_add3)
    msx_jit = msx.jit(lambda x, y, z: my_ops.add3(x, y, z), capture_mode="trace")
    np.testing.assert_allclose(np.asarray(my_ops.add3(*ts)._data), np.asarray(jnp_add3(*xs)), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(msx_jit(*ts)._data), np.asarray(jnp_jit(*xs)), rtol=1e-6)
    rows = []
    a, b = paired(lambda: my_ops.add3(*ts)._data, lambda: jnp_add3(*xs), number, repeats)
    rows.append((f"eager, msx op, n={n:,}", a, b))
    a, b = paired(lambda: ffi(*xs), lambda: jnp_add3(*xs), number, repeats)
    rows.append((f"eager, jax.ffi.ffi_call, n={n:,}", a, b))
    a, b = paired(lambda: msx_jit(*ts)._data, lambda: jnp_jit(*xs), number, repeats)
    rows.append((f"jit, n={n:,}", a, b))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (noisier)")
    repeats = 3 if parser.parse_args().quick else 9
    builder = ops.CustomOpBuilder("bench_add", [str(SOURCE)], backend="CPU")
    my_ops = builder.load()
    rows = rows_for(my_ops, 1_000, 200, repeats) + rows_for(my_ops, 1_000_000, 20, repeats)
    print(f"jax {jax.__version__}, {jax.devices()[0].platform}, {builder.build()}, medians of {repeats} "
          f"alternating runs\n")
    print("| benchmark | C++ add3 | jnp x + y + z | add3 / jnp |")
    print("|---|---|---|---|")
    for name, a, b in rows:
        print(f"| {name} | {_fmt(a)} | {_fmt(b)} | {a / b:.2f}x |")


if __name__ == "__main__":
    main()
