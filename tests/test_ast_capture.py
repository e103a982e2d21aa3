"""capture_mode="ast": the conformance table (eager vs jit, gradients included) and what is specific to ast."""
import linecache
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import conformance_programs as C
import msx
from msx import nn, ops

PROGRAMS = {p.name: p for p in C.PROGRAMS}


@pytest.mark.parametrize("program", C.PROGRAMS, ids=[p.name for p in C.PROGRAMS])
def test_conformance(program):
    C.check(program, "ast")


def _t(*values):
    return msx.Tensor(np.array(values, np.float32))


def _ops(graph):
    return [n.op for n in graph.nodes]


# ---------------------------------------------------------------- what the graph holds
def test_ast_is_jits_default_and_tensor_control_flow_becomes_graph_nodes():
    x = msx.Tensor(np.ones((3, 4), np.float32))
    assert msx.jit(C.tensor_if_else).config.capture_mode == "ast"
    cond = msx.jit(C.tensor_if_else).capture(x)
    assert "Cond" in _ops(cond)
    assert {n.op for n in cond.nodes[_ops(cond).index("Cond")].subgraphs["then"].nodes} == {"Mul"}
    assert "While" in _ops(msx.jit(C.while_tensor_condition).capture(x))
    assert "Scan" in _ops(msx.jit(C.for_over_tensor).capture(x, msx.Tensor(np.ones(4, np.float32))))
    # decided at compile time: no control-flow node, and only the branch taken is in the graph
    static = msx.jit(C.static_if_elif_else).capture(x, "negate")
    assert _ops(static) == ["Neg"]
    unrolled = msx.jit(C.for_range_static).capture(x)
    assert not {"Cond", "While", "Scan"} & set(_ops(unrolled)) and _ops(unrolled).count("Mul") == 4


def test_printed_graph_of_a_tensor_if_names_its_branches_and_lines():
    text = str(msx.jit(C.tensor_if_else).capture(msx.Tensor(np.ones((3, 4), np.float32))))
    line = C.tensor_if_else.__code__.co_firstlineno + 1
    assert f"Cond[then=@tensor_if_else_then{line}, else=@tensor_if_else_else{line}]" in text
    assert f"graph tensor_if_else_then{line}(" in text and f"# conformance_programs.py:{line + 1}" in text


def test_python_number_carried_by_a_while_loop_becomes_a_tensor():
    out, steps = msx.jit(C.while_tensor_condition)(msx.Tensor(np.ones((3, 4), np.float32)))
    eager_out, eager_steps = C.while_tensor_condition(msx.Tensor(np.ones((3, 4), np.float32)))
    assert isinstance(eager_steps, int) and isinstance(steps, msx.Tensor) and steps.dtype == msx.int64
    assert int(steps) == eager_steps and np.allclose(out.asnumpy(), eager_out.asnumpy())


