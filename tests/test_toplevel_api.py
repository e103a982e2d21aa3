"""MindSpore 2.x top-level names: `ms.tensor`, `mindspore.common`, transforms, graph hints, seeds, Tensor extras.

Expected values are MindSpore 2.10's own answers (run once in the MindSpore venv, PyNative CPU).
"""
import warnings

import numpy as np
import pytest

import msx
from msx import ops

X = np.array([1.0, 2.0], np.float32)
Y = np.array([3.0, 4.0], np.float32)


def test_lower_case_tensor_constructor_and_the_module_both_work():
    assert msx.tensor([1, 2]).dtype == msx.int64 and msx.tensor(1.5).dtype == msx.float32
    assert msx.tensor([1, 2], msx.float32).asnumpy().tolist() == [1.0, 2.0]
    import msx.tensor as module
    from msx.tensor import Tensor

    assert module.Tensor is Tensor is msx.Tensor and callable(module)
    with pytest.raises(ValueError, match="device"):
        msx.tensor([1], device="quantum")


def test_common_modules_import_like_mindspores():
    from msx.common import dtype as mstype
    from msx.common.initializer import Normal, initializer
    from msx.common.parameter import Parameter, ParameterTuple
    from msx.common.tensor import Tensor

    assert mstype.float32 == msx.float32 and mstype.int_type == (msx.int8, msx.int16, msx.int32, msx.int64)
    assert initializer(Normal(0.02), (3, 4), mstype.float32).shape == (3, 4)
    assert Parameter is msx.Parameter and ParameterTuple is msx.ParameterTuple and Tensor is msx.Tensor
    assert msx.common.set_seed is msx.set_seed


def test_dtype_aliases_are_mindspores():
    assert (msx.float, msx.int, msx.bool, msx.long, msx.byte, msx.short) == \
        (msx.float32, msx.int32, msx.bool_, msx.int64, msx.int8, msx.int16)
    assert (msx.intp, msx.uintc, msx.cfloat, msx.single) == (msx.int64, msx.uint32, msx.complex64, msx.float32)
    assert msx.dtype_to_nptype(msx.float32) is np.float32 and msx.dtype_to_pytype(msx.float32) is float
    assert msx.pytype_to_dtype(float) == msx.float64 and msx.get_py_obj_dtype(1.0) == msx.float64
    assert msx.get_py_obj_dtype(msx.tensor(X)) == msx.float32 and msx.dtype_to_pytype(msx.int8) is int


def test_vjp_jvp_jacobians_vmap_match_mindspore():
    x, y = msx.tensor(X), msx.tensor(Y)
    out, vjp_fn = msx.vjp(lambda a: a * a, x)
    np.testing.assert_allclose(out.asnumpy(), [1, 4])
    (g,) = vjp_fn(msx.tensor(np.ones(2, np.float32)))
    np.testing.assert_allclose(g.asnumpy(), [2, 4])
    ga, gb = msx.vjp(lambda a, b: a * b, x, y)[1](msx.tensor(np.ones(2, np.float32)))
    np.testing.assert_allclose(ga.asnumpy(), [3, 4]) and np.testing.assert_allclose(gb.asnumpy(), [1, 2])
    value, tangent = msx.jvp(lambda a, b: a * b, (x, y), (ops.ones_like(x), ops.ones_like(y)))
    np.testing.assert_allclose(value.asnumpy(), [3, 8]) and np.testing.assert_allclose(tangent.asnumpy(), [4, 6])
    np.testing.assert_allclose(msx.jacrev(lambda a: a * a)(x).asnumpy(), [[2, 0], [0, 4]])
    ja, jb = msx.jacfwd(lambda a, b: a * b, grad_position=(0, 1))(x, y)
    np.testing.assert_allclose(ja.asnumpy(), np.diag(Y)) and np.testing.assert_allclose(jb.asnumpy(), np.diag(X))
    np.testing.assert_allclose(msx.vmap(lambda a, b: (a * b).sum(), in_axes=(0, None))(ops.ones((3, 2)), y).asnumpy(),
                               [7, 7, 7])
    batch = msx.tensor(np.arange(6, dtype=np.float32).reshape(3, 2))
    rows, sums = msx.vmap(lambda a: (a, a.sum()), in_axes=0, out_axes=(1, 0))(batch)
    assert rows.shape == (2, 3) and sums.asnumpy().tolist() == [1, 5, 9]


