"""`set_context`/`get_context`/`set_seed` validation, and op errors that name the op, shapes and reason."""
from __future__ import annotations

import numpy as np
import pytest

import msx
from msx import Tensor, context, ops
from msx.errors import ContextError, MsxError, OpError

KEYS = ("mode", "device_target", "save_graphs", "save_graphs_path", "jit_level")


@pytest.fixture(autouse=True)
def restore_context():
    saved = dict(context._context)
    yield
    context._context.clear()
    context._context.update(saved)


# --------------------------------------------------------------------------- context
class TestContext:
    def test_mode_constants(self):
        assert msx.PYNATIVE_MODE == 1 and msx.GRAPH_MODE == 0
        assert msx.PYNATIVE_MODE != msx.GRAPH_MODE

    def test_defaults(self):
        assert msx.get_context("mode") == msx.PYNATIVE_MODE
        assert msx.get_context("device_target") == "CPU"
        assert msx.get_context("jit_level") == "O0"
        assert msx.get_context("save_graphs") is False
        assert isinstance(msx.get_context("save_graphs_path"), str)

    @pytest.mark.parametrize("key,value", [
        ("mode", msx.GRAPH_MODE), ("mode", msx.PYNATIVE_MODE), ("device_target", "GPU"), ("device_target", "Ascend"),
        ("save_graphs", True), ("save_graphs", 2), ("save_graphs_path", "/tmp/graphs"), ("jit_level", "O1"),
        ("device_id", 1),
    ])
    def test_set_and_get(self, key, value):
        msx.set_context(**{key: value})
        assert msx.get_context(key) == value

    def test_several_keys_at_once(self):
        msx.set_context(mode=msx.GRAPH_MODE, device_target="CPU", jit_level="O1", save_graphs=False)
        assert msx.get_context("mode") == msx.GRAPH_MODE and msx.get_context("jit_level") == "O1"

    def test_unknown_key_lists_valid_keys(self):
        with pytest.raises(ValueError) as info:
            msx.set_context(moed=msx.GRAPH_MODE)
        text = str(info.value)
        assert "moed" in text
        for key in KEYS:
            assert key in text
        with pytest.raises(ValueError, match="device_target"):
            msx.get_context("no_such_key")

    @pytest.mark.parametrize("key,value,shown", [
        ("mode", 5, "PYNATIVE_MODE"), ("mode", "GRAPH_MODE", "GRAPH_MODE"), ("mode", 1.0, "PYNATIVE_MODE"),
        ("device_target", "cpu", "'CPU'"), ("device_target", "NPU", "'Ascend'"),
        ("jit_level", "O3", "'O0'"), ("save_graphs", "yes", "True"),
    ])
    def test_bad_value_lists_valid_values(self, key, value, shown):
        with pytest.raises(ValueError) as info:
            msx.set_context(**{key: value})
        text = str(info.value)
        assert key in text and repr(value) in text and shown in text

    @pytest.mark.parametrize("key,value", [("save_graphs_path", 3), ("device_id", -1), ("device_id", "0"),
                                           ("device_id", True)])
    def test_bad_typed_values(self, key, value):
        with pytest.raises(ValueError, match=key):
            msx.set_context(**{key: value})

    def test_a_bad_call_changes_nothing(self):
        before = {k: msx.get_context(k) for k in KEYS}
        with pytest.raises(ValueError):
            msx.set_context(mode=msx.GRAPH_MODE, jit_level="O1", device_target="Quantum")
        with pytest.raises(ValueError):
            msx.set_context(jit_level="O1", bogus=1)
        assert {k: msx.get_context(k) for k in KEYS} == before

    def test_context_errors_are_msx_errors(self):
        with pytest.raises(ContextError) as info:
            msx.set_context(mode=7)
        assert isinstance(info.value, MsxError) and isinstance(info.value, ValueError)
        assert str(info.value).startswith("[context]")


class TestSeed:
    def teardown_method(self):
        msx.set_seed(0)

    def test_set_seed_and_get_seed(self):
        msx.set_seed(42)
        assert msx.get_seed() == 42
        msx.set_seed(0)
        assert msx.get_seed() == 0

    @pytest.mark.parametrize("bad", [-1, 1.5, "3", None, True])
    def test_set_seed_validation(self, bad):
        msx.set_seed(3)
        with pytest.raises((ValueError, TypeError), match="seed"):
            msx.set_seed(bad)
        assert msx.get_seed() == 3

    def test_set_seed_also_seeds_numpy(self):
        msx.set_seed(9)
        a = np.random.rand(3)
        msx.set_seed(9)
        np.testing.assert_array_equal(a, np.random.rand(3))

    def test_set_seed_resets_the_msx_stream(self):
        msx.set_seed(9)
        a = ops.rand(5).asnumpy()
        ops.rand(5)
        msx.set_seed(9)
        np.testing.assert_array_equal(a, ops.rand(5).asnumpy())


# --------------------------------------------------------------------------- op errors
def _both(exc_info, builtin):
    err = exc_info.value
    assert isinstance(err, MsxError), f"{type(err).__name__} is not an MsxError"
    assert isinstance(err, builtin), f"{type(err).__name__} is not a {builtin.__name__}"
    return str(err)


