"""State written inside differentiated functions, under jit as eagerly, in every capture mode:

* a write into the caller's input inside `value_and_grad` lands in the caller's Tensor (issue 30.2; MindSpore 2.10
  refuses the program in PyNative with "Can not modify tensor id of input tensor", msx runs it the same way in
  every mode);
* a GAN's BatchNorm: the moving statistics of a discriminator differentiated twice in one jitted step (issue 32.2);
* an LSTM whose weights are assigned through `w_ih_list` & co. after construction (issue 32.1), against MindSpore
  2.10's output and gradients (tests/golden_writes/make_lstm_lists.py)."""
import os
import warnings

import jax
import numpy as np
import pytest

import msx
from msx import Parameter, ParameterTuple, Tensor, nn, ops

CONFIGS = [(None, None), ("ast", "O0"), ("ast", "O1"), ("trace", "O0"), ("bytecode", "O1")]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _wrap(fn, mode, level):
    return fn if mode is None else msx.jit(fn, capture_mode=mode, jit_level=level)


def _leaves(tree):
    return [t.asnumpy() for t in jax.tree_util.tree_leaves(tree, is_leaf=lambda t: isinstance(t, Tensor))]


# ---------------------------------------------------------------- a write into the caller's input in a gradient
class Writes(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)), name="w")

    def construct(self, x):
        x[0, 0] = 1.5
        return (x * self.w).sum()


def _grad_write_run(mode, level, position):
    net = Writes()
    grad_fn = msx.value_and_grad(net, position, net.trainable_params())
    step = _wrap(lambda x: grad_fn(x), mode, level)
    results = []
    for _ in range(2):   # the second call runs the cached graph
        x = Tensor(np.zeros((2, 2), np.float32))
        results.append(_leaves(step(x)) + [x.asnumpy()])
    return results


@pytest.mark.parametrize("mode,level", CONFIGS[1:])
@pytest.mark.parametrize("position", [None, 0])
def test_a_write_into_the_input_inside_a_gradient_is_what_eager_does(mode, level, position):
    want = _grad_write_run(None, None, position)
    got = _grad_write_run(mode, level, position)
    for w_call, g_call in zip(want, got):
        for a, b in zip(w_call, g_call):
            np.testing.assert_allclose(b, a, rtol=1e-6)
    caller_x = want[0][-1]
    if position is None:   # the caller's input holds the write after the call
        assert caller_x[0, 0] == 1.5
    else:                  # the differentiated argument is a value to the gradient: the write stays inside it
        assert caller_x[0, 0] == 0.0


# ---------------------------------------------------------------- a GAN's BatchNorm differentiated twice
class _Generator(nn.Cell):
    def __init__(self):
        super().__init__()
        self.generator = nn.SequentialCell([nn.Dense(2, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Dense(4, 4)])

    def construct(self, z):
        return self.generator(z)


class _Discriminator(nn.Cell):
    def __init__(self):
        super().__init__()
        self.discriminator = nn.SequentialCell([nn.Dense(4, 4), nn.LeakyReLU(0.2), nn.Dense(4, 4),
                                                nn.BatchNorm1d(4), nn.Dense(4, 1), nn.Sigmoid()])

    def construct(self, x):
        return self.discriminator(x)


def _gan_run(mode, level):
    """The DCGAN tutorial's step: the discriminator (BatchNorm, train mode) in the generator's gradient and twice
    in its own; SGD so that rounding is not amplified the way Adam's first steps amplify it."""
    msx.set_seed(1)
    g, d = _Generator(), _Discriminator()
    g.set_train()
    d.set_train()
    loss = nn.BCELoss(reduction="mean")
    opt_g, opt_d = nn.SGD(g.trainable_params(), 0.1), nn.SGD(d.trainable_params(), 0.1)

    def g_forward(real, valid):
        fake = g(ops.standard_normal((real.shape[0], 2)))
        return loss(d(fake), valid), fake

    def d_forward(real, fake, valid, zeros):
        return (loss(d(real), valid) + loss(d(fake), zeros)) / 2

    g_grad = msx.value_and_grad(g_forward, None, opt_g.parameters, has_aux=True)
    d_grad = msx.value_and_grad(d_forward, None, opt_d.parameters)

    def step(real):
        valid, zeros = ops.ones((real.shape[0], 1), msx.float32), ops.zeros((real.shape[0], 1), msx.float32)
        (g_loss, fake), grads = g_grad(real, valid)
        opt_g(grads)
        d_loss, grads = d_grad(real, fake, valid, zeros)
        opt_d(grads)
        return g_loss, d_loss

    step = _wrap(step, mode, level)
    real = Tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4))
    out = [_leaves(step(real)) for _ in range(3)]
    return out, [p.asnumpy() for p in g.get_parameters()] + [p.asnumpy() for p in d.get_parameters()]


