"""`msx.grad`, `msx.value_and_grad` and `ops.GradOperation`: MindSpore's return conventions and state safety."""
from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import msx
from msx import Parameter, Tensor, ops
from msx.errors import GradError, MsxError
from tolerance import assert_same_float32

XV = np.array([0.5, -1.0, 2.0], np.float32)
YV = np.array([1.5, 0.25, -0.5], np.float32)
WV = np.array([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]], np.float32)
BV = np.array([0.05, -0.05], np.float32)


def arr(t):
    assert isinstance(t, Tensor), f"expected a Tensor, got {type(t).__name__}"
    return t.asnumpy()


def is_concrete(t: Tensor) -> bool:
    return isinstance(t._data, jax.Array) and not isinstance(t._data, jax.core.Tracer)


def f_xy(x, y):
    return ops.sum(x * x * y + ops.sin(y))


def ref_f_xy(x, y):
    return jnp.sum(x * x * y + jnp.sin(y))


@pytest.fixture
def xy():
    return Tensor(XV), Tensor(YV)


@pytest.fixture
def net():
    w = Parameter(Tensor(WV), name="w")
    b = Parameter(Tensor(BV), name="b")

    def forward(x):
        return ops.sum(ops.tanh(ops.matmul(w, x) + b))

    def ref(wa, ba, xa):
        return jnp.sum(jnp.tanh(wa @ xa + ba))

    return w, b, forward, ref


