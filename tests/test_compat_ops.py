"""The MindSpore names real programs import that msx lacked (issue 32): class ops of `ops.operations` against
MindSpore 2.10's answers (tests/golden_numpy/class_ops_ms210.*, made by record_class_ops.py) or numpy where
MindSpore cannot run them on CPU; `ops.HookBackward`, `ops.partial`, `ops.dtype`, `ops.HyperMap`/`Map`;
`ops.topk`'s int32 indices; the names msx cannot offer raising a clear error."""
import json
import os
import sys

import numpy as np
import pytest

import msx
from msx import ops

HERE = os.path.join(os.path.dirname(__file__), "golden_numpy")
sys.path.insert(0, HERE)
from numpy_cases import to_numpy  # noqa: E402
import class_op_cases as C  # noqa: E402

with open(os.path.join(HERE, "class_ops_ms210.json")) as _f:
    GOLDEN = json.load(_f)
ARRAYS = dict(np.load(os.path.join(HERE, "class_ops_ms210.npz")))


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def _lstm_ref():
    gates = np.concatenate([C.LX, C.LH], 1) @ C.LW + C.LB
    i, j, f, o = np.split(gates, 4, 1)
    it, jt, ft, ot = _sigmoid(i), np.tanh(j), _sigmoid(f + 1.0), _sigmoid(o)
    ct = ft * C.LH * 0.5 + it * jt
    return [ct, ot * np.tanh(ct), it, jt, ft, ot, np.tanh(ct)]


NUMPY_REFS = {  # MindSpore 2.10 cannot run these on CPU (Ascend-only kernels)
    "BasicLSTMCell": _lstm_ref,
    "RmsNorm": lambda: [C.M2 / np.sqrt((C.M2 ** 2).mean(-1, keepdims=True) + 1e-6) * C.G,
                        1 / np.sqrt((C.M2 ** 2).mean(-1, keepdims=True) + 1e-6)],
    "CountNonZero": lambda: np.array(2, np.int64),
    "TypeAs": lambda: np.trunc(C.M2).astype(np.int32),
    "DepthwiseConv2dNative": lambda: np.einsum("ncijab,cab->ncij",
                                               np.lib.stride_tricks.sliding_window_view(C.X4, (3, 3), (2, 3)),
                                               C.rng_dw()[0]),
}


@pytest.mark.parametrize("name", sorted(C.CASES))
def test_class_op_matches_mindspore(name):
    got = to_numpy(C.CASES[name](ops, msx.Tensor))
    want = GOLDEN[name]
    if "error" in want:
        ref = NUMPY_REFS[name]()
        for g, w in zip(got if isinstance(got, list) else [got], ref if isinstance(ref, list) else [ref]):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5, err_msg=name)
        return
    outs = [got] if want["single"] else got
    assert len(outs) == want["n"], name
    for i, g in enumerate(outs):
        if f"value{i}" in want:
            assert g == want[f"value{i}"], name
            continue
        w = ARRAYS[f"{name}.{i}"]
        assert g.shape == w.shape and g.dtype == w.dtype, (name, i, g.shape, w.shape, g.dtype, w.dtype)
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5, err_msg=f"{name} output {i}")


@pytest.mark.parametrize("mode", ["ast", "bytecode", "trace"])
def test_class_ops_under_jit(mode):
    bias, lstm = ops.BiasAdd(), ops.operations.BasicLSTMCell()

    def f(x, g, lx, lh, lw, lb):
        return ops.operations.AvgPool(3, 2, "SAME")(bias(x, g)), lstm(lx, lh, lh, lw, lb)[1]

    args = [msx.Tensor(a) for a in (C.X4, C.G, C.LX, C.LH, C.LW, C.LB)]
    want = [o.asnumpy() for o in f(*args)]
    jf = msx.jit(f, capture_mode=mode, fullgraph=True)
    for _ in range(2):
        for g, w in zip(jf(*args), want):
            np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-5, atol=1e-6)


def test_hook_backward_sees_and_replaces_the_gradient():
    seen = []

    def hook_fn(grad):
        seen.append(grad)
        return (grad[0] * 10,)

    hook = ops.HookBackward(hook_fn)

    def f(x, y):
        return hook(x * y) * y

    gx, gy = msx.grad(f, grad_position=(0, 1))(msx.Tensor(1.0), msx.Tensor(2.0))
    # MindSpore 2.10 (PyNative, CPU) on this program: the hook sees (2.0,), the gradients are (40.0, 22.0)
    assert isinstance(seen[0], tuple) and float(seen[0][0].asnumpy()) == 2.0
    assert (float(gx.asnumpy()), float(gy.asnumpy())) == (40.0, 22.0)
    # under jit the hook runs while capturing: its replacement gradient is part of the graph (MindSpore runs
    # HookBackward in PyNative only)
    jg = msx.jit(msx.grad(f, grad_position=(0, 1)), fullgraph=True)
    for _ in range(2):
        assert [float(t.asnumpy()) for t in jg(msx.Tensor(1.0), msx.Tensor(2.0))] == [40.0, 22.0]


