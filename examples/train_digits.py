"""msx demo: train an MLP on scikit-learn's bundled digits, eagerly, under `msx.jit`, and with `Model.train`.

Shows the MindSpore-style workflow (Cell, loss, optimizer, value_and_grad), the captured graph of the jitted
training step, the speed-up of jit, and the same training through `msx.train.Model` (dataset, callbacks).
"""
from __future__ import annotations

import os
import tempfile
import time

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

import msx as ms
from msx import nn, ops


class MLP(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Dense(64, 128)
        self.fc2 = nn.Dense(128, 10)

    def construct(self, x):
        return self.fc2(ops.relu(self.fc1(x)))


def load():
    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32)
    return train_test_split(x, digits.target.astype(np.int64), test_size=0.2, random_state=0)


def make_step(net: nn.Cell, jitted: bool):
    loss_fn = nn.CrossEntropyLoss()
    optimizer = nn.Adam(net.trainable_params(), learning_rate=1e-2)
    grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), grad_position=None, weights=optimizer.parameters)

    def train_step(x, y):
        loss, grads = grad_fn(x, y)
        optimizer(grads)
        return loss

    return ms.jit(train_step, capture_mode="trace") if jitted else train_step


def train(step, x_train, y_train, epochs: int, batch: int = 64) -> tuple[float, float]:
    """Returns (last epoch's mean loss, seconds per epoch after the first)."""
    rng = np.random.default_rng(0)
    times, loss = [], 0.0
    for _ in range(epochs):
        start = time.perf_counter()
        order = rng.permutation(len(x_train))
        losses = []
        for i in range(0, len(order) - batch + 1, batch):
            idx = order[i:i + batch]
            losses.append(step(ms.Tensor(x_train[idx]), ms.Tensor(y_train[idx])))
        loss = float(np.mean([l.asnumpy() for l in losses]))
        times.append(time.perf_counter() - start)
    return loss, float(np.median(times[1:]))


def accuracy(net: nn.Cell, x, y) -> float:
    predictions = net(ms.Tensor(x)).argmax(axis=1).asnumpy()
    return float((predictions == y).mean())


class EpochTimer(ms.train.Callback):
    """Seconds per epoch, measured by a callback."""

    def __init__(self) -> None:
        self.times: list[float] = []

    def on_train_epoch_begin(self, run_context) -> None:
        self.start = time.perf_counter()

    def on_train_epoch_end(self, run_context) -> None:
        self.times.append(time.perf_counter() - self.start)


def train_with_model(x_train, y_train, epochs: int, batch: int = 64) -> tuple[nn.Cell, float, float]:
    """`Model.train` on a shuffled dataset; returns (net, last epoch's mean loss, seconds per epoch after the 1st)."""
    ms.set_seed(0)
    net = MLP()
    dataset = ms.dataset.NumpySlicesDataset({"image": x_train, "label": y_train}, shuffle=True)
    model = ms.train.Model(net, nn.CrossEntropyLoss(), nn.Adam(net.trainable_params(), learning_rate=1e-2))
    history, timer = ms.train.History(), EpochTimer()
    model.train(epochs, dataset.batch(batch, drop_remainder=True), callbacks=[history, timer])
    return net, history.history["net_output"][-1], float(np.median(timer.times[1:]))


def main() -> None:
    x_train, x_test, y_train, y_test = load()
    print(f"digits: {len(x_train)} training and {len(x_test)} test images of 8x8 pixels")
    results = {}
    for mode in ("eager", "jit"):
        ms.set_seed(0)
        net = MLP()
        step = make_step(net, jitted=(mode == "jit"))
        loss, epoch_time = train(step, x_train, y_train, epochs=15)
        results[mode] = epoch_time
        print(f"{mode:>5}: final loss {loss:.4f}, test accuracy {accuracy(net, x_test, y_test):.3f}, "
              f"{epoch_time * 1e3:.1f} ms per epoch")
        if mode == "jit":
            print("\nThe captured graph of the jitted training step:\n")
            print(step.capture(ms.Tensor(x_train[:64]), ms.Tensor(y_train[:64])))
    print(f"\njit speed-up over eager: {results['eager'] / results['jit']:.1f}x")
    print("\nThe same training with msx.train.Model (dataset pipeline, compiled step, callbacks):\n")
    net, loss, epoch_time = train_with_model(x_train, y_train, epochs=15)
    print(f"Model: final loss {loss:.4f}, test accuracy {accuracy(net, x_test, y_test):.3f}, "
          f"{epoch_time * 1e3:.1f} ms per epoch")
    export_and_reload(net, x_test, y_test)


def export_and_reload(net: nn.Cell, x_test, y_test) -> None:
    """Export the trained network as an MSXIR file and run the loaded graph, without the Python class."""
    with tempfile.TemporaryDirectory() as folder:
        path = ms.export(net, ms.Tensor(x_test), file_name=os.path.join(folder, "digits_mlp"))
        size = os.path.getsize(path)
        graph_cell = nn.GraphCell(ms.load(path))
        predictions = graph_cell(ms.Tensor(x_test)).argmax(axis=1).asnumpy()
    print(f"\nexported to {os.path.basename(path)} ({size / 1024:.0f} KiB); the loaded graph's test accuracy: "
          f"{float((predictions == y_test).mean()):.3f}")


if __name__ == "__main__":
    main()
