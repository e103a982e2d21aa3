"""The MindSpore programs of seed 002, with `import mindspore as ms` changed to `import msx as ms`.

Each runs eagerly; losses fall, gradients match finite differences, frozen
weights never change. The code inside the classes is the seed's, verbatim.
"""
import numpy as np

import msx as ms
from msx import nn, ops
from msx.nn import LossBase


# ---------------------------------------------------------------- seed §2.2
class SimpleNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 16)
        self.fc2 = nn.Dense(16, 1)

    def construct(self, x):
        h = ops.relu(self.fc1(x))
        return self.fc2(h)


class TrainOneStepCell(nn.Cell):
    def __init__(self, network, optimizer):
        super().__init__()
        self.network = network
        self.optimizer = optimizer
        self.grad = ops.GradOperation(get_by_list=True)
        self.weights = optimizer.parameters

    def construct(self, x, y):
        loss = self.network(x, y)  # 假设 network 的返回值是 loss
        grads = self.grad(self.network, self.weights)(x, y)
        self.optimizer(grads)
        return loss


# ---------------------------------------------------------------- seed §4.2
class EdgeAwareLoss(LossBase):
    def __init__(self, weight=0.1, debug=False):
        super().__init__(reduction="mean")
        sobel_filter = ms.Tensor(
            [
                [[[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]],
                [[[-1, -2, -1], [0, 0, 0], [1, 2, 1]]]
            ],
            ms.float32
        )
        self.conv = nn.Conv2d(
            in_channels=1, out_channels=2, kernel_size=3,
            pad_mode="pad", padding=1,
            weight_init=sobel_filter, has_bias=False
        )
        self.conv.weight.requires_grad = False
        self.l1 = ops.L1Loss()
        self.weight = weight
        self.debug = debug

    def construct(self, logits, labels):
        prob = ops.sigmoid(logits)
        edge_pred = self.conv(prob)
        edge_true = self.conv(labels.astype(ms.float32))
        if self.debug:
            print("[EdgeAwareLoss] prob:", prob.shape, prob.dtype)
            print("[EdgeAwareLoss] edge_pred:", edge_pred.shape, edge_pred.dtype)
            print("[EdgeAwareLoss] edge_pred sample:", edge_pred[0, 0, :3, :3])
        return self.weight * self.l1(edge_pred, edge_true)


class TinySegNet(nn.Cell):
    """A stand-in for the seed's UNet: image (B, 3, H, W) -> logits (B, 1, H, W)."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 4, 3)
        self.c2 = nn.Conv2d(4, 1, 3)

    def construct(self, x):
        return self.c2(ops.relu(self.c1(x)))


def _regression_data(n=32):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, 4)).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5], [3.0]], np.float32) + 0.3).astype(np.float32)
    return ms.Tensor(x), ms.Tensor(y)


def test_simplenet_with_the_seeds_train_one_step_cell_learns():
    ms.set_seed(0)
    net = SimpleNet()
    loss_net = nn.WithLossCell(net, nn.MSELoss())
    optimizer = nn.SGD(net.trainable_params(), learning_rate=0.05)
    train = TrainOneStepCell(loss_net, optimizer)
    x, y = _regression_data()
    losses = [float(train(x, y)) for _ in range(60)]
    assert losses[-1] < 0.2 * losses[0]
    grads = ops.GradOperation(get_by_list=True)(loss_net, optimizer.parameters)(x, y)
    assert [g.shape for g in grads] == [p.shape for p in optimizer.parameters]


def _as_float64(net: nn.Cell) -> nn.Cell:
    """The same Cell with float64 Parameters, for finite differences without float32 rounding."""
    for _, cell in net.cells_and_names():
        for name, p in list(cell._params.items()):
            setattr(cell, name, ms.Parameter(ms.Tensor(p.asnumpy().astype(np.float64)), name=p.name))
    return net


def test_value_and_grad_loop_of_the_seed_learns_and_grads_match_finite_differences():
    ms.set_seed(1)
    net = SimpleNet()
    loss_fn = nn.MSELoss()

    def forward_fn(x, y):
        return loss_fn(net(x), y)

    optimizer = nn.Adam(params=net.trainable_params(), learning_rate=1e-2)
    grad_fn = ms.value_and_grad(forward_fn, grad_position=None, weights=optimizer.parameters)
    x, y = _regression_data()
    first = None
    for step in range(150):
        loss, grads = grad_fn(x, y)
        optimizer(grads)
        first = float(loss) if first is None else first
    assert float(loss) < 0.1 * first

    net = _as_float64(net)  # forward_fn now reads the float64 net
    x64, y64 = x.astype(ms.float64), y.astype(ms.float64)
    _, grads = ms.value_and_grad(forward_fn, None, net.trainable_params())(x64, y64)
    for p, g in zip(net.trainable_params(), grads):
        base = p.asnumpy().copy()
        for idx in list(np.ndindex(base.shape))[:: max(1, base.size // 5)]:
            values = []
            for delta in (1e-6, -1e-6):
                moved = base.copy()
                moved[idx] += delta
                p.set_data(ms.Tensor(moved))
                values.append(float(forward_fn(x64, y64)))
            p.set_data(ms.Tensor(base))
            np.testing.assert_allclose(g.asnumpy()[idx], (values[0] - values[1]) / 2e-6, rtol=1e-4, atol=1e-6)


def test_edge_aware_loss_trains_the_net_and_keeps_sobel_frozen():
    ms.set_seed(2)
    net = TinySegNet()
    edge_loss = EdgeAwareLoss(weight=0.1)
    sobel = edge_loss.conv.weight.asnumpy().copy()
    assert edge_loss.trainable_params() == []
    assert all(p is not edge_loss.conv.weight for p in net.trainable_params())

    def forward_fn(x, y):
        logits = net(x)
        loss_ce = ops.binary_cross_entropy_with_logits(logits, y)
        loss_edge = edge_loss(logits, y)
        return loss_ce + loss_edge

    optimizer = nn.Adam(params=net.trainable_params(), learning_rate=1e-2)
    grad_fn = ms.value_and_grad(forward_fn, grad_position=None, weights=optimizer.parameters)
    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.normal(size=(2, 3, 8, 8)), ms.float32)
    y = ms.Tensor(rng.integers(0, 2, (2, 1, 8, 8)), ms.float32)
    losses = []
    for step in range(40):
        loss, grads = grad_fn(x, y)
        optimizer(grads)
        losses.append(float(loss))
    assert losses[-1] < losses[0]
    np.testing.assert_array_equal(edge_loss.conv.weight.asnumpy(), sobel)


def test_edge_aware_loss_gradient_check_of_the_seed():
    ms.set_seed(3)
    net = TinySegNet()
    loss_cell = EdgeAwareLoss(weight=0.1, debug=False)
    rng = np.random.default_rng(1)
    x = ms.Tensor(rng.normal(size=(2, 3, 8, 8)), ms.float32)
    y = ms.Tensor(rng.integers(0, 2, (2, 1, 8, 8)), ms.float32)
    grad_op = ops.GradOperation(get_all=True)
    logits = net(x)
    d_loss_d_logits, d_loss_d_labels = grad_op(loss_cell)(logits, y)
    assert d_loss_d_logits.shape == logits.shape and d_loss_d_labels.shape == y.shape
    assert 0 < float(d_loss_d_logits.abs().max()) < 1e3
    base = logits.asnumpy().astype(np.float64)
    eps = 1e-2
    for idx in [(0, 0, 0, 0), (1, 0, 3, 4), (0, 0, 7, 2)]:
        plus, minus = base.copy(), base.copy()
        plus[idx] += eps
        minus[idx] -= eps
        numeric = (float(loss_cell(ms.Tensor(plus, ms.float32), y)) -
                   float(loss_cell(ms.Tensor(minus, ms.float32), y))) / (2 * eps)
        np.testing.assert_allclose(d_loss_d_logits.asnumpy()[idx], numeric, rtol=5e-2, atol=1e-4)


def test_debug_prints_work_inside_construct(capsys):
    loss_cell = EdgeAwareLoss(debug=True)
    logits = ms.Tensor(np.zeros((1, 1, 4, 4), np.float32))
    loss_cell(logits, ms.Tensor(np.ones((1, 1, 4, 4), np.float32)))
    out = capsys.readouterr().out
    assert "[EdgeAwareLoss] prob: (1, 1, 4, 4) Float32" in out
    assert "[EdgeAwareLoss] edge_pred: (1, 2, 4, 4) Float32" in out
