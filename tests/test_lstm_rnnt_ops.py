"""The class ops `ops.LSTM` (flat CPU weight) and `ops.RNNTLoss` (msx/ops/lstm_ops.py, rnnt_ops.py).

LSTM: values and gradients (x, h, c, the flat weight) against MindSpore 2.10's CPU kernel and its LSTMGrad,
recorded by tests/golden_ops/record_lstm.py (one layer, no bias, bidirectional, two layers, projection), and
under msx.jit. RNNTLoss has no CPU kernel in MindSpore (Ascend only): its costs are checked against a numpy
dynamic programme over the lattice, its `grads` result against finite differences of that programme, and
msx.grad of the costs against `grads`."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import msx
from msx import Tensor, ops
from msx.errors import OpError

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden_ops")
sys.path.insert(0, HERE)
from record_lstm import CONFIGS, arrays  # noqa: E402

LSTM_GOLDEN = np.load(os.path.join(HERE, "lstm_ms210.npz"), allow_pickle=False)


@pytest.mark.parametrize("cid", sorted(CONFIGS))
def test_lstm_matches_mindspore_values_and_gradients(cid):
    i, h, layers, bias, bidir, proj, _, _ = CONFIGS[cid]
    x, h0, c0, w, w_out, w_h, w_c = arrays(cid)
    op = ops.LSTM(i, h, layers, bias, bidir, 0.0, proj)

    def loss(x, h0, c0, w):
        y, hn, cn, _, _ = op(x, h0, c0, w)
        return (y * Tensor(w_out)).sum() + (hn * Tensor(w_h)).sum() + (cn * Tensor(w_c)).sum()

    inputs = [Tensor(a) for a in (x, h0, c0, w)]
    y, hn, cn, reserve, state = op(*inputs)
    grads = msx.grad(loss, grad_position=(0, 1, 2, 3))(*inputs)
    for got, key in zip((y, hn, cn) + tuple(grads), ("y", "hn", "cn", "dx", "dh", "dc", "dw")):
        want = LSTM_GOLDEN[f"{cid}/{key}"]
        assert got.shape == want.shape, (key, got.shape, want.shape)
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=2e-6, err_msg=key)
    assert reserve.shape == state.shape == (1, 1)
    jitted = msx.jit(lambda *a: op(*a)[:3])(*inputs)
    for got, key in zip(jitted, ("y", "hn", "cn")):
        np.testing.assert_allclose(got.asnumpy(), LSTM_GOLDEN[f"{cid}/{key}"], rtol=1e-5, atol=2e-6)


def test_lstm_accepts_a_longer_weight_and_refuses_bad_shapes():
    x, h0, c0, w, *_ = arrays("one_layer")
    op = ops.LSTM(3, 4, 1, True, False, 0.0)
    longer = np.concatenate([w, np.full((8, 1, 1), 9.0, np.float32)])  # the tail is unused, as in MindSpore
    np.testing.assert_allclose(op(Tensor(x), Tensor(h0), Tensor(c0), Tensor(longer))[0].asnumpy(),
                               LSTM_GOLDEN["one_layer/y"], rtol=1e-5, atol=2e-6)
    with pytest.raises(OpError, match=r"LSTM: w must hold at least 128 elements"):
        op(Tensor(x), Tensor(h0), Tensor(c0), Tensor(w[:100]))
    with pytest.raises(OpError, match=r"LSTM: h must be \(1, 2, 4\)"):
        op(Tensor(x), Tensor(h0[:, :1]), Tensor(c0), Tensor(w))
    with pytest.raises(OpError, match=r"LSTM: x must be \(seq_len, batch, 3\)"):
        op(Tensor(x[..., :2]), Tensor(h0), Tensor(c0), Tensor(w))
    with pytest.raises(ValueError, match="LSTM: proj_size must be smaller than hidden_size"):
        ops.LSTM(3, 4, 1, True, False, 0.0, 4)
    with pytest.warns(UserWarning, match="dropout=0.5 is not honoured"):
        ops.LSTM(4, 4, 2, True, False, 0.5)
    assert ops.LSTM(3, 4, 1, True, False, 0.0).weight_size() == 128


# ---------------------------------------------------------------- RNNTLoss
def _np_rnnt(acts, labels, t_len, u_len, blank):
    acts = acts.astype(np.float64)
    lp = acts - acts.max(-1, keepdims=True)
    lp = lp - np.log(np.exp(lp).sum(-1, keepdims=True))
    costs = []
    for b in range(acts.shape[0]):
        t_n, u_n = int(t_len[b]), int(u_len[b]) + 1
        alpha = np.full((t_n, u_n), -np.inf)
        alpha[0, 0] = 0.0
        for t in range(t_n):
            for u in range(u_n):
                if t or u:
                    terms = ([alpha[t - 1, u] + lp[b, t - 1, u, blank]] if t else []) + \
                            ([alpha[t, u - 1] + lp[b, t, u - 1, labels[b, u - 1]]] if u else [])
                    alpha[t, u] = np.logaddexp.reduce(terms)
        costs.append(-(alpha[t_n - 1, u_n - 1] + lp[b, t_n - 1, u_n - 1, blank]))
    return np.array(costs)


_RNG = np.random.default_rng(8)
_ACTS = _RNG.standard_normal((2, 4, 3, 5)).astype(np.float32)
_LABELS = np.array([[1, 2], [4, 3]], np.int32)   # sample 1 uses one label: its second is padding
_T_LEN, _U_LEN = np.array([4, 3], np.int32), np.array([2, 1], np.int32)


def _rnnt_args(acts=_ACTS):
    return Tensor(acts), Tensor(_LABELS), Tensor(_T_LEN), Tensor(_U_LEN)


@pytest.mark.parametrize("blank", [0, 2])
def test_rnnt_loss_costs_match_the_lattice_and_grads_finite_differences(blank):
    labels = _LABELS if blank == 0 else np.array([[1, 3], [4, 0]], np.int32)
    op = ops.RNNTLoss(blank_label=blank)
    args = (Tensor(_ACTS), Tensor(labels), Tensor(_T_LEN), Tensor(_U_LEN))
    costs, grads = op(*args)
    assert costs.dtype == grads.dtype == msx.float32 and costs.shape == (2,) and grads.shape == _ACTS.shape
    want = _np_rnnt(_ACTS, labels, _T_LEN, _U_LEN, blank)
    np.testing.assert_allclose(costs.asnumpy(), want, rtol=1e-5)
    acts64 = _ACTS.astype(np.float64)
    eps, g = 1e-5, grads.asnumpy()
    for idx in [(0, 0, 0, 1), (0, 2, 1, blank), (0, 3, 2, blank), (1, 1, 1, 4), (1, 2, 1, 0), (0, 1, 2, 3)]:
        up, down = acts64.copy(), acts64.copy()
        up[idx] += eps
        down[idx] -= eps
        fd = (_np_rnnt(up, labels, _T_LEN, _U_LEN, blank) - _np_rnnt(down, labels, _T_LEN, _U_LEN, blank))
        np.testing.assert_allclose(g[idx], fd[idx[0]] / (2 * eps), rtol=1e-3, atol=1e-5)
    assert np.all(g[1, 3] == 0) and np.all(g[1, :, 2] == 0)  # outside sample 1's lattice (T=3, U=2)
    via_grad = msx.grad(lambda a: op(a, *args[1:])[0].sum())(args[0])
    np.testing.assert_allclose(via_grad.asnumpy(), g, rtol=1e-5, atol=1e-6)
    jitted = msx.jit(lambda *a: op(*a))(*args)
    np.testing.assert_allclose(jitted[0].asnumpy(), costs.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(jitted[1].asnumpy(), g, rtol=1e-5, atol=1e-7)


def test_rnnt_loss_refuses_bad_input():
    op = ops.RNNTLoss()
    acts, labels, t_len, u_len = _rnnt_args()
    with pytest.raises(OpError, match=r"RNNTLoss: labels must be \(2, 2\)"):
        op(acts, Tensor(_LABELS[:, :1]), t_len, u_len)
    with pytest.raises(OpError, match="RNNTLoss: labels, input_lengths and label_lengths must be int32"):
        op(acts, Tensor(_LABELS.astype(np.int64)), t_len, u_len)
    with pytest.raises(OpError, match=r"RNNTLoss: input_lengths must lie in \[1, 4\], got \[5, 3\]"):
        op(acts, labels, Tensor(np.array([5, 3], np.int32)), u_len)
    with pytest.raises(OpError, match=r"RNNTLoss: labels must be classes in \[0, 4\]"):
        op(acts, Tensor(np.array([[1, 7], [4, 3]], np.int32)), t_len, u_len)
    with pytest.raises(OpError, match="RNNTLoss: acts must be float16 or float32"):
        op(Tensor(_ACTS.astype(np.float64)), labels, t_len, u_len)
    with pytest.raises(TypeError, match="RNNTLoss: blank_label must be an int"):
        ops.RNNTLoss(blank_label=1.0)
