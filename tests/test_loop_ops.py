"""`ops.WhileLoop`, `ops.ForiLoop`, `ops.Scan` (msx/ops/loop_ops.py, msx/loop_capture.py) against MindSpore 2.10.

The cases are tests/golden_loops/loop_cases.py, written once against MindSpore's API; the answers are MindSpore's
(PyNative, and GRAPH_MODE where it compiles the case), recorded by tests/golden_loops/record.py. Each case
runs eagerly and under `msx.jit` in every capture mode, whose graph holds the IR's `While`/`Scan` node
(verified, costed by the Ascend model, through the MSXIR encoding and back).
"""
import json
import os
import sys
import warnings

import numpy as np
import pytest

import msx
from msx import Tensor, ops
from msx.errors import OpError, OpTypeError

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "golden_loops"))
import loop_cases as C  # noqa: E402

GOLDEN = json.load(open(os.path.join(HERE, "golden_loops", "loops_ms210.json")))
MODES = ["ast", "bytecode", "trace"]


def _x() -> Tensor:
    return Tensor(C.X)


def same(got, want) -> None:
    """`got` (an msx result tree) holds MindSpore's recorded `want`. A number MindSpore carries through a graph
    loop is a 0-d Tensor in msx's graph (the one kept difference), so a number may come back as a Tensor."""
    if "value" in want:
        assert isinstance(got, Tensor), type(got)
        assert str(got.dtype) == want["dtype"]
        np.testing.assert_allclose(got.asnumpy(), np.asarray(want["value"]), rtol=1e-6)
    elif "number" in want:
        value = got.asnumpy().item() if isinstance(got, Tensor) else got
        assert value == want["number"]
    else:
        (kind, items), = want.items()
        assert type(got).__name__ == kind, (type(got), kind)
        if kind == "dict":
            assert sorted(got) == sorted(items)
            for k in items:
                same(got[k], items[k])
        else:
            assert len(got) == len(items)
            for g, w in zip(got, items):
                same(g, w)


def _want(name: str):
    want = GOLDEN["values"][name]
    return GOLDEN["jit_values"][name] if "error" in want else want


EAGER = [f for f in C.VALUES if "error" not in GOLDEN["values"][f.__name__]]


@pytest.mark.parametrize("case", EAGER, ids=lambda f: f.__name__)
def test_eagerly_as_mindspore(case):
    same(case(msx, _x()), GOLDEN["values"][case.__name__])


def test_python_values_stay_python_values_eagerly():
    assert C.while_python(msx, _x()) == 100
    out = C.while_tuple(msx, _x())
    assert isinstance(out, tuple) and out[1] == 3  # MindSpore PyNative: the int stays an int


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", C.VALUES, ids=lambda f: f.__name__)
def test_under_jit_as_mindspore(case, mode):
    run = msx.jit(lambda v: case(msx, v), capture_mode=mode)
    for _ in range(2):  # the capture call and a compiled one
        same(run(_x()), _want(case.__name__))


def test_scan_with_xs_none_follows_the_documented_loop():
    # MindSpore 2.10's PyNative Scan cannot take xs=None (its type check itself fails: recorded as an error);
    # its GRAPH_MODE runs the documented loop, and so does msx eagerly
    assert "error" in GOLDEN["values"]["scan_none"]
    same(C.scan_none(msx, _x()), GOLDEN["jit_values"]["scan_none"])


@pytest.mark.parametrize("case", C.GRADS, ids=lambda f: f.__name__)
def test_gradients_eagerly_as_mindspore(case):
    same(msx.grad(lambda v: case(msx, v))(_x()), GOLDEN["grads"][case.__name__])


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", C.GRADS, ids=lambda f: f.__name__)
def test_gradients_under_jit_as_mindspore(case, mode):
    run = msx.jit(msx.grad(lambda v: case(msx, v)), capture_mode=mode)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        same(run(_x()), GOLDEN["grads"][case.__name__])
    if case in (C.g_while, C.g_fori_tensor_bounds) and mode != "bytecode":  # a While: the call runs in Python
        assert any("trip count depends on tensor values" in str(w.message) for w in seen)


def _loop_nodes(graph) -> list[str]:
    found = []
    for node in graph.nodes:
        if node.op in ("While", "Scan"):
            found.append(node.op)
        for sub in node.subgraphs.values():
            found += _loop_nodes(sub)
    return found


@pytest.mark.parametrize("case, nodes", [(C.while_tensor, ["While"]), (C.fori_loop, ["Scan"]),
                                         (C.fori_tensor_bounds, ["While"]), (C.scan_loop, ["Scan"]),
                                         (C.scan_tree, ["Scan"]), (C.fori_unroll, []), (C.scan_unroll, []),
                                         (C.while_python, [])], ids=lambda c: getattr(c, "__name__", ""))
def test_the_graph_holds_one_loop_node_unless_unrolled(case, nodes):
    for mode in MODES:
        graph = msx.jit(lambda v: case(msx, v), capture_mode=mode).lower(_x()).graph
        assert _loop_nodes(graph) == nodes, mode


