"""Pass pipelines: compile time and step time of jit_level="O0" vs "O1" on training steps.

Run: `python bench/bench_passes.py` (add `--quick` for fewer repetitions). Prints a
markdown table of medians, O0 and O1 measured alternately; the ratio is O1 / O0
(lower is better for O1). The MLP and CNN steps are bench.py's; the third step
writes its activation (swish) and loss (MSE) with elementwise ops, which is
what O1's fusion groups. Per step:

- passes only: `msx.passes.optimise` on the captured graph (the pipeline, with the verifier);
- capture + passes + XLA compile: a fresh `jit(...).lower(x, y).compile()`;
- train step: one call of the compiled step.
"""
from __future__ import annotations

import argparse

import jax
import numpy as np

import msx
from bench import _block, _fmt, batch, cnn_net, mlp_net, msx_step, paired
from msx import nn, ops


def swish_mse_step():
    """A step whose activation and loss are chains of elementwise ops."""
    msx.set_seed(0)
    fc1, fc2 = nn.Dense(784, 256), nn.Dense(256, 10)
    params = fc1.trainable_params() + fc2.trainable_params()
    opt = nn.Adam(params, learning_rate=1e-3)

    def loss_fn(x, target):
        h = fc1(x)
        h = h * ops.sigmoid(1.702 * h)
        err = fc2(h) - target
        return (err * err).mean()

    grad_fn = msx.value_and_grad(loss_fn, None, opt.parameters)

    def step(x, target):
        loss, grads = grad_fn(x, target)
        opt(grads)
        return loss

    return step


def _all_ops(graph) -> list[str]:
    return [n.op for n in graph.nodes] + [n.op for sub in graph.subgraphs() for n in sub.nodes]


def _jit(make_step, level: str):
    return msx.jit(make_step(), capture_mode="trace", jit_level=level)


def rows_for(name: str, make_step, xm, ym, number: int, repeats: int) -> list[tuple]:
    graph = _jit(make_step, "O0").capture(xm, ym)
    a, b = paired(lambda: msx.passes.optimise(graph, "O0"), lambda: msx.passes.optimise(graph, "O1"), 20, repeats)
    rows = [(f"{name}: passes only ({len(_all_ops(graph))} nodes)", a, b)]
    a, b = paired(lambda: _jit(make_step, "O0").lower(xm, ym).compile(),
                  lambda: _jit(make_step, "O1").lower(xm, ym).compile(), 1, max(3, repeats // 2))
    rows.append((f"{name}: capture + passes + XLA compile", a, b))
    o0, o1 = _jit(make_step, "O0"), _jit(make_step, "O1")
    fused = _all_ops(o1.lower(xm, ym).graph).count("Fused")
    a, b = paired(lambda: _block(o0(xm, ym)), lambda: _block(o1(xm, ym)), number, repeats)
    rows.append((f"{name}: train step ({fused} fused groups at O1)", a, b))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (noisier)")
    repeats = 3 if parser.parse_args().quick else 9
    x, y = batch("mlp", 128)
    xm, ym = msx.Tensor(x), msx.Tensor(y)
    rows = rows_for("MLP 784-512-512-10 b128", lambda: msx_step(mlp_net(), False), xm, ym, 10, repeats)
    target = msx.Tensor(np.eye(10, dtype=np.float32)[y])
    rows += rows_for("MLP 784-256-10 swish + MSE b128", swish_mse_step, xm, target, 10, repeats)
    x, y = batch("cnn", 32)
    rows += rows_for("CNN conv32-conv64-pool-128-10 b32", lambda: msx_step(cnn_net(), False), msx.Tensor(x),
                     msx.Tensor(y), 5, repeats)
    print(f"jax {jax.__version__}, {jax.devices()[0].platform}, medians of {repeats} alternating runs\n")
    print("| benchmark | O0 | O1 | O1 / O0 |")
    print("|---|---|---|---|")
    for name, a, b in rows:
        print(f"| {name} | {_fmt(a)} | {_fmt(b)} | {b / a:.2f}x |")


if __name__ == "__main__":
    main()
