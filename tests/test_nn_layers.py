"""msx.nn layers, containers and initializers against hand-written jax/numpy references (values and grads)."""
from collections import OrderedDict

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import msx
from msx import nn, ops
from msx.errors import OpError
from msx.nn import initializer as init
from tolerance import assert_same_float32

RNG = np.random.default_rng(0)


def rand(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def T(a):
    return msx.Tensor(a)


def check_layer(net, x, ref, params, rtol=1e-5, atol=1e-5):
    """Compare `net(x)` and the grads of sum(net(x) * R) w.r.t. x and `params` (in trainable_params order)
    with `ref(x, *params)` in jax."""
    out_shape = jax.eval_shape(ref, x, *params).shape
    r = rand(*out_shape)

    def loss(xt):
        return (net(xt) * T(r)).sum()

    value, (gx, gw) = msx.value_and_grad(loss, 0, net.trainable_params())(T(x))
    ref_value, ref_grads = jax.value_and_grad(lambda *a: jnp.sum(ref(*a) * r), argnums=tuple(range(1 + len(params))))(
        x, *params)
    np.testing.assert_allclose(net(T(x)).asnumpy(), ref(x, *params), rtol=rtol, atol=atol)
    np.testing.assert_allclose(value.asnumpy(), ref_value, rtol=rtol, atol=atol)
    np.testing.assert_allclose(gx.asnumpy(), ref_grads[0], rtol=rtol, atol=atol)
    assert len(gw) == len(params)
    for g, rg in zip(gw, ref_grads[1:]):
        np.testing.assert_allclose(g.asnumpy(), rg, rtol=rtol, atol=atol)


# ---------------------------------------------------------------- Dense / Linear
@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4)])
def test_dense_values_and_grads(shape):
    w, b = rand(5, 4), rand(5)
    net = nn.Dense(4, 5, weight_init=T(w), bias_init=T(b), activation="relu")
    check_layer(net, rand(*shape), lambda x, w, b: jax.nn.relu(x @ w.T + b), [w, b])


def test_dense_without_bias_and_activation_cell():
    w = rand(2, 3)
    net = nn.Dense(3, 2, weight_init=T(w), has_bias=False, activation=nn.Tanh())
    assert [n for n, _ in net.parameters_and_names()] == ["weight"]
    check_layer(net, rand(4, 3), lambda x, w: jnp.tanh(x @ w.T), [w])


def test_dense_default_init_bounds_follow_mindspore():
    msx.set_seed(3)
    net = nn.Dense(64, 64)
    bound = 1 / np.sqrt(64)  # HeUniform(sqrt(5)) and the bias both give U(-1/sqrt(in), 1/sqrt(in))
    w, b = net.weight.asnumpy(), net.bias.asnumpy()
    assert w.shape == (64, 64) and b.shape == (64,)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.95 * bound
    assert np.abs(b).max() <= bound
    assert abs(w.std() - bound / np.sqrt(3)) < 0.05 * bound


def test_dense_errors_are_clear():
    net = nn.Dense(4, 3)
    with pytest.raises(OpError, match=r"Dense\(4 -> 3\) got input of shape \(2, 5\): last dim 5 != in_channels 4"):
        net(T(rand(2, 5)))
    with pytest.raises(ValueError, match=r"Dense\(4 -> 3\).*weight_init.*\(4, 3\).*\(3, 4\)"):
        nn.Dense(4, 3, weight_init=T(rand(4, 3)))
    with pytest.raises(ValueError, match="unknown activation 'relux'"):
        nn.Dense(4, 3, activation="relux")


def test_linear_is_torch_style_dense():
    w, b = rand(3, 2), rand(3)
    net = nn.Linear(2, 3, weight_init=T(w), bias_init=T(b))
    assert (net.in_features, net.out_features) == (2, 3)
    check_layer(net, rand(4, 2), lambda x, w, b: x @ w.T + b, [w, b])
    assert [n for n, _ in nn.Linear(2, 3, bias=False).parameters_and_names()] == ["weight"]
    with pytest.raises(OpError, match="last dim 5 != in_features 2"):
        net(T(rand(1, 5)))


