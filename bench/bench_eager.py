"""PyNative (eager) speed: msx beside PyTorch eager and jax eager, side by side in one process.

Run: `python bench/bench_eager.py` (`--quick` for fewer repetitions; needs the bench extra:
`pip install -e ".[bench]"`, which brings `torch==2.13.0+cpu`). Every case runs the same math from the same
initial weights in all three, measured alternately (so machine load hits them alike), and prints medians
and the ratios msx / torch and msx / jax eager (lower is better). Cases:
(a) the README demo's digits MLP 64-128-10, batch 64, Adam train step; (b) MLP 784-512-512-10, batch 128,
SGD-momentum train step; (c) 1000 x `x = x + 1` on 4 elements; (d) the small CNN (conv32-conv64-pool-
128-10, batch 32, Adam) train step.

By default the process is pinned to one core and torch to one thread (`--cores N` to change): on a shared
machine that is what keeps the three comparable (torch's spinning OpenMP threads and XLA's pool otherwise
fight over the cores other jobs leave).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np
import optax
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bench  # noqa: E402  (bench/bench.py: the shared nets and their jax forms)
import msx  # noqa: E402
from msx import nn  # noqa: E402


def _time(fn, number: int) -> float:
    start = time.perf_counter()
    for _ in range(number):
        out = fn()
    jax.block_until_ready(out)
    return (time.perf_counter() - start) / number


# past every compile threshold: a key's, a tape sequence's and a deferred forward segment's (msx.eager.lazy)
WARMUP = max(msx.eager.tape.REPLAY_AFTER, msx.eager.lazy.REPLAY_AFTER) + 2


def interleaved(fns: list, number: int, repeats: int) -> list[float]:
    """Median seconds per call of each function, measured in turn `repeats` times."""
    for f in fns:
        for _ in range(WARMUP):  # warm up: msx compiles a key on its 3rd sighting, a tape's replay on its 6th
            f()
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(repeats):
        for t, f in zip(times, fns):
            t.append(_time(f, number))
    return [statistics.median(t) for t in times]


# ---------------------------------------------------------------- the three frameworks' steps
def digits_net():
    msx.set_seed(0)
    return nn.SequentialCell([nn.Dense(64, 128), nn.ReLU(), nn.Dense(128, 10)])


def msx_step(net, optimizer: str):
    loss_fn = nn.CrossEntropyLoss()
    params = net.trainable_params()
    opt = nn.Adam(params, learning_rate=1e-3) if optimizer == "adam" else nn.Momentum(params, 0.01, 0.9)
    grad_fn = msx.value_and_grad(lambda x, y: loss_fn(net(x), y), None, opt.parameters)

    def step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss._data

    return step


def torch_model(kind: str, net):
    """The msx net's layers as torch modules, with msx's initial weights copied in."""
    tnn = torch.nn
    if kind == "cnn":
        layers = [tnn.Conv2d(1, 32, 3), tnn.ReLU(), tnn.Conv2d(32, 64, 3), tnn.ReLU(), tnn.MaxPool2d(2, 2),
                  tnn.Flatten(), tnn.Linear(64 * 12 * 12, 128), tnn.ReLU(), tnn.Linear(128, 10)]
    else:
        sizes = [p.shape for p in net.trainable_params() if len(p.shape) == 2]
        layers = []
        for out_f, in_f in sizes:
            layers += [tnn.Linear(in_f, out_f), tnn.ReLU()]
        layers = layers[:-1]
    model = tnn.Sequential(*layers)
    with torch.no_grad():
        for tp, mp in zip(model.parameters(), net.trainable_params()):
            tp.copy_(torch.from_numpy(np.array(mp.asnumpy())))
    return model


def torch_step(model, optimizer: str):
    opt = (torch.optim.Adam(model.parameters(), lr=1e-3) if optimizer == "adam"
           else torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9))
    loss_fn = torch.nn.CrossEntropyLoss()

    def step(x, y):
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()

    return step


def jax_forward(kind: str):
    if kind != "digits":
        return bench.jax_forward(kind)

    def forward(p, x):
        return jax.nn.relu(x @ p[0].T + p[1]) @ p[2].T + p[3]

    return forward


def jax_step(kind: str, params, optimizer: str):
    """jax eager: `jax.value_and_grad` and optax, op by op (no jit)."""
    forward = jax_forward(kind)
    tx = optax.adam(1e-3) if optimizer == "adam" else optax.sgd(0.01, momentum=0.9)
    state = [params, tx.init(params)]

    def loss_fn(p, x, y):
        return optax.softmax_cross_entropy_with_integer_labels(forward(p, x), y).mean()

    def step(x, y):
        loss, g = jax.value_and_grad(loss_fn)(state[0], x, y)
        updates, state[1] = tx.update(g, state[1], state[0])
        state[0] = optax.apply_updates(state[0], updates)
        return loss

    return step


def train_case(name: str, kind: str, batch: int, optimizer: str, number: int, repeats: int):
    make = {"digits": digits_net, "mlp": bench.mlp_net, "cnn": bench.cnn_net}[kind]
    rng = np.random.default_rng(0)
    shape = {"digits": (batch, 64), "mlp": (batch, 784), "cnn": (batch, 1, 28, 28)}[kind]
    x = rng.normal(size=shape).astype(np.float32)
    y = rng.integers(0, 10, batch)
    net = make()
    ours = msx_step(net, optimizer)
    theirs = torch_step(torch_model(kind, make()), optimizer)
    ref = jax_step(kind, bench.params_of(make()), optimizer)
    xm, ym, xt, yt, xj, yj = (msx.Tensor(x), msx.Tensor(y), torch.from_numpy(x), torch.from_numpy(y),
                              jnp.asarray(x), jnp.asarray(y))
    a, t, j = interleaved([lambda: ours(xm, ym), lambda: theirs(xt, yt), lambda: ref(xj, yj)], number, repeats)
    return name, a, t, j


def add_case(repeats: int):
    xm, xt, xj = msx.Tensor(np.ones(4, np.float32)), torch.ones(4), jnp.ones(4, jnp.float32)

    def loop(x):
        for _ in range(1000):
            x = x + 1
        return x

    a, t, j = interleaved([lambda: loop(xm)._data, lambda: loop(xt), lambda: loop(xj)], 1, repeats)
    return "(c) 1000 x `x = x + 1` (4 elems)", a, t, j


def rows(repeats: int) -> list:
    return [
        train_case("(a) digits MLP 64-128-10 b64, Adam step", "digits", 64, "adam", 20, repeats),
        train_case("(b) MLP 784-512-512-10 b128, SGD momentum step", "mlp", 128, "momentum", 5, repeats),
        add_case(repeats),
        train_case("(d) CNN conv32-conv64-pool-128-10 b32, Adam step", "cnn", 32, "adam", 1, max(3, repeats // 2)),
    ]


def _fmt(seconds: float) -> str:
    return f"{seconds * 1e6:.0f} µs" if seconds < 1e-3 else f"{seconds * 1e3:.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (noisier)")
    parser.add_argument("--cores", type=int, default=1, help="cores to pin the process to (torch threads too)")
    args = parser.parse_args()
    repeats = 5 if args.quick else 11
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:args.cores])
    torch.set_num_threads(args.cores)
    print(f"jax {jax.__version__}, torch {torch.__version__}, msx {msx.__version__}; "
          f"{args.cores} core(s), medians of {repeats} alternating runs\n")
    print("| case | msx eager | torch eager | jax eager | msx / torch | msx / jax |")
    print("|---|---|---|---|---|---|")
    for name, a, t, j in rows(repeats):
        print(f"| {name} | {_fmt(a)} | {_fmt(t)} | {_fmt(j)} | {a / t:.2f}x | {a / j:.2f}x |")
    info = msx.eager.cache_info()
    print(f"\nmsx.eager.cache_info(): {info}")


if __name__ == "__main__":
    main()