def test_transforms_refuse_state_writes_and_undo_them():
    bn = msx.nn.BatchNorm1d(2)
    bn.set_train(True)
    before = bn.moving_mean.asnumpy().copy()
    with pytest.raises(msx.errors.GradError, match="state"):
        msx.vmap(lambda a: bn(a))(msx.tensor(np.ones((3, 4, 2), np.float32)))
    np.testing.assert_array_equal(bn.moving_mean.asnumpy(), before)


def test_parameter_tuple_and_clone_names():
    pt = msx.ParameterTuple([msx.Parameter(msx.tensor(X), name="a"), msx.Parameter(msx.tensor(Y), name="b")])
    assert isinstance(pt, tuple) and [p.name for p in pt.clone(prefix="c")] == ["c.a", "c.b"]
    zeros = pt.clone("m", init="zeros")
    assert zeros[0].asnumpy().tolist() == [0, 0] and zeros[0] is not pt[0]
    with pytest.raises(TypeError, match="Parameter"):
        msx.ParameterTuple([msx.tensor(X)])


def test_graph_hints_keep_programs_unchanged():
    @msx.jit_class
    class Scale:
        def __init__(self, k):
            self.k = k

    assert Scale(2).k == 2 and (msx.STRICT, msx.COMPATIBLE, msx.LAX) == (0, 1, 2)
    x = msx.tensor(X)
    assert msx.mutable(x) is x and msx.mutable((x, 1)) == (x, 1)
    with pytest.raises(TypeError):
        msx.mutable(object())
    with pytest.raises(TypeError):
        msx.jit_class(lambda: 0)

    @msx.constexpr
    def size_of(shape):
        return int(np.prod(shape))

    assert size_of((2, 3)) == 6 and msx.lazy_inline(len) is len and msx.no_inline()(len) is len
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fast = msx.ms_function(lambda a: a * 2)
    assert any(issubclass(w.category, DeprecationWarning) for w in caught)
    assert fast(x).asnumpy().tolist() == [2, 4]


def test_seed_functions_replay_random_numbers():
    msx.manual_seed(3)
    assert msx.initial_seed() == 3
    state = msx.get_rng_state()
    a = ops.rand(4).asnumpy()
    msx.set_rng_state(state)
    np.testing.assert_array_equal(ops.rand(4).asnumpy(), a)
    s = msx.seed()
    assert msx.initial_seed() == s
    with pytest.raises(TypeError, match="get_rng_state"):
        msx.set_rng_state(msx.tensor([1, 2, 3]))


def test_tensor_extras_from_numpy_strides_and_in_place_methods():
    t = msx.Tensor.from_numpy(np.ones((2, 3)))
    assert t.dtype == msx.float64 and msx.tensor(X).strides == (4,) and t.strides == (24, 8) and t.stride() == (3, 1)
    z = msx.tensor(X)
    assert z.add_(1) is z and z.asnumpy().tolist() == [2, 3]
    z.sub_(msx.tensor(Y), alpha=0.5).mul_(2)
    np.testing.assert_allclose(z.asnumpy(), [1, 2])
    assert z.zero_().asnumpy().tolist() == [0, 0]
    assert z.copy_(msx.tensor(Y)).asnumpy().tolist() == [3, 4] and z.fill_(7).asnumpy().tolist() == [7, 7]
    i = msx.tensor([1, 2])
    i.add_(1.7)  # keeps the tensor's dtype, as in-place ops do
    assert i.dtype == msx.int64 and i.asnumpy().tolist() == [2, 3]
    assert msx.tensor(X).clamp_(1.5, 1.8).asnumpy().tolist() == pytest.approx([1.5, 1.8])
    assert msx.is_tensor(z) and not msx.is_tensor(1)


def test_in_place_method_inside_grad_is_functional():
    def f(a):
        b = a * 1.0
        b.mul_(a)
        return b.sum()

    g = msx.grad(f)(msx.tensor(X))
    np.testing.assert_allclose(g.asnumpy(), 2 * X)
