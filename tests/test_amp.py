"""msx.amp: mixed-precision levels, the float32 keep-list (seed 002 §6.4's Sobel loss), loss scaling, Model at O2."""
import jax.numpy as jnp
import numpy as np
import pytest
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

import msx as ms
from msx import amp
from msx import dataset as ds
from msx import nn, ops
from msx.nn import LossBase
from msx.train import Model


class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(8, 16)
        self.bn = nn.BatchNorm1d(16)
        self.norm = nn.LayerNorm((16,))
        self.fc2 = nn.Dense(16, 4)

    def construct(self, x):
        return self.fc2(self.norm(ops.relu(self.bn(self.fc1(x)))))


def _x(shape=(6, 8), seed=0):
    return ms.Tensor(np.random.default_rng(seed).normal(size=shape).astype(np.float32))


def _dense_ref(layer, x, dtype):
    w, b = (jnp.asarray(p.asnumpy(), dtype) for p in (layer.weight, layer.bias))
    return np.asarray(jnp.asarray(x.asnumpy(), dtype) @ w.T + b)


def test_o1_computes_only_white_listed_cells_in_float16_and_returns_float32():
    ms.set_seed(0)
    net = amp.auto_mixed_precision(Block(), "O1")
    x = _x()
    out = net.fc1(x)
    assert out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy(), _dense_ref(net.fc1, x, jnp.float16).astype(np.float32), rtol=2e-3,
                               atol=2e-3)
    assert np.abs(out.asnumpy() - _dense_ref(net.fc1, x, jnp.float32)).max() > 0  # really rounded to float16
    assert net.norm(ms.Tensor(np.ones((2, 16), np.float32))).dtype == ms.float32  # not listed: float32 math
    assert net(x).dtype == ms.float32
    assert all(p.dtype == ms.float32 for p in net.get_parameters())  # weights stay float32
    assert [name for name, _ in net.parameters_and_names()] == [p.name for p in net.get_parameters()]
    assert nn.Dense in amp.get_white_list() and nn.Conv2d in amp.get_white_list()  # full lists: test_semantics_ms


def test_o2_keeps_the_black_list_in_float32_and_o3_does_not():
    ms.set_seed(0)
    net = amp.auto_mixed_precision(Block(), "O2")
    half = _x().astype(ms.float16)
    assert net.fc1(half).dtype == ms.float16
    assert net.bn(ms.Tensor(np.ones((2, 16), np.float16))).dtype == ms.float32
    assert net.norm(ms.Tensor(np.ones((2, 16), np.float16))).dtype == ms.float32
    assert net(_x()).dtype == ms.float32  # MindSpore 2.10: O2/O3 outputs are cast back to float32
    net3 = amp.auto_mixed_precision(Block(), "O3")
    assert net3.bn(ms.Tensor(np.ones((2, 16), np.float32))).dtype == ms.float16
    assert amp.auto_mixed_precision(Block(), "O0")(_x()).dtype == ms.float32
    with pytest.raises(ValueError, match="amp_level must be one of"):
        amp.auto_mixed_precision(Block(), "O4")
    with pytest.raises(TypeError, match="keep_fp32 holds Cell types or Cell instances"):
        amp.auto_mixed_precision(Block(), "O2", keep_fp32=["fc1"])


# ---------------------------------------------------------------- seed 002 §6.4
class EdgeAwareLoss(LossBase):
    """The seed's Sobel edge loss: a frozen Conv2d whose weights must not be rounded to float16."""

    def __init__(self, weight=0.1):
        super().__init__(reduction="mean")
        sobel = ms.Tensor([[[[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]], [[[-1, -2, -1], [0, 0, 0], [1, 2, 1]]]],
                          ms.float32)
        self.conv = nn.Conv2d(1, 2, 3, pad_mode="pad", padding=1, weight_init=sobel, has_bias=False)
        self.conv.weight.requires_grad = False
        self.l1 = ops.L1Loss()
        self.weight = weight

    def construct(self, logits, labels):
        prob = ops.sigmoid(logits)
        return self.weight * self.l1(self.conv(prob), self.conv(labels.astype(ms.float32)))


class SegWithLoss(nn.Cell):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 4, 3)
        self.c2 = nn.Conv2d(4, 1, 3)
        self.edge_loss = EdgeAwareLoss()

    def construct(self, x, y):
        logits = self.c2(ops.relu(self.c1(x)))
        return ops.binary_cross_entropy_with_logits(logits, y) + self.edge_loss(logits, y)


