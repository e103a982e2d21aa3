"""A small typed msx program, as a MindSpore user with an IDE writes it: `mypy --strict` must find no error here
(tests/test_typing.py), and the program runs."""
from __future__ import annotations

import numpy as np

import msx as ms
from msx import Tensor, mint, nn, ops
from msx.train import Model


class Net(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Dense(4, 8)
        self.act = nn.ReLU()
        self.fc2 = nn.Dense(8, 1)

    def construct(self, x: Tensor) -> Tensor:
        h: Tensor = self.act(self.fc1(x))  # a Cell's call gives what its construct gives: Any, annotated here
        h = ops.relu(h) + mint.abs(h) * 0.5 - ops.sin(h).exp()
        out: Tensor = self.fc2(h)
        return out


def loss_of(net: Net, x: Tensor, y: Tensor) -> Tensor:
    diff = ops.sub(net(x), y)
    return ops.mean(diff * diff)


net = Net()
optimizer = nn.Adam(net.trainable_params(), learning_rate=1e-2)
grad_fn = ms.value_and_grad(lambda x, y: loss_of(net, x, y), None, optimizer.parameters)


@ms.jit
def train_step(x: Tensor, y: Tensor) -> Tensor:
    loss, grads = grad_fn(x, y)  # value_and_grad keeps the function's result type: loss is a Tensor
    optimizer(grads)
    return loss


x = Tensor(np.ones((2, 4), np.float32), ms.float32)
y = ms.Tensor(np.full((2, 1), 3.0, np.float32))  # far from any initial output: one Adam step (1e-2 per weight) must lower the loss
first: Tensor = train_step(x, y)
last = train_step(x, y)
value: float = last.asnumpy().item()
shape: tuple[int, ...] = x.shape
z = x.sum(axis=1).reshape(2, 1).exp()
w = ops.concat((z, z), 1).astype(ms.float32)
values, indices = ops.sort(w)
both = mint.cat([w, w], dim=0)
assert both.shape == (4, 2) and values.shape == indices.shape == (2, 2)
assert value < first.asnumpy().item()  # one Adam step lowered the loss
model = Model(net, nn.MSELoss(), optimizer)