GAN_EAGER = None


@pytest.mark.parametrize("mode,level", [("ast", "O0"), ("trace", "O1"), ("bytecode", "O0")])
def test_a_gan_discriminator_with_batchnorm_trains_under_jit_as_eagerly(mode, level):
    global GAN_EAGER
    GAN_EAGER = GAN_EAGER or _gan_run(None, None)
    want_out, want_params = GAN_EAGER
    got_out, got_params = _gan_run(mode, level)
    for a, b in zip(sum(want_out, []) + want_params, sum(got_out, []) + got_params):
        np.testing.assert_allclose(b, a, rtol=2e-5, atol=2e-6)   # the moving mean/variance among them


# ---------------------------------------------------------------- an LSTM's weights assigned as lists
GOLDEN = np.load(os.path.join(os.path.dirname(__file__), "golden_writes", "lstm_lists.npz"))
IN, HID = 3, 2


def _lstm_weights():   # the same draw as tests/golden_writes/make_lstm_lists.py
    rng = np.random.default_rng(7)
    shapes = {"w_ih": (4 * HID, IN), "w_hh": (4 * HID, HID), "b_ih": (4 * HID,), "b_hh": (4 * HID,)}
    return {k: rng.uniform(-0.5, 0.5, s).astype(np.float32) for k, s in shapes.items()}


class LstmNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(IN, HID, 1, True, False, 0.0, False)
        w = _lstm_weights()
        for kind in ("w_ih", "w_hh", "b_ih", "b_hh"):
            setattr(self.lstm, f"{kind}_list", ParameterTuple([Parameter(Tensor(w[kind]), name=kind)]))

    def construct(self, x, h, c):
        out, (hn, cn) = self.lstm(x, (h, c))
        return out.sum() + hn.sum() * 0.5 + cn.sum() * 0.25


@pytest.mark.parametrize("mode,level", [(None, None), ("ast", "O0"), ("trace", "O1"), ("bytecode", "O1")])
def test_an_lstm_with_weight_lists_assigned_matches_mindspore(mode, level):
    net = LstmNet()
    lists = [net.lstm.w_ih_list, net.lstm.w_hh_list, net.lstm.b_ih_list, net.lstm.b_hh_list]
    params = ParameterTuple(p for tup in lists for p in tup)
    assert {id(p) for p in params} <= {id(p) for p in net.trainable_params()}   # trained like any weight
    grad_fn = _wrap(msx.value_and_grad(net, 0, params), mode, level)
    x = np.linspace(-1, 1, 4 * 2 * IN, dtype=np.float32).reshape(4, 2, IN)
    loss, (gx, gw) = grad_fn(Tensor(x), Tensor(np.ones((1, 2, HID), np.float32)),
                             Tensor(np.full((1, 2, HID), 0.5, np.float32)))
    np.testing.assert_allclose(loss.asnumpy(), GOLDEN["loss"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gx.asnumpy(), GOLDEN["grad_x"], rtol=1e-4, atol=1e-6)
    for kind, g in zip(("w_ih", "w_hh", "b_ih", "b_hh"), gw):
        np.testing.assert_allclose(g.asnumpy(), GOLDEN[f"grad_{kind}"], rtol=1e-4, atol=1e-6)


def test_a_weight_list_of_the_wrong_length_or_shape_is_refused():
    lstm = nn.LSTM(IN, HID)
    with pytest.raises(ValueError, match="needs 1 Parameters"):
        lstm.w_ih_list = ParameterTuple([])
    with pytest.raises(ValueError, match="must have shape"):
        lstm.w_hh_list = ParameterTuple([Parameter(Tensor(np.zeros((2, 2), np.float32)), name="w")])