def test_dense_follows_to_float_and_keeps_float32_weights():
    net = nn.Dense(4, 3).to_float(msx.float16)
    y = net(T(rand(2, 4)))
    assert y.dtype == msx.float16 and net.weight.dtype == msx.float32


# ---------------------------------------------------------------- activations
@pytest.mark.parametrize("cell,ref", [
    (nn.ReLU(), jax.nn.relu),
    (nn.ReLU6(), jax.nn.relu6),
    (nn.GELU(), lambda x: jax.nn.gelu(x, approximate=True)),
    (nn.GELU(approximate=False), lambda x: jax.nn.gelu(x, approximate=False)),
    (nn.Sigmoid(), jax.nn.sigmoid),
    (nn.Tanh(), jnp.tanh),
    (nn.Softmax(), lambda x: jax.nn.softmax(x, axis=-1)),
    (nn.Softmax(axis=0), lambda x: jax.nn.softmax(x, axis=0)),
    (nn.LogSoftmax(axis=1), lambda x: jax.nn.log_softmax(x, axis=1)),
    (nn.SiLU(), lambda x: x * jax.nn.sigmoid(x)),
    (nn.LeakyReLU(alpha=0.3), lambda x: jnp.where(x > 0, x, 0.3 * x)),
])
def test_activations(cell, ref):
    check_layer(cell, rand(3, 5) * 3, ref, [])


def test_get_activation():
    assert isinstance(nn.get_activation("ReLU"), nn.ReLU)
    assert nn.get_activation(None) is None
    with pytest.raises(ValueError, match="unknown activation 'nope'.*'relu'"):
        nn.get_activation("nope")


# ---------------------------------------------------------------- Dropout / Flatten / Identity
def test_dropout_only_active_in_training():
    x = T(np.ones((40, 50), np.float32))
    drop = nn.Dropout(p=0.25)
    assert drop.training is False
    np.testing.assert_array_equal(drop(x).asnumpy(), x.asnumpy())
    drop.set_train()
    y = drop(x).asnumpy()
    assert set(np.unique(y)) <= {0.0, np.float32(1 / 0.75)}
    assert 0.18 < (y == 0).mean() < 0.32
    drop.set_train(False)
    np.testing.assert_array_equal(drop(x).asnumpy(), x.asnumpy())


def test_dropout_arguments_and_seed():
    assert nn.Dropout().p == 0.5
    assert nn.Dropout(keep_prob=0.8).p == pytest.approx(0.2)
    assert nn.Dropout(keep_prob=0.8, p=0.1).p == 0.1  # p wins
    with pytest.raises(ValueError, match=r"p must be in \[0, 1\)"):
        nn.Dropout(p=1.0)
    with pytest.raises(ValueError, match=r"keep_prob must be in \(0, 1\]"):
        nn.Dropout(keep_prob=0.0)
    drop = nn.Dropout(p=0.5).set_train()
    x = T(rand(6, 7))
    msx.set_seed(11)
    a = drop(x).asnumpy()
    msx.set_seed(11)
    b = drop(x).asnumpy()
    np.testing.assert_array_equal(a, b)
    # the gradient is the same mask, scaled
    g = msx.grad(lambda t: drop(t).sum())(T(np.ones((6, 7), np.float32))).asnumpy()
    assert set(np.unique(g)) <= {0.0, 2.0}


def test_flatten_and_identity():
    x = rand(2, 3, 4, 5)
    check_layer(nn.Flatten(), x, lambda x: x.reshape(2, -1), [])
    check_layer(nn.Flatten(1, 2), x, lambda x: x.reshape(2, 12, 5), [])
    check_layer(nn.Identity(), x, lambda x: x, [])


