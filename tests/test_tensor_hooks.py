"""`Tensor.register_hook` / `remove_hook` / `hooks`: MindSpore 2.10's PyNative answers (recorded in its venv,
`mindspore.grad` on the same functions: the numbers below), eager and under every capture mode, and the
compiled entries' checks when hooks come and go between calls."""
import warnings

import numpy as np
import pytest

import msx as ms
from msx import Parameter, Tensor, nn

MODES = ["ast", "bytecode", "trace"]


def _x():
    return Tensor(np.array([1.0, 2.0], np.float32))


def triple(g):
    return g * 3


def plus_one(g):
    return g + 1


def intermediate(x):
    y = 2 * x
    y.register_hook(plus_one)
    return (y * y).sum()


def intermediate_lambda(x):
    y = 2 * x
    y.register_hook(lambda g: g + 1)  # defined inside the captured function
    return (y * y).sum()


def chained(x):
    y = x * x
    y.register_hook(lambda g: g * 2)
    z = y * 3
    z.register_hook(lambda g: g + 1)
    return z.sum()


def removed(x):
    y = 2 * x
    handle = y.register_hook(lambda g: g * 10)
    handle.remove()
    return (y * y).sum()


def after_use(x):
    y = 2 * x
    z = (y * y).sum()
    y.register_hook(lambda g: None)  # None keeps the gradient
    y.register_hook(lambda g: g * 10)
    return z


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="w")

    def construct(self, x):
        return (self.w * self.w * x).sum()


# MindSpore 2.10, PyNative (`after_use` registers after the use: PyNative still applies it)
GOLDEN = {intermediate: [10.0, 18.0], intermediate_lambda: [10.0, 18.0], chained: [24.0, 48.0],
          removed: [8.0, 16.0], after_use: [80.0, 160.0]}


def test_a_leaf_hook_scales_its_gradient_as_mindspore():
    x = _x()
    x.register_hook(triple)
    np.testing.assert_allclose(ms.grad(lambda x: (x * x).sum())(x).asnumpy(), [6.0, 12.0])
    assert x.hooks() == [triple]


@pytest.mark.parametrize("fn", list(GOLDEN), ids=lambda f: f.__name__)
def test_eager_hooks_equal_mindspore(fn):
    np.testing.assert_allclose(ms.grad(fn)(_x()).asnumpy(), GOLDEN[fn])


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fn", [intermediate, intermediate_lambda, chained, removed], ids=lambda f: f.__name__)
def test_jit_equals_eager(fn, mode):
    with warnings.catch_warnings():  # `removed` in ast/trace: a graph op stays, so the call runs eagerly (a
        warnings.simplefilter("ignore")  # warning); bytecode breaks the graph there instead
        out = ms.jit(ms.grad(fn), capture_mode=mode)(_x())
    np.testing.assert_allclose(out.asnumpy(), GOLDEN[fn])


def test_a_captured_hook_is_a_grad_hook_node():
    graph = ms.jit(ms.grad(intermediate)).lower(_x()).graph
    grad = next(n for n in graph.nodes if n.op == "Grad")
    hook = next(n for n in grad.subgraphs["body"].nodes if n.op == "GradHook")
    assert [n.op for n in hook.subgraphs["hook"].nodes] == ["Add"]


@pytest.mark.parametrize("mode", MODES)
def test_registering_after_a_use_inside_jit_runs_eagerly_and_right(mode):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        out = ms.jit(ms.grad(after_use), capture_mode=mode)(_x())
    if mode != "bytecode":  # (bytecode breaks the graph at the refused call instead of warning)
        assert any("registered before the Tensor is used" in str(w.message) for w in seen)
    np.testing.assert_allclose(out.asnumpy(), GOLDEN[after_use])


