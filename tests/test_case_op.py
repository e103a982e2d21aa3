"""`Case` (multi-branch switch): a higher-order op added as one declaration in msx/ir/control.py, nothing else.

Every concern reads its rules: lowering (`lax.switch`, checked against numpy),
the verifier (layout and types), the Ascend cost and memory models, the
printer/parser and the `.msxir` file format.
"""
import numpy as np
import pytest

from msx.backends.ascend_sim.cost import CostModel
from msx.backends.ascend_sim.memory import MemoryModel
from msx.backends.ascend_sim.report import AscendSpec
from msx.errors import VerifyError
from msx.ir import Abstract, Const, Graph, Node, Var, verify
from msx.ir.control import CASE
from msx.ir.interpret import evaluate

F32 = Abstract((3,), "float32")


def _branch(op: str, k: float) -> Graph:
    x = Var(F32, "x")
    y = Var(F32)
    return Graph(f"branch_{op}", [x], [], [Node(op, [x, Const(k)], [y])], [y])


def _case_graph() -> Graph:
    i, x = Var(Abstract((), "int32"), "i"), Var(F32, "x")
    node = CASE.make(i, [x], [_branch("Add", 1.0), _branch("Mul", 10.0), _branch("Sub", 5.0)])
    return Graph("switch", [i, x], [], [node], list(node.outputs))


def test_case_lowers_to_a_switch_that_agrees_with_numpy():
    g = verify(_case_graph())
    x = np.array([1.0, 2.0, 3.0], np.float32)
    expected = {0: x + 1, 1: x * 10, 2: x - 5, 7: x - 5, -3: x + 1}  # out of range: clamped, as lax.switch does
    for index, want in expected.items():
        (out,), _ = evaluate(g, [np.int32(index), x])
        np.testing.assert_allclose(np.asarray(out), want)


def test_case_outputs_come_from_its_structural_rule():
    node = _case_graph().nodes[0]
    assert [v.abstract for v in node.outputs] == [F32]
    assert list(node.subgraphs) == ["branch0", "branch1", "branch2"]


def test_the_verifier_rejects_a_case_with_a_float_index_or_mismatched_branches():
    g = _case_graph()
    g.inputs[0].abstract = Abstract((), "float32")
    with pytest.raises(VerifyError, match="index must be an integer"):
        verify(g)
    g = _case_graph()
    g.nodes[0].subgraphs["branch2"].outputs = [Const(np.zeros((2,), np.float32))]
    with pytest.raises(VerifyError, match="branches return different types"):
        verify(g)


def test_the_cost_model_counts_the_costliest_branch_and_memory_the_largest():
    g = _case_graph()
    rows = CostModel(AscendSpec(), {}, set()).rows(g)
    assert len(rows) == 1 and rows[0].op in ("Add", "Mul", "Sub") and rows[0].scope.startswith("case branch")
    peak, _ = MemoryModel({}, set()).peak(g)
    assert peak >= 3 * 4 * 2  # the index, x and the output at least


def test_a_case_graph_survives_the_msxir_encoding():
    from msx.ir.serialize import graph_from_data, graph_to_data
    from msx.ops.primitive import REGISTRY

    g = _case_graph()
    data, arrays = graph_to_data(g)
    back = verify(graph_from_data(data, arrays, lambda op: op in REGISTRY))
    assert back.structurally_equal(g)
    x = np.array([1.0, 2.0, 3.0], np.float32)
    np.testing.assert_allclose(np.asarray(evaluate(back, [np.int32(1), x])[0][0]), x * 10)


def test_an_op_without_a_cost_or_memory_rule_is_an_error_never_a_guess():
    from msx.ops.primitive import REGISTRY, MissingRuleError, declare_higher_order

    g = _case_graph()
    g.nodes[0].op = "Mystery"  # no declaration at all
    with pytest.raises(MissingRuleError, match="'Mystery' is not a declared op, so it has no 'cost' rule"):
        CostModel(AscendSpec(), {}, set()).rows(g)
    with pytest.raises(MissingRuleError, match="'Mystery' is not a declared op, so it has no 'memory' rule"):
        MemoryModel({}, set()).peak(g)
    declare_higher_order("Mystery", subgraphs=("branch*",), make=None)  # declared, but with no cost rule
    try:
        with pytest.raises(MissingRuleError, match="'Mystery' has no 'cost' rule"):
            CostModel(AscendSpec(), {}, set()).rows(g)
    finally:
        REGISTRY.pop("Mystery")


def test_interpreter_and_verifier_ask_one_rule_table_and_refuse_a_missing_rule():
    """No kind test in the consumers: a declared op without `lower`/`abstract_eval` rules is a MissingRuleError
    from `evaluate` and `infer_node` alike; a first-order op given subgraphs is a verification failure."""
    from msx.ir.interpret import infer_node
    from msx.ops.primitive import REGISTRY, MissingRuleError, declare_higher_order

    g = _case_graph()
    g.nodes[0].op = "Mystery2"
    declare_higher_order("Mystery2", subgraphs=("branch*",), make=None)
    try:
        x = np.ones(3, np.float32)
        with pytest.raises(MissingRuleError, match="'Mystery2' has no 'lower' rule"):
            evaluate(g, [np.int32(1), x])
        with pytest.raises(MissingRuleError, match="'Mystery2' has no 'abstract_eval' rule"):
            infer_node(g.nodes[0])
    finally:
        REGISTRY.pop("Mystery2")
    g.nodes[0].op = "Add"
    with pytest.raises(VerifyError, match="Add is not a higher-order op but has subgraphs"):
        verify(g)