# ---------------------------------------------------------------- Embedding
@pytest.mark.parametrize("one_hot", [False, True])
def test_embedding_values_and_table_grads(one_hot):
    table = rand(6, 3)
    emb = nn.Embedding(6, 3, use_one_hot=one_hot, embedding_table=T(table))
    ids = np.array([[0, 2, 2], [5, 1, 0]], np.int32)
    r = rand(2, 3, 3)
    out = emb(T(ids))
    np.testing.assert_allclose(out.asnumpy(), table[ids], rtol=1e-6)
    (g,) = msx.grad(lambda i: (emb(i) * T(r)).sum(), None, emb.trainable_params())(T(ids))
    ref = jax.grad(lambda t: jnp.sum(t[ids] * r))(table)
    np.testing.assert_allclose(g.asnumpy(), ref, rtol=1e-5, atol=1e-6)


def test_embedding_padding_idx_default_init_and_errors():
    msx.set_seed(0)
    emb = nn.Embedding(5, 4, padding_idx=-1)
    t = emb.embedding_table.asnumpy()
    assert emb.padding_idx == 4 and np.all(t[4] == 0) and np.all(t[:4] != 0)
    assert abs(t[:4].std() - 0.01) < 0.005  # 'normal' is N(0, 0.01^2)
    with pytest.raises(OpError, match="ids must be integers, got dtype Float32"):
        emb(T(np.zeros((2,), np.float32)))
    with pytest.raises(ValueError, match="padding_idx 9 is out of range"):
        nn.Embedding(5, 4, padding_idx=9)


# ---------------------------------------------------------------- Conv2d
def conv_ref(stride, padding, dilation, groups):
    def ref(x, w, b=None):
        y = lax.conv_general_dilated(x, w, stride, padding, rhs_dilation=dilation,
                                     dimension_numbers=("NCHW", "OIHW", "NCHW"), feature_group_count=groups)
        return y if b is None else y + b[None, :, None, None]
    return ref