def close(got, want, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(arr(got), np.asarray(want), rtol=rtol, atol=atol)


# --------------------------------------------------------------------------- grad_position
class TestGradPosition:
    def test_int_position_gives_a_tensor(self, xy):
        g = msx.grad(f_xy)(*xy)
        assert isinstance(g, Tensor) and g.shape == (3,)
        close(g, jax.grad(ref_f_xy)(XV, YV))
        g1 = msx.grad(f_xy, grad_position=1)(*xy)
        close(g1, jax.grad(ref_f_xy, argnums=1)(XV, YV))

    def test_tuple_position_gives_a_tuple(self, xy):
        g = msx.grad(f_xy, grad_position=(0, 1))(*xy)
        assert isinstance(g, tuple) and len(g) == 2
        want = jax.grad(ref_f_xy, argnums=(0, 1))(XV, YV)
        close(g[0], want[0])
        close(g[1], want[1])
        g = msx.grad(f_xy, grad_position=(1,))(*xy)
        assert isinstance(g, tuple) and len(g) == 1
        close(g[0], want[1])
        g = msx.grad(f_xy, grad_position=(1, 0))(*xy)
        close(g[0], want[1])
        close(g[1], want[0])

    def test_none_position_with_weights_gives_weight_grads(self, net):
        w, b, forward, ref = net
        x = Tensor(XV)
        g = msx.grad(forward, grad_position=None, weights=[w, b])(x)
        want = jax.grad(ref, argnums=(0, 1))(WV, BV, XV)
        assert isinstance(g, tuple) and len(g) == 2
        close(g[0], want[0])
        close(g[1], want[1])

    def test_position_and_weights_gives_a_pair(self, net):
        w, b, forward, ref = net
        x = Tensor(XV)
        gx, gw = msx.grad(forward, grad_position=0, weights=[w, b])(x)
        want = jax.grad(ref, argnums=(0, 1, 2))(WV, BV, XV)
        close(gx, want[2])
        assert isinstance(gw, tuple) and len(gw) == 2
        close(gw[0], want[0])
        close(gw[1], want[1])
        (gx2,), gw2 = msx.grad(forward, grad_position=(0,), weights=[w])(x)
        close(gx2, want[2])
        close(gw2[0], want[0])

    def test_value_and_grad_conventions(self, xy, net):
        value, g = msx.value_and_grad(f_xy)(*xy)
        assert isinstance(value, Tensor) and value.shape == ()
        assert float(value) == pytest.approx(float(ref_f_xy(XV, YV)), rel=1e-6)
        close(g, jax.grad(ref_f_xy)(XV, YV))
        value, (g0, g1) = msx.value_and_grad(f_xy, (0, 1))(*xy)
        close(g1, jax.grad(ref_f_xy, 1)(XV, YV))
        w, b, forward, ref = net
        value, (gx, (gw, gb)) = msx.value_and_grad(forward, 0, [w, b])(Tensor(XV))
        assert float(value) == pytest.approx(float(ref(WV, BV, XV)), rel=1e-6)
        close(gb, jax.grad(ref, 1)(WV, BV, XV))
        value, (gw, gb) = msx.value_and_grad(forward, None, [w, b])(Tensor(XV))
        close(gw, jax.grad(ref, 0)(WV, BV, XV))

    def test_keyword_arguments_are_passed_through(self, xy):
        def f(x, y, scale=1.0):
            return ops.sum(x * y) * scale

        g = msx.grad(f)(*xy, scale=3.0)
        close(g, 3.0 * YV)

    def test_non_scalar_output_uses_ones_sensitivity(self, xy):
        g = msx.grad(lambda x, y: x * y)(*xy)
        close(g, YV)

    def test_multiple_outputs_are_summed(self, xy):
        g = msx.grad(lambda x, y: (ops.sum(x * y), ops.sum(x)))(*xy)
        close(g, YV + 1)

    def test_integer_input_gets_mindspores_grad_or_a_clear_error(self):
        """Never a silent 0 (tests/test_semantics_ms.py checks the rule against MindSpore 2.10's answers)."""
        def f(x, n):
            return ops.sum(x * ops.cast(n, msx.float32))

        with pytest.raises(GradError, match="integer input 1"):  # MindSpore: [0, -1, 2], truncated at the cast
            msx.grad(f, (0, 1))(Tensor(XV), Tensor([1, 2, 3]))
        gx, gn = msx.grad(f, (0, 1))(Tensor(np.array([1.0, -2.0, 3.0], np.float32)), Tensor([1, 2, 3]))
        close(gx, [1, 2, 3])
        assert gn.dtype == msx.int64 and arr(gn).tolist() == [1, -2, 3]

    def test_unused_input_gets_zeros(self, xy):
        g = msx.grad(lambda x, y: ops.sum(y), (0, 1))(*xy)
        np.testing.assert_array_equal(arr(g[0]), np.zeros(3))
        np.testing.assert_array_equal(arr(g[1]), np.ones(3))


class TestGradErrors:
    def test_both_none(self):
        with pytest.raises(GradError, match="cannot both be None"):
            msx.grad(f_xy, grad_position=None)

    def test_bad_grad_position(self):
        with pytest.raises(GradError, match="grad_position"):
            msx.grad(f_xy, grad_position="0")
        with pytest.raises(GradError, match="grad_position 2"):
            msx.grad(f_xy, grad_position=2)(Tensor(XV), Tensor(YV))
        with pytest.raises(GradError, match="expected a Tensor"):
            msx.grad(lambda x, k: ops.sum(x) * k, grad_position=1)(Tensor(XV), 3.0)

    def test_weights_must_be_parameters(self):
        with pytest.raises(GradError, match="Parameters"):
            msx.grad(f_xy, weights=[Tensor(XV)])

    def test_has_aux_needs_a_tuple(self, xy):
        with pytest.raises(GradError, match="has_aux"):
            msx.grad(f_xy, has_aux=True)(*xy)

    def test_errors_are_msx_errors(self):
        with pytest.raises(MsxError):
            msx.grad(f_xy, grad_position=None, weights=None)


# --------------------------------------------------------------------------- has_aux
class TestHasAux:
    @staticmethod
    def fn(x, y):
        return ops.sum(x * y), x + y, ops.mean(x)

    def test_grad_returns_grads_and_aux(self, xy):
        g, aux = msx.grad(self.fn, has_aux=True)(*xy)
        close(g, YV)
        assert isinstance(aux, tuple) and len(aux) == 2
        close(aux[0], XV + YV)
        close(aux[1], XV.mean())

    def test_aux_does_not_contribute_to_the_gradient(self, xy):
        def fn(x, y):
            return ops.sum(x * y), ops.sum(x * x * 100)

        g, aux = msx.grad(fn, has_aux=True)(*xy)
        close(g, YV)

    def test_value_and_grad_returns_full_output(self, xy):
        value, g = msx.value_and_grad(self.fn, (0, 1), has_aux=True)(*xy)
        assert isinstance(value, tuple) and len(value) == 3
        close(value[0], (XV * YV).sum())
        close(value[1], XV + YV)
        close(g[0], YV)
        close(g[1], XV)

    def test_has_aux_with_weights(self, net):
        w, b, forward, ref = net

        def fn(x):
            return forward(x), ops.matmul(w, x)

        (gw,), aux = msx.grad(fn, None, [w], has_aux=True)(Tensor(XV))
        close(gw, jax.grad(ref)(WV, BV, XV))
        close(aux[0], WV @ XV)
        assert all(is_concrete(a) for a in aux)


# --------------------------------------------------------------------------- GradOperation
def _grad_op_expected(get_all, get_by_list, sens):
    """(arg grads, weight grads) of h(x, y) = sum(w @ (x * y)) * sens-weighted, by jax."""

    def ref(wa, xa, ya):
        return jnp.sum((wa @ (xa * ya)) * sens)

    gw, gx, gy = jax.grad(ref, argnums=(0, 1, 2))(WV, XV, YV)
    return gx, gy, gw


@pytest.mark.parametrize("get_all,get_by_list,sens_param", list(itertools.product([False, True], repeat=3)))
def test_grad_operation_combinations(get_all, get_by_list, sens_param):
    w = Parameter(Tensor(WV), name="w")
    x, y = Tensor(XV), Tensor(YV)

    def h(x, y):
        return ops.matmul(w, x * y)

    sens = np.array([2.0, -3.0], np.float32) if sens_param else np.ones(2, np.float32)
    gx, gy, gw = _grad_op_expected(get_all, get_by_list, sens)
    grad_op = ops.GradOperation(get_all=get_all, get_by_list=get_by_list, sens_param=sens_param)
    fn = grad_op(h, [w]) if get_by_list else grad_op(h)
    args = (x, y, Tensor(sens)) if sens_param else (x, y)
    out = fn(*args)
    if get_all and get_by_list:
        (ax, ay), (aw,) = out
        close(ax, gx)
        close(ay, gy)
        close(aw, gw)
    elif get_by_list:
        assert isinstance(out, tuple) and len(out) == 1
        close(out[0], gw)
    elif get_all:
        assert isinstance(out, tuple) and len(out) == 2
        close(out[0], gx)
        close(out[1], gy)
    else:
        assert isinstance(out, Tensor)
        close(out, gx)


def test_grad_operation_is_exported_in_ops():
    assert ops.GradOperation is msx.ops.GradOperation
    with pytest.raises(GradError, match="weights"):
        ops.GradOperation(get_by_list=True)(f_xy)


def test_grad_operation_sens_for_tuple_outputs():
    def h(x):
        return x * 2.0, ops.sum(x)

    sens = (Tensor(np.array([1.0, 2.0, 3.0], np.float32)), Tensor(10.0))
    g = ops.GradOperation(sens_param=True)(h)(Tensor(XV), sens)
    close(g, np.array([2.0, 4.0, 6.0]) + 10.0)


# --------------------------------------------------------------------------- parameters and state
class TestParameters:
    def test_frozen_weights_get_zero_grads(self, net):
        w, b, forward, ref = net
        b.requires_grad = False
        gw, gb = msx.grad(forward, None, [w, b])(Tensor(XV))
        close(gw, jax.grad(ref)(WV, BV, XV))
        assert gb.shape == b.shape
        np.testing.assert_array_equal(arr(gb), np.zeros_like(BV))

    def test_weights_unchanged_and_concrete_after_grad(self, net):
        w, b, forward, _ = net
        msx.grad(forward, 0, [w, b])(Tensor(XV))
        np.testing.assert_array_equal(arr(w), WV)
        np.testing.assert_array_equal(arr(b), BV)
        assert is_concrete(w) and is_concrete(b)

    def test_parameters_restored_after_exception(self, net):
        w, b, forward, _ = net
        other = Parameter(Tensor(np.zeros(3, np.float32)), name="other", requires_grad=False)

        def boom(x):
            other.set_data(x * 3)  # a state write that must be undone
            forward(x) + ops.sum(w)
            raise RuntimeError("boom")

        with pytest.raises(RuntimeError, match="boom"):
            msx.grad(boom, 0, [w, b])(Tensor(XV))
        assert is_concrete(w) and is_concrete(b) and is_concrete(other)
        np.testing.assert_array_equal(arr(w), WV)
        np.testing.assert_array_equal(arr(other), np.zeros(3))
        # and grad still works afterwards
        g = msx.grad(forward, None, [w])(Tensor(XV))
        assert is_concrete(g[0])

    def test_op_error_inside_grad_restores_parameters(self, net):
        w, b, forward, _ = net
        with pytest.raises(ValueError, match="MatMul"):
            msx.grad(lambda x: ops.sum(ops.matmul(w, x)), None, [w])(Tensor(np.ones(5, np.float32)))
        assert is_concrete(w)
        np.testing.assert_array_equal(arr(w), WV)

    def test_state_written_during_grad_is_concrete_afterwards(self, net):
        w, b, forward, ref = net
        stats = Parameter(Tensor(np.zeros(2, np.float32)), name="stats", requires_grad=False)

        def fn(x):
            h = ops.matmul(w, x)
            stats.set_data(0.9 * stats + 0.1 * h)  # depends on traced values
            return ops.sum(ops.tanh(h + b))

        g = msx.grad(fn, 0, [w, b])(Tensor(XV))
        assert is_concrete(stats)
        assert_same_float32(arr(stats), 0.1 * (WV @ XV))
        close(g[0], jax.grad(ref, 2)(WV, BV, XV))
        msx.grad(fn, 0, [w, b])(Tensor(XV))  # a second call reads the updated state
        np.testing.assert_allclose(arr(stats), 0.19 * (WV @ XV), rtol=1e-5)

    def test_a_weight_rebound_inside_fn(self, net):
        w, b, forward, ref = net

        def fn(x):
            loss = forward(x)
            w.set_data(w * 0.5)
            return loss

        gw = msx.grad(fn, None, [w])(Tensor(XV))[0]
        close(gw, jax.grad(ref)(WV, BV, XV))
        assert is_concrete(w)
        np.testing.assert_allclose(arr(w), WV * 0.5)

    def test_random_state_is_concrete_after_grad(self):
        msx.set_seed(5)
        x = Tensor(np.ones(8, np.float32))
        msx.grad(lambda x: ops.sum(ops.dropout(x, 0.5)))(x)
        from msx import context

        assert is_concrete(context.rng_state())
        a = ops.rand(4).asnumpy()
        msx.set_seed(5)
        ops.dropout(x, 0.5)
        b = ops.rand(4).asnumpy()
        np.testing.assert_array_equal(a, b)  # the grad call advanced the RNG exactly like an eager call

    def test_weights_as_parameter_list_and_tuple(self, net):
        w, b, forward, _ = net
        g1 = msx.grad(forward, None, (w, b))(Tensor(XV))
        g2 = msx.grad(forward, None, [w, b])(Tensor(XV))
        close(g1[0], arr(g2[0]))


# --------------------------------------------------------------------------- numerics
def _finite_difference(f, x: np.ndarray, eps=1e-6) -> np.ndarray:
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


FD_FUNCS = [
    ("poly", lambda x: ops.sum(x ** 3 - 2 * x * x)),
    ("exp_log", lambda x: ops.sum(ops.exp(x) * ops.log(x * x + 1))),
    ("softmax_ce", lambda x: ops.cross_entropy(ops.reshape(x, (2, 3)), Tensor([2, 0]))),
    ("tanh_matmul", lambda x: ops.sum(ops.tanh(ops.matmul(ops.reshape(x, (2, 3)), ops.reshape(x, (3, 2)))))),
    ("norm_div", lambda x: ops.norm(x) / (ops.sum(ops.sigmoid(x)) + 1)),
    ("indexing", lambda x: ops.sum(x[1:] * x[:-1]) + x[0] ** 2),
]


@pytest.mark.parametrize("name,f", FD_FUNCS, ids=[n for n, _ in FD_FUNCS])
def test_finite_differences_float64(name, f):
    x0 = np.array([0.3, -0.7, 1.1, 0.5, -1.3, 0.9], np.float64)
    g = msx.grad(f)(Tensor(x0))
    assert g.dtype == msx.float64

    compiled = jax.jit(lambda v: f(Tensor(v))._data)  # msx ops trace under jax.jit: one compile, many evaluations

    def scalar(v):
        return float(compiled(v))

    np.testing.assert_allclose(arr(g), _finite_difference(scalar, x0), rtol=1e-6, atol=1e-8)


def test_nested_grad():
    def cube(x):
        return x ** 3

    x = Tensor(np.array(1.5, np.float64))
    d1 = msx.grad(cube)
    d2 = msx.grad(d1)
    d3 = msx.grad(d2)
    assert float(d1(x)) == pytest.approx(3 * 1.5 ** 2)
    assert float(d2(x)) == pytest.approx(6 * 1.5)
    assert float(d3(x)) == pytest.approx(6.0)
    xs = Tensor(np.array([1.0, -2.0, 0.5], np.float64))
    np.testing.assert_allclose(arr(d2(xs)), 6 * xs.asnumpy())


def test_nested_grad_with_weights_and_state():
    w = Parameter(Tensor(np.array([2.0], np.float64)), name="w")
    log = Parameter(Tensor(np.zeros(1, np.float64)), name="log", requires_grad=False)

    def inner(x):
        log.set_data(x * w)
        return ops.sum(w * x ** 3)

    def outer(x):
        return ops.sum(msx.grad(inner)(x))  # 3 w x^2

    g = msx.grad(outer, 0, [w])(Tensor(np.array([1.5], np.float64)))
    np.testing.assert_allclose(arr(g[0]), [6 * 2.0 * 1.5])  # d/dx 3 w x^2
    np.testing.assert_allclose(arr(g[1][0]), [3 * 1.5 ** 2])  # d/dw 3 w x^2
    assert is_concrete(log) and is_concrete(w)
    np.testing.assert_allclose(arr(log), [3.0])


def test_stop_gradient_blocks():
    g = msx.grad(lambda x: ops.sum(x * ops.stop_gradient(x * 2)))(Tensor(XV))
    close(g, 2 * XV)


def test_grad_under_jax_jit():
    def f(x):
        return msx.grad(lambda t: ops.sum(t ** 2))(x)

    out = jax.jit(f)(Tensor(XV))
    close(out, 2 * XV)


def test_grad_of_tensor_methods_and_operators(xy):
    def f(x, y):
        z = (x @ y) + (x * 2 - y / 4).sum() + x.abs().mean() + (x ** 2).max()
        return z + x.exp().sum() + x[1:].reshape(1, 2).transpose().squeeze().sum()

    def ref(x, y):
        z = (x @ y) + (x * 2 - y / 4).sum() + jnp.abs(x).mean() + (x ** 2).max()
        return z + jnp.exp(x).sum() + x[1:].sum()

    g = msx.grad(f, (0, 1))(*xy)
    want = jax.grad(ref, (0, 1))(XV, YV)
    close(g[0], want[0], rtol=1e-5)
    close(g[1], want[1], rtol=1e-5)


def test_grad_return_ids_pairs_each_gradient_with_its_position_or_parameter_name_as_mindspore():
    # the structures below are what MindSpore 2.10 returns for the same calls (recorded in its venv)
    msx.set_seed(0)
    net = msx.nn.Dense(3, 2)
    x, y = msx.Tensor(np.ones((1, 3), np.float32)), msx.Tensor(np.full((1, 3), 2.0, np.float32))

    def f(x, y):
        return (net(x) * y[:, :2]).sum()

    def shape(o):
        return tuple(shape(i) for i in o) if isinstance(o, tuple) else (o.shape if isinstance(o, msx.Tensor) else o)

    w = net.trainable_params()
    assert shape(msx.grad(f, 0, return_ids=True)(x, y)) == (0, (1, 3))
    assert shape(msx.grad(f, (0, 1), return_ids=True)(x, y)) == ((0, (1, 3)), (1, (1, 3)))
    assert shape(msx.grad(f, None, w, return_ids=True)(x, y)) == (("weight", (2, 3)), ("bias", (2,)))
    both = msx.grad(f, (0, 1), w, return_ids=True)(x, y)
    assert shape(both) == (((0, (1, 3)), (1, (1, 3))), (("weight", (2, 3)), ("bias", (2,))))
    plain = msx.grad(f, (0, 1), w)(x, y)
    np.testing.assert_array_equal(msx.get_grad(both, 1).asnumpy(), plain[0][1].asnumpy())
    np.testing.assert_array_equal(msx.get_grad(both, net.weight).asnumpy(), plain[1][0].asnumpy())
    with pytest.raises(msx.errors.GradError, match="position or Parameter 5"):
        msx.get_grad(both, 5)
    grads, aux = msx.grad(lambda x, y: (f(x, y), x.sum()), 0, has_aux=True, return_ids=True)(x, y)
    assert shape(grads) == (0, (1, 3)) and len(aux) == 1
