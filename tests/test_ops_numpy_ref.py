"""Ops whose MindSpore 2.10 CPU kernels are missing (Ascend-only, or no CPU bprop), so the oracle has no
golden: checked against numpy for values and against central finite differences for gradients."""
import numpy as np
import pytest

import msx
from msx import mint, ops

RNG = np.random.default_rng(7)
X = RNG.uniform(-2, 2, (3, 4)).astype(np.float32)
Y = RNG.uniform(-2, 2, (3, 4)).astype(np.float32)


def _numeric_grad(f, x, eps=1e-3):
    """d sum(f(x) * ct) / dx by central differences in float64."""
    x = x.astype(np.float64)
    ct = np.linspace(0.5, 1.5, np.asarray(f(x)).size).reshape(np.asarray(f(x)).shape)
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        hi, lo = x.copy(), x.copy()
        hi[idx] += eps
        lo[idx] -= eps
        g[idx] = ((np.asarray(f(hi)) - np.asarray(f(lo))) * ct).sum() / (2 * eps)
    return g, ct


def _msx_grad(fn, x, ct):
    return msx.grad(lambda t: (fn(t) * msx.Tensor(ct.astype(np.float32))).sum())(msx.Tensor(x)).asnumpy()


CASES = [
    ("roll", lambda t: ops.roll(t, 1, 1), lambda a: np.roll(a, 1, 1)),
    ("roll-flat", lambda t: ops.roll(t, 2), lambda a: np.roll(a, 2)),
    ("Roll", lambda t: ops.Roll(shifts=(1, -1), dims=(0, 1))(t), lambda a: np.roll(a, (1, -1), (0, 1))),
    ("take", lambda t: ops.take(t, msx.Tensor(np.array([[0, 5], [11, 3]]))),
     lambda a: np.take(a, np.array([[0, 5], [11, 3]]))),
    ("mint.select", lambda t: mint.select(t, 1, 2), lambda a: a[:, 2]),
    ("Tensor.select", lambda t: t.select(0, -1), lambda a: a[-1]),
    ("fmin", lambda t: ops.fmin(t, msx.Tensor(Y)), lambda a: np.fmin(a, Y)),
    ("Tensor.fmin", lambda t: t.fmin(msx.Tensor(Y)), lambda a: np.fmin(a, Y)),
    ("rint", lambda t: ops.rint(t * 3), lambda a: np.rint(a * 3)),
    ("einsum", lambda t: ops.einsum("ij,kj->ik", t, msx.Tensor(Y)), lambda a: np.einsum("ij,kj->ik", a, Y)),
    ("Einsum", lambda t: ops.Einsum("ij->j")((t,)), lambda a: np.einsum("ij->j", a)),
    ("mint.einsum", lambda t: mint.einsum("ij,ij->i", t, t), lambda a: np.einsum("ij,ij->i", a, a)),
    ("cummax-values", lambda t: ops.cummax(t, 1)[0], lambda a: np.maximum.accumulate(a, 1)),
    ("cummin-values", lambda t: ops.cummin(t, 0)[0], lambda a: np.minimum.accumulate(a, 0)),
    ("mint.tril", lambda t: mint.tril(t, -1), lambda a: np.tril(a, -1)),
    ("Triu", lambda t: ops.Triu(diagonal=1)(t), lambda a: np.triu(a, 1)),
    ("mint.outer", lambda t: mint.outer(t[0], t[1]), lambda a: np.outer(a[0], a[1])),
    ("mint.mm", lambda t: mint.mm(t, t.T), lambda a: a @ a.T),
    ("mint.logsumexp", lambda t: mint.logsumexp(t, 1), lambda a: np.log(np.exp(a).sum(1))),
    ("mint.atan2", lambda t: mint.atan2(t, msx.Tensor(Y)), lambda a: np.arctan2(a, Y)),
    ("mint.log2", lambda t: mint.log2(t * t + 1), lambda a: np.log2(a * a + 1)),
    ("mint.frac", lambda t: mint.frac(t), lambda a: a - np.trunc(a)),
    ("ops.logaddexp2", lambda t: ops.logaddexp2(t, msx.Tensor(Y)), lambda a: np.logaddexp2(a, Y)),
    ("real", lambda t: ops.real(t), lambda a: np.real(a)),
    ("imag", lambda t: ops.imag(t) + t, lambda a: np.imag(a) + a),
    ("conj", lambda t: ops.conj(t), lambda a: np.conj(a)),
    ("angle", lambda t: ops.angle(t) + t, lambda a: np.angle(a) + a),
    ("ops.elu-alpha", lambda t: ops.elu(t, 0.5), lambda a: np.where(a > 0, a, 0.5 * (np.exp(a) - 1))),
]


@pytest.mark.parametrize("name,fn,ref", CASES, ids=[c[0] for c in CASES])
def test_values_and_gradients(name, fn, ref):
    got = fn(msx.Tensor(X))
    want = ref(X.astype(np.float64))
    assert got.dtype == msx.float32
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-5)
    if name.startswith(("rint", "take")):
        return  # piecewise constant / index ops: gradients are zero or scatters, checked by values elsewhere
    numeric, ct = _numeric_grad(ref, X)
    np.testing.assert_allclose(_msx_grad(fn, X, ct), numeric, rtol=2e-3, atol=2e-3)


def test_cummax_indices_point_at_the_running_maximum():
    x = np.array([[1.0, 3.0, 2.0, 3.0, 5.0]], np.float32)
    values, idx = ops.cummax(msx.Tensor(x), 1)
    np.testing.assert_array_equal(values.asnumpy(), [[1, 3, 3, 3, 5]])
    np.testing.assert_array_equal(idx.asnumpy(), [[0, 1, 1, 3, 4]])  # ties: the latest index, as MindSpore
    assert idx.dtype == msx.int64 and ops.cummin(msx.Tensor(x), 1)[1].dtype == msx.int32


def test_addn_and_float_power_gradients():
    ct = np.linspace(0.5, 1.5, 12).reshape(3, 4)
    g = _msx_grad(lambda t: ops.addn([t, t * 2.0, t]), X, ct)
    np.testing.assert_allclose(g, 4 * ct, rtol=1e-6)
    x = msx.Tensor(X)
    out = ops.float_power(x, 2)
    assert out.dtype == msx.float64  # MindSpore computes float_power in float64
    g = msx.grad(lambda t: ops.float_power(t, 3).sum())(x).asnumpy()
    np.testing.assert_allclose(g, 3 * X.astype(np.float64) ** 2, rtol=1e-6)


def test_bitwise_not_on_integers_and_bools():
    x = np.array([[0, 5, -3]], np.int32)
    np.testing.assert_array_equal(mint.bitwise_not(msx.Tensor(x)).asnumpy(), ~x)
    got = msx.Tensor(np.array([True, False])).bitwise_not()
    assert got.dtype == msx.bool_ and got.asnumpy().tolist() == [False, True]


def test_take_gradient_scatters_into_the_flat_input():
    index = msx.Tensor(np.array([0, 0, 5]))
    g = msx.grad(lambda t: ops.take(t, index).sum())(msx.Tensor(X)).asnumpy()
    want = np.zeros(12, np.float32)
    want[0], want[5] = 2, 1
    np.testing.assert_array_equal(g, want.reshape(3, 4))


def test_narrow_and_select_reject_out_of_range():
    with pytest.raises(ValueError, match="narrow"):
        ops.narrow(msx.Tensor(X), 1, 2, 5)
    with pytest.raises(ValueError, match="select"):
        mint.select(msx.Tensor(X), 0, 3)
