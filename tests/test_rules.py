"""The rewrite engine (msx.passes.rules): patterns as data, commutative and multi-output matching, the fixpoint
driver the built-in rules use, and replace_pattern matching and building at the matched shapes (not the
(2, 2) float32 examples). Every rewrite is checked against evaluating the graph before it."""
import numpy as np
import pytest

import msx
from msx import ops
from msx.errors import PassError
from msx.ir import Abstract, Const, Graph, Node, Var
from msx.ir.interpret import evaluate
from msx.passes import PatternToPatternPass, replace_pattern
from msx.passes.rules import Pat, Rule, RuleSet, rewrite
from msx.passes.simplify import AlgebraicSimplification

RNG = np.random.default_rng(0)


def _t(*shape):
    return msx.Tensor(RNG.normal(size=shape).astype(np.float32))


def _graph_of(fn, *args) -> Graph:
    return msx.jit(fn, capture_mode="trace").capture(*args)


def _same_values(before: Graph, after: Graph, *args):
    arrays = [a._data for a in args]
    for b, a in zip(evaluate(before, arrays)[0], evaluate(after, arrays)[0]):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-5)


def _ops(graph: Graph) -> list[str]:
    return [n.op for n in graph.nodes]


def test_commutative_cnodes_match_either_operand_order():
    class AddNeg(PatternToPatternPass):
        commutative = False

        def define_src_pattern(self, src):
            src.add_var("x").add_var("y").add_cnode("neg", "Neg", ["y"])
            src.add_cnode("add", "Add", ["x", "neg"], commutative=self.commutative)

        def define_dst_pattern(self, dst):
            dst.add_cnode("sub", "Sub", ["x", "y"])

    class AddNegEitherWay(AddNeg):
        commutative = True

    x, y = _t(3), _t(3)
    graph = _graph_of(lambda x, y: ops.neg(y) + x, x, y)  # the Neg is the first operand
    assert AddNeg()(graph) is graph
    out = AddNegEitherWay()(graph)
    assert _ops(out) == ["Sub"]
    _same_values(graph, out, x, y)


def test_multi_output_patterns_replace_all_their_roots():
    both = replace_pattern(lambda x, y: (x + y, x - y), lambda x, y: (y + x, ops.neg(y - x)))
    x, y = _t(2, 3), _t(2, 3)
    graph = _graph_of(lambda x, y: ops.exp(x + y) * (x - y), x, y)
    out = both(graph)
    assert _ops(out) == ["Add", "Sub", "Neg", "Exp", "Mul"]
    assert out.nodes[0].inputs == [graph.inputs[1], graph.inputs[0]]
    _same_values(graph, out, x, y)
    lone = _graph_of(lambda x, y: x + y, x, y)  # only one of the two roots: no match
    assert both(lone) is lone


def test_replace_pattern_matches_and_builds_at_the_matched_shapes():
    # the destination's reshape to x.shape means the matched x's shape, not the (2, 2) example's
    exp_flat = replace_pattern(lambda x: ops.exp(x), lambda x: ops.reshape(ops.exp(ops.reshape(x, (-1,))), x.shape))
    x = _t(3, 4)
    graph = _graph_of(lambda x: ops.exp(x) + 1, x)
    out = exp_flat(graph)
    assert _ops(out) == ["Reshape", "Exp", "Reshape", "Add"]
    assert out.nodes[0].attrs["shape"] == (-1,) and out.nodes[2].attrs["shape"] == (3, 4)
    _same_values(graph, out, x)
    # a source attribute computed from the shape is compared with what the source records at the match's shape
    flatten = replace_pattern(lambda x: ops.reshape(x, (x.shape[0] * x.shape[1],)), lambda x: ops.flatten(
        ops.expand_dims(x, 0)).squeeze(0))
    flat = _graph_of(lambda x: ops.reshape(x, (12,)) * 2, x)
    assert "Reshape" not in _ops(flatten(flat))
    _same_values(flat, flatten(flat), x)
    other = _graph_of(lambda x: ops.reshape(x, (4, 3)), x)  # the same op with other attributes: no match
    assert flatten(other) is other


def test_engine_rules_reach_a_fixpoint_in_one_sweep():
    x = _t(4)
    graph = _graph_of(lambda x: ops.neg(ops.neg((x * 1.0 + 0.0) - 0.0)) / 1.0, x)
    out = AlgebraicSimplification()(graph)
    assert out.outputs[0] is graph.inputs[0]
    _same_values(graph, out, x)
    # a rule that emits nodes: what it builds is rewritten by the same rules before it is placed
    double = Rule(Pat.op("Square", Pat.var("x")), lambda m: m.emit("Mul", [m["x"], m["x"]]), "square")
    to_one = Rule(Pat.op("Mul", Pat.var("x"), Pat.var("x")), lambda m: m.emit("Pow", [m["x"], 2.0]), "mul self")
    sq = _graph_of(lambda x: ops.square(x) + 1, x)
    out = rewrite(sq, RuleSet([double, to_one]))
    assert _ops(out) == ["Pow", "Add"]
    _same_values(sq, out, x)


def test_rules_index_by_op_and_refuse_a_type_change():
    a = Var(Abstract((3,), "float32"), "a")
    n = Var(Abstract((3,), "float32"))
    graph = Graph("g", [a], [], [Node("Neg", [a], [n])], [n])
    rules = RuleSet([Rule(Pat.op("Neg", Pat.var("x")), lambda m: m.emit("Cast", [m["x"]], {"dtype": msx.float16}),
                          "to half")])
    assert list(rules.by_op) == ["Neg"] and rules.for_op("Exp") == []
    with pytest.raises(PassError, match="destination gives f16\\[3\\] but the matched Neg gives f32\\[3\\]"):
        rewrite(graph, rules)
    declined = RuleSet([Rule(Pat.op("Neg", Pat.var()), lambda m: None)])
    assert rewrite(graph, declined) is graph
    with pytest.raises(PassError, match="root must be a node pattern"):
        Rule(Pat.var("x"), lambda m: None)


