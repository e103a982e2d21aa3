"""msx.nn losses and training wrappers against numpy/jax references, plus seed 002's Sobel EdgeAwareLoss."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import msx
from msx import nn, ops
from msx.errors import OpError

RNG = np.random.default_rng(1)


def rand(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def T(a):
    return msx.Tensor(a)


def reduce_np(x, reduction):
    return x.mean() if reduction == "mean" else x.sum() if reduction == "sum" else x


def check_loss(loss, ref, logits, labels, rtol=1e-5, atol=1e-6):
    """loss(logits, labels) and its gradient w.r.t. logits against jax."""
    value, g = msx.value_and_grad(lambda x: loss(x, T(labels)).sum())(T(logits))
    np.testing.assert_allclose(loss(T(logits), T(labels)).asnumpy(), ref(logits, labels), rtol=rtol, atol=atol)
    ref_value, ref_g = jax.value_and_grad(lambda x: jnp.sum(ref(x, labels)))(logits)
    np.testing.assert_allclose(value.asnumpy(), ref_value, rtol=rtol, atol=atol)
    np.testing.assert_allclose(g.asnumpy(), ref_g, rtol=rtol, atol=atol)


# ---------------------------------------------------------------- regression losses
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_l1_mse_smooth_l1(reduction):
    x, y = rand(3, 4), rand(3, 4)
    check_loss(nn.L1Loss(reduction), lambda a, b: reduce_np(jnp.abs(a - b), reduction), x, y)
    check_loss(nn.MSELoss(reduction), lambda a, b: reduce_np((a - b) ** 2, reduction), x, y)

    def smooth(a, b, beta=0.5):
        d = jnp.abs(a - b)
        return reduce_np(jnp.where(d < beta, 0.5 * d ** 2 / beta, d - 0.5 * beta), reduction)
    check_loss(nn.SmoothL1Loss(beta=0.5, reduction=reduction), smooth, x, y)


def test_loss_defaults_follow_mindspore():
    assert nn.L1Loss().reduction == "mean" and nn.SmoothL1Loss().reduction == "none"
    assert nn.SoftmaxCrossEntropyWithLogits().reduction == "none"


def test_bad_reduction_and_shapes_are_clear():
    with pytest.raises(ValueError, match=r"MSELoss: reduction must be one of \['mean', 'sum', 'none'\], got 'avg'"):
        nn.MSELoss("avg")
    with pytest.raises(ValueError, match=r"reduction must be one of \['mean', 'sum', 'none'\]"):
        nn.CrossEntropyLoss(reduction="batchmean")
    with pytest.raises(OpError, match=r"L1Loss.*\(3, 4\).*\(2, 4\)"):
        nn.L1Loss()(T(rand(3, 4)), T(rand(2, 4)))


# ---------------------------------------------------------------- BCE with logits
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_bce_with_logits_weight_and_pos_weight(reduction):
    x, y = rand(4, 3) * 3, (RNG.random((4, 3)) > 0.5).astype(np.float32)
    w, pw = np.abs(rand(4, 3)), np.abs(rand(3)) + 0.5

    def ref(a, b, w=None, pw=None):
        p = 1 / (1 + jnp.exp(-a))
        pos = b * jnp.log(p) * (1 if pw is None else pw)
        loss = -(pos + (1 - b) * jnp.log(1 - p)) * (1 if w is None else w)
        return reduce_np(loss, reduction)
    check_loss(nn.BCEWithLogitsLoss(reduction), ref, x, y, rtol=1e-4, atol=1e-5)
    check_loss(nn.BCEWithLogitsLoss(reduction, weight=T(w), pos_weight=T(pw)),
               lambda a, b: ref(a, b, w, pw), x, y, rtol=1e-4, atol=1e-5)


def test_bce_is_stable_for_large_logits():
    out = nn.BCEWithLogitsLoss()(T(np.array([100.0, -100.0], np.float32)), T(np.array([0.0, 1.0], np.float32)))
    np.testing.assert_allclose(out.asnumpy(), 100.0, rtol=1e-6)


# ---------------------------------------------------------------- cross-entropy family
def log_softmax_np(x, axis=1):
    x = x - x.max(axis, keepdims=True)
    return x - np.log(np.exp(x).sum(axis, keepdims=True))


@pytest.mark.parametrize("reduction", ["none", "mean"])
def test_softmax_cross_entropy_sparse_and_dense(reduction):
    x = rand(5, 4)
    labels = np.array([0, 3, 1, 1, 2], np.int32)
    onehot = np.eye(4, dtype=np.float32)[labels]
    expect = reduce_np(-log_softmax_np(x)[np.arange(5), labels], reduction)
    sparse = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction=reduction)
    dense = nn.SoftmaxCrossEntropyWithLogits(reduction=reduction)
    np.testing.assert_allclose(sparse(T(x), T(labels)).asnumpy(), expect, rtol=1e-5)
    np.testing.assert_allclose(dense(T(x), T(onehot)).asnumpy(), expect, rtol=1e-5)
    # d(sum loss)/d logits = softmax - onehot (times 1/N for the mean)
    g = msx.grad(lambda t: sparse(t, T(labels)).sum())(T(x)).asnumpy()
    scale = 1 / 5 if reduction == "mean" else 1
    np.testing.assert_allclose(g, (np.exp(log_softmax_np(x)) - onehot) * scale, rtol=1e-5, atol=1e-6)
    with pytest.raises(OpError, match="labels must be integer class indices"):
        sparse(T(x), T(onehot[:, 0]))
    with pytest.raises(OpError, match=r"logits must be 2-D \(N, C\)"):
        sparse(T(x[0]), T(labels[:1]))


def ce_np(x, t, weight=None, ignore_index=-100, smoothing=0.0, reduction="mean"):
    """torch.nn.CrossEntropyLoss semantics, written out with numpy loops over the batch."""
    n, c = x.shape
    logp = log_softmax_np(x)
    w = np.ones(c, np.float32) if weight is None else weight
    losses, denom = [], 0.0
    for i in range(n):
        if t[i] == ignore_index:
            losses.append(0.0)
            continue
        nll = -logp[i, t[i]] * w[t[i]]
        smooth = -(logp[i] * w).sum() / c
        losses.append((1 - smoothing) * nll + smoothing * smooth)
        denom += w[t[i]]
    losses = np.array(losses)
    return losses.sum() / denom if reduction == "mean" else reduce_np(losses, reduction)


@pytest.mark.parametrize("kw", [{}, {"weight": True}, {"ignore_index": 2}, {"label_smoothing": 0.2},
                                {"weight": True, "ignore_index": 0, "label_smoothing": 0.1, "reduction": "sum"},
                                {"reduction": "none", "weight": True}])
def test_cross_entropy_loss(kw):
    x = rand(6, 4)
    t = np.array([0, 2, 3, 2, 1, 0], np.int64)
    weight = np.array([0.5, 1.0, 2.0, 1.5], np.float32) if kw.get("weight") else None
    args = {k: v for k, v in kw.items() if k != "weight"}
    loss = nn.CrossEntropyLoss(weight=None if weight is None else T(weight), **args)
    expect = ce_np(x, t, weight, kw.get("ignore_index", -100), kw.get("label_smoothing", 0.0),
                   kw.get("reduction", "mean"))
    np.testing.assert_allclose(loss(T(x), T(t)).asnumpy(), expect, rtol=1e-5, atol=1e-6)
    # the gradient, against jax differentiating the same numpy-style formula
    g = msx.grad(lambda a: loss(a, T(t)).sum())(T(x)).asnumpy()

    def ref(a):
        logp = jax.nn.log_softmax(a, axis=1)
        w = jnp.ones(4) if weight is None else weight
        valid = t != kw.get("ignore_index", -100)
        ls = kw.get("label_smoothing", 0.0)
        per = (1 - ls) * -logp[np.arange(6), t] * w[t] + ls * -(logp * w).sum(1) / 4
        per = jnp.where(valid, per, 0.0)
        red = kw.get("reduction", "mean")
        return per.sum() / jnp.sum(jnp.where(valid, w[t], 0)) if red == "mean" else per.sum()
    np.testing.assert_allclose(g, jax.grad(ref)(x), rtol=1e-5, atol=1e-6)


def test_cross_entropy_with_probability_targets():
    x, p = rand(3, 5), np.abs(rand(3, 5))
    p = p / p.sum(1, keepdims=True)
    out = nn.CrossEntropyLoss()(T(x), T(p))
    np.testing.assert_allclose(out.asnumpy(), (-(p * log_softmax_np(x)).sum(1)).mean(), rtol=1e-5)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_nll_loss(reduction, weighted):
    logp = log_softmax_np(rand(5, 3))
    t = np.array([0, 2, -100, 1, 2], np.int64)
    w = np.array([0.2, 1.0, 3.0], np.float32) if weighted else np.ones(3, np.float32)
    loss = nn.NLLLoss(weight=T(w) if weighted else None, reduction=reduction)
    valid = t != -100
    per = np.where(valid, -logp[np.arange(5), np.where(valid, t, 0)] * w[np.where(valid, t, 0)], 0.0)
    expect = per.sum() / w[t[valid]].sum() if reduction == "mean" else reduce_np(per, reduction)
    np.testing.assert_allclose(loss(T(logp), T(t)).asnumpy(), expect, rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------- LossBase
class WeightedL2(nn.LossBase):
    def construct(self, logits, labels):
        return self.get_loss(ops.square(logits - labels), T(np.array([1.0, 2.0, 0.5], np.float32)))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_loss_base_get_loss(reduction):
    x, y = rand(2, 3), rand(2, 3)
    w = np.array([1.0, 2.0, 0.5], np.float32)
    loss = WeightedL2(reduction)
    check_loss(loss, lambda a, b: reduce_np((a - b) ** 2 * w, reduction), x, y)
    assert loss.get_axis(T(x)) == (0, 1)
    half = T(x).astype(msx.float16)
    assert loss.get_loss(half).dtype == msx.float16


# ---------------------------------------------------------------- seed 002: the Sobel edge-aware loss
class EdgeAwareLoss(nn.LossBase):
    def __init__(self, weight=0.1):
        super().__init__(reduction="mean")
        sobel_filter = msx.Tensor([[[[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]],
                                   [[[-1, -2, -1], [0, 0, 0], [1, 2, 1]]]], msx.float32)
        self.conv = nn.Conv2d(in_channels=1, out_channels=2, kernel_size=3, pad_mode="pad", padding=1,
                              weight_init=sobel_filter, has_bias=False)
        self.conv.weight.requires_grad = False
        self.l1 = ops.L1Loss()
        self.weight = weight

    def construct(self, logits, labels):
        prob = ops.sigmoid(logits)
        edge_pred = self.conv(prob)
        edge_true = self.conv(labels.astype(msx.float32))
        return self.weight * self.l1(edge_pred, edge_true)


SOBEL = np.array([[[[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]], [[[-1, -2, -1], [0, 0, 0], [1, 2, 1]]]], np.float64)


def edge_loss_ref(logits, labels):
    def edges(x):
        return lax.conv_general_dilated(x, SOBEL.astype(x.dtype), (1, 1), [(1, 1), (1, 1)],
                                        dimension_numbers=("NCHW", "OIHW", "NCHW"))
    return 0.1 * jnp.mean(jnp.abs(edges(jax.nn.sigmoid(logits)) - edges(labels.astype(logits.dtype))))


def test_edge_aware_loss_value_and_frozen_sobel():
    loss_cell = EdgeAwareLoss()
    assert loss_cell.trainable_params() == [] and loss_cell.conv.weight.name == "conv.weight"
    logits = rand(2, 1, 6, 6)
    labels = (RNG.random((2, 1, 6, 6)) > 0.5).astype(np.float32)
    np.testing.assert_allclose(loss_cell(T(logits), T(labels)).asnumpy(), edge_loss_ref(logits, labels), rtol=1e-5)
    d_logits, d_labels = ops.GradOperation(get_all=True)(loss_cell)(T(logits), T(labels))
    assert d_logits.shape == (2, 1, 6, 6) and d_labels.shape == (2, 1, 6, 6)
    assert np.abs(d_logits.asnumpy()).max() > 0
    np.testing.assert_allclose(d_logits.asnumpy(), jax.grad(edge_loss_ref)(logits, labels), rtol=1e-4, atol=1e-7)
    np.testing.assert_array_equal(loss_cell.conv.weight.asnumpy(), SOBEL.astype(np.float32))


def test_edge_aware_loss_gradient_matches_finite_differences():
    loss_cell = EdgeAwareLoss()
    # float64 for the finite differences: the conv is built in float64 too (MindSpore refuses mixed dtypes)
    loss_cell.conv.weight = msx.Parameter(T(SOBEL.astype(np.float64)), name="conv.weight", requires_grad=False)
    logits = RNG.standard_normal((1, 1, 5, 5))
    labels = (RNG.random((1, 1, 5, 5)) > 0.5).astype(np.float32)
    g = msx.grad(loss_cell)(T(logits), T(labels)).asnumpy()
    assert g.dtype == np.float64
    eps = 1e-6
    fd = np.zeros_like(logits)
    for idx in np.ndindex(logits.shape):
        up, down = logits.copy(), logits.copy()
        up[idx] += eps
        down[idx] -= eps
        fd[idx] = (float(loss_cell(T(up), T(labels))) - float(loss_cell(T(down), T(labels)))) / (2 * eps)
    np.testing.assert_allclose(g, fd, rtol=1e-4, atol=1e-8)


# ---------------------------------------------------------------- WithLossCell / TrainOneStepCell
class TinySGD:
    """Stand-in for nn.SGD: `parameters` and `optimizer(grads)` updating in place."""

    def __init__(self, params, lr):
        self.parameters, self.lr = tuple(params), lr
        self.calls = 0

    def __call__(self, grads):
        self.calls += 1
        for p, g in zip(self.parameters, grads):
            p.set_data(p - self.lr * g)


def mlp_ref(x, w1, b1, w2, b2, y):
    h = jax.nn.relu(x @ w1.T + b1)
    return jnp.mean((h @ w2.T + b2 - y) ** 2)


def test_with_loss_cell_keeps_backbone_names():
    backbone = nn.SequentialCell(nn.Dense(3, 4), nn.ReLU(), nn.Dense(4, 2))
    net = nn.WithLossCell(backbone, nn.MSELoss())
    assert [p.name for p in net.trainable_params()] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert net.backbone_network is backbone
    x, y = rand(5, 3), rand(5, 2)
    params = [p.asnumpy() for p in net.trainable_params()]
    np.testing.assert_allclose(net(T(x), T(y)).asnumpy(), mlp_ref(x, *params, y), rtol=1e-5)


@pytest.mark.parametrize("sens", [None, 4.0])
def test_train_one_step_cell_matches_manual_sgd(sens):
    backbone = nn.SequentialCell(nn.Dense(3, 4), nn.ReLU(), nn.Dense(4, 2))
    net = nn.WithLossCell(backbone, nn.MSELoss())
    opt = TinySGD(net.trainable_params(), lr=0.1)
    step = nn.TrainOneStepCell(net, opt, sens=sens)
    x, y = rand(5, 3), rand(5, 2)
    before = [p.asnumpy() for p in net.trainable_params()]
    loss = step(T(x), T(y))
    ref_loss, ref_grads = jax.value_and_grad(mlp_ref, argnums=(1, 2, 3, 4))(x, *before, y)
    np.testing.assert_allclose(loss.asnumpy(), ref_loss, rtol=1e-5)
    assert opt.calls == 1
    for p, b, g in zip(net.trainable_params(), before, ref_grads):
        np.testing.assert_allclose(p.asnumpy(), b - 0.1 * (sens or 1.0) * g, rtol=1e-5, atol=1e-6)
    losses = [float(step(T(x), T(y))) for _ in range(20)]
    assert losses[-1] < losses[0] < float(loss)


def test_train_one_step_runs_the_forward_once():
    """BatchNorm's moving stats move once per step, with the batch the loss saw."""
    bn = nn.BatchNorm1d(2)
    backbone = nn.SequentialCell(nn.Dense(3, 2), bn)
    net = nn.WithLossCell(backbone, nn.L1Loss())
    net.set_train()
    step = nn.TrainOneStepCell(net, TinySGD(net.trainable_params(), lr=0.0))
    x = rand(8, 3)
    h = backbone[0](T(x)).asnumpy()
    step(T(x), T(rand(8, 2)))
    np.testing.assert_allclose(bn.moving_mean.asnumpy(), 0.1 * h.mean(0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn.moving_variance.asnumpy(), 0.9 + 0.1 * h.var(0, ddof=1), rtol=1e-5)
