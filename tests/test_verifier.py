"""The verifier catches a hand-broken graph of every higher-order kind, and shows where (jax's check_jaxpr habit).

Each kind's graph is a real one (captured, or made by the pass or constructor
that makes such nodes in msx); each is broken three ways — a subgraph with the
wrong arity, an update of a parameter the graph does not have, an attr the
primitive does not declare — and the error names the node and prints it
between its neighbours with its source line.
"""
import copy

import numpy as np
import pytest

import msx
from msx import nn, ops
from msx.errors import PassError, VerifyError
from msx.ir import Abstract, Graph, Node, Var, verify
from msx.ir.control import CALL, CASE
from msx.passes.fusion import ElementwiseFusion


def _first(graph: Graph, op: str) -> Node:
    for node in graph.nodes:
        if node.op == op:
            return node
    for sub in graph.subgraphs():
        for node in sub.nodes:
            if node.op == op:
                return node
    raise AssertionError(f"no {op} node")


@pytest.fixture(scope="module")
def graphs() -> dict[str, Graph]:
    x = msx.Tensor(np.arange(12, dtype=np.float32).reshape(4, 3))

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

    control = flow.capture(x, msx.Tensor(30.0))
    net = nn.Dense(3, 2)
    opt = nn.SGD(net.trainable_params(), 0.1)
    grad_fn = msx.value_and_grad(lambda x: net(x).sum(), None, opt.parameters)

    @msx.jit
    def step(x):
        loss, grads = grad_fn(x)
        opt(grads)
        return loss

    grad = step.capture(x)

    def chain(x):
        return ops.exp(ops.relu(x) * 2.0 + 1.0)

    fused = ElementwiseFusion().run(msx.jit(chain, capture_mode="trace").capture(x))
    a = Var(Abstract((3,), "float32"), "a")
    inner_in, inner_out = Var(a.abstract, "a"), Var(a.abstract)
    body = Graph("body", [inner_in], [], [Node("Neg", [inner_in], [inner_out])], [inner_out])
    call = CALL.make(body, [a])
    i = Var(Abstract((), "int32"), "i")
    b0_in, b0_out = Var(a.abstract, "a"), Var(a.abstract)
    b1_in, b1_out = Var(a.abstract, "a"), Var(a.abstract)
    case = CASE.make(i, [a], [Graph("b0", [b0_in], [], [Node("Neg", [b0_in], [b0_out])], [b0_out]),
                              Graph("b1", [b1_in], [], [Node("Exp", [b1_in], [b1_out])], [b1_out])])
    graphs = {"Cond": control, "While": control, "Scan": control, "Grad": grad, "Fused": fused,
              "Call": Graph("call", [a], [], [call], list(call.outputs)),
              "Case": Graph("case", [i, a], [], [case], list(case.outputs))}
    for g in graphs.values():
        verify(g)
    return graphs


KINDS = ["Grad", "Cond", "While", "Scan", "Call", "Fused", "Case"]


@pytest.mark.parametrize("kind", KINDS)
def test_a_subgraph_of_the_wrong_arity_is_caught(graphs, kind):
    g = copy.deepcopy(graphs[kind])
    node = _first(g, kind)
    sub = next(iter(node.subgraphs.values()))
    sub.inputs.append(Var(Abstract((7,), "float32"), "extra"))
    with pytest.raises(VerifyError, match=rf"node \d+ \({kind}\): .*takes {len(sub.inputs)} inputs"):
        verify(g)


@pytest.mark.parametrize("kind", KINDS)
def test_missing_or_renamed_subgraphs_are_caught(graphs, kind):
    g = copy.deepcopy(graphs[kind])
    node = _first(g, kind)
    key = next(iter(node.subgraphs))
    node.subgraphs["stray"] = node.subgraphs.pop(key)
    with pytest.raises(VerifyError, match=rf"\({kind}\): expects subgraphs"):
        verify(g)


@pytest.mark.parametrize("kind", KINDS)
def test_an_update_of_an_unknown_parameter_is_caught(graphs, kind):
    g = copy.deepcopy(graphs[kind])
    sub = next(iter(_first(g, kind).subgraphs.values()))
    sub.updates.append(("ghost.weight", sub.inputs[0]))
    with pytest.raises(VerifyError, match=r"updates 'ghost.weight', which is not one of its parameters"):
        verify(g)
    g = copy.deepcopy(graphs[kind])
    g.updates.append(("ghost.weight", g.inputs[0]))
    with pytest.raises(VerifyError, match=r"updates 'ghost.weight'"):
        verify(g)


@pytest.mark.parametrize("kind", KINDS)
def test_an_attr_the_op_does_not_declare_is_caught(graphs, kind):
    g = copy.deepcopy(graphs[kind])
    _first(g, kind).attrs["unroll"] = 2
    with pytest.raises(VerifyError, match=rf"attrs \['unroll'\] are not among {kind}'s declared attrs"):
        verify(g)


def test_a_first_order_node_with_an_undeclared_attr_is_caught(graphs):
    g = copy.deepcopy(graphs["Cond"])
    _first(g, "ReduceSum").attrs["keep_dims"] = True  # a typo of `keepdims`
    with pytest.raises(VerifyError, match=r"\['keep_dims'\] are not among ReduceSum's declared attrs \['axis', "
                                          r"'keepdims'\]"):
        verify(g)


def test_the_error_shows_the_node_between_three_neighbours_each_side_and_its_source_line(graphs):
    g = copy.deepcopy(graphs["Cond"])
    index = next(i for i, n in enumerate(g.nodes) if n.op == "Scan")
    g.nodes[index].attrs["n_carry"] = 5
    with pytest.raises(VerifyError) as info:
        verify(g)
    text = str(info.value)
    lines = text.splitlines()
    marked = [ln for ln in lines if ln.lstrip().startswith(">>>")]
    assert len(marked) == 1 and "Scan[n_carry=5" in marked[0] and "# test_verifier.py:" in marked[0]
    shown = [ln for ln in lines if ln.startswith("     ") and " = " in ln and not ln.lstrip().startswith(">>>")]
    assert len(shown) == min(3, index) + min(3, len(g.nodes) - index - 1)
    assert 'test_verifier.py", line' in text and "for r in x:" in text  # the rendered source line


def test_a_pass_that_breaks_shapes_is_named_by_default_not_left_to_jax():
    from msx.passes.base import Pass

    class Widen(Pass):
        name = "widen_first_output"

        def run(self, graph):
            for node in graph.nodes:
                if node.op == "ReduceSum":
                    node.outputs[0].abstract = Abstract((2,), node.outputs[0].abstract.dtype)
            return graph

    @msx.jit(capture_mode="trace")
    def total(x):
        return ops.exp(x).sum()

    from msx.passes.registry import register_custom_pass, unregister_custom_pass
    widen = Widen()
    register_custom_pass(widen, stage="frontend")
    try:
        with pytest.raises(PassError, match=r"pass 'widen_first_output' \(frontend\) broke the graph: .*ReduceSum"):
            total(msx.Tensor(np.ones((2, 3), np.float32)))
    finally:
        unregister_custom_pass(widen)