@pytest.mark.parametrize("case", [C.while_tensor, C.fori_loop, C.scan_tree], ids=lambda f: f.__name__)
def test_loop_graphs_verify_cost_and_survive_the_msxir_encoding(case):
    from msx.backends.ascend_sim.cost import CostModel
    from msx.backends.ascend_sim.report import AscendSpec
    from msx.ir import verify
    from msx.ir.interpret import evaluate
    from msx.ir.serialize import graph_from_data, graph_to_data
    from msx.ops.primitive import REGISTRY

    graph = verify(msx.jit(lambda v: case(msx, v)).lower(_x()).graph)
    assert CostModel(AscendSpec(), {}, set()).rows(graph)
    data, arrays = graph_to_data(graph)
    back = verify(graph_from_data(data, arrays, lambda op: op in REGISTRY))
    assert back.structurally_equal(graph)
    want = [np.asarray(o) for o in evaluate(graph, [C.X])[0]]
    got = [np.asarray(o) for o in evaluate(back, [C.X])[0]]
    for w, g in zip(want, got):
        np.testing.assert_allclose(g, w)


def _body(i, v):
    return v * 2


def test_bad_arguments_are_mindspore_errors():
    with pytest.raises(OpTypeError, match="WhileLoop: `cond_func` must be a Python function"):
        ops.WhileLoop()(3, _body, _x())
    with pytest.raises(OpTypeError, match="ForiLoop: `lower` must be an int or a Tensor"):
        ops.ForiLoop()(0.5, 3, _body, _x())
    with pytest.raises(OpTypeError, match="Scan: `xs` must be a list, a tuple or None"):
        ops.Scan()(lambda c, e: (c, e), 0, _x())
    with pytest.raises(OpTypeError, match="with xs=None, `length` must be an int"):
        ops.Scan()(lambda c, e: (c, e), 0, None)
    with pytest.raises(OpError, match="ForiLoop: Invalid loop_func.*error info"):  # MindSpore's ValueError
        ops.ForiLoop()(0, 2, lambda i: i, _x())
    assert isinstance(OpError("x"), ValueError)


@pytest.mark.parametrize("mode", MODES)
def test_a_loop_changing_its_carry_type_is_an_error_naming_the_op(mode):
    def grow(x):
        return ops.ForiLoop()(0, 2, lambda i, v: ops.concat((v, v)), x, unroll=False)

    with pytest.raises(OpError, match="ForiLoop"):
        msx.jit(grow, capture_mode=mode, fullgraph=True)(_x())


def test_a_loop_function_writing_state_is_refused_under_jit():
    p = msx.Parameter(Tensor(np.zeros(3, np.float32)), name="p")

    def writes(x):
        def body(i, v):
            p.set_data(v)
            return v + 1
        return ops.ForiLoop()(0, 2, body, x, unroll=False)

    with pytest.raises(OpError, match="writes state"):
        msx.jit(writes, capture_mode="trace")(_x())


def _closures_and_nesting(x):
    y = x * 2
    a = ops.WhileLoop()(lambda v: v.sum() < y.sum() * 5, lambda v: v + y, x)
    b = ops.Scan()(lambda c, e: (c + e * y, c.sum()), x, [x[0], x[1]], unroll=False)
    c = ops.WhileLoop()(lambda v: v[0].sum() < 30,
                        lambda v: (ops.ForiLoop()(0, 2, lambda i, w: w + y, v[0], unroll=False), v[1] + 1), (x, 0))
    return a, b, c


@pytest.mark.parametrize("mode", MODES)
def test_values_read_from_outside_and_nested_loops_stay_in_one_graph(mode):
    # x = [1, 2, 3]: a = x + 5y, the scan adds 1*y then 2*y, the outer while runs once (x + 2y = [5, 10, 15])
    want = ([11, 22, 33], ([7, 14, 21], [6.0, 18.0]), ([5, 10, 15], 1))
    run = msx.jit(_closures_and_nesting, capture_mode=mode, fullgraph=True)  # no fallback: one graph
    for _ in range(2):
        a, (b, ys), (c, n) = run(_x())
        np.testing.assert_allclose(a.asnumpy(), want[0])
        np.testing.assert_allclose(b.asnumpy(), want[1][0])
        np.testing.assert_allclose([y.asnumpy() for y in ys], want[1][1])
        np.testing.assert_allclose(c.asnumpy(), want[2][0])
        assert int(n) == want[2][1]


@pytest.mark.parametrize("mode", MODES)
def test_value_and_grad_through_a_scan_node(mode):
    run = msx.jit(msx.value_and_grad(lambda v: C.g_scan(msx, v)), capture_mode=mode, fullgraph=True)
    value, grad = run(_x())
    assert float(value) == pytest.approx(6.0 + 5.0)  # carry 6, ys[2] = 5 (MindSpore's values above)
    same(grad, GOLDEN["grads"]["g_scan"])