@pytest.mark.parametrize("mode", MODES)
def test_parameter_hooks_added_and_removed_between_jit_calls(mode):
    net = Net()
    step = ms.jit(ms.grad(net, grad_position=None, weights=net.trainable_params()), capture_mode=mode)
    ones = Tensor(np.ones(2, np.float32))
    np.testing.assert_allclose(step(ones)[0].asnumpy(), [2.0, 4.0])
    handle = net.w.register_hook(lambda g: g * 100)
    for _ in range(2):  # MindSpore: [200, 400]
        np.testing.assert_allclose(step(ones)[0].asnumpy(), [200.0, 400.0])
    handle.remove()
    np.testing.assert_allclose(step(ones)[0].asnumpy(), [2.0, 4.0])


@pytest.mark.parametrize("mode", MODES)
def test_an_input_with_hooks_gets_them_and_another_input_does_not(mode):
    net = Net()
    step = ms.jit(ms.grad(net, grad_position=0), capture_mode=mode)
    hooked = Tensor(np.ones(2, np.float32))
    hooked.register_hook(lambda g: g * 5)
    np.testing.assert_allclose(step(hooked).asnumpy(), [5.0, 20.0])
    np.testing.assert_allclose(step(Tensor(np.ones(2, np.float32))).asnumpy(), [1.0, 4.0])
    np.testing.assert_allclose(step(hooked).asnumpy(), [5.0, 20.0])


def test_remove_hook_by_id_and_handle():
    x = _x()
    h1 = x.register_hook(triple)
    h2 = x.register_hook(plus_one)
    assert isinstance(h1.id, int) and h1.id != h2.id
    x.remove_hook(h1.id)
    assert x.hooks() == [plus_one]
    h2.remove()
    assert x.hooks() == []
    np.testing.assert_allclose(ms.grad(lambda x: (x * x).sum())(x).asnumpy(), [2.0, 4.0])


def test_bad_hooks_are_refused_clearly():
    with pytest.raises(TypeError, match="callable"):
        _x().register_hook(5)
    with pytest.raises(TypeError, match="int id"):
        _x().remove_hook("a")

    def wrong_shape(x):
        y = 2 * x
        y.register_hook(lambda g: g[:1])
        return (y * y).sum()

    with pytest.raises(ValueError, match=r"shape \(1,\).*shape \(2,\)"):
        ms.grad(wrong_shape)(_x())


def test_a_hooked_tensor_that_goes_leaves_no_entry():
    from msx.eager import tensor_hooks
    before = len(tensor_hooks._HOOKS)
    x = _x()
    x.register_hook(triple)
    assert len(tensor_hooks._HOOKS) == before + 1
    del x
    assert len(tensor_hooks._HOOKS) == before


def test_hooks_under_a_jax_transform_run_and_can_be_removed():
    """msx.grad's jax path (a Tensor holding a jax tracer): the hook is part of the value's backward."""
    import jax

    def f(a, scale):
        t = Tensor._from(a)
        handle = t.register_hook(lambda g: g * scale)
        if scale == 0:
            handle.remove()
        return ((t * t).sum())._data

    np.testing.assert_allclose(jax.grad(f)(np.array([1.0, 2.0], np.float32), 3), [6.0, 12.0])
    np.testing.assert_allclose(jax.grad(f)(np.array([1.0, 2.0], np.float32), 0), [2.0, 4.0])


def test_a_hooked_graph_runs_on_the_simulated_ascend_which_costs_the_hook():
    from msx.backends.ascend_sim.cost import CostModel
    from msx.backends.ascend_sim.report import AscendSpec
    from msx.ir import verify
    from msx.ir.serialize import graph_from_data, graph_to_data
    from msx.ops.primitive import REGISTRY

    out = ms.jit(ms.grad(intermediate), backend="ascend")(_x())
    np.testing.assert_allclose(out.asnumpy(), GOLDEN[intermediate])
    graph = ms.jit(ms.grad(intermediate)).lower(_x()).graph
    verify(graph)
    rows = CostModel(AscendSpec(), {}, set()).rows(graph)
    assert any("grad hook" in r.scope and r.op == "Add" for r in rows)
    data, arrays = graph_to_data(graph)  # the MSXIR encoding keeps the hook subgraph
    again = verify(graph_from_data(data, arrays, lambda op: op in REGISTRY))
    assert again.structurally_equal(graph)
