"""Export and load of bench.py's MLP (784-512-512-10): time and file size against the raw weights.

Run: `python bench/bench_export.py` (add `--quick` for fewer repetitions).
Prints a markdown table of medians. The reference for each file operation is
writing / reading the same weights alone with `safetensors.numpy` (the floor:
raw bytes plus a small header); sizes are compared with the raw bytes of the
weights. "load" is everything `msx.load` checks (magic, version, checksums,
graph decoding, verification with shape re-inference); "GraphCell first call"
adds building the executable.
"""
from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

import jax
import numpy as np
import safetensors.numpy

import msx
from bench import _fmt, mlp_net
from msx import nn


def median_time(fn, repeats: int) -> float:
    fn()  # warm up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (noisier)")
    repeats = 3 if parser.parse_args().quick else 11
    net = mlp_net()
    x = msx.Tensor(np.random.default_rng(0).normal(size=(128, 784)).astype(np.float32))
    weights = {p.name: p.asnumpy() for p in net.get_parameters()}
    raw = sum(w.nbytes for w in weights.values())
    folder = tempfile.mkdtemp()
    path = lambda name: os.path.join(folder, name)  # noqa: E731

    def first_call():
        cell = nn.GraphCell(msx.load(path("mlp.msxir")))
        return jax.block_until_ready(cell(x)._data)

    rows = [
        ("export MSXIR", median_time(lambda: msx.export(net, x, file_name=path("mlp.msxir")), repeats),
         median_time(lambda: safetensors.numpy.save_file(weights, path("raw.safetensors")), repeats), "mlp.msxir"),
        ("msx.load (all checks)", median_time(lambda: msx.load(path("mlp.msxir")), repeats),
         median_time(lambda: safetensors.numpy.load_file(path("raw.safetensors")), repeats), None),
        ("load + GraphCell first call (build)", median_time(first_call, repeats), None, None),
        ("export STABLEHLO (jax.export)",
         median_time(lambda: msx.export(net, x, file_name=path("mlp.stablehlo"), file_format="STABLEHLO"), repeats),
         None, "mlp.stablehlo"),
        ("jax.export.deserialize of the STABLEHLO file",
         median_time(lambda: jax.export.deserialize(bytearray(open(path("mlp.stablehlo"), "rb").read())), repeats),
         None, None),
        ("save_checkpoint", median_time(lambda: msx.save_checkpoint(net, path("mlp.ckpt")), repeats),
         median_time(lambda: safetensors.numpy.save_file(weights, path("raw.safetensors")), repeats), "mlp.ckpt"),
        ("load_checkpoint (checksums)", median_time(lambda: msx.load_checkpoint(path("mlp.ckpt")), repeats),
         median_time(lambda: safetensors.numpy.load_file(path("raw.safetensors")), repeats), None),
    ]
    print(f"jax {jax.__version__}, {jax.devices()[0].platform}, MLP weights {raw} bytes, medians of {repeats}\n")
    print("| operation | msx | raw safetensors | ratio | file size | size / raw weights |")
    print("|---|---|---|---|---|---|")
    for name, a, b, file in rows:
        size = os.path.getsize(path(file)) if file else None
        print(f"| {name} | {_fmt(a)} | {_fmt(b) if b else '—'} | {f'{a / b:.2f}x' if b else '—'} | "
              f"{f'{size:,} B' if size else '—'} | {f'{size / raw:.4f}' if size else '—'} |")


if __name__ == "__main__":
    main()
