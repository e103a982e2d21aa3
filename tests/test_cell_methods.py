"""Cell methods beyond the core: hooks, custom bprop, recompute, buffers, state dicts, set_inputs, flags.
Expected values of bprop and the hooks were printed by MindSpore 2.10 for the same programs."""
from __future__ import annotations

import numpy as np
import pytest

import msx
from msx import Parameter, Tensor, nn, ops
from msx.errors import CaptureError
from tolerance import assert_same_float32


class Mul(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([2.0, 3.0], np.float32)), name="w")

    def construct(self, x, y):
        return x * y * self.w

    def bprop(self, x, y, out, dout):
        return dout * 10, dout * y * 0 + 1


X = Tensor(np.array([1.0, 2.0], np.float32))
Y = Tensor(np.array([3.0, 4.0], np.float32))


def test_bprop_replaces_the_backward_as_mindspore():
    net = Mul()
    (gx, gy), (gw,) = msx.grad(net, grad_position=(0, 1), weights=net.trainable_params())(X, Y)
    # MindSpore 2.10: ([10, 10], [1, 1]), ([0, 0],): Parameters inside a bprop Cell get zero gradients
    np.testing.assert_array_equal(gx.asnumpy(), [10, 10])
    np.testing.assert_array_equal(gy.asnumpy(), [1, 1])
    np.testing.assert_array_equal(gw.asnumpy(), [0, 0])
    np.testing.assert_array_equal(net(X, Y).asnumpy(), [6, 24])  # the forward is untouched


def test_bprop_wrong_count_is_a_clear_error():
    class Bad(Mul):
        def bprop(self, x, y, out, dout):
            return (dout,)

    with pytest.raises(ValueError, match="returned 1 gradient"):
        msx.grad(Bad(), grad_position=0)(X, Y)


@pytest.mark.parametrize("mode", ["ast", "bytecode", "trace"])
def test_bprop_is_kept_under_capture(mode):
    """A bprop Cell is one recorded node differentiated by its bprop (docs/training.md), in every mode."""
    net = Mul()
    np.testing.assert_array_equal(msx.jit(net, capture_mode=mode, fullgraph=True)(X, Y).asnumpy(), [6, 24])
    grad_fn = msx.grad(net, grad_position=(0, 1), weights=net.trainable_params())
    step = msx.jit(grad_fn, capture_mode=mode, fullgraph=True)
    for _ in range(2):  # the capture call and the compiled call
        (gx, gy), (gw,) = step(X, Y)
        np.testing.assert_array_equal(gx.asnumpy(), [10, 10])
        np.testing.assert_array_equal(gy.asnumpy(), [1, 1])
        np.testing.assert_array_equal(gw.asnumpy(), [0, 0])


def test_backward_hooks_under_capture_are_refused_not_ignored():
    m = Lin()
    m.register_backward_hook(lambda cell, grad_input, grad_output: None)
    with pytest.raises(CaptureError, match="PyNative"):
        msx.jit(m, capture_mode="trace")(Tensor(np.ones((1, 2), np.float32)))


class Lin(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)), name="w")

    def construct(self, x):
        return ops.matmul(x, self.w) * 2


def test_backward_hooks_order_and_replacement():
    m, seen = Lin(), []
    x = Tensor(np.ones((1, 2), np.float32))

    def pre(cell, grad_output):
        seen.append(("pre", grad_output[0].asnumpy().tolist()))
        return (grad_output[0] * 2,)

    def post(cell, grad_input, grad_output):
        seen.append(("post", grad_input[0].asnumpy().tolist(), grad_output[0].asnumpy().tolist()))
        return (grad_input[0] * 3,)

    m.register_backward_pre_hook(pre)
    h = m.register_backward_hook(post)
    g = msx.grad(lambda a: m(a).sum())(x)
    # d/dx sum(2 x W) = 2 * W.sum(1) = [6, 14]; pre doubles dout, post triples grad_input
    np.testing.assert_allclose(g.asnumpy(), [[36, 84]])
    assert seen == [("pre", [[1.0, 1.0]]), ("post", [[12.0, 28.0]], [[2.0, 2.0]])]
    gw = msx.grad(lambda a: m(a).sum(), grad_position=None, weights=[m.w])(x)[0]
    np.testing.assert_allclose(gw.asnumpy(), [[4, 4], [4, 4]])  # weight grads see the replaced dout only
    h.remove()
    assert m.enable_backward_hook  # the pre hook is still there