def _sobel_ref(image):
    """The float32 Sobel responses of (N, 1, H, W) images, with zero padding, in numpy."""
    kx = np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], np.float32)
    padded = np.pad(image[:, 0], ((0, 0), (1, 1), (1, 1)))
    h, w = image.shape[2:]
    out = np.zeros((image.shape[0], 2, h, w), np.float32)
    for i in range(3):
        for j in range(3):
            patch = padded[:, i:i + h, j:j + w]
            out[:, 0] += kx[i, j] * patch
            out[:, 1] += kx.T[i, j] * patch
    return out


@pytest.mark.parametrize("level", ["O1", "O3"])
@pytest.mark.parametrize("by", ["instance", "type"])
def test_the_keep_list_keeps_the_sobel_edge_loss_in_float32(level, by):
    ms.set_seed(0)
    net = SegWithLoss()
    keep = [net.edge_loss] if by == "instance" else [EdgeAwareLoss]
    amp.auto_mixed_precision(net, level, keep_fp32=keep)
    rng = np.random.default_rng(1)
    image = rng.random((2, 1, 6, 6)).astype(np.float32)
    half = ms.Tensor(image).astype(ms.float16)
    edges = net.edge_loss.conv(half)  # a float16 input is computed in float32, with float32 weights
    assert edges.dtype == ms.float32
    np.testing.assert_allclose(edges.asnumpy(), _sobel_ref(image.astype(np.float16).astype(np.float32)),
                               rtol=1e-6, atol=1e-6)
    assert net.c1(ms.Tensor(rng.random((2, 3, 6, 6)).astype(np.float32))).dtype == \
        (ms.float32 if level == "O1" else ms.float16)  # O1 casts listed outputs back to float32
    assert net.c1._compute_dtype == ms.float16
    # the whole loss trains: gradients reach the float32 Parameters
    x = ms.Tensor(rng.random((2, 3, 6, 6)).astype(np.float32))
    y = ms.Tensor((rng.random((2, 1, 6, 6)) > 0.5).astype(np.float32))
    loss, grads = ms.value_and_grad(net, None, net.trainable_params())(x, y)
    assert np.isfinite(float(loss)) and all(g.dtype == ms.float32 and np.isfinite(g.asnumpy()).all() for g in grads)
    assert net.edge_loss.conv.weight.dtype == ms.float32 and net.edge_loss.trainable_params() == []


def test_without_the_keep_list_the_sobel_conv_is_rounded_to_float16():
    net = amp.auto_mixed_precision(SegWithLoss(), "O3")
    image = np.random.default_rng(1).random((2, 1, 6, 6)).astype(np.float32)
    assert net.edge_loss.conv(ms.Tensor(image)).dtype == ms.float16


# ---------------------------------------------------------------- loss scaling
def test_dynamic_loss_scaler_follows_mindspores_rule():
    scaler = amp.DynamicLossScaler(scale_value=2.0 ** 10, scale_factor=2, scale_window=3)
    flags = np.random.default_rng(0).random(40) > 0.2
    scale, counter = 2.0 ** 10, 0
    for finite in flags:
        scaler.adjust(ms.Tensor(bool(finite)))
        if finite:  # the reference rule, in plain Python
            scale, counter = (scale * 2, 0) if counter == 2 else (scale, counter + 1)
        else:
            scale, counter = max(scale / 2, 1.0), 0
        assert float(scaler.scale_value) == scale and int(scaler.counter) == counter
    top = amp.DynamicLossScaler(3e38, 2, 1)
    top.adjust(ms.Tensor(True))
    assert float(top.scale_value) == np.float32(3e38)  # growing would overflow: kept
    low = amp.DynamicLossScaler(1.5, 2, 5)
    low.adjust(ms.Tensor(False))
    assert float(low.scale_value) == 1.0  # never below 1