# ---------------------------------------------------------------- gradients against plain jax
def test_grads_through_cond_and_scan_match_jax():
    def f(x, w):
        h = x * w
        if h.sum() > 0:
            h = ops.tanh(h) * 2
        else:
            h = h * h
        acc = h[0] * 0
        for row in h:
            acc = ops.sin(acc) + row * w
        return acc.sum()

    def reference(x, w):
        h = x * w
        h = jax.lax.cond(h.sum() > 0, lambda h: jnp.tanh(h) * 2, lambda h: h * h, h)
        acc, _ = jax.lax.scan(lambda acc, row: (jnp.sin(acc) + row * w, None), h[0] * 0, h)
        return acc.sum()

    grad_fn = msx.jit(msx.grad(f, grad_position=(0, 1)), fullgraph=True)
    rng = np.random.default_rng(0)
    for shift in (1.0, -1.0):
        x = rng.normal(size=(3, 4)).astype(np.float32) + shift
        w = np.abs(rng.normal(size=4)).astype(np.float32)
        gx, gw = grad_fn(msx.Tensor(x), msx.Tensor(w))
        rx, rw = jax.grad(reference, argnums=(0, 1))(x, w)
        np.testing.assert_allclose(gx.asnumpy(), rx, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(gw.asnumpy(), rw, rtol=1e-5, atol=1e-5)
    assert grad_fn.compiles == 1  # one graph for both signs: the branch is chosen at run time
    graph = grad_fn.capture(msx.Tensor(x), msx.Tensor(w))
    body = graph.nodes[_ops(graph).index("Grad")].subgraphs["body"]
    assert {"Cond", "Scan"} <= set(_ops(body))


# ---------------------------------------------------------------- fallback and errors
def test_fallback_warns_once_with_the_line_and_runs_eagerly():
    jf = msx.jit(C.python_value_of_a_tensor)
    x = msx.Tensor(np.ones((3, 4), np.float32))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first, second = jf(x), jf(x * -1)
    messages = [str(w.message) for w in caught]
    assert len(messages) == 1, messages
    line = C.marked_line("python_value_of_a_tensor", "breaks")
    assert messages[0].startswith("msx.jit: python_value_of_a_tensor runs eagerly for this signature: "
                                  "[capture: ast] float(Tensor) needs the value of a tensor")
    assert f'conformance_programs.py", line {line}, in python_value_of_a_tensor' in messages[0]
    code = "    scale = float(x.sum())  # <- breaks: python_value_of_a_tensor"
    assert f"{code}\n            ^^^^^^^^^^^^^^" in messages[0]
    C.assert_same(C.python_value_of_a_tensor(x), first, "first call")
    C.assert_same(C.python_value_of_a_tensor(x * -1), second, "second call")


@pytest.mark.parametrize("name,code,caret", [
    ("uses_with", "with warnings.catch_warnings():  # <- breaks: uses_with",
     "^" * len("with warnings.catch_warnings():  # <- breaks: uses_with")),
    ("appends_to_a_global_list", "_SEEN.append(x)  # <- breaks: appends_to_a_global_list",
     "^" * len("_SEEN.append(x)")),
])
def test_fullgraph_error_names_stage_reason_and_underlines_the_line(name, code, caret):
    with pytest.raises(msx.errors.CaptureError) as info:
        msx.jit(PROGRAMS[name].make(), fullgraph=True)(msx.Tensor(np.ones((3, 4), np.float32)))
    text = str(info.value)
    line = C.marked_line(name, "breaks")
    assert text.startswith("[capture: ast] ") and "fullgraph=True" in text
    assert f'conformance_programs.py", line {line}, in {name}\n    {code}\n    {caret}' in text
    assert info.value.loc.col == 4 and info.value.stage == "capture: ast"


def test_user_errors_keep_their_type_and_point_at_the_expression():
    with pytest.raises(TypeError) as info:
        msx.jit(C.static_type_error)(msx.Tensor(np.ones((3, 4), np.float32)))
    err = info.value
    assert isinstance(err, msx.errors.MsxError) and err.stage == "capture: ast"
    assert str(err).startswith("[capture: ast] TypeError: object of type 'int' has no len()")
    assert str(err).endswith("    return x * len(5)  # <- raises: static_type_error\n               ^^^^^^")
    with pytest.raises(ValueError) as info:
        msx.jit(C.shape_error)(msx.Tensor(np.ones((3, 4), np.float32)))
    assert str(info.value).startswith("[capture: ast] MatMul: contracting dims differ: (3, 4) @ (5, 2)")
    assert "    return ops.matmul(x, w)  # <- raises: shape_error\n           ^^^^^^^^^^^^^^^^" in str(info.value)


def test_tensor_and_static_type_mismatch_between_branches_is_explained():
    def f(x):
        if x.sum() > 0:
            y = x
        else:
            y = "negative"
        return y

    with pytest.raises(msx.errors.CaptureError, match=r"`y` is str 'negative' on one path and a tensor f32\[2\] on "
                                                      r"the other; only tensors and numbers may differ") as info:
        msx.jit(f, fullgraph=True)(_t(1.0, 2.0))
    assert info.value.loc.line == f.__code__.co_firstlineno + 1


# ---------------------------------------------------------------- print, source retrieval, state, GRAPH_MODE
def test_print_and_ops_print_run_at_run_time_in_order(capfd):
    def f(x):
        print("start", x.shape)
        i = 0
        while x.sum() < 8:
            print(f"step {i}: {x}")
            x = x * 2
            i = i + 1
        if x.sum() > 100:
            print("big")
        else:
            ops.Print()("small", x.sum())
        return x

    jf = msx.jit(f, fullgraph=True)
    capfd.readouterr()
    jf(_t(1.0, 2.0))
    jf(_t(3.0, 4.0))
    lines = capfd.readouterr().out.splitlines()
    assert lines == ["start (2,)", "step 0: [1. 2.]", "step 1: [2. 4.]", "small 12.0",
                     "start (2,)", "step 0: [3. 4.]", "small 14.0"]


def test_source_of_lambdas_closures_methods_and_notebook_cells():
    first, second = (lambda x: x + 1), (lambda x: x * 2)  # two lambdas on one line
    assert _ops(msx.jit(first).capture(_t(1.0))) == ["Add"]
    assert _ops(msx.jit(second).capture(_t(1.0))) == ["Mul"]
    scale = 2.0

    def closure(x):
        return x * scale

    scale = 5.0  # cell variables are read when the function is captured, as Python reads them when it runs
    assert float(msx.jit(closure)(_t(1.0))) == 5.0

    class Net(nn.Cell):
        @msx.jit
        def construct(self, x):
            if x.sum() > 0:
                return x * 3
            return x

    assert float(Net()(_t(2.0))) == 6.0 and float(Net()(_t(-2.0))) == -2.0
    source = "def cell_fn(x):\n    if x.sum() > 0:\n        return x * 10\n    return -x\n"
    name = "<ipython-input-3-0123456789ab>"  # how IPython registers a cell's source
    linecache.cache[name] = (len(source), None, source.splitlines(True), name)
    namespace: dict = {}
    exec(compile(source, name, "exec"), namespace)
    jf = msx.jit(namespace["cell_fn"], fullgraph=True)
    assert float(jf(_t(1.0))) == 10.0 and float(jf(_t(-1.0))) == 1.0
    assert "Cond" in _ops(jf.capture(_t(1.0)))


def test_stage_calls_have_no_side_effects_and_the_first_call_runs_the_graph():
    step = C._training_step_with_cond()
    x, y = C._classification(np.random.default_rng(1), 0)
    before = [p.asnumpy().copy() for p in step.state]
    jf = msx.jit(step)
    graph = jf.capture(x, y)
    jf.lower(x, y)
    for p, b in zip(step.state, before):
        np.testing.assert_array_equal(p.asnumpy(), b)
    assert {name for name, _ in graph.updates} >= {p.name for p in step.state}
    jf(x, y)
    assert jf.cache_info()["captures"] == 3 and jf.compiles == 1
    assert not np.allclose(step.state[0].asnumpy(), before[0])


def test_graph_mode_routes_cells_through_ast_capture():
    class Gate(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(2, 2)

        def construct(self, x):
            h = self.fc(x)
            if h.sum() > 0:
                h = h * 2
            return h

    msx.set_seed(0)
    net = Gate()
    inputs = [_t(1.0, 2.0), _t(-3.0, -4.0), _t(5.0, 6.0)]
    expected = [net(x) for x in inputs]
    msx.set_context(mode=msx.GRAPH_MODE)
    try:
        got = [net(x) for x in inputs]
    finally:
        msx.set_context(mode=msx.PYNATIVE_MODE)
    for e, g in zip(expected, got):
        C.assert_same(e, g, "GRAPH_MODE")
    assert net._jit_cache.config.capture_mode == "ast" and net._jit_cache.compiles == 1