def test_forward_hooks_modify_inputs_and_outputs_and_remove():
    m, seen = Lin(), []
    x = Tensor(np.ones((1, 2), np.float32))
    h1 = m.register_forward_pre_hook(lambda cell, args: (args[0] * 2,))
    h2 = m.register_forward_hook(lambda cell, args, out: out + 1)
    m.register_forward_hook(lambda cell, args, out: seen.append(out.asnumpy().tolist()), prepend=True)
    np.testing.assert_allclose(m(x).asnumpy(), [[17, 25]])  # 2 * (2x) W + 1
    assert seen == [[[16.0, 24.0]]]  # prepended: runs before the +1 hook
    h1.remove()
    h2.remove()
    np.testing.assert_allclose(m(x).asnumpy(), [[8, 12]])
    kw = m.register_forward_pre_hook(lambda cell, args, kwargs: ((args[0] * 0,), kwargs), with_kwargs=True)
    np.testing.assert_allclose(m(x).asnumpy(), [[0, 0]])
    kw.remove()
    with pytest.raises(TypeError, match="hook_fn"):
        m.register_forward_hook(3)


def test_recompute_keeps_values_and_grads():
    a, b = Lin(), Lin()
    b.recompute()
    x = Tensor(np.array([[0.5, -1.0]], np.float32))
    ga = msx.grad(lambda t: ops.tanh(a(t)).sum(), grad_position=0, weights=[a.w])(x)
    gb = msx.grad(lambda t: ops.tanh(b(t)).sum(), grad_position=0, weights=[b.w])(x)
    for u, v in zip([ga[0], *ga[1]], [gb[0], *gb[1]]):
        np.testing.assert_allclose(u.asnumpy(), v.asnumpy(), rtol=1e-6)
    with pytest.raises(RuntimeError, match="only once"):
        b.recompute()


class WithBuffer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(2, 2)
        self.register_buffer("scale", Tensor(np.array([2.0], np.float32)))
        self.register_buffer("cache", Tensor(np.zeros(2, np.float32)), persistent=False)

    def construct(self, x):
        return self.fc(x) * self.scale


def test_buffers_and_state_dict_round_trip():
    a, b = WithBuffer(), WithBuffer()
    assert [n for n, _ in a.named_buffers()] == ["scale", "cache"]
    assert list(a.state_dict()) == ["scale", "fc.weight", "fc.bias"] or set(a.state_dict()) == {
        "scale", "fc.weight", "fc.bias"}
    a.scale = Tensor(np.array([5.0], np.float32))
    assert float(a.get_buffer("scale")[0]) == 5.0
    result = b.load_state_dict(a.state_dict())
    assert result.missing_keys == [] and result.unexpected_keys == []
    x = Tensor(np.ones((1, 2), np.float32))
    assert_same_float32(a(x).asnumpy(), b(x).asnumpy())   # one call may run an op plainly, the other compiled
    assert all(not p.requires_grad or p.name.startswith("fc") for p in b.get_parameters())
    with pytest.raises(RuntimeError, match="Unexpected key.*extra"):
        b.load_state_dict({**a.state_dict(), "extra": Tensor(1.0)})
    loose = b.load_state_dict({"fc.weight": a.fc.weight}, strict=False)
    assert sorted(loose.missing_keys) == ["fc.bias", "scale"]
    with pytest.raises(RuntimeError, match="size mismatch"):
        b.load_state_dict({**a.state_dict(), "fc.bias": Tensor(np.zeros(3, np.float32))})


def test_state_dict_hooks_and_extra_state():
    class Extra(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(np.ones(2, np.float32)), name="w")
            self.step = 0

        def get_extra_state(self):
            return {"step": self.step}

        def set_extra_state(self, state):
            self.step = state["step"]

    a, b = Extra(), Extra()
    a.step = 7
    calls = []
    b.register_load_state_dict_post_hook(lambda cell, keys: calls.append(list(keys.missing_keys)))
    a.register_state_dict_post_hook(lambda cell, sd, prefix, meta: (sd.pop("w"), None)[1])
    sd = a.state_dict()
    assert "_extra_state" in sd and "w" not in sd
    b.load_state_dict({**sd, "w": Tensor(np.zeros(2, np.float32))})
    assert b.step == 7 and calls == [[]]


