"""MindSpore 2.10 parameters msx once lacked, misnamed or defaulted differently (found by
`test_op_surface.py::test_defaults_are_mindspores`), each checked against MindSpore's own answer (recorded in
the MindSpore venv; the numbers are written here so the suite needs no MindSpore)."""
import warnings

import numpy as np
import pytest

import msx as ms
from msx import Tensor, nn, ops
from msx.errors import OpTypeError

X = Tensor(np.array([1.0, 2.0], np.float32))
Y = Tensor(np.array([3.0, 4.0], np.float32))


def pair(x, y):
    return x * y, x + y


def test_grad_with_sens_param_takes_the_outputs_cotangent_last():
    sens = (Tensor(np.array([1.0, 10.0], np.float32)), Tensor(np.array([100.0, 1000.0], np.float32)))
    gx, gy = ms.grad(pair, (0, 1), sens_param=True)(X, Y, sens)
    np.testing.assert_allclose(gx.asnumpy(), [103.0, 1040.0])   # MindSpore 2.10
    np.testing.assert_allclose(gy.asnumpy(), [101.0, 1020.0])
    (_, _), g = ms.value_and_grad(pair, 0, sens_param=True)(X, Y, sens)
    np.testing.assert_allclose(g.asnumpy(), [103.0, 1040.0])
    jitted = ms.jit(lambda x, y, s0, s1: ms.grad(pair, (0, 1), sens_param=True)(x, y, (s0, s1)))
    np.testing.assert_allclose(jitted(X, Y, *sens)[0].asnumpy(), [103.0, 1040.0])


def test_value_and_grad_sens_param_with_aux_weighs_the_first_output_only():
    (_, _), g = ms.value_and_grad(pair, 0, has_aux=True, sens_param=True)(X, Y, Tensor(np.array([1.0, 10.0],
                                                                                                np.float32)))
    np.testing.assert_allclose(g.asnumpy(), [3.0, 40.0])          # MindSpore 2.10


def test_value_and_grad_return_ids_pairs_the_gradient_with_its_position():
    value, (position, g) = ms.value_and_grad(lambda x: (x * x).sum(), 0, return_ids=True)(X)
    assert position == 0 and float(value.asnumpy()) == 5.0
    np.testing.assert_allclose(g.asnumpy(), [2.0, 4.0])


def test_sens_param_without_the_sensitivity_names_the_function():
    def f(x):
        return x * 2

    with pytest.raises(ms.errors.GradError, match=r"sens_param=True\) of f"):
        ms.value_and_grad(f, None, [ms.Parameter(X, name="w")], sens_param=True)()


def test_train_one_step_cell_return_grad_gives_the_gradients_by_parameter_name():
    net = nn.Dense(3, 2, weight_init=Tensor(np.array([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]], np.float32)),
                   bias_init="zeros")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1),
                               return_grad=True)
    loss, grads = step(Tensor(np.array([[1.0, 2.0, 3.0]], np.float32)), Tensor(np.array([[0.0, 1.0]], np.float32)))
    # MindSpore 2.10's answer for the same step
    np.testing.assert_allclose(float(loss.asnumpy()), 1.16, rtol=1e-6)
    assert sorted(grads) == ["bias", "weight"]
    np.testing.assert_allclose(grads["weight"].asnumpy(), [[0.6, 1.2, 1.8], [-1.4, -2.8, -4.2]], rtol=1e-6)
    np.testing.assert_allclose(grads["bias"].asnumpy(), [0.6, -1.4], rtol=1e-6)
    np.testing.assert_allclose(net.weight.asnumpy(), [[0.04, -0.32, 0.12], [0.54, 0.78, -0.18]], rtol=1e-5)


@pytest.mark.parametrize("on,off,dtype", [(1, 0, ms.int64), (1.0, 0.0, ms.float32),
                                           (Tensor(np.float16(1)), Tensor(np.float16(0)), ms.float16),
                                           (Tensor(np.int32(1)), Tensor(np.int32(0)), ms.int32)])
def test_one_hot_has_the_dtype_of_its_on_and_off_values(on, off, dtype):
    """MindSpore 2.10: `ops.one_hot(i, 3)` is int64 (the defaults are the ints 1 and 0), floats give float32,
    Tensors their own dtype; eager and jit alike."""
    i = Tensor(np.array([0, 2, 7], np.int32))
    expected = np.array([[1, 0, 0], [0, 0, 1], [0, 0, 0]])
    for out in (ops.one_hot(i, 3, on, off), ms.jit(lambda i: ops.one_hot(i, 3, on, off))(i)):
        assert out.dtype == dtype
        np.testing.assert_array_equal(out.asnumpy(), expected)
    assert ops.one_hot(i, 3).dtype == ms.int64


def test_one_hot_refuses_on_and_off_values_of_different_types():
    with pytest.raises(OpTypeError, match="same dtype, got int64 \\(1\\) and float32 \\(0.5\\)"):
        ops.one_hot(Tensor(np.array([0], np.int32)), 3, 1, 0.5)


def test_avg_pool2d_divisor_override_zero_is_mindspores_default():
    x = Tensor(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4))
    np.testing.assert_allclose(ops.avg_pool2d(x, 2, 2, divisor_override=0).asnumpy(), [[[[2.5, 4.5], [10.5, 12.5]]]])
    np.testing.assert_allclose(ops.avg_pool2d(x, 2, 2, divisor_override=2).asnumpy(), [[[[5.0, 9.0], [21.0, 25.0]]]])


def test_addcdiv_and_addcmul_default_value_to_one():
    np.testing.assert_allclose(ops.addcdiv(X, X, Y).asnumpy(), [1 + 1 / 3, 2.5])
    np.testing.assert_allclose(ops.addcmul(X, X, Y).asnumpy(), [4.0, 10.0])
    np.testing.assert_allclose(X.addcmul(X, Y, value=2).asnumpy(), [7.0, 18.0])


def test_layer_arguments_by_mindspores_names():
    np.testing.assert_allclose(nn.ELU(alpha=0.5)(Tensor(np.array([-1.0, 2.0], np.float32))).asnumpy(),
                               [0.5 * (np.exp(-1.0) - 1), 2.0], rtol=1e-6)
    assert nn.GradAccumulationCell(nn.Dense(2, 1), micro_size=2).micro_size == 2
    assert nn.Dropout().p == 0.5 and nn.Dropout(keep_prob=0.8).p == pytest.approx(0.2)
    assert nn.Embedding(4, 3).dtype == ms.float32
    with pytest.raises(TypeError, match="dtype must be a number type"):
        nn.Embedding(4, 3, dtype=ms.bool_)


def test_dropout_dtype_warns_as_mindspore_does():
    with pytest.warns(UserWarning, match="Dropout: dtype=Float16 is not honoured"):
        nn.Dropout(dtype=ms.float16)


def test_parameter_takes_mindspores_placement_arguments():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p = ms.Parameter(X, name="w", parallel_optimizer=False)   # honoured (tests/test_zero.py), so no warning
    assert p.parallel_optimizer is False
    with pytest.warns(UserWarning, match="storage_format='FRACTAL_NZ' is not honoured"):
        ms.Parameter(X, name="v", storage_format="FRACTAL_NZ")


def test_graph_cell_refuses_structure_obfuscation_as_mindspore_does():
    with pytest.raises(ValueError, match="obf_random_seed=3 is not supported by msx"):
        nn.GraphCell(None, None, 3)


def test_get_context_takes_attr_key():
    assert ms.get_context(attr_key="mode") == ms.get_context("mode")
