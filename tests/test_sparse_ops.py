"""`COOTensor` / `CSRTensor` and MindSpore's `ops.coo_*` / `ops.csr_*` functions (msx/ops/sparse_ops.py).

The COO answers marked "MindSpore 2.10" were printed by MindSpore 2.10.0 on CPU for the same inputs (its CSR
kernels need AKG, absent from the CPU build, so CSR is checked against the dense numpy computation)."""
from __future__ import annotations

import numpy as np
import pytest

import msx
from msx import ops

T = msx.Tensor
IDX = np.array([[0, 1], [1, 2]], np.int64)
VAL = np.array([-1.0, 2.0], np.float32)
DENSE = np.zeros((3, 4), np.float32)
DENSE[0, 1], DENSE[1, 2] = -1.0, 2.0
CSR = (np.array([0, 1, 2, 2], np.int32), np.array([1, 2], np.int32), np.array([3.0, 4.0], np.float32))
CSR_DENSE = np.zeros((3, 4), np.float32)
CSR_DENSE[0, 1], CSR_DENSE[1, 2] = 3.0, 4.0


def coo():
    return msx.COOTensor(T(IDX), T(VAL), (3, 4))


def csr():
    return msx.CSRTensor(*(T(a) for a in CSR), (3, 4))


@pytest.mark.parametrize("name", ["cos", "relu", "exp", "isnan", "square", "softsign", "neg"])
def test_elementwise_maps_the_stored_values(name):
    ref = getattr(ops, name)(T(VAL)).asnumpy()
    for x, fn in ((coo(), getattr(ops, f"coo_{name}")), (csr(), getattr(ops, f"csr_{name}"))):
        out = fn(x)
        assert type(out) is type(x) and out.shape == (3, 4)
        np.testing.assert_allclose(out.values.asnumpy(), ref if isinstance(x, msx.COOTensor)
                                   else getattr(ops, name)(T(CSR[2])).asnumpy(), rtol=1e-6)
        np.testing.assert_array_equal(out.indices.asnumpy(), x.indices.asnumpy())
    np.testing.assert_allclose(ops.coo_cos(coo()).values.asnumpy(), [0.5403023, -0.41614684], rtol=1e-6)  # MS 2.10


def test_coo_add_and_concat_match_mindspore():
    y = msx.COOTensor(T(np.array([[0, 1], [2, 0]], np.int64)), T(np.array([1.0, 5.0], np.float32)), (3, 4))
    r = ops.coo_add(coo(), y, T(np.array(0.5, np.float32)))
    assert r.indices.asnumpy().tolist() == [[1, 2], [2, 0]] and r.values.asnumpy().tolist() == [2.0, 5.0]  # MS 2.10
    c = ops.coo_concat((coo(), y), 1)
    assert c.shape == (3, 8) and c.indices.asnumpy().tolist() == [[0, 1], [0, 5], [1, 2], [2, 4]]  # MS 2.10
    assert c.values.asnumpy().tolist() == [-1.0, 1.0, 2.0, 5.0]
    with pytest.raises(msx.errors.OpError, match="coo_add"):
        msx.jit(lambda a: ops.coo_add(msx.COOTensor(T(IDX), a, (3, 4)), y, T(np.array(0.5, np.float32))).values)(T(VAL))


def test_conversions_round_trip():
    x = coo()
    np.testing.assert_array_equal(x.to_dense().asnumpy(), DENSE)
    assert x.to_csr().indptr.asnumpy().tolist() == [0, 1, 2, 2]
    np.testing.assert_array_equal(x.to_csr().to_dense().asnumpy(), DENSE)
    d = ops.dense_to_sparse_coo(T(DENSE))
    assert d.indices.dtype == msx.int32 and d.indices.asnumpy().tolist() == IDX.tolist()
    s = ops.dense_to_sparse_csr(T(CSR_DENSE))
    assert s.indptr.asnumpy().tolist() == [0, 1, 2, 2] and s.indices.asnumpy().tolist() == [1, 2]
    assert T(CSR_DENSE).to_csr().values.asnumpy().tolist() == [3.0, 4.0]
    assert T(DENSE).to_coo().values.asnumpy().tolist() == [-1.0, 2.0]
    np.testing.assert_array_equal(ops.csr_to_dense(csr()).asnumpy(), CSR_DENSE)
    assert ops.csr_to_coo(csr()).indices.asnumpy().tolist() == [[0, 1], [1, 2]]
    assert ops.coo2csr(T(np.array([0, 1], np.int32)), 3).asnumpy().tolist() == [0, 1, 2, 2]
    assert ops.csr2coo(T(CSR[0]), 2).asnumpy().tolist() == [0, 1]
    assert ops.coo_tensor_get_dense_shape(ops.make_coo_tensor(T(IDX), T(VAL), (3, 4))) == (3, 4)
    assert ops.csr_tensor_get_indptr(ops.make_csr_tensor(*(T(a) for a in CSR), (3, 4))).shape == (4,)
    dup = msx.COOTensor(T(np.array([[1, 0], [0, 1], [1, 0]], np.int64)), T(np.array([1.0, 2.0, 3.0], np.float32)),
                        (2, 2)).coalesce()
    assert dup.indices.asnumpy().tolist() == [[0, 1], [1, 0]] and dup.values.asnumpy().tolist() == [2.0, 4.0]