def f32(*shape):
    return Tensor(np.ones(shape, np.float32))


class TestOpErrors:
    def test_matmul_contracting_dims(self):
        with pytest.raises(ValueError) as info:
            ops.matmul(f32(2, 5), f32(4, 3))
        text = _both(info, ValueError)
        assert "MatMul" in text and "(2, 5)" in text and "(4, 3)" in text
        assert "5" in text and "4" in text

    def test_matmul_operator_and_class_say_matmul_too(self):
        with pytest.raises(OpError, match=r"MatMul.*\(2, 5\).*\(4, 3\)"):
            f32(2, 5) @ f32(4, 3)
        with pytest.raises(OpError, match="MatMul"):
            ops.MatMul(transpose_b=True)(f32(2, 5), f32(3, 4))

    def test_reshape_size_mismatch(self):
        with pytest.raises(ValueError) as info:
            ops.reshape(f32(6), (4,))
        text = _both(info, ValueError)
        assert "Reshape" in text and "6 elements" in text and "(4,)" in text
        with pytest.raises(OpError, match=r"Reshape.*\(2, 3\).*\(4, 2\)"):
            f32(2, 3).reshape(4, 2)

    def test_reshape_two_unknown_dims(self):
        with pytest.raises(OpError, match="-1"):
            ops.reshape(f32(6), (-1, -1))

    def test_add_broadcast_mismatch_names_both_shapes(self):
        with pytest.raises(ValueError) as info:
            ops.add(f32(2, 3), f32(4))
        text = _both(info, ValueError)
        assert "Add" in text and "(2, 3)" in text and "(4,)" in text and "broadcast" in text
        with pytest.raises(OpError, match=r"Mul.*\(3,\).*\(2,\)"):
            f32(3) * f32(2)
        with pytest.raises(OpError, match=r"Sub.*\(3,\).*\(2,\)"):
            np.ones(2, np.float32) - f32(3)  # reflected: names the tensors in op order

    def test_conv2d_channel_mismatch(self):
        with pytest.raises(ValueError) as info:
            ops.conv2d(f32(1, 3, 8, 8), f32(4, 2, 3, 3))
        text = _both(info, ValueError)
        assert "Conv2D" in text and "channels" in text and "3" in text and "(1, 3, 8, 8)" in text
        assert "(4, 2, 3, 3)" in text

    def test_conv2d_rank(self):
        with pytest.raises(OpError, match=r"Conv2D.*4-D.*\(3, 8, 8\)"):
            ops.conv2d(f32(3, 8, 8), f32(4, 3, 3, 3))

    def test_reduction_axis_out_of_range(self):
        with pytest.raises(OpError, match=r"ReduceSum.*axis 2.*rank 2"):
            ops.sum(f32(2, 3), 2)
        with pytest.raises(OpError, match=r"Softmax.*axis 3"):
            ops.softmax(f32(2, 3), 3)

    def test_loss_shape_mismatch(self):
        with pytest.raises(OpError, match=r"L1Loss.*\(2, 3\).*\(3, 2\)"):
            ops.l1_loss(f32(2, 3), f32(3, 2))
        with pytest.raises(OpError, match=r"CrossEntropy.*\(4,\).*\(3, 5\)"):
            ops.cross_entropy(f32(3, 5), Tensor(np.zeros(4, np.int64)))

    def test_bad_argument_values(self):
        with pytest.raises(ValueError, match="reduction"):
            ops.l1_loss(f32(2), f32(2), reduction="avg")
        with pytest.raises(ValueError, match="pad_mode"):
            ops.conv2d(f32(1, 1, 4, 4), f32(1, 1, 3, 3), pad_mode="full")
        with pytest.raises(ValueError, match="approximate"):
            ops.gelu(f32(2), approximate="fast")
        with pytest.raises(ValueError, match="rounding_mode"):
            ops.div(f32(2), f32(2), rounding_mode="ceil")

    def test_dtype_errors_are_type_errors(self):
        with pytest.raises(TypeError) as info:
            ops.cast(f32(2), "not_a_dtype")
        text = _both(info, TypeError)
        assert "not_a_dtype" in text and "float32" in text  # names the bad dtype and the valid ones
        with pytest.raises(TypeError) as info:
            ops.ones((2,), dtype="float128")
        _both(info, TypeError)

    def test_error_renders_stage_and_user_line(self):
        with pytest.raises(OpError) as info:
            ops.matmul(f32(2, 5), f32(4, 3))  # this line
        text = str(info.value)
        assert text.startswith("[")
        if info.value.loc is not None:  # the error points at the user's line, not msx internals
            assert info.value.loc.file == __file__
            assert "ops.matmul" in text

    def test_errors_inside_grad_name_the_op(self):
        def f(x):
            return ops.sum(ops.matmul(x, f32(4, 3)))

        with pytest.raises(OpError, match=r"MatMul.*\(2, 5\).*\(4, 3\)"):
            msx.grad(f)(f32(2, 5))

    def test_no_error_after_failure(self):
        with pytest.raises(OpError):
            ops.add(f32(2, 3), f32(4))
        np.testing.assert_array_equal(ops.add(f32(2, 3), f32(3)).asnumpy(), np.full((2, 3), 2.0))
