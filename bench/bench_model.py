"""Model.train's per-epoch cost against a hand-written `msx.jit` loop and a hand-written `jax.jit` + optax loop.

All three train the same MLP (64-128-10, Adam, batches of 64) on scikit-learn's digits; one epoch of each runs
in turn (alternating, after one warm-up epoch each), and the medians and ratios are printed. Model.train
includes the whole pipeline: shuffling, batching, the background prefetch and the callbacks' bookkeeping.

    python bench/bench_model.py [--epochs 20]
"""
from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp
import numpy as np
import optax
from sklearn.datasets import load_digits

import msx as ms
from msx import nn, ops

BATCH = 64


class MLP(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Dense(64, 128)
        self.fc2 = nn.Dense(128, 10)

    def construct(self, x):
        return self.fc2(ops.relu(self.fc1(x)))


def model_epoch(x, y):
    ms.set_seed(0)
    net = MLP()
    model = ms.train.Model(net, nn.CrossEntropyLoss(), nn.Adam(net.trainable_params(), learning_rate=1e-2))
    data = ms.dataset.NumpySlicesDataset({"image": x, "label": y}).batch(BATCH, drop_remainder=True)
    return lambda: model.train(1, data, progress_bar=False)


def msx_jit_epoch(x, y):
    ms.set_seed(0)
    net = MLP()
    loss_fn, opt = nn.CrossEntropyLoss(), nn.Adam(net.trainable_params(), learning_rate=1e-2)
    grad_fn = ms.value_and_grad(lambda a, b: loss_fn(net(a), b), None, opt.parameters)

    @ms.jit(capture_mode="trace")
    def step(a, b):
        loss, grads = grad_fn(a, b)
        opt(grads)
        return loss

    rng = np.random.default_rng(0)

    def epoch():
        order = rng.permutation(len(x))
        losses = [step(ms.Tensor(x[idx]), ms.Tensor(y[idx]))
                  for idx in (order[i:i + BATCH] for i in range(0, len(x) - BATCH + 1, BATCH))]
        float(np.mean([loss.asnumpy() for loss in losses]))

    return epoch


def jax_epoch(x, y):
    key1, key2 = jax.random.split(jax.random.key(0))
    params = {"w1": jax.random.normal(key1, (128, 64)) * 0.1, "b1": jnp.zeros(128),
              "w2": jax.random.normal(key2, (10, 128)) * 0.1, "b2": jnp.zeros(10)}
    tx = optax.adam(1e-2)
    state = [params, tx.init(params)]

    def loss(p, a, b):
        logits = jnp.maximum(a @ p["w1"].T + p["b1"], 0) @ p["w2"].T + p["b2"]
        return optax.softmax_cross_entropy_with_integer_labels(logits, b).mean()

    @jax.jit
    def step(p, s, a, b):
        value, grads = jax.value_and_grad(loss)(p, a, b)
        updates, s = tx.update(grads, s, p)
        return optax.apply_updates(p, updates), s, value

    rng = np.random.default_rng(0)

    def epoch():
        order = rng.permutation(len(x))
        losses = []
        for i in range(0, len(x) - BATCH + 1, BATCH):
            idx = order[i:i + BATCH]
            state[0], state[1], value = step(state[0], state[1], x[idx], y[idx])
            losses.append(value)
        float(np.mean([np.asarray(v) for v in losses]))

    return epoch


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=20)
    args = parser.parse_args()
    digits = load_digits()
    x, y = (digits.data / 16.0).astype(np.float32), digits.target.astype(np.int32)
    runners = {"Model.train (dataset pipeline, callbacks)": model_epoch(x, y),
               "hand-written msx.jit loop": msx_jit_epoch(x, y),
               "hand-written jax.jit + optax loop": jax_epoch(x, y)}
    times: dict[str, list[float]] = {name: [] for name in runners}
    for name, run in runners.items():
        run()  # warm-up: capture and compile
    for _ in range(args.epochs):
        for name, run in runners.items():
            start = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - start)
    reference = float(np.median(times["hand-written jax.jit + optax loop"]))
    print(f"one epoch of digits ({len(x) // BATCH} steps of {BATCH}), median of {args.epochs}:\n")
    print("| loop | ms per epoch | vs jax.jit + optax |")
    print("|---|---|---|")
    for name, ts in times.items():
        median = float(np.median(ts))
        print(f"| {name} | {median * 1e3:.1f} | {median / reference:.2f}x |")


if __name__ == "__main__":
    main()
