"""Small programs the graph-view and profiler tests look at (kept tiny: the tests check structure and timing)."""
from __future__ import annotations

import numpy as np

import msx as ms
from msx import nn, ops


class MLP(nn.Cell):
    """The digits demo's network (examples/train_digits.py), narrower."""

    def __init__(self, hidden: int = 32) -> None:
        super().__init__()
        self.fc1 = nn.Dense(64, hidden)
        self.fc2 = nn.Dense(hidden, 10)

    def construct(self, x):
        return self.fc2(ops.relu(self.fc1(x)))


def digits_step(capture_mode: str = "trace", jit_level: str = "O0", hidden: int = 32):
    """(jitted train step, its net, example x, example y): value_and_grad + Adam, as in the digits demo."""
    ms.set_seed(0)
    net = MLP(hidden)
    loss_fn = nn.CrossEntropyLoss()
    optimizer = nn.Adam(net.trainable_params(), learning_rate=1e-2)
    grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), grad_position=None, weights=optimizer.parameters)

    def train_step(x, y):
        loss, grads = grad_fn(x, y)
        optimizer(grads)
        return loss

    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.random((16, 64), dtype=np.float32))
    y = ms.Tensor(rng.integers(0, 10, 16).astype(np.int64))
    return ms.jit(train_step, capture_mode=capture_mode, jit_level=jit_level), net, x, y


class Block(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Dense(8, 8)

    def construct(self, x):
        return ops.relu(self.conv1(x))


class Backbone(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.layer1 = Block()
        self.layer2 = Block()

    def construct(self, x):
        return self.layer2(self.layer1(x))


class Branchy(nn.Cell):
    """Nested Cells and a tensor `if` (a Cond node under capture_mode="ast")."""

    def __init__(self) -> None:
        super().__init__()
        self.backbone = Backbone()
        self.head = nn.Dense(8, 2)

    def construct(self, x):
        h = self.backbone(x)
        if h.sum() > 0:
            h = h * 2.0 + 1.0
        else:
            h = h - 1.0
        return self.head(h)


def branchy_input() -> ms.Tensor:
    return ms.Tensor(np.random.default_rng(1).standard_normal((4, 8)).astype(np.float32))