def test_constants_and_shared_names_in_engine_patterns():
    a = Var(Abstract((3,), "float32"), "a")
    m1, m2 = Var(Abstract((3,), "float32")), Var(Abstract((3,), "float32"))
    graph = Graph("g", [a], [], [Node("Mul", [a, Const(2.0)], [m1]), Node("Mul", [m1, m1], [m2])], [m2])
    seen = []
    rules = RuleSet([Rule(Pat.op("Mul", Pat.var("x"), Pat.var("x")), lambda m: seen.append("self") or None),
                     Rule(Pat.op("Mul", Pat.var("x"), Pat.const("c", 2.0)), lambda m: seen.append("two") or None)])
    assert rewrite(graph, rules) is graph
    assert seen == ["two", "self"]


# ---------------------------------------------------------------- precision and placement traits of primitives
def test_primitive_traits_are_validated_where_they_are_declared():
    from msx.backends.ascend_sim.traits import KEEP_FP32, declare_traits
    from msx.ops.primitive import Category, Primitive, primitive

    with pytest.raises(ValueError, match="category='elemwise' is not one of"):
        Primitive("T1", abs, category="elemwise")
    with pytest.raises(ValueError, match="keep_fp32 means nothing for category 'reduce'"):
        declare_traits("keep_fp32", Primitive("T2", abs, category="reduce"))
    with pytest.raises(ValueError, match="vector_kernel=True is for 'other'/'random' ops"):
        declare_traits("vector_kernel", Primitive("T3", abs, category="matmul"))
    with pytest.raises(ValueError, match="view=True needs one result"):
        declare_traits("view", Primitive("T4", abs, category="reduce"))
    with pytest.raises(ValueError, match="'Expp' is not a registered primitive"):  # a misspelt op fails loudly
        declare_traits("keep_fp32", "Expp")
    with pytest.raises(ValueError, match="unknown Ascend trait 'keep_fp23'"):  # so does a misspelt trait
        declare_traits("keep_fp23", "Exp")
    with pytest.raises(TypeError, match="keep_fp32"):  # a device trait is no part of the core declaration
        primitive("T5", category="elementwise", keep_fp32=True)(abs)
    assert not any(p.name.startswith("T") and p.name[1:].isdigit() for p in KEEP_FP32)  # refused ones not added
    assert Primitive("T6", abs, category="shape").category is Category.SHAPE == "shape"


def test_the_ascend_models_own_a_cost_and_memory_rule_for_every_higher_order_op():
    from msx.backends.ascend_sim.cost import COST_RULES
    from msx.backends.ascend_sim.memory import MEMORY_RULES
    from msx.ir.gradient_path import OPERANDS
    from msx.ir.interpret import ABSTRACT_EVAL, LOWERINGS
    from msx.ops.primitive import REGISTRY

    declared = {p for n, p in REGISTRY.items() if p.subgraphs and not n.startswith("Mystery")}  # (test_case_op's)
    assert set(COST_RULES.rules) == set(MEMORY_RULES.rules) == declared
    assert set(LOWERINGS.rules) == set(ABSTRACT_EVAL.rules) == set(OPERANDS.rules) == declared  # the IR's own
    assert all(t.home.startswith("msx/backends/ascend_sim/") for t in (COST_RULES, MEMORY_RULES))
    assert not any(t.home.startswith("msx/backends/") for t in (LOWERINGS, ABSTRACT_EVAL, OPERANDS))


def test_the_ascend_tables_come_from_the_declarations():
    from msx.backends.ascend_sim import keep_fp32_ops, support_table
    from msx.ops import REGISTRY

    table = support_table()
    assert sorted(n for n, u in table.items() if u == "view") == \
        ["ExpandDims", "Flatten", "Identity", "Reshape", "Slice", "Squeeze", "StopGradient"]
    assert keep_fp32_ops() == ["Cast", "Exp", "Log", "Log1p", "Pow", "RealDiv", "Reciprocal", "Rsqrt", "Softplus",
                               "Sqrt"]
    for name in ("BatchNorm", "LayerNorm", "Fill", "Range", "Eye", "TopK", "ClipByGlobalNorm", "Dropout"):
        assert REGISTRY[name].category in ("other", "random") and table[name] == "Vector"
    assert table["Print"] == "AICPU"  # category "other", no vector kernel


def test_the_documented_user_rules_work_as_a_pass():
    from msx.passes import FunctionPass

    x = Pat.var("x")
    rules = RuleSet([
        Rule(Pat.op("Mul", x, Pat.const(value=2.0), commutative=True),
             lambda m: m.emit("Add", [m["x"], m["x"]]), "double"),
        Rule(Pat.op("Neg", Pat.op("Neg", x)), lambda m: m["x"], "-(-x)"),
    ])
    my_pass = FunctionPass(lambda g: rewrite(g, rules), name="my_rules")
    a = _t(3)
    graph = _graph_of(lambda a: ops.exp(2.0 * ops.neg(ops.neg(a))), a)
    out = my_pass(graph)
    assert _ops(out) == ["Neg", "Add", "Exp"]  # the inner Neg stays for dce; the Add reads a itself
    assert out.nodes[1].inputs == [graph.inputs[0], graph.inputs[0]]
    _same_values(graph, out, a)