def test_csr_products_and_reductions_match_dense_numpy():
    m = np.arange(12, dtype=np.float32).reshape(3, 4) + 1
    np.testing.assert_allclose(ops.csr_mv(csr(), T(np.ones((4, 1), np.float32))).asnumpy(), CSR_DENSE @ np.ones((4, 1)))
    np.testing.assert_allclose(ops.csr_mm(csr(), T(m.T.copy())).asnumpy(), CSR_DENSE @ m.T)
    np.testing.assert_allclose(ops.csr_mm(csr(), csr(), trans_b=True).to_dense().asnumpy(), CSR_DENSE @ CSR_DENSE.T)
    np.testing.assert_allclose(ops.csr_reduce_sum(csr(), 1).asnumpy(), CSR_DENSE.sum(1, keepdims=True))
    assert ops.csr_mul(csr(), T(m)).values.asnumpy().tolist() == [3.0 * 2, 4.0 * 7]
    np.testing.assert_allclose(ops.csr_div(csr(), T(m)).values.asnumpy(), [1.5, 4.0 / 7], rtol=1e-6)
    assert ops.csr_gather(T(CSR[0]), T(CSR[1]), T(m), (3, 4)).asnumpy().tolist() == [2.0, 7.0]
    two = msx.CSRTensor(T(np.array([0, 2, 2, 2], np.int32)), T(np.array([0, 3], np.int32)),
                        T(np.array([1.0, 2.0], np.float32)), (3, 4))
    sm = ops.csr_softmax(two, msx.float32).values.asnumpy()
    np.testing.assert_allclose(sm, np.exp([1.0, 2.0]) / np.exp([1.0, 2.0]).sum(), rtol=1e-6)
    added = ops.csr_add(csr(), two, T(np.array(2.0, np.float32)), T(np.array(1.0, np.float32)))
    np.testing.assert_allclose(added.to_dense().asnumpy(), 2 * CSR_DENSE + two.to_dense().asnumpy())
    # the dense-form products differentiate and compile
    g = msx.grad(lambda v: ops.csr_mv(msx.CSRTensor(T(CSR[0]), T(CSR[1]), v, (3, 4)),
                                      T(np.arange(4, dtype=np.float32).reshape(4, 1))).sum())(T(CSR[2]))
    assert g.asnumpy().tolist() == [1.0, 2.0]
    jitted = msx.jit(lambda v: ops.csr_reduce_sum(msx.CSRTensor(T(CSR[0]), T(CSR[1]), v, (3, 4)), 0))
    np.testing.assert_allclose(jitted(T(CSR[2])).asnumpy(), CSR_DENSE.sum(0, keepdims=True))


def test_bad_parts_are_refused_by_name():
    with pytest.raises(ValueError, match="COOTensor"):
        msx.COOTensor(T(IDX[:, :1]), T(VAL), (3, 4))
    with pytest.raises(ValueError, match="CSRTensor"):
        msx.CSRTensor(T(CSR[0][:3]), T(CSR[1]), T(CSR[2]), (3, 4))
    with pytest.raises(TypeError, match="coo_cos"):
        ops.coo_cos(T(VAL))
    with pytest.warns(DeprecationWarning, match="SparseTensor"):
        assert msx.SparseTensor(T(IDX), T(VAL), (3, 4)).to_dense().shape == (3, 4)