def test_get_sub_cell_scope_flags_and_names():
    net = nn.SequentialCell([nn.Dense(2, 3), nn.ReLU()])
    assert net.get_sub_cell("0") is net[0]
    with pytest.raises(AttributeError, match="no sub-Cell"):
        net.get_sub_cell("9")
    net.generate_scope()
    assert net[0].get_scope() == "Default/0-Dense" and net.get_scope() == "Default"
    net.add_flags_recursive(fp16=True)
    assert net[1].get_flags() == {"fp16": True} and net[1].fp16 is True
    assert net.cls_name == "SequentialCell"
    net.check_names()
    p = Parameter(Tensor(np.ones(1, np.float32)), name="0.weight")
    net.insert_param_to_cell("extra", p)
    with pytest.raises(ValueError, match="used by two Parameters"):
        net.check_names()
    with pytest.raises(KeyError, match="must not contain"):
        net.insert_param_to_cell("a.b", Parameter(Tensor(1.0)))


def test_set_inputs_declares_dynamic_dims_for_graph_mode():
    net = nn.Dense(3, 2)
    net.set_inputs(Tensor(shape=[None, 3], dtype=msx.float32))
    assert net.get_inputs()[0].shape == (None, 3) or list(net.get_inputs()[0].shape) == [None, 3]
    jf = msx.jit(net)
    for n in (1, 4, 7):
        x = Tensor(np.ones((n, 3), np.float32))
        np.testing.assert_allclose(jf(x).asnumpy(), ops.dense(x, net.weight, net.bias).asnumpy(), rtol=1e-5)
    with pytest.raises(ValueError, match="construct takes"):
        net.set_inputs(Tensor(np.ones((1, 3), np.float32)), Tensor(1.0))


def test_to_and_cast_inputs_and_compile():
    net = nn.Dense(2, 2)
    net.to(msx.float16)
    assert net.weight.dtype == msx.float16
    with pytest.raises(TypeError, match="floating"):
        net.to(msx.int32)
    xs = net.cast_inputs((Tensor(np.ones(2, np.float32)), 3), msx.float16)
    assert xs[0].dtype == msx.float16 and xs[1] == 3
    net2 = nn.Dense(2, 2)
    net2.compile(Tensor(np.ones((1, 2), np.float32)))
    assert net2.compiled and len(net2.compile_cache) == 1 and "Float32[1, 2]" in net2.compile_phase
    np.testing.assert_allclose(net2.compile_and_run(Tensor(np.ones((1, 2), np.float32))).asnumpy(),
                               net2(Tensor(np.ones((1, 2), np.float32))).asnumpy(), rtol=1e-6)


def test_parameter_tuple_clone():
    net = nn.Dense(2, 3)
    params = nn.ParameterTuple(net.trainable_params())
    same = params.clone("m")
    zeros = params.clone("v", init="zeros")
    assert [p.name for p in same] == ["m.weight", "m.bias"]
    np.testing.assert_array_equal(same[0].asnumpy(), net.weight.asnumpy())
    assert same[0] is not net.weight and float(zeros[0].asnumpy().sum()) == 0.0


def test_cell_method_coverage_vs_mindspore():
    import json
    import os

    names = json.load(open(os.path.join(os.path.dirname(__file__), "golden_nn", "mindspore_names.json")))["cell"]
    cell = nn.Cell()
    have = [n for n in names if hasattr(cell, n)]
    assert len(have) / len(names) >= 0.8, sorted(set(names) - set(have))


def test_mixed_precision_type_and_to_empty():
    net = nn.Dense(2, 2)
    net.set_mixed_precision_type("FP16")
    assert net.get_mixed_precision_type() == msx.float16
    assert net(Tensor(np.ones((1, 2), np.float32))).dtype == msx.float16
    net.set_mixed_precision_type("NOTSET")
    assert net(Tensor(np.ones((1, 2), np.float32))).dtype == msx.float32
    net.to_empty()
    assert float(np.abs(net.weight.asnumpy()).sum()) == 0.0 and net.weight.shape == (2, 2)
