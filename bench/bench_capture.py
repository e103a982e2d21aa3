"""Capture time of `capture_mode="ast"` beside `"trace"` for the training steps of bench/bench.py.

Run: `python bench/bench_capture.py` (add `--quick` for fewer repetitions).
Measured: `jit(step, capture_mode=...).capture(x, y)` alone (the graph, with
the Parameters restored), not passes, lowering or XLA compilation. Trace
capture runs the step eagerly while recording it; ast capture interprets the
source with abstract values and computes nothing. The two captures are
measured alternately and reported as medians; "same graph" says whether both
modes produced structurally equal graphs.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]  # bench.py's model builders, and this checkout's msx

import jax  # noqa: E402

import msx  # noqa: E402
from msx import nn  # noqa: E402
from bench import _fmt, batch, cnn_net, mlp_net  # noqa: E402


def train_step(net, capture_mode: str):
    """bench.py's training step (value_and_grad + Adam), jitted with the given capture mode."""
    loss_fn = nn.CrossEntropyLoss()
    opt = nn.Adam(net.trainable_params(), learning_rate=1e-3)

    def forward(x, y):
        return loss_fn(net(x), y)

    grad_fn = msx.value_and_grad(forward, None, opt.parameters)

    def step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss

    return msx.jit(step, capture_mode=capture_mode)


def _seconds(jf, x, y) -> float:
    start = time.perf_counter()
    jf.capture(x, y)
    return time.perf_counter() - start


def capture_row(kind: str, n: int, repeats: int) -> tuple:
    x, y = batch(kind, n)
    x, y = msx.Tensor(x), msx.Tensor(y)
    make = mlp_net if kind == "mlp" else cnn_net
    by_mode = {mode: train_step(make(), mode) for mode in ("ast", "trace")}
    graphs = {mode: jf.capture(x, y) for mode, jf in by_mode.items()}  # warm up (eager kernels, source parsing)
    times: dict[str, list[float]] = {"ast": [], "trace": []}
    for _ in range(repeats):
        for mode, jf in by_mode.items():
            times[mode].append(_seconds(jf, x, y))
    ast, trace = statistics.median(times["ast"]), statistics.median(times["trace"])
    return ast, trace, graphs["ast"] == graphs["trace"], len(graphs["ast"].nodes)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (noisier)")
    repeats = 5 if parser.parse_args().quick else 15
    print(f"jax {jax.__version__}, {jax.devices()[0].platform}, medians of {repeats} alternating captures\n")
    print("| training step | ast capture | trace capture | ast / trace | same graph |")
    print("|---|---|---|---|---|")
    for label, kind, n in (("MLP 784-512-512-10 b128, Adam", "mlp", 128),
                           ("CNN conv32-conv64-pool-128-10 b32, Adam", "cnn", 32)):
        ast, trace, same, _ = capture_row(kind, n, repeats)
        print(f"| {label} | {_fmt(ast)} | {_fmt(trace)} | {ast / trace:.2f}x | {'yes' if same else 'no'} |")


if __name__ == "__main__":
    main()
