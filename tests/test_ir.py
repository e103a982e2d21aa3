"""The graph IR: printer, verifier, structural equality, and the higher-order nodes' lowering."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import msx
from msx import ops
from msx.errors import VerifyError
from msx.ir import Abstract, Const, Graph, Node, Var, verify
from msx.ir.interpret import evaluate
from tolerance import assert_same_float32

F32 = "float32"


def _affine_graph(scale=2.0) -> Graph:
    x = Var(Abstract((2, 3), F32), "x")
    w = Var(Abstract((3, 4), F32), "w")
    h = Var(Abstract((2, 4), F32))
    y = Var(Abstract((2, 4), F32))
    return Graph("affine", [x], [w], [Node("MatMul", [x, w], [h]), Node("Mul", [h, Const(scale)], [y])], [y])


def test_printer_shows_ops_shapes_params_and_locations():
    w = msx.Parameter(msx.Tensor(np.ones((3, 4), np.float32)), name="fc.weight")

    def f(x):
        return ops.relu(ops.matmul(x, w)) * 2.0

    graph = msx.jit(f, capture_mode="trace").capture(msx.Tensor(np.ones((2, 3), np.float32)))
    text = str(graph)
    assert text.splitlines()[0] == "graph f(%x: f32[2,3]) params(%fc.weight: f32[3,4]) {"
    assert "MatMul(%x, %fc.weight) : f32[2,4]" in text
    assert "ReLU(%0) : f32[2,4]" in text
    assert "Mul(%1, 2.0)" in text
    assert "# test_ir.py:" in text
    assert text.rstrip().endswith("return %2\n}")
    assert graph.nodes[0].loc.line == f.__code__.co_firstlineno + 1
    assert graph.nodes[0].op == "MatMul" and graph.nodes[0].abstract == Abstract((2, 4), F32)


def test_verifier_accepts_a_sound_graph_and_rejects_broken_ones():
    verify(_affine_graph())
    bad_shape = _affine_graph()
    bad_shape.nodes[0].outputs[0].abstract = Abstract((2, 5), F32)
    with pytest.raises(VerifyError, match="outputs say f32\\[2,5\\] but the op gives f32\\[2,4\\]"):
        verify(bad_shape)
    dangling = _affine_graph()
    dangling.nodes.reverse()
    with pytest.raises(VerifyError, match="dangling use"):
        verify(dangling)
    unknown = _affine_graph()
    unknown.nodes[1].op = "NoSuchOp"
    with pytest.raises(VerifyError, match="unknown primitive 'NoSuchOp'"):
        verify(unknown)
    twice = _affine_graph()
    twice.nodes[1].outputs = twice.nodes[0].outputs
    with pytest.raises(VerifyError, match="redefines"):
        verify(twice, infer=False)
    rejected = _affine_graph()
    rejected.params[0].abstract = Abstract((5, 4), F32)
    with pytest.raises(VerifyError, match="rejected by the op.*MatMul"):
        verify(rejected)


def test_structural_equality_ignores_names_but_not_structure():
    assert _affine_graph().structurally_equal(_affine_graph())
    assert not _affine_graph(2.0).structurally_equal(_affine_graph(3.0))
    g = _affine_graph()
    g.nodes[1].op = "Add"
    assert not g.structurally_equal(_affine_graph())


def test_graphs_compare_and_hash_by_identity_as_python_requires():
    a, b = _affine_graph(), _affine_graph()
    assert a == a and a != b and len({a, b}) == 2  # structurally equal, yet two graphs: == agrees with hash
    assert {a: 1}[a] == 1


def test_evaluate_matches_numpy():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    w = np.ones((3, 4), np.float32)
    (out,), updates = evaluate(_affine_graph(), [x], [w])
    np.testing.assert_allclose(out, (x @ w) * 2.0)
    assert updates == []


def _scalar_graph(name, op, const):
    a = Var(Abstract((), F32), "a")
    b = Var(Abstract((), F32))
    return Graph(name, [a], [], [Node(op, [a, Const(const)], [b])], [b])


def test_cond_node_lowers_to_lax_cond_and_takes_both_branches():
    p, a = Var(Abstract((), "bool"), "p"), Var(Abstract((), F32), "a")
    out = Var(Abstract((), F32))
    node = Node("Cond", [p, a], [out], subgraphs={"then": _scalar_graph("then", "Mul", 10.0),
                                                    "else": _scalar_graph("else", "Sub", 1.0)})
    g = Graph("c", [p, a], [], [node], [out])
    verify(g)
    f = jax.jit(lambda p, a: evaluate(g, [p, a])[0][0])
    assert float(f(True, 3.0)) == 30.0
    assert float(f(False, 3.0)) == 2.0
    assert "Cond[then=@then, else=@else](%p, %a)" in str(g)


def test_while_node_lowers_to_lax_while_loop():
    i = Var(Abstract((), F32), "i")
    c = Var(Abstract((), "bool"))
    cond = Graph("cond", [i], [], [Node("Less", [i, Const(10.0)], [c])], [c])
    out = Var(Abstract((), F32))
    g = Graph("w", [i], [], [Node("While", [i], [out], subgraphs={"cond": cond,
                                                                  "body": _scalar_graph("body", "Mul", 2.0)})], [out])
    verify(g)
    assert float(jax.jit(lambda i: evaluate(g, [i])[0][0])(1.0)) == 16.0


def test_scan_node_lowers_to_lax_scan_with_invariants():
    carry, x, k = Var(Abstract((), F32), "c"), Var(Abstract((), F32), "x"), Var(Abstract((), F32), "k")
    s, y = Var(Abstract((), F32)), Var(Abstract((), F32))
    body = Graph("body", [carry, x, k], [], [Node("Add", [carry, x], [s]), Node("Mul", [s, k], [y])], [s, y])
    c0, xs, kk = Var(Abstract((), F32), "c0"), Var(Abstract((4,), F32), "xs"), Var(Abstract((), F32), "k")
    final, ys = Var(Abstract((), F32)), Var(Abstract((4,), F32))
    g = Graph("s", [c0, xs, kk], [], [Node("Scan", [c0, xs, kk], [final, ys], {"n_carry": 1, "n_xs": 1},
                                           subgraphs={"body": body})], [final, ys])
    verify(g)
    fin, out = evaluate(g, [jnp.float32(0), jnp.arange(4, dtype=jnp.float32), jnp.float32(10)])[0]
    assert float(fin) == 6.0
    np.testing.assert_allclose(out, np.cumsum(np.arange(4)) * 10.0)


def test_grad_node_matches_jax_grad():
    w = msx.Parameter(msx.Tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)), name="w")

    def loss(x):
        return ops.tanh(ops.matmul(x, w)).sum()

    def step(x):
        value, grads = msx.value_and_grad(loss, None, [w])(x)
        return value, grads[0]

    x = np.linspace(0, 1, 6, dtype=np.float32).reshape(2, 3)
    graph = msx.jit(step, capture_mode="trace").capture(msx.Tensor(x))
    assert [n.op for n in graph.nodes] == ["Grad"]
    assert [n.op for n in graph.nodes[0].subgraphs["body"].nodes] == ["MatMul", "Tanh", "ReduceSum"]
    verify(graph)
    (value, g), _ = evaluate(graph, [x], [w._data])
    ref_value, ref_g = jax.value_and_grad(lambda w: jnp.tanh(x @ w).sum())(w._data)
    assert_same_float32(value, ref_value)
    assert_same_float32(g, ref_g)


@pytest.mark.parametrize("value", [2, 2.5, True, 1j, np.float64(2.0), np.int32(3)])
def test_a_constant_is_typed_as_jax_types_it_python_scalars_weakly(value):
    struct = jax.eval_shape(lambda x: x, value)
    a = Const(value).abstract
    assert (a.dtype, a.weak) == (np.dtype(struct.dtype).name, bool(struct.weak_type))
    assert str(a).startswith("~") == a.weak
