"""`msx.Tensor` and `msx.Parameter`: construction, dtypes, methods, operators, indexing, interop."""
from __future__ import annotations

import copy
import operator

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import msx
from msx import Parameter, Tensor

X = np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5  # no zeros, mixed signs
Y = np.array([[0.5, -1.5, 2.0], [3.0, 1.25, -0.75]], np.float32)


def arr(t):
    assert isinstance(t, Tensor), f"expected a Tensor, got {type(t).__name__}"
    return t.asnumpy()


# --------------------------------------------------------------------------- construction and dtypes
class TestConstruction:
    def test_python_defaults_follow_mindspore(self):
        assert Tensor([1.0, 2.0]).dtype == msx.float32
        assert Tensor(3.5).dtype == msx.float32
        assert Tensor([1, 2]).dtype == msx.int64
        assert Tensor(7).dtype == msx.int64
        assert Tensor([True, False]).dtype == msx.bool_
        assert Tensor([1, 2.5]).dtype == msx.float32  # mixed -> float

    def test_from_list_values_and_shape(self):
        t = Tensor([[1, 2, 3], [4, 5, 6]])
        assert t.shape == (2, 3) and t.ndim == 2 and t.size == 6
        np.testing.assert_array_equal(arr(t), [[1, 2, 3], [4, 5, 6]])
        assert isinstance(t.shape, tuple) and isinstance(t.size, int)

    def test_scalar(self):
        t = Tensor(2.0)
        assert t.shape == () and t.ndim == 0 and t.size == 1

    @pytest.mark.parametrize("dtype,np_dtype", [(msx.float16, np.float16), (msx.float32, np.float32),
                                                (msx.float64, np.float64), (msx.int8, np.int8),
                                                (msx.int16, np.int16), (msx.int32, np.int32),
                                                (msx.int64, np.int64), (msx.uint8, np.uint8),
                                                (msx.bool_, np.bool_), (msx.bfloat16, jnp.bfloat16)])
    def test_explicit_dtype(self, dtype, np_dtype):
        t = Tensor([0, 1, 1], dtype=dtype)
        assert t.dtype == dtype
        assert t.asnumpy().dtype == np.dtype(np_dtype)

    def test_numpy_keeps_its_dtype(self):
        assert Tensor(np.zeros(3, np.float64)).dtype == msx.float64
        assert Tensor(np.zeros(3, np.int32)).dtype == msx.int32
        assert Tensor(np.zeros(3, np.float16)).dtype == msx.float16
        t = Tensor(np.arange(4.0), dtype=msx.float32)
        assert t.dtype == msx.float32
        np.testing.assert_array_equal(arr(t), [0, 1, 2, 3])

    def test_numpy_scalars_keep_their_dtype(self):
        assert Tensor(np.float64(1.5)).dtype == msx.float64
        assert Tensor(np.int32(3)).dtype == msx.int32
        assert Tensor(np.float32(2)).shape == ()

    def test_from_numpy_and_jax(self):
        a = np.arange(6, dtype=np.int32).reshape(2, 3)
        t = msx.from_numpy(a)
        assert t.dtype == msx.int32 and t.shape == (2, 3)
        j = jnp.arange(4, dtype=jnp.float32)
        t = Tensor(j)
        assert t.dtype == msx.float32
        np.testing.assert_array_equal(arr(t), [0, 1, 2, 3])
        assert Tensor(j, dtype=msx.float16).dtype == msx.float16

    def test_from_tensor_and_list_of_tensors(self):
        t = Tensor(Tensor([1.0, 2.0]), dtype=msx.float64)
        assert t.dtype == msx.float64
        t = Tensor([Tensor(1.0), Tensor(2.0)])
        np.testing.assert_array_equal(arr(t), [1.0, 2.0])

    def test_shape_argument(self):
        t = Tensor([1, 2, 3, 4, 5, 6], shape=(2, 3))
        assert t.shape == (2, 3)
        np.testing.assert_array_equal(arr(t)[1], [4, 5, 6])
        z = Tensor(shape=(2, 2), dtype=msx.int32)
        assert z.shape == (2, 2) and z.dtype == msx.int32
        with pytest.raises(ValueError, match="shape"):
            Tensor([1, 2, 3], shape=(2, 2))

    def test_placeholder(self):
        p = Tensor(shape=[None, 4], dtype=msx.float32)
        assert p.is_placeholder() and p.shape == (None, 4) and p.dtype == msx.float32
        assert "placeholder" in repr(p)

    def test_other_numpy_dtypes(self):
        assert Tensor(np.zeros(2, np.uint16)).dtype == msx.dtype.uint16
        assert Tensor(np.zeros(2, np.uint64)).dtype == np.uint64
        import ml_dtypes

        assert Tensor(np.zeros(2, ml_dtypes.float8_e4m3fn)).dtype == msx.float8_e4m3fn  # MindSpore 2.x has it
        with pytest.raises(TypeError, match="unsupported dtype"):
            Tensor(np.zeros(2, ml_dtypes.float8_e4m3b11fnuz))

    def test_bad_inputs(self):
        with pytest.raises(ValueError):
            Tensor([[1, 2], [3]])
        with pytest.raises(TypeError):
            Tensor(["a", object()])
        with pytest.raises(ValueError):
            Tensor()
        with pytest.raises(TypeError):
            Tensor([1], dtype="not-a-dtype")