def test_partial_dtype_hypermap():
    add3 = ops.partial(ops.add, msx.Tensor(3.0))
    assert float(add3(msx.Tensor(1.0)).asnumpy()) == 4.0
    assert ops.dtype(msx.Tensor([1, 2], msx.int32)) == msx.int32
    out = ops.HyperMap()(ops.add, (msx.Tensor(1.0), (msx.Tensor(2.0),)), (msx.Tensor(1.0), (msx.Tensor(1.0),)))
    assert float(out[1][0].asnumpy()) == 3.0
    assert [float(v.asnumpy()) for v in ops.Map()(ops.neg, [msx.Tensor(1.0), msx.Tensor(2.0)])] == [-1.0, -2.0]


def test_dropout2d_drops_whole_channels():
    out, mask = ops.Dropout2D(keep_prob=0.5)(msx.Tensor(np.ones((4, 8, 3, 3), np.float32)))
    o, m = out.asnumpy(), mask.asnumpy()
    assert m.dtype == np.bool_ and (m == m[:, :, :1, :1]).all()
    np.testing.assert_allclose(o, np.where(m, 2.0, 0.0))
    with pytest.raises(ValueError, match="Dropout2D: input must be 4-D"):
        ops.Dropout2D()(msx.Tensor(np.ones((2, 3), np.float32)))


def test_topk_indices_are_int32():
    x = msx.Tensor(C.M2)
    for idx in (ops.topk(x, 2)[1], ops.topk(x, 1, dim=0, largest=False)[1], ops.TopK()(x, 2)[1]):
        assert idx.dtype == msx.int32
    assert msx.jit(lambda t: ops.topk(t, 2)[1])(x).dtype == msx.int32


def test_every_operations_name_exists_and_unavailable_ones_say_so():
    from msx.tools.api_coverage import load_names

    names = load_names()["modules"]["mindspore.ops.operations"]
    P = ops.operations
    for name in ("CusBatchMatMul", "FakeQuantPerLayer", "BatchNormFoldGrad", "NPUGetFloatStatus"):
        assert name in names
        with pytest.raises(msx.errors.MsxError, match=f"{name} is not available in msx"):
            getattr(P, name)()
    for name in ("AllGather", "AllReduce", "Custom", "BatchNorm", "BiasAdd", "Conv3D", "Conv2DTranspose"):
        assert hasattr(P, name), name


def test_train_thor_says_it_is_not_available():
    from msx.train.train_thor import ConvertModelUtils, ConvertNetUtils

    with pytest.raises(msx.errors.MsxError, match="convert_to_thor_net is not available in msx .*THOR"):
        ConvertNetUtils().convert_to_thor_net(None)
    with pytest.raises(msx.errors.MsxError, match="convert_to_thor_model is not available in msx .*THOR"):
        ConvertModelUtils.convert_to_thor_model(None, None)


def test_functional_spellings_and_composite_helpers():
    F, Cm = ops.functional, ops.composite
    np.testing.assert_allclose(F.iou(msx.Tensor(C.BOXES_A), msx.Tensor(C.BOXES_G)).asnumpy(), ARRAYS["IOU.0"],
                               rtol=1e-5)
    assert F.intopk(msx.Tensor(C.M2), msx.Tensor(np.array([0, 2], np.int32)), 2).asnumpy().tolist() == \
        ARRAYS["InTopK.0"].tolist()
    x = np.array([[3.0, 1.0], [1.0, 2.0]], np.float32)
    np.testing.assert_array_equal(F.msort(msx.Tensor(x)).asnumpy(), np.sort(x, 0))
    np.testing.assert_array_equal(F.deepcopy(msx.Tensor(x)).asnumpy(), x)
    np.testing.assert_array_equal(F.mirror_pad(msx.Tensor(x), ((1, 0), (0, 1)), "SYMMETRIC").asnumpy(),
                                  np.pad(x, ((1, 0), (0, 1)), mode="symmetric"))
    assert F.type_as(msx.Tensor(x), msx.Tensor(np.array([1], np.int32))).dtype == msx.int32
    assert F.Roll is ops.Roll and F.dtype is ops.dtype and F.interpolate is ops.interpolate
    a, b = (msx.Tensor(1.0), [msx.Tensor(2.0)]), (msx.Tensor(1.0), [msx.Tensor(3.0)])
    out = Cm.hyper_add(a, b)
    assert float(out[0].asnumpy()) == 2.0 and float(out[1][0].asnumpy()) == 5.0
    assert Cm.tail((1, 2, 3)) == (2, 3) and Cm.zip_operation((1, 2), (3, 4)) == ((1, 3), (2, 4))
    assert float(Cm.augassign_floordiv(msx.Tensor(7.0), 2).asnumpy()) == 3.0
    assert Cm.add_flags(lambda: 1, has_effect=True)._mindspore_flags == {"has_effect": True}
    assert Cm.constexpr(len)((1, 2)) == 2 and Cm.count_nonzero is ops.count_nonzero
    calls = []
    ops.HyperMap(lambda v: calls.append(v) or v, reverse=True)((1, 2, 3))
    assert calls == [3, 2, 1]