@pytest.mark.parametrize("kw,padding", [
    (dict(pad_mode="same"), "SAME"),
    (dict(pad_mode="valid"), "VALID"),
    (dict(pad_mode="pad", padding=1), [(1, 1), (1, 1)]),
    (dict(pad_mode="pad", padding=(1, 0, 2, 1), stride=2), [(1, 0), (2, 1)]),
    (dict(pad_mode="same", stride=2, dilation=2), "SAME"),
    (dict(pad_mode="valid", group=2), "VALID"),
])
def test_conv2d_values_and_grads(kw, padding):
    group = kw.get("group", 1)
    stride, dilation = kw.get("stride", 1), kw.get("dilation", 1)
    w, b = rand(6, 4 // group, 3, 3), rand(6)
    net = nn.Conv2d(4, 6, 3, has_bias=True, weight_init=T(w), bias_init=T(b), **kw)
    ref = conv_ref((stride, stride), padding, (dilation, dilation), group)
    check_layer(net, rand(2, 4, 7, 7), ref, [w, b], rtol=1e-4, atol=1e-4)


def test_conv2d_defaults_and_errors():
    msx.set_seed(1)
    net = nn.Conv2d(4, 8, 3)
    assert net.has_bias is False and net.pad_mode == "same"
    assert [n for n, _ in net.parameters_and_names()] == ["weight"]
    bound = 1 / np.sqrt(4 * 9)
    w = net.weight.asnumpy()
    assert w.shape == (8, 4, 3, 3) and np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert "input_channels=4" in repr(net) and "pad_mode=same" in repr(net)
    with pytest.raises(OpError, match=r"Conv2d\(in_channels=4.*got input of shape \(2, 3, 5, 5\): "
                                      r"channel dim 3 != in_channels 4"):
        net(T(rand(2, 3, 5, 5)))
    with pytest.raises(OpError, match="expected 4-D input"):
        net(T(rand(4, 5, 5)))
    with pytest.raises(ValueError, match="needs pad_mode='pad'"):
        nn.Conv2d(4, 8, 3, padding=1)
    with pytest.raises(ValueError, match="divisible by group 3"):
        nn.Conv2d(4, 8, 3, group=3)
    with pytest.raises(ValueError, match="pad_mode must be 'same', 'valid' or 'pad'"):
        nn.Conv2d(4, 8, 3, pad_mode="full")


# ---------------------------------------------------------------- pooling
def pool_np(x, k, s, pads, op, divisor=None, ceil_mode=False, count_include_pad=True):
    """torch's pooling rules in numpy loops; `pads` = (top, bottom, left, right). With ceil_mode a last,
    partial window is kept if it starts inside the input or the left padding; the avg divisor counts the
    explicit padding (count_include_pad) but never the overhang past it."""
    def out_len(n, lo, hi):
        span = n + lo + hi - k
        out = (-(-span // s) if ceil_mode else span // s) + 1
        return out - 1 if ceil_mode and (out - 1) * s >= n + lo else out

    h, w = x.shape[2:]
    oh, ow = out_len(h, *pads[:2]), out_len(w, *pads[2:])
    out = np.zeros(x.shape[:2] + (oh, ow), x.dtype)
    for i in range(oh):
        for j in range(ow):
            r0, c0 = i * s - pads[0], j * s - pads[2]
            r1, c1 = min(r0 + k, h + pads[1]), min(c0 + k, w + pads[3])
            win = x[:, :, max(r0, 0):min(r1, h), max(c0, 0):min(c1, w)]
            if op == "max":
                out[:, :, i, j] = win.max((2, 3))
            else:
                full = (r1 - r0) * (c1 - c0) if count_include_pad else win.shape[2] * win.shape[3]
                out[:, :, i, j] = win.sum((2, 3)) / (divisor or full)
    return out


def test_max_pool_values_and_grads():
    x = rand(2, 3, 6, 6)
    pool = nn.MaxPool2d(kernel_size=2, stride=2)
    # non-overlapping windows: an independent reshape-based reference, differentiable in jax
    check_layer(pool, x, lambda x: x.reshape(2, 3, 3, 2, 3, 2).max((3, 5)), [])
    np.testing.assert_allclose(nn.MaxPool2d(3, 2, pad_mode="pad", padding=1)(T(x)).asnumpy(),
                               pool_np(x, 3, 2, (1, 1, 1, 1), "max"))
    np.testing.assert_allclose(nn.MaxPool2d(3, 1)(T(x[0])).asnumpy(), pool_np(x, 3, 1, (0,) * 4, "max")[0])


def test_avg_pool_values_and_grads():
    x = rand(2, 3, 6, 6)
    check_layer(nn.AvgPool2d(2, 2), x, lambda x: x.reshape(2, 3, 3, 2, 3, 2).mean((3, 5)), [])
    got = nn.AvgPool2d(3, 2, pad_mode="pad", padding=1)(T(x)).asnumpy()
    np.testing.assert_allclose(got, pool_np(x, 3, 2, (1, 1, 1, 1), "avg"), rtol=1e-5)
    got = nn.AvgPool2d(3, 2, pad_mode="pad", padding=1, divisor_override=4)(T(x)).asnumpy()
    np.testing.assert_allclose(got, pool_np(x, 3, 2, (1, 1, 1, 1), "avg", divisor=4), rtol=1e-5)
    got = nn.AvgPool2d(3, 2, pad_mode="pad", padding=1, count_include_pad=False, divisor_override=4)(T(x)).asnumpy()
    np.testing.assert_allclose(got, pool_np(x, 3, 2, (1, 1, 1, 1), "avg", divisor=4), rtol=1e-5)
    got = nn.AvgPool2d(3, 2, pad_mode="pad", padding=1, count_include_pad=False)(T(x)).asnumpy()
    np.testing.assert_allclose(got, pool_np(x, 3, 2, (1, 1, 1, 1), "avg", count_include_pad=False), rtol=1e-5)


@pytest.mark.parametrize("size,k,s,p", [(5, 2, 2, 0), (5, 2, 2, 1), (6, 3, 2, 1), (7, 3, 3, 0)])
@pytest.mark.parametrize("include", [True, False])
def test_pool_ceil_mode(size, k, s, p, include):
    x = rand(1, 2, size, size)
    mode = "pad" if p else "valid"
    got = nn.MaxPool2d(k, s, pad_mode=mode, padding=p, ceil_mode=True)(T(x)).asnumpy()
    np.testing.assert_allclose(got, pool_np(x, k, s, (p,) * 4, "max", ceil_mode=True))
    got = nn.AvgPool2d(k, s, pad_mode=mode, padding=p, ceil_mode=True, count_include_pad=include)(T(x)).asnumpy()
    np.testing.assert_allclose(got, pool_np(x, k, s, (p,) * 4, "avg", ceil_mode=True, count_include_pad=include),
                               rtol=1e-5, atol=1e-6)


def test_pool_errors():
    with pytest.raises(OpError, match=r"MaxPool2d\(kernel_size=\(2, 2\).*expected 4-D"):
        nn.MaxPool2d(2, 2)(T(rand(4, 4)))
    with pytest.raises(ValueError, match="needs pad_mode='pad'"):
        nn.AvgPool2d(2, 2, padding=1)
    with pytest.raises(ValueError, match="return_indices"):
        nn.MaxPool2d(2, return_indices=True)
    with pytest.raises(ValueError, match="divisor_override must be positive and needs pad_mode 'valid' or 'pad' "
                                         "without ceil_mode"):
        nn.AvgPool2d(2, 2, ceil_mode=True, divisor_override=3)


# ---------------------------------------------------------------- BatchNorm
def bn_train_ref(x, gamma, beta, eps=1e-5):
    axes = (0, 2, 3) if x.ndim == 4 else (0,) if x.ndim == 2 else (0, 2)
    shape = [1] * x.ndim
    shape[1] = -1
    m, v = x.mean(axes, keepdims=True), x.var(axes, keepdims=True)
    return (x - m) / jnp.sqrt(v + eps) * gamma.reshape(shape) + beta.reshape(shape)


def test_batchnorm2d_training_values_grads_and_moving_stats():
    x = rand(4, 3, 5, 5) * 2 + 1
    gamma, beta = rand(3), rand(3)
    mean0, var0 = rand(3), np.abs(rand(3)) + 0.5
    bn = nn.BatchNorm2d(3, gamma_init=T(gamma), beta_init=T(beta), moving_mean_init=T(mean0),
                        moving_var_init=T(var0))
    assert [p.name for p in bn.trainable_params()] == ["gamma", "beta"]
    assert {p.name for p in bn.untrainable_params()} == {"moving_mean", "moving_variance"}
    bn.set_train()
    check_layer(bn, x, bn_train_ref, [gamma, beta], rtol=1e-4, atol=1e-4)
    # check_layer ran the layer twice (value_and_grad once, a plain call once): two updates
    n = 4 * 5 * 5
    batch_mean, batch_var = x.mean((0, 2, 3)), x.var((0, 2, 3)) * n / (n - 1)
    mean, var = mean0, var0
    for _ in range(2):
        mean, var = 0.9 * mean + 0.1 * batch_mean, 0.9 * var + 0.1 * batch_var
    np.testing.assert_allclose(bn.moving_mean.asnumpy(), mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn.moving_variance.asnumpy(), var, rtol=1e-5, atol=1e-6)
    assert isinstance(bn.moving_mean._data, jax.Array) and not isinstance(bn.moving_mean._data, jax.core.Tracer)


def test_batchnorm_eval_uses_moving_stats_and_set_train_toggles():
    x = rand(4, 3, 2, 2)
    mean, var = rand(3), np.abs(rand(3)) + 0.5
    bn = nn.BatchNorm2d(3, moving_mean_init=T(mean), moving_var_init=T(var), eps=1e-3)
    expect = (x - mean[None, :, None, None]) / np.sqrt(var[None, :, None, None] + 1e-3)
    np.testing.assert_allclose(bn(T(x)).asnumpy(), expect, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(bn.moving_mean.asnumpy(), mean)  # no update in eval mode
    bn.set_train()
    np.testing.assert_allclose(bn(T(x)).asnumpy(), bn_train_ref(x, np.ones(3), np.zeros(3), 1e-3),
                               rtol=1e-4, atol=1e-4)
    assert not np.allclose(bn.moving_mean.asnumpy(), mean)
    frozen = nn.BatchNorm2d(3, use_batch_statistics=False).set_train()
    np.testing.assert_allclose(frozen(T(x)).asnumpy(), x / np.sqrt(1 + 1e-5), rtol=1e-5)
    np.testing.assert_array_equal(frozen.moving_mean.asnumpy(), np.zeros(3))


@pytest.mark.parametrize("shape", [(6, 3), (4, 3, 5)])
def test_batchnorm1d(shape):
    x = rand(*shape)
    gamma, beta = rand(3), rand(3)
    bn = nn.BatchNorm1d(3, gamma_init=T(gamma), beta_init=T(beta)).set_train()
    check_layer(bn, x, bn_train_ref, [gamma, beta], rtol=1e-4, atol=1e-4)
    with pytest.raises(OpError, match=r"BatchNorm1d\(num_features=3\) got input of shape \(6, 4\): "
                                      r"channel dim 4 != num_features 3"):
        bn(T(rand(6, 4)))


def test_batchnorm_errors():
    with pytest.raises(OpError, match="expected a 4-D input"):
        nn.BatchNorm2d(3)(T(rand(2, 3)))
    with pytest.raises(ValueError, match=r"momentum must be in \[0, 1\]"):
        nn.BatchNorm2d(3, momentum=1.5)


# ---------------------------------------------------------------- LayerNorm
def test_layernorm_values_and_grads():
    gamma, beta = rand(4), rand(4)
    ln = nn.LayerNorm((4,), gamma_init=T(gamma), beta_init=T(beta), epsilon=1e-5)

    def ref(x, g, b):
        m, v = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
        return (x - m) / jnp.sqrt(v + 1e-5) * g + b
    check_layer(ln, rand(3, 2, 4), ref, [gamma, beta], rtol=1e-4, atol=1e-4)


def test_layernorm_over_several_axes_and_errors():
    gamma = rand(3, 4)
    ln = nn.LayerNorm((3, 4), begin_norm_axis=1, begin_params_axis=1, gamma_init=T(gamma))

    def ref(x, g, b):
        m, v = x.mean((1, 2), keepdims=True), x.var((1, 2), keepdims=True)
        return (x - m) / jnp.sqrt(v + 1e-7) * g + b
    check_layer(ln, rand(2, 3, 4), ref, [gamma, np.zeros((3, 4), np.float32)], rtol=1e-4, atol=1e-4)
    with pytest.raises(OpError, match=r"LayerNorm\(\(3, 4\)\) got input of shape \(2, 3, 5\).*normalized_shape"):
        ln(T(rand(2, 3, 5)))


# ---------------------------------------------------------------- containers and naming
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 8)
        self.bn = nn.BatchNorm1d(8)
        self.features = nn.SequentialCell(nn.Dense(8, 8), nn.ReLU(), nn.Dense(8, 2))

    def construct(self, x):
        return self.features(self.bn(self.fc1(x)))


def test_parameter_names_are_hierarchical_and_trainable_params_skip_frozen():
    net = Net()
    names = [p.name for p in net.get_parameters()]
    # BatchNorm lists moving_mean, moving_variance, gamma, beta: MindSpore 2.10 creates them in that order
    assert names == ["fc1.weight", "fc1.bias", "bn.moving_mean", "bn.moving_variance", "bn.gamma", "bn.beta",
                     "features.0.weight", "features.0.bias", "features.2.weight", "features.2.bias"]
    assert names == [n for n, _ in net.parameters_and_names()]
    trainable = [p.name for p in net.trainable_params()]
    assert "bn.moving_mean" not in trainable and "bn.gamma" in trainable and len(trainable) == 8
    net.fc1.weight.requires_grad = False
    assert "fc1.weight" not in [p.name for p in net.trainable_params()]


def test_set_train_reaches_every_sub_cell():
    net = Net()
    assert not any(c.training for _, c in net.cells_and_names())
    net.set_train()
    assert all(c.training for _, c in net.cells_and_names())


def test_sequential_cell_forms_indexing_and_forward():
    a, b = nn.Dense(3, 4), nn.Dense(4, 2)
    for seq in (nn.SequentialCell(a, nn.ReLU(), b), nn.SequentialCell([a, nn.ReLU(), b]),
                nn.SequentialCell(OrderedDict([("fc", a), ("act", nn.ReLU()), ("out", b)]))):
        x = T(rand(5, 3))
        assert_same_float32(seq(x).asnumpy(), b(ops.relu(a(x))).asnumpy())
        assert len(seq) == 3 and seq[0] is a and seq[-1] is b
        assert len(seq[1:]) == 2 and seq[1:][1] is b
    named = nn.SequentialCell(OrderedDict([("fc", nn.Dense(3, 4))]))
    assert [p.name for p in named.get_parameters()] == ["fc.weight", "fc.bias"]
    seq = nn.SequentialCell()
    seq.append(nn.Dense(2, 2)).append(nn.Tanh())
    assert len(seq) == 2 and seq[0].weight.name == "0.weight"
    with pytest.raises(IndexError, match="index 5 is out of range for 2 cells"):
        seq[5]
    with pytest.raises(TypeError, match="items must be Cells, got function"):
        nn.SequentialCell(lambda x: x)


def test_cell_list():
    cells = nn.CellList([nn.Dense(2, 2), nn.ReLU()])
    cells.append(nn.Dense(2, 3))
    cells.extend([nn.Tanh()])
    cells.insert(1, nn.Sigmoid())
    assert [type(c).__name__ for c in cells] == ["Dense", "Sigmoid", "ReLU", "Dense", "Tanh"]
    assert len(cells) == 5 and isinstance(cells[-1], nn.Tanh) and isinstance(cells[1:3], nn.CellList)
    assert [n for n, _ in cells.parameters_and_names()] == ["0.weight", "0.bias", "3.weight", "3.bias"]

    class Stack(nn.Cell):
        def __init__(self):
            super().__init__()
            self.layers = nn.CellList([nn.Dense(2, 2) for _ in range(3)])

        def construct(self, x):
            for layer in self.layers:
                x = layer(x)
            return x

    net = Stack()
    assert [p.name for p in net.trainable_params()][-2:] == ["layers.2.weight", "layers.2.bias"]
    x = T(rand(1, 2))
    expect = x
    for layer in net.layers:
        expect = layer(expect)
    # eager dispatch runs an op plainly on its first sightings and compiled from the third: a few ulps apart
    assert_same_float32(net(x).asnumpy(), expect.asnumpy())


# ---------------------------------------------------------------- initializers
def test_initializers_are_reproducible_under_set_seed():
    names = ["normal", "uniform", "he_uniform", "he_normal", "xavier_uniform", "xavier_normal", "truncatednormal"]
    msx.set_seed(5)
    first = [init.initializer(n, (8, 6)).asnumpy() for n in names]
    msx.set_seed(5)
    again = [init.initializer(n, (8, 6)).asnumpy() for n in names]
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    msx.set_seed(6)
    assert not np.array_equal(init.initializer("normal", (8, 6)).asnumpy(), first[0])
    msx.set_seed(5)
    assert np.array_equal(nn.Dense(6, 8, weight_init="normal").weight.asnumpy(), first[0])


@pytest.mark.parametrize("initz,shape,check", [
    (init.Normal(sigma=0.5, mean=1.0), (200, 100), lambda a: abs(a.mean() - 1) < 0.02 and abs(a.std() - 0.5) < 0.02),
    (init.Uniform(scale=0.3), (200, 100), lambda a: np.abs(a).max() <= 0.3 and np.abs(a).max() > 0.29),
    # HeUniform(): leaky_relu slope 0 -> gain sqrt(2), bound sqrt(6 / fan_in); OIHW fan_in = 4 * 9
    (init.HeUniform(), (300, 4, 3, 3), lambda a: np.abs(a).max() <= np.sqrt(6 / 36) and
     np.abs(a).max() > 0.98 * np.sqrt(6 / 36)),
    (init.HeUniform(mode="fan_out"), (50, 400), lambda a: np.abs(a).max() <= np.sqrt(6 / 50)),
    (init.HeNormal(nonlinearity="relu"), (400, 100), lambda a: abs(a.std() - np.sqrt(2 / 100)) < 0.004),
    (init.XavierUniform(gain=2), (100, 300), lambda a: np.abs(a).max() <= 2 * np.sqrt(6 / 400) and
     np.abs(a).max() > 0.98 * 2 * np.sqrt(6 / 400)),
    (init.XavierNormal(), (100, 300), lambda a: abs(a.std() - np.sqrt(2 / 400)) < 0.002),
    (init.TruncatedNormal(sigma=1.0, a=-1.0, b=0.5), (100, 100), lambda a: a.min() >= -1 and a.max() <= 0.5 and
     a.min() < -0.95),
    (init.TruncatedNormal(), (100, 100), lambda a: abs(a.std() - 0.01) < 0.001),
    (init.Constant(2.5), (3, 2), lambda a: np.all(a == 2.5)),
    (init.Zero(), (3,), lambda a: np.all(a == 0)),
    (init.One(), (2, 2), lambda a: np.all(a == 1)),
])
def test_initializer_statistics(initz, shape, check):
    msx.set_seed(0)
    a = init.initializer(initz, shape).asnumpy()
    assert a.shape == shape and a.dtype == np.float32
    assert check(a)


def test_initializer_inputs_and_errors():
    assert init.initializer("ones", 3, msx.float16).dtype == msx.float16
    assert np.all(init.initializer(7, (2,), msx.int32).asnumpy() == 7)
    assert np.all(init.initializer("zeros", [2, 2]).asnumpy() == 0)
    t = init.initializer(np.arange(6).reshape(2, 3), (2, 3))
    assert t.dtype == msx.float32 and t.asnumpy()[1, 2] == 5
    with pytest.raises(ValueError, match=r"shape \(3, 2\).*requested shape is \(2, 3\)"):
        init.initializer(T(rand(3, 2)), (2, 3))
    with pytest.raises(ValueError, match="unknown init 'gaussian'; valid names are"):
        init.initializer("gaussian", (2,))
    with pytest.raises(ValueError, match="at least 2 dims"):
        init.initializer("he_uniform", (5,))
    with pytest.raises(TypeError, match="got list"):
        init.initializer([1, 2], (2,))
    assert msx.Tensor(shape=(2, 3), dtype=msx.float32, init="ones").asnumpy().sum() == 6


def test_custom_initializer_mindspore_protocol():
    class Arange(init.Initializer):
        def _initialize(self, arr):
            arr[...] = np.arange(arr.size).reshape(arr.shape)

    np.testing.assert_array_equal(init.initializer(Arange(), (2, 2)).asnumpy(), [[0, 1], [2, 3]])
    arr = np.zeros((2, 3), np.float32)
    init.Constant(4)(arr)
    assert np.all(arr == 4)


def test_rnn_parameters_are_in_mindspores_order():
    """MindSpore 2.10 holds them kind by kind (w_ih_list, w_hh_list, b_ih_list, b_hh_list; names printed by
    `trainable_params()` in its venv), which optimizers and code that zips weights with them see."""
    lstm = nn.LSTM(6, 5, num_layers=2, batch_first=True, bidirectional=True)
    want = [f"{kind}_l{layer}{sfx}" for kind in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
            for layer in (0, 1) for sfx in ("", "_reverse")]
    assert [p.name for p in lstm.trainable_params()] == want
    assert [p.name for p in nn.GRU(3, 2, has_bias=False).trainable_params()] == ["weight_ih_l0", "weight_hh_l0"]