class TestDtypes:
    def test_equality_forms(self):
        t = Tensor([1.0])
        assert t.dtype == msx.float32
        assert t.dtype == jnp.float32
        assert t.dtype == np.float32
        assert t.dtype == "float32"
        assert t.dtype == np.dtype("float32")
        assert t.dtype != msx.float16 and t.dtype != np.float64 and t.dtype != msx.int32

    def test_not_equal_to_non_dtypes(self):
        assert msx.float64 != None  # noqa: E711  (np.dtype(None) is float64: must not leak through)
        assert not (msx.float64 == None)  # noqa: E711
        assert msx.float32 != "no such dtype"
        assert msx.float32 != object()

    def test_names_and_namespace(self):
        assert str(msx.float32) == "Float32" and repr(msx.int64) == "Int64" and str(msx.bool_) == "Bool"
        assert str(msx.uint8) == "UInt8" and str(msx.bfloat16) == "BFloat16" and str(msx.float16) == "Float16"
        assert msx.dtype.float32 is msx.float32
        assert msx.float32.is_floating and not msx.int32.is_floating
        assert len({msx.float32, msx.dtype.float32, msx.float_}) == 1  # hashable, consistent with ==

    def test_asnumpy(self):
        a = Tensor(X).asnumpy()
        assert isinstance(a, np.ndarray) and a.dtype == np.float32
        np.testing.assert_array_equal(a, X)
        assert Tensor([1, 2]).asnumpy().dtype == np.int64

    @pytest.mark.parametrize("target", [msx.float16, msx.float64, msx.int32, msx.bool_, "int64", np.float32])
    def test_astype(self, target):
        t = Tensor(X).astype(target)
        assert isinstance(t, Tensor) and t.dtype == target
        np.testing.assert_array_equal(arr(t), X.astype(msx.dtype.to_np(target)))

    def test_astype_truncates_toward_zero(self):
        np.testing.assert_array_equal(arr(Tensor([-1.7, 1.7]).astype(msx.int32)), [-1, 1])


