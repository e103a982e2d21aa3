"""msx.rewrite against MindSpore 2.10's mindspore.rewrite: the nodes SymbolTree.create finds in three networks
(a LeNet, a network with a sub-network Tree, a SequentialCell), the construct get_code writes after inserting,
replacing, erasing and set_arg, and the outputs of get_network() on fixed weights — all recorded from MindSpore
by tests/golden_rewrite/record.py (same networks and edits: tests/golden_rewrite/nets.py) — and the rewritten
network under msx.jit equal to eager."""
import importlib.util
import json
import os

import numpy as np
import pytest

import msx
from msx import nn, ops
from msx.rewrite import Node, NodeType, ScopedValue, SymbolTree, ValueType

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden_rewrite")
with open(os.path.join(HERE, "rewrite.json")) as _f:
    GOLDEN = json.load(_f)


def _load_nets():
    spec = importlib.util.spec_from_file_location("rewrite_golden_nets", os.path.join(HERE, "nets.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


nets = _load_nets()
EDITS = [(key, edit.__name__) for key, (_, _, edits) in nets.NETS.items() for edit in edits]


@pytest.mark.parametrize("key", sorted(nets.NETS))
def test_nodes_match_mindspore(key):
    cls, shape, _ = nets.NETS[key]
    golden = GOLDEN["nets"][key]
    stree = SymbolTree.create(cls())
    assert nets.describe(stree) == golden["nodes"]
    assert [[n.get_name(), n.get_node_type().name] for n in stree.nodes(all_nodes=True)] == golden["all_nodes"]
    assert nets.construct_source(stree.get_code(), f"{cls.__name__}Opt") == golden["construct"]
    subs = {n.get_name(): nets.describe(n.get_sub_tree()) for n in stree.nodes() if n.get_node_type() == NodeType.Tree}
    assert subs == golden["sub_trees"]
    x = nets.net_input(shape)
    np.testing.assert_allclose(_flat(nets.outputs(cls()(x))), _flat(golden["output"]), rtol=1e-5, atol=1e-5)


def _flat(value):
    return np.concatenate([np.ravel(np.asarray(v, dtype=np.float64)) for v in value]) \
        if isinstance(value, list) and value and isinstance(value[0], list) and isinstance(value[0][0], list) \
        else np.asarray(value, dtype=np.float64).ravel()


def _jit_equal(net, x):
    eager = net(x)
    jitted = msx.jit(net)(x)
    eager = eager if isinstance(eager, tuple) else (eager,)
    jitted = jitted if isinstance(jitted, tuple) else (jitted,)
    for a, b in zip(eager, jitted):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("key,edit", EDITS)
def test_edit_matches_mindspore(key, edit):
    cls, shape, edits = nets.NETS[key]
    golden = GOLDEN["nets"][key]["edits"][edit]
    original = cls()
    stree = SymbolTree.create(original)
    result = getattr(nets, edit)(stree)
    assert result == golden["result"]
    assert nets.describe(stree) == golden["nodes"]
    assert [[n.get_name(), n.get_node_type().name] for n in stree.nodes(all_nodes=True)] == golden["all_nodes"]
    code = stree.get_code()
    assert nets.construct_source(code, f"{cls.__name__}Opt") == golden["construct"]
    subs = {n.get_name(): nets.construct_source(code, f"{n.get_instance_type().__name__}Opt")
            for n in stree.nodes() if n.get_node_type() == NodeType.Tree}
    assert subs == golden["sub_constructs"]
    new_net = stree.get_network()
    x = nets.net_input(shape)
    out = nets.outputs(new_net(x))
    for got, want in zip(out if isinstance(out[0][0], list) else [out],
                         golden["output"] if isinstance(out[0][0], list) else [golden["output"]]):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-5)
    _jit_equal(new_net, x)
    # the rewritten network holds the original's Parameters (the inserted cells have none); the original runs
    # as before
    assert {id(p) for p in new_net.get_parameters()} <= {id(p) for p in original.get_parameters()}
    np.testing.assert_allclose(_flat(nets.outputs(original(x))), _flat(GOLDEN["nets"][key]["output"]),
                               rtol=1e-5, atol=1e-5)


def test_misuse_raises_mindspore_types():
    assert nets.record_errors() == GOLDEN["errors"]


def test_misuse_messages_name_the_bad_value():
    stree = SymbolTree.create(nets.SeqNet())
    with pytest.raises(RuntimeError, match="'nope'.*SeqNet"):
        stree.after("nope")
    with pytest.raises(TypeError, match="'network' should be 'Cell', but got type 'int'"):
        SymbolTree.create(3)
    with pytest.raises(TypeError, match="'cell' should be one of"):
        Node.create_call_cell(3, targets=["x"])
    with pytest.raises(TypeError, match="'position' should be 'Position'"):
        stree.insert(3, Node.create_call_cell(nn.ReLU(), targets=["x"]))
    with pytest.raises(ValueError, match="index.*range \\[0, 1\\).*got 4"):
        stree.get_node("tanh").set_arg(4, "x")
    with pytest.raises(RuntimeError, match="before or between parameters"):
        stree.insert(stree.before("input_x"), Node.create_call_cell(nn.ReLU(), targets=["x"]))
    with pytest.raises(TypeError, match="NodeType.Tree"):
        stree.get_node("tanh").get_sub_tree()
    # MindSpore's Node(handler) / SymbolTree(handler): here handler and node are one object
    node = stree.get_node("tanh")
    assert Node(node) is node and node.get_handler() is node and SymbolTree(stree) is stree
    with pytest.raises(TypeError, match="'node' should be 'Node'"):
        Node(3)


def test_scoped_value_as_mindspore_documents():
    # the examples of MindSpore's ScopedValue docstrings
    assert str(ScopedValue.create_variable_value(2)) == "2"
    assert str(ScopedValue.create_naming_value("conv", "self")) == "self.conv"
    assert str(ScopedValue.create_name_values(names=["z", "z_1"], scopes=["self", "self"])) == "[self.z, self.z_1]"
    assert ScopedValue.create_variable_value((1, "a")).type == ValueType.TupleValue
    assert ScopedValue.create_variable_value(nn.ReLU()).type == ValueType.CustomObjValue
    assert ScopedValue.create_naming_value("x") == ScopedValue(ValueType.NamingValue, "", "x")
    with pytest.raises(ValueError, match="Length of names"):
        ScopedValue.create_name_values(["a"], ["self", "self"])


class Mixed(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(3, 3, weight_init="ones", bias_init="zeros")
        self.abs = ops.Abs()

    def construct(self, x, n=2):
        y = ops.relu(self.dense(x))
        for _ in range(n):
            y = y + self.abs(x)
        print("y", y.shape)
        return y


def test_kinds_control_flow_and_inserted_function(capsys):
    stree = SymbolTree.create(Mixed())
    kinds = {n.get_name(): n.get_node_type() for n in stree.nodes()}
    assert kinds["relu"] == NodeType.CallFunction and stree.get_node("relu").get_instance() is ops.relu
    assert kinds["for_node"] == NodeType.ControlFlow and kinds["Expr"] == NodeType.Python
    inner = [n.get_name() for n in stree.nodes(all_nodes=True)][len(kinds):]
    assert inner == ["abs", "binop_add"] and stree.get_node("abs").get_node_type() == NodeType.CallPrimitive
    # insert a function call after the dense call and feed relu from it
    dense = stree.get_node("dense")
    new = Node.create_call_function(ops.tanh, targets=[stree.unique_name("t")], args=dense.get_targets())
    stree.insert(stree.after(dense), new)
    stree.get_node("relu").set_arg_by_node(0, new)
    assert [n.get_name() for n in stree.get_node("relu").get_inputs()] == ["tanh"]
    assert [n.get_name() for n in dense.get_users()] == ["tanh"]
    net = stree.get_network()
    x = msx.Tensor(np.array([[0.5, -1.0, 2.0]], np.float32))
    want = np.maximum(np.tanh(np.full((1, 3), 1.5)), 0) + 2 * np.abs(x.asnumpy())
    np.testing.assert_allclose(net(x).asnumpy(), want, rtol=1e-5)
    _jit_equal(net, x)
    stree.print_node_tabulate(all_nodes=True)
    table = capsys.readouterr().out
    assert "[Mixed]" in table and "t = tanh(dense_var)" in table and "[Mixed.for_node]" in table


def test_erase_reconnects_to_the_earlier_provider():
    stree = SymbolTree.create(nets.LeNet())
    stree.erase("relu_1")  # `x = self.relu(fc1_var)`: fc2 now reads the flatten's x
    assert [n.get_name() for n in stree.get_node("fc2").get_inputs()] == ["flatten"]
    assert "relu_1" not in [n.get_name() for n in stree.nodes()]
    with pytest.raises(RuntimeError):
        stree.erase("relu_1")


def test_cell_node_attributes_and_dump(capsys):
    # MindSpore fills a CallCell node's attributes with the cell's public attributes plus "cls"
    stree = SymbolTree.create(nets.TreeNet())
    attrs = stree.get_node("head").get_attributes()
    assert attrs["cls"] is nn.Dense and attrs["in_channels"] == 4 and attrs["has_bias"] is True
    stree.get_node("head").set_attribute("note", 1)
    assert stree.get_node("head").get_attribute("note") == 1
    stree.dump()
    text = capsys.readouterr().out
    assert "%0(block_var) = Block(%input_x){instance name: block}" in text
    assert "%3(out) = Dense(%1){instance name: head}" in text and "Return(%4)" in text


def test_static_if_reads_the_test_without_running_it():
    calls = []

    class Probe(nn.Cell):
        def __init__(self):
            super().__init__()
            self.act = nn.ReLU()

        def check(self):
            calls.append(1)
            return True

        def construct(self, x):
            if self.check():
                x = self.act(x)
            return x

    stree = SymbolTree.create(Probe())
    stree.flatten_static_if_control_flow()  # a call in the test: dynamic, left alone, never called
    assert calls == [] and stree.get_node("if_node") is not None


SCALE = 3


class _Base(nn.Cell):
    def construct(self, x):
        return x * 2


class Odd(_Base):
    """Python rewrite keeps as written: *args/**kw, `+=`, slices, dicts, a CellList loop, while/break, a nested
    def, a conditional expression, `super()` and a tuple return."""

    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(4, 4, weight_init="ones", bias_init="zeros")
        self.layers = nn.CellList([nn.ReLU(), nn.ReLU()])
        self.flag = True

    def helper(self, x):
        return x + 1

    def construct(self, x, *args, n=2, **kw):
        a = ops.concat((x, x), axis=1)
        b = a[:, :4]
        b += 1
        d = {"p": ops.sum(b, dim=1, keepdim=True), "q": x}
        e = d["p"] * SCALE + self.helper(x)
        shape = self.dense(x).shape
        for layer in self.layers:
            e = layer(e)
        i = 0
        while i < n:
            i += 1
            if i > 5:
                break
        f = super().construct(e)

        def inner(t):
            return t - i
        h = inner(f) if self.flag else f
        return -h, not self.flag, shape[0]


def test_identity_rewrite_keeps_python_as_written():
    net = Odd()
    stree = SymbolTree.create(net)
    kinds = [n.get_node_type() for n in stree.nodes()]
    assert NodeType.Python in kinds and NodeType.ControlFlow in kinds
    assert "super(Odd, self)" in stree.get_code()  # the generated class is not where construct was written
    new_net = stree.get_network()
    x = msx.Tensor(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4))
    want, got = net(x), new_net(x)
    np.testing.assert_allclose(got[0].asnumpy(), want[0].asnumpy(), rtol=1e-6)
    assert got[1:] == want[1:] == (False, 2)


def _named(name):
    return ScopedValue.create_naming_value(name)


def test_new_input_and_function_call():
    stree = SymbolTree.create(nets.SeqNet())
    stree.insert(stree.after("input_x"), Node.create_input("bias", ScopedValue.create_variable_value(0.5)))
    ret = stree.get_node("return")
    stree.insert(stree.before(ret), Node.create_call_function(ops.add, targets=["y"], args=[_named("x"),
                                                                                             _named("bias")]))
    ret.set_arg(0, "y")
    assert "def construct(self, x, bias=0.5):" in stree.get_code()
    net, x = stree.get_network(), nets.net_input((2, 4))
    base = nets.SeqNet()(x).asnumpy()
    np.testing.assert_allclose(net(x).asnumpy(), base + 0.5, rtol=1e-6)
    np.testing.assert_allclose(net(x, 1.0).asnumpy(), base + 1.0, rtol=1e-6)


def test_sub_net_nodes_and_edits_inside_blocks():
    stree = SymbolTree.create(nets.SeqNet())
    block = Node.create_call_cell(nets.Block(), targets=["x"], args=[_named("x")], name="blk", is_sub_net=True)
    assert block.get_node_type() == NodeType.Tree
    stree.insert(stree.before("features"), block)
    sub = block.get_sub_tree()
    sub.insert(sub.after("act"), Node.create_call_cell(nn.Sigmoid(), targets=["y"], args=[_named("y")]))
    post = Node.create_call_cell(nn.SequentialCell([nn.ReLU(), nn.Tanh()]), targets=["x"], args=[_named("x")],
                                 name="post", is_sub_net=True)
    stree.insert(stree.after("tanh"), post)
    assert post.get_node_type() == NodeType.CellContainer
    # all_nodes: the top block, then the blocks of its containers (the last first, as MindSpore), then sub-trees
    assert [n.get_name() for n in stree.nodes(all_nodes=True)][-11:-6] == ["ReLU_1", "Tanh", "Dense", "ReLU",
                                                                           "Dense_1"]
    # a Tanh into the SequentialCell, after its ReLU
    stree.insert(stree.after(stree.get_node("ReLU")), Node.create_call_cell(nn.Tanh(), targets=["x"],
                                                                             args=[_named("x")]))
    net, x = stree.get_network(), nets.net_input((2, 4))
    assert len(net.features) == 4 and isinstance(net.features[2], nn.Tanh)
    ref = nets.SeqNet()
    blk = nets.Block()
    h = x + ops.sigmoid(ops.relu(blk.fc(x)))
    h = ref.features[2](ops.tanh(ops.relu(ref.features[0](h))))
    want = ops.tanh(ops.relu(ops.tanh(h)))
    np.testing.assert_allclose(net(x).asnumpy(), want.asnumpy(), rtol=1e-5, atol=1e-6)
    _jit_equal(net, x)


def test_insert_inside_an_if_block():
    stree = SymbolTree.create(nets.TreeNet())
    inner = stree.get_node("binop_sub")  # `y = y - 1` inside `if flag:`
    stree.insert(stree.after(inner), Node.create_call_cell(nn.ReLU(), targets=["y"], args=[_named("y")],
                                                           name="inner_relu"))
    assert "            y = y - 1\n            y = self.inner_relu(y)\n" in stree.get_code()
    net, x = stree.get_network(), nets.net_input((2, 4))
    ref = nets.TreeNet()
    y = ops.relu(ref.block(x) * 2 - 1)
    out, got_y = net(x)
    np.testing.assert_allclose(got_y.asnumpy(), y.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(out.asnumpy(), ref.head(y).asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(net(x, False)[1].asnumpy(), (ref.block(x) * 2).asnumpy(), rtol=1e-6)


@pytest.mark.parametrize("key", sorted(nets.SPARSIFY))
def test_sparsify_writes_mindspores_construct(key):
    import inspect
    new = msx.rewrite.sparsify(nets.SparseNet(), nets.SPARSIFY[key])
    assert nets.construct_source(inspect.getsource(type(new)), "SparseNetOpt") == GOLDEN["sparsify"][key]


def test_sparsify_errors_and_results():
    assert nets.record_sparsify()["errors"] == GOLDEN["sparsify"]["errors"]
    x = msx.CSRTensor(msx.Tensor([0, 1, 3], msx.int32), msx.Tensor([0, 1, 3], msx.int32),
                      msx.Tensor([-1.0, 2.0, 4.0], msx.float32), (2, 4))
    v = msx.Tensor(np.arange(8, dtype=np.float32).reshape(2, 4))
    new = msx.rewrite.sparsify(nets.SparseNet(), (msx.rewrite.ArgType.CSR, msx.rewrite.ArgType.NONSPARSE))
    dense = x.to_dense().asnumpy()
    np.testing.assert_allclose(new(x, v).asnumpy(), np.maximum(dense, 0) * v.asnumpy() + 1, rtol=1e-6)


def _scale(a, b):
    c = ops.mul(a, b)
    return c


class _FuncNet(nn.Cell):
    def construct(self, x, v):
        w = _scale(x, v)
        m = ops.matmul(x, v[0])
        return w.to_dense(), m


def test_sparsify_copies_a_user_function_and_uses_sparse_ops():
    # (MindSpore 2.10 fails here: its rewrite renames ops.matmul to matmul_opt, "Call to undefined matmul_opt")
    new = msx.rewrite.sparsify(_FuncNet(), (msx.rewrite.ArgType.CSR, msx.rewrite.ArgType.NONSPARSE))
    source = inspect_source(type(new))
    assert "w = sparse_csr_default__scale(x, v)" in source and "ops.csr_mv(x, subscript_var)" in source
    x = msx.CSRTensor(msx.Tensor([0, 1, 2], msx.int32), msx.Tensor([0, 3], msx.int32),
                      msx.Tensor([-1.0, 2.0], msx.float32), (2, 4))
    v = msx.Tensor(np.full((2, 4), 3.0, np.float32))
    w, m = new(x, v)
    np.testing.assert_allclose(w.asnumpy(), x.to_dense().asnumpy() * 3)
    np.testing.assert_allclose(m.asnumpy(), x.to_dense().asnumpy() @ np.full(4, 3.0))
    with pytest.raises(ValueError, match="not found in globals or mindspore.ops"):
        msx.rewrite.sparsify(_FuncNet(), (msx.rewrite.ArgType.CSR, msx.rewrite.ArgType.NONSPARSE),
                             {"*": [lambda a, b: a]})


def inspect_source(obj):
    import inspect
    return inspect.getsource(obj)
