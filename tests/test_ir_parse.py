"""The IR's text form is complete: print -> parse -> structurally equal, for every higher-order kind."""
import numpy as np
import pytest

import msx
from msx import nn, ops
from msx.ir import Abstract, Const, Graph, Node, Var, verify
from msx.ir.control import CALL, CASE
from msx.ir.parse import IRParseError, parse_graph
from msx.ir.printer import format_graph
from msx.ir.symbolic import Dim
from msx.passes import optimise

X = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)


def _train_step():
    net = nn.SequentialCell([nn.Dense(3, 5), nn.ReLU(), nn.Dense(5, 2)])
    opt = nn.Adam(net.trainable_params(), 1e-3)
    grad_fn = msx.value_and_grad(lambda x: net(x).sum(), None, opt.parameters)

    def step(x):
        loss, grads = grad_fn(x)
        opt(grads)
        return loss

    return msx.jit(step, capture_mode="trace").capture(msx.Tensor(X))


def _conv():
    net = nn.SequentialCell([nn.Conv2d(1, 2, 3, pad_mode="same"), nn.MaxPool2d(2, 2), nn.Flatten()])
    return msx.jit(net, capture_mode="trace").capture(msx.Tensor(np.ones((1, 1, 4, 4), np.float32)))


def _control():
    @msx.jit
    def flow(x, n):
        if x.sum() > 0:
            y = x * 2
        else:
            y = x - 1
        while y.sum() < n:
            y = y + 1
        for r in x:
            y = y + r
        return y

    return flow.capture(msx.Tensor(X), msx.Tensor(30.0))


def _fused():
    def chain(x):
        return ops.exp(ops.relu(x) * 2.0 + 1.0) - np.float32(3)

    g = msx.jit(chain, capture_mode="trace").capture(msx.Tensor(X))
    return optimise(g, "O1").graph


def _call_and_case():
    a, i = Var(Abstract((3,), "float32"), "a"), Var(Abstract((), "int32"), "i")

    def unary(op, name):
        v, o = Var(a.abstract, "a"), Var(a.abstract)
        return Graph(name, [v], [], [Node(op, [v], [o])], [o])

    call = CALL.make(unary("Neg", "body"), [a])
    case = CASE.make(i, [call.outputs[0]], [unary("Exp", "body"), unary("Neg", "b1"), unary("Abs", "b2")])
    const = np.arange(6, dtype=np.float16).reshape(2, 3)
    add = Node("Add", [case.outputs[0], Const(const)], [Var(Abstract((2, 3), "float32"))])
    return Graph("call_case", [i, a], [], [call, case, add], [add.outputs[0], Const(True)])


MODELS = {"grad": _train_step, "conv": _conv, "control": _control, "fused": _fused, "call_case": _call_and_case}


@pytest.fixture(scope="module")
def graphs():
    return {k: make() for k, make in MODELS.items()}


@pytest.mark.parametrize("model", sorted(MODELS))
def test_print_parse_is_structurally_equal(graphs, model):
    g = graphs[model]
    text = format_graph(g, full_constants=True)
    back = parse_graph(text)
    assert back.structurally_equal(g)
    assert format_graph(back, full_constants=True) == text  # and prints the same again
    verify(back)


def test_every_higher_order_kind_is_covered(graphs):
    ops_seen = set().union(*(g.primitives_used() for g in graphs.values()))
    assert {"Grad", "Cond", "While", "Scan", "Call", "Fused", "Case"} <= ops_seen


def test_two_subgraphs_sharing_a_name_print_apart():
    text = str(_call_and_case())
    assert "body=@body]" in text and "branch0=@body.1" in text and "graph body.1(" in text


def test_a_parsed_graph_runs_like_the_original(graphs):
    from msx.ir.interpret import evaluate

    g = graphs["control"]
    back = parse_graph(str(g))
    x, n = X, np.float32(30.0)
    np.testing.assert_allclose(np.asarray(evaluate(back, [x, n])[0][0]), np.asarray(evaluate(g, [x, n])[0][0]))


def test_symbolic_dims_and_weak_scalars_round_trip():
    x = Var(Abstract((Dim("b"), Dim("floordiv(b, 2)"), 3), "float32"), "x")
    y = Var(x.abstract)
    g = Graph("sym", [x], [], [Node("Mul", [x, Const(2.5)], [y])], [y])
    back = parse_graph(str(g))
    assert back.structurally_equal(g) and back.inputs[0].abstract.shape == (Dim("b"), Dim("floordiv(b, 2)"), 3)
    assert back.nodes[0].inputs[1].abstract == Abstract((), "float64", weak=True)


def test_an_elided_constant_or_a_dangling_use_is_a_clear_error():
    x = Var(Abstract((8,), "float32"), "x")
    y = Var(x.abstract)
    g = Graph("big", [x], [], [Node("Add", [x, Const(np.zeros(8, np.float32))], [y])], [y])
    assert "f32[8]{...}" in str(g)
    with pytest.raises(IRParseError, match="elided when printed.*full_constants=True"):
        parse_graph(str(g))
    assert parse_graph(format_graph(g, full_constants=True)).structurally_equal(g)
    with pytest.raises(IRParseError, match="line 2: %zz is used before it is defined"):
        parse_graph("graph g(%x: f32[2]) {\n  %0 = Neg(%zz) : f32[2]\n  return %0\n}")
    with pytest.raises(IRParseError, match="refers to subgraph @nowhere"):
        parse_graph("graph g(%x: f32[2]) {\n  %0 = Call[body=@nowhere](%x) : f32[2]\n  return %0\n}")