def test_scale_unscale_and_all_finite():
    scaler = amp.StaticLossScaler(1024.0)
    g = (ms.Tensor(np.array([1.0, -2.0], np.float32)), ms.Tensor(np.array([3.0], np.float16)))
    scaled = scaler.scale(g)
    np.testing.assert_array_equal(scaled[0].asnumpy(), [1024.0, -2048.0])
    assert scaled[1].dtype == ms.float16
    back = scaler.unscale(scaled)
    np.testing.assert_array_equal(back[0].asnumpy(), g[0].asnumpy())
    assert bool(amp.all_finite(g))
    assert not bool(amp.all_finite(g + (ms.Tensor(np.array([0.0, np.inf])),)))
    assert not bool(amp.all_finite([ms.Tensor(np.array([np.nan], np.float16))]))
    jitted = ms.jit(lambda a, b: amp.all_finite([a, b]), capture_mode="trace")
    assert bool(jitted(*g)) and not bool(jitted(g[0], ms.Tensor(np.array([np.inf], np.float16))))
    with pytest.raises(ValueError, match="scale_window"):
        amp.DynamicLossScaler(2.0, 2, 0)


# ---------------------------------------------------------------- Model with mixed precision
class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(64, 32)
        self.fc2 = nn.Dense(32, 10)

    def construct(self, x):
        return self.fc2(ops.relu(self.fc1(x)))


@pytest.fixture(scope="module")
def digits():
    d = load_digits()
    x_train, x_test, y_train, y_test = train_test_split((d.data / 16.0).astype(np.float32),
                                                        d.target.astype(np.int32), test_size=0.2, random_state=0)
    return (ds.NumpySlicesDataset({"image": x_train, "label": y_train}).batch(32, drop_remainder=True),
            ds.NumpySlicesDataset({"image": x_test, "label": y_test}, shuffle=False).batch(120))


def _fit(level, train, test, **kw):
    ms.set_seed(0)
    net = MLP()
    model = Model(net, nn.CrossEntropyLoss(), nn.Adam(net.trainable_params(), learning_rate=1e-2),
                  metrics={"accuracy"}, amp_level=level, **kw)
    model.train(6, train, progress_bar=False)
    return model, net, model.eval(test, progress_bar=False)["accuracy"]


def test_o2_training_with_dynamic_loss_scaling_matches_float32_accuracy(digits):
    train, test = digits
    _, _, acc32 = _fit("O0", train, test)
    model, net, acc16 = _fit("O2", train, test)
    assert net.fc1._compute_dtype == ms.float16 and model.train_network.output_fp32
    assert model._train_step.compiled
    scaler = model.train_network.scaler
    assert isinstance(scaler, amp.DynamicLossScaler) and float(scaler.scale_value) < 2.0 ** 24  # overflows seen
    assert acc32 >= 0.95 and abs(acc16 - acc32) <= 0.01


def test_an_overflowing_step_changes_no_weights(digits):
    train, _ = digits
    ms.set_seed(0)
    net = MLP()
    manager = amp.DynamicLossScaleManager(init_loss_scale=2.0 ** 40, scale_factor=2, scale_window=1000)
    model = Model(net, nn.CrossEntropyLoss(), nn.Adam(net.trainable_params(), learning_rate=1e-2),
                  amp_level="O2", loss_scale_manager=manager)
    before = [p.asnumpy().copy() for p in model.train_network.get_parameters()]
    model.train(1, train.take(3), progress_bar=False)
    for p, b in zip(model.train_network.get_parameters(), before):
        np.testing.assert_array_equal(p.asnumpy(), b)  # weights, Adam moments and global_step untouched
    assert float(model.train_network.scaler.scale_value) == 2.0 ** 37