# --------------------------------------------------------------------------- methods
class TestMethods:
    def setup_method(self):
        self.t = Tensor(X)
        self.a = Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))

    def test_properties(self):
        assert self.a.shape == (2, 3, 4) and self.a.ndim == 3 and self.a.size == 24
        assert self.a.dtype == msx.float32

    def test_reshape_and_view(self):
        for r in (self.a.reshape(6, 4), self.a.reshape((6, 4)), self.a.reshape(-1, 4), self.a.view(6, 4),
                  self.a.view((6, -1))):
            assert r.shape == (6, 4)
            np.testing.assert_array_equal(arr(r), np.arange(24).reshape(6, 4))

    def test_transpose(self):
        np.testing.assert_array_equal(arr(self.t.transpose()), X.T)
        np.testing.assert_array_equal(arr(self.a.transpose(1, 0, 2)), arr(self.a).transpose(1, 0, 2))
        np.testing.assert_array_equal(arr(self.a.transpose((2, 0, 1))), arr(self.a).transpose(2, 0, 1))

    def test_sum_mean(self):
        assert float(self.t.sum()) == pytest.approx(X.sum())
        np.testing.assert_allclose(arr(self.t.sum(1)), X.sum(1))
        np.testing.assert_allclose(arr(self.t.sum(axis=0, keepdims=True)), X.sum(0, keepdims=True))
        np.testing.assert_allclose(arr(self.a.sum((0, 2))), arr(self.a).sum((0, 2)))
        assert float(self.t.mean()) == pytest.approx(X.mean())
        np.testing.assert_allclose(arr(self.t.mean(0)), X.mean(0))
        np.testing.assert_allclose(arr(self.t.mean(1, keep_dims=True)), X.mean(1, keepdims=True))

    def test_max_min(self):
        assert float(self.t.max()) == X.max() and float(self.t.min()) == X.min()
        np.testing.assert_array_equal(arr(self.t.max(axis=0)), X.max(0))
        np.testing.assert_array_equal(arr(self.t.min(1, keepdims=True)), X.min(1, keepdims=True))
        values, indices = self.t.max(axis=1, return_indices=True)
        np.testing.assert_array_equal(arr(values), X.max(1))
        np.testing.assert_array_equal(arr(indices), X.argmax(1))

    def test_elementwise_methods(self):
        p = Tensor(np.abs(X))
        np.testing.assert_allclose(arr(self.t.abs()), np.abs(X))
        np.testing.assert_allclose(arr(self.t.exp()), np.exp(X), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(arr(p.log()), np.log(np.abs(X)), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(arr(p.sqrt()), np.sqrt(np.abs(X)), rtol=1e-5, atol=1e-6)

    def test_squeeze_expand_dims(self):
        s = Tensor(np.zeros((1, 3, 1), np.float32))
        assert s.squeeze().shape == (3,)
        assert s.squeeze(0).shape == (3, 1)
        assert s.squeeze(2).shape == (1, 3)
        assert self.t.expand_dims(0).shape == (1, 2, 3)
        assert self.t.expand_dims(-1).shape == (2, 3, 1)
        assert self.t.expand_dims(1).shape == (2, 1, 3)

    def test_flatten_flattens_everything(self):
        assert self.a.flatten().shape == (24,)
        np.testing.assert_array_equal(arr(self.a.flatten()), np.arange(24))
        assert self.a.flatten(start_dim=1).shape == (2, 12)
        assert Tensor(5.0).flatten().shape == (1,)

    def test_methods_do_not_mutate(self):
        before = arr(self.t).copy()
        self.t.reshape(3, 2)
        self.t.abs()
        self.t.astype(msx.int32)
        np.testing.assert_array_equal(arr(self.t), before)
        assert self.t.shape == (2, 3)


# --------------------------------------------------------------------------- operators
BINARY = [
    ("add", operator.add), ("sub", operator.sub), ("mul", operator.mul), ("truediv", operator.truediv),
    ("floordiv", operator.floordiv), ("mod", operator.mod), ("pow", operator.pow),
    ("lt", operator.lt), ("le", operator.le), ("gt", operator.gt), ("ge", operator.ge),
    ("eq", operator.eq), ("ne", operator.ne),
]


class TestOperators:
    @pytest.mark.parametrize("name,op", BINARY, ids=[b[0] for b in BINARY])
    def test_tensor_tensor(self, name, op):
        x, y = (np.abs(X), Y) if name == "pow" else (X, Y)
        out = op(Tensor(x), Tensor(y))
        want = op(x, y)
        assert out.dtype == want.dtype
        np.testing.assert_allclose(arr(out), want, rtol=1e-5, atol=1e-6)

    @pytest.mark.parametrize("name,op", BINARY, ids=[b[0] for b in BINARY])
    @pytest.mark.parametrize("scalar", [2, 1.5])
    def test_with_python_scalar_both_sides(self, name, op, scalar):
        x = np.abs(X) if name == "pow" else X
        out = op(Tensor(x), scalar)
        np.testing.assert_allclose(arr(out), op(x, np.float32(scalar)), rtol=1e-5, atol=1e-6)
        assert out.dtype in (msx.float32, msx.bool_)  # a Python scalar does not promote float32
        rout = op(scalar, Tensor(x))
        assert isinstance(rout, Tensor), f"reflected {name} with a Python scalar did not give a Tensor"
        np.testing.assert_allclose(arr(rout), op(np.float32(scalar), x), rtol=1e-5, atol=1e-6)

    @pytest.mark.parametrize("name,op", BINARY, ids=[b[0] for b in BINARY])
    def test_with_numpy_array_both_sides(self, name, op):
        x, y = (np.abs(X), np.abs(Y)) if name == "pow" else (X, Y)
        out = op(Tensor(x), y)
        assert isinstance(out, Tensor)
        np.testing.assert_allclose(arr(out), op(x, y), rtol=1e-5, atol=1e-6)
        rout = op(y, Tensor(x))  # numpy defers to Tensor's reflected operator
        assert isinstance(rout, Tensor), f"numpy {name} Tensor gave {type(rout).__name__}"
        np.testing.assert_allclose(arr(rout), op(y, x), rtol=1e-5, atol=1e-6)

    def test_int_tensor_with_float_scalar_promotes(self):
        out = Tensor([1, 2]) * 1.5
        assert out.dtype.is_floating
        np.testing.assert_allclose(arr(out), [1.5, 3.0])
        assert (Tensor([1, 2]) + 1).dtype == msx.int64

    def test_unary(self):
        t = Tensor(X)
        np.testing.assert_array_equal(arr(-t), -X)
        np.testing.assert_array_equal(arr(abs(t)), np.abs(X))
        assert +t is t or np.array_equal(arr(+t), X)
        b = Tensor([True, False])
        np.testing.assert_array_equal(arr(~b), [False, True])

    def test_logical_operators(self):
        a, b = Tensor([True, True, False]), Tensor([True, False, False])
        np.testing.assert_array_equal(arr(a & b), [True, False, False])
        np.testing.assert_array_equal(arr(a | b), [True, True, False])
        np.testing.assert_array_equal(arr(a ^ b), [False, True, False])

    def test_matmul(self):
        w = np.arange(12, dtype=np.float32).reshape(3, 4)
        np.testing.assert_allclose(arr(Tensor(X) @ Tensor(w)), X @ w)
        np.testing.assert_allclose(arr(Tensor(X) @ w), X @ w)
        out = X @ Tensor(w)
        assert isinstance(out, Tensor)
        np.testing.assert_allclose(arr(out), X @ w)
        v = np.ones(3, np.float32)
        np.testing.assert_allclose(arr(Tensor(X) @ Tensor(v)), X @ v)

    def test_comparison_with_none(self):
        t = Tensor([1.0])
        assert (t == None) is False  # noqa: E711  (MindSpore: a non-number compares unequal)
        assert (t != None) is True  # noqa: E711

    def test_broadcasting(self):
        out = Tensor(X) + Tensor(np.array([1.0, 2.0, 3.0], np.float32))
        np.testing.assert_array_equal(arr(out), X + [1, 2, 3])
        out = Tensor(X) * Tensor(np.array([[2.0], [3.0]], np.float32))
        np.testing.assert_array_equal(arr(out), X * [[2], [3]])


# --------------------------------------------------------------------------- indexing
class TestIndexing:
    def setup_method(self):
        self.base = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
        self.t = Tensor(self.base)

    @pytest.mark.parametrize("index", [
        0, -1, (1, 2), (1, 2, 3), slice(None), slice(1, None), (slice(None), slice(0, 3, 2)),
        (Ellipsis, 1), (None, 0), (0, None, Ellipsis), (slice(None), None, 1), (Ellipsis, None),
        (1, slice(None, None, -1)),
    ], ids=repr)
    def test_get_static(self, index):
        want = self.base[index]
        got = self.t[index]
        assert got.shape == want.shape
        np.testing.assert_array_equal(arr(got), want)

    def test_get_with_tensor_and_list_indices(self):
        idx = Tensor([1, 0, 1])
        np.testing.assert_array_equal(arr(self.t[idx]), self.base[[1, 0, 1]])
        np.testing.assert_array_equal(arr(self.t[:, Tensor([2, 0])]), self.base[:, [2, 0]])
        np.testing.assert_array_equal(arr(self.t[[0, 1], 1]), self.base[[0, 1], 1])
        np.testing.assert_array_equal(arr(self.t[np.array([1])]), self.base[[1]])
        np.testing.assert_array_equal(arr(self.t[Tensor(1)]), self.base[1])

    def test_out_of_range_is_a_clear_index_error(self):
        with pytest.raises(IndexError, match=r"index 5 is out of bounds for dim 0 of shape \(2, 3, 4\)"):
            self.t[5]
        with pytest.raises(IndexError, match="out of bounds for dim 1"):
            self.t[0, -4]
        with pytest.raises(IndexError, match="out of bounds"):
            self.t[1, 2, 4]
        with pytest.raises(IndexError, match="out of bounds for dim 2"):
            self.t[..., 4]
        with pytest.raises(IndexError, match="out of bounds for dim 1"):
            self.t[None, 0, ..., -4, 0]
        with pytest.raises(IndexError, match="SetItem"):
            self.t[2] = 0.0
        with pytest.raises(msx.errors.MsxError):
            self.t[0, 0, 0, 0]
        np.testing.assert_array_equal(arr(self.t), self.base)  # a failed set changes nothing

    def test_set_keeps_identity_and_changes_value(self):
        t = self.t
        alias = t
        t[0, 1, 2] = 100.0
        want = self.base.copy()
        want[0, 1, 2] = 100.0
        assert alias is t
        np.testing.assert_array_equal(arr(alias), want)

    @pytest.mark.parametrize("index,value", [
        (0, 1.0),
        (-1, -3.0),
        ((slice(None), 1), 7.0),
        ((slice(None), slice(1, 3), slice(None, None, 2)), -1.0),
        ((Ellipsis, 0), 5.0),
        ((1, Ellipsis, slice(2, None)), 9.0),
        ((None, 0), 4.0),
    ], ids=repr)
    def test_set_static(self, index, value):
        want = self.base.copy()
        want[index] = value
        t = Tensor(self.base)
        t[index] = value
        np.testing.assert_array_equal(arr(t), want)
        assert t.dtype == msx.float32

    def test_set_with_tensor_value_and_broadcast(self):
        t = Tensor(self.base)
        t[:, 0] = Tensor(np.array([1.0, 2.0, 3.0, 4.0], np.float32))
        want = self.base.copy()
        want[:, 0] = [1, 2, 3, 4]
        np.testing.assert_array_equal(arr(t), want)

    def test_set_with_tensor_index(self):
        t = Tensor(self.base)
        t[Tensor([1]), 2] = 0.0
        want = self.base.copy()
        want[[1], 2] = 0.0
        np.testing.assert_array_equal(arr(t), want)
        t[[0, 1], 0, 0] = Tensor([-1.0, -2.0])
        want[[0, 1], 0, 0] = [-1.0, -2.0]
        np.testing.assert_array_equal(arr(t), want)

    def test_set_casts_value_to_tensor_dtype(self):
        t = Tensor([1, 2, 3])
        t[1] = 7.9
        assert t.dtype == msx.int64
        np.testing.assert_array_equal(arr(t), [1, 7, 3])

    def test_set_does_not_touch_other_tensors(self):
        t = Tensor(self.base)
        view = t[0]
        other = Tensor(t)
        t[0] = 0.0
        np.testing.assert_array_equal(arr(view), self.base[0])
        np.testing.assert_array_equal(arr(other), self.base)

    def test_set_on_parameter_keeps_parameter(self):
        p = Parameter(Tensor(np.zeros(3, np.float32)), name="w")
        p[1] = 2.0
        assert isinstance(p, Parameter) and p.name == "w"
        np.testing.assert_array_equal(arr(p.value()), [0, 2, 0])

    def test_len_and_iter(self):
        assert len(self.t) == 2
        rows = list(self.t)
        assert len(rows) == 2 and rows[1].shape == (3, 4)
        np.testing.assert_array_equal(arr(rows[1]), self.base[1])
        with pytest.raises(TypeError):
            len(Tensor(1.0))


# --------------------------------------------------------------------------- conversions and repr
class TestConversions:
    def test_python_scalars(self):
        assert float(Tensor([2.5])) == 2.5 and isinstance(float(Tensor(2.5)), float)
        assert int(Tensor([[3]])) == 3 and isinstance(int(Tensor(3.9)), int) and int(Tensor(3.9)) == 3
        assert bool(Tensor([1])) is True and bool(Tensor(0.0)) is False
        assert Tensor(4).item() == 4
        assert [1, 2, 3][Tensor(1)] == 2  # __index__ on an int tensor

    @pytest.mark.parametrize("conv", [float, int, bool])
    def test_more_than_one_element_is_an_error(self, conv):
        with pytest.raises(ValueError, match=r"one element.*\(2, 3\)"):
            conv(Tensor(X))
        with pytest.raises(ValueError, match="one element"):
            conv(Tensor(np.zeros((0,), np.float32)))

    def test_repr_shows_values_shape_dtype(self):
        r = repr(Tensor([[1.5, 2.0], [3.0, 4.0]]))
        assert "Tensor(" in r and "shape=[2, 2]" in r and "dtype=Float32" in r
        assert "1.5" in r and "4." in r
        r = repr(Tensor([1, 2], dtype=msx.int32))
        assert "dtype=Int32" in r and "shape=[2]" in r
        assert "shape=[]" in repr(Tensor(3.0))
        assert "2.5" in str(Tensor(2.5))
        assert f"{Tensor(2.5):.2f}" == "2.50"

    def test_numpy_interop(self):
        t = Tensor(X)
        np.testing.assert_array_equal(np.asarray(t), X)
        assert np.asarray(t, dtype=np.float64).dtype == np.float64
        assert np.sum(np.asarray(t)) == pytest.approx(X.sum())

    def test_jax_interop(self):
        t = Tensor(X)
        j = jnp.asarray(t)
        assert isinstance(j, jax.Array) and j.dtype == jnp.float32
        np.testing.assert_array_equal(np.asarray(j), X)
        assert float(jnp.sum(jnp.asarray(t))) == pytest.approx(X.sum())

    def test_pytree_round_trip(self):
        t = Tensor(X)
        leaves, treedef = jax.tree_util.tree_flatten(t)
        assert len(leaves) == 1 and isinstance(leaves[0], jax.Array)
        back = jax.tree_util.tree_unflatten(treedef, leaves)
        assert isinstance(back, Tensor)
        np.testing.assert_array_equal(arr(back), X)
        doubled = jax.tree_util.tree_map(lambda a: a * 2, {"a": t, "b": [t]})
        assert isinstance(doubled["b"][0], Tensor)
        np.testing.assert_array_equal(arr(doubled["a"]), 2 * X)

    def test_jax_jit_passes_tensors_through(self):
        t = Tensor(X)
        out = jax.jit(lambda t: t)(t)
        assert isinstance(out, Tensor)
        np.testing.assert_array_equal(arr(out), X)
        out = jax.jit(lambda t: t * 2 + 1)(t)  # msx operators work on traced Tensors
        assert isinstance(out, Tensor)
        np.testing.assert_allclose(arr(out), X * 2 + 1)

    def test_abstract_tensor_refuses_concrete_conversion(self):
        def f(t):
            with pytest.raises(msx.errors.MsxError, match="concrete"):
                t.asnumpy()
            assert "abstract" in repr(t)
            return t

        jax.jit(f)(Tensor(X))

    def test_deepcopy(self):
        t = Tensor(X)
        c = copy.deepcopy(t)
        assert c is not t
        t[0] = 0.0
        np.testing.assert_array_equal(arr(c), X)


# --------------------------------------------------------------------------- Parameter
class TestParameter:
    def test_basic_attributes(self):
        p = Parameter(Tensor(X), name="weight")
        assert isinstance(p, Tensor)
        assert p.name == "weight" and p.requires_grad is True
        assert p.shape == (2, 3) and p.dtype == msx.float32
        q = Parameter(np.zeros(3, np.float32), name="b", requires_grad=False)
        assert q.requires_grad is False
        assert Parameter(1.0).dtype == msx.float32
        assert "weight" in repr(p) and "requires_grad=True" in repr(p)

    def test_requires_grad_is_settable(self):
        p = Parameter(Tensor(X), name="w")
        p.requires_grad = False
        assert p.requires_grad is False

    def test_value_is_a_plain_tensor_snapshot(self):
        p = Parameter(Tensor(X), name="w")
        v = p.value()
        assert type(v) is Tensor
        np.testing.assert_array_equal(arr(v), X)
        p.set_data(Tensor(Y))
        np.testing.assert_array_equal(arr(v), X)  # the snapshot does not follow

    def test_set_data_in_place(self):
        p = Parameter(Tensor(X), name="w")
        alias = p
        out = p.set_data(Tensor(Y))
        assert out is p and alias is p
        np.testing.assert_array_equal(arr(p), Y)
        p.set_data(np.ones((2, 3)))  # numpy float64 data: cast to the parameter's dtype
        assert p.dtype == msx.float32
        np.testing.assert_array_equal(arr(p), np.ones((2, 3)))
        p.set_data(Tensor(np.zeros((2, 3), np.float64)))
        assert p.dtype == msx.float32
        p.set_data(Tensor(np.zeros(5, np.float32)))  # MindSpore allows a new shape
        assert p.shape == (5,)

    def test_clone(self):
        p = Parameter(Tensor(X), name="w", requires_grad=False)
        c = p.clone()
        assert isinstance(c, Parameter) and c is not p
        assert c.name == p.name and c.requires_grad is False
        np.testing.assert_array_equal(arr(c), X)
        p.set_data(Tensor(Y))
        np.testing.assert_array_equal(arr(c), X)

    def test_arithmetic_gives_tensors(self):
        p = Parameter(Tensor(X), name="w")
        out = p * 2  # a Tensor, not a Parameter (a deferred eager result is msx's own Tensor subclass)
        assert isinstance(out, Tensor) and not isinstance(out, Parameter) and type(out).__name__ == "Tensor"
        np.testing.assert_array_equal(arr(out), X * 2)

    def test_parameter_pytree(self):
        p = Parameter(Tensor(X), name="w", requires_grad=False)
        leaves, treedef = jax.tree_util.tree_flatten(p)
        back = jax.tree_util.tree_unflatten(treedef, leaves)
        assert isinstance(back, Parameter) and back.name == "w" and back.requires_grad is False

    def test_not_picklable(self):
        import pickle

        with pytest.raises(TypeError, match="checkpoint"):
            pickle.dumps(Parameter(Tensor(X), name="w"))
