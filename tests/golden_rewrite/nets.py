"""The networks and edits of tests/test_rewrite.py, written once for both frameworks: `REWRITE_BACKEND=mindspore`
(the recording script, in MindSpore's venv) imports mindspore, anything else imports msx. Weights are fixed
numpy arrays, so the outputs of both agree."""
import importlib
import os

import numpy as np

# imported by name, not by `import` statements: MindSpore's get_network copies this module's import
# statements into the file it generates, and must not meet the other framework's there
_FRAMEWORK = "mindspore" if os.environ.get("REWRITE_BACKEND") == "mindspore" else "msx"
ms = importlib.import_module(_FRAMEWORK)
nn = importlib.import_module(_FRAMEWORK + ".nn")
_rewrite = importlib.import_module(_FRAMEWORK + ".rewrite")
Node, ScopedValue, SymbolTree = _rewrite.Node, _rewrite.ScopedValue, _rewrite.SymbolTree
PatternEngine, PatternNode, VarNode = _rewrite.PatternEngine, _rewrite.PatternNode, _rewrite.VarNode

_RNG = [np.random.default_rng(7)]


def _reset():
    """Each network draws its weights from a fresh generator: every instance has the same weights."""
    _RNG[0] = np.random.default_rng(7)


def _w(*shape):
    return ms.Tensor(_RNG[0].standard_normal(shape).astype(np.float32) * 0.5)


class LeNet(nn.Cell):
    def __init__(self):
        super().__init__()
        _reset()
        self.conv1 = nn.Conv2d(1, 2, 3, pad_mode="valid", weight_init=_w(2, 1, 3, 3))
        self.relu = nn.ReLU()
        self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()
        self.fc1 = nn.Dense(18, 8, weight_init=_w(8, 18), bias_init=_w(8))
        self.fc2 = nn.Dense(8, 3, weight_init=_w(3, 8), bias_init=_w(3))

    def construct(self, x):
        x = self.max_pool2d(self.relu(self.conv1(x)))
        x = self.flatten(x)
        x = self.relu(self.fc1(x))
        return self.fc2(x)


class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 4, weight_init=_w(4, 4), bias_init=_w(4))
        self.act = nn.ReLU()

    def construct(self, x):
        y = self.act(self.fc(x))
        return x + y


class TreeNet(nn.Cell):
    def __init__(self):
        super().__init__()
        _reset()
        self.block = Block()
        self.head = nn.Dense(4, 2, weight_init=_w(2, 4), bias_init=_w(2))
        self.scale = 2

    def construct(self, x, flag=True):
        y = self.block(x) * self.scale
        if flag:
            y = y - 1
        out = self.head(y)
        return out, y


class SeqNet(nn.Cell):
    def __init__(self):
        super().__init__()
        _reset()
        self.features = nn.SequentialCell([nn.Dense(4, 4, weight_init=_w(4, 4), bias_init=_w(4)), nn.ReLU(),
                                           nn.Dense(4, 3, weight_init=_w(3, 4), bias_init=_w(3))])
        self.tanh = nn.Tanh()

    def construct(self, x):
        x = self.features(x)
        x = self.tanh(x)
        return x


class ChainNet(nn.Cell):
    def __init__(self):
        super().__init__()
        _reset()
        self.fc1 = nn.Dense(4, 4, weight_init=_w(4, 4), bias_init=_w(4))
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(4, 3, weight_init=_w(3, 4), bias_init=_w(3))
        self.relu2 = nn.ReLU()

    def construct(self, x):
        x = self.fc1(x)
        x = self.relu(x)
        x = self.fc2(x)
        x = self.relu2(x)
        return x


class StaticIfNet(nn.Cell):
    def __init__(self):
        super().__init__()
        _reset()
        self.fc = nn.Dense(4, 4, weight_init=_w(4, 4), bias_init=_w(4))
        self.act = nn.ReLU()
        self.use_act = True
        self.scale = 0

    def construct(self, x):
        x = self.fc(x)
        if self.use_act:
            x = self.act(x)
        else:
            x = x * 2
        if self.scale > 1:
            x = x * self.scale
        return x


def static_if(stree):
    stree.flatten_static_if_control_flow()


def flatten_if(stree):
    stree.flatten_nodes(stree.get_node("if_node"))


def flatten_else(stree):
    stree.flatten_nodes(stree.get_node("else_node"), True)


class DenseReluToTanh(_rewrite.Replacement):
    """Replaces `relu(dense(v))` by `tanh(v)` (the chain pattern's first node is named '0-<type>')."""

    def build(self, pattern, is_chain_pattern, matched):
        root = matched[pattern.name()]
        dense = [n for key, n in matched.items() if key != pattern.name()][0]
        return [Node.create_call_cell(nn.Tanh(), targets=root.get_targets(), args=dense.get_args(), name="tanh")]


def chain_pattern(stree):
    return PatternEngine([nn.Dense, nn.ReLU], DenseReluToTanh()).apply(stree)


def tree_pattern(stree):
    pattern = PatternNode("relu", nn.ReLU, [PatternNode("fc", nn.Dense, [VarNode()])])
    return PatternEngine(pattern, DenseReluToTanh()).apply(stree)


class SparseNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.relu = nn.ReLU()

    def construct(self, x, v):
        y = self.relu(x)
        z = y * v
        d = z.to_dense()
        return d + 1


SPARSIFY = {
    "tuple": (_rewrite.ArgType.CSR, _rewrite.ArgType.NONSPARSE),
    "by_index": {0: _rewrite.ArgType.CSR},
    "by_name": {"x": _rewrite.ArgType.CSR},
    "dense": (_rewrite.ArgType.NONSPARSE, _rewrite.ArgType.NONSPARSE),
}


def record_sparsify():
    """The construct sparsify writes for each arg_types spelling, and the errors of bad ones."""
    import inspect
    out = {}
    for key, arg_types in SPARSIFY.items():
        new = _rewrite.sparsify(SparseNet(), arg_types)
        out[key] = construct_source(inspect.getsource(type(new)), "SparseNetOpt")
    errors = {
        "short_tuple": lambda: _rewrite.sparsify(SparseNet(), (_rewrite.ArgType.CSR,)),
        "list": lambda: _rewrite.sparsify(SparseNet(), [_rewrite.ArgType.CSR, _rewrite.ArgType.CSR]),
        "mixed_keys": lambda: _rewrite.sparsify(SparseNet(), {0: _rewrite.ArgType.CSR, "v": _rewrite.ArgType.CSR}),
        "if_statement": lambda: _rewrite.sparsify(StaticIfNet(), (_rewrite.ArgType.CSR,)),
        "not_cell": lambda: _rewrite.sparsify(3, (_rewrite.ArgType.CSR,)),
    }
    out["errors"] = {k: _kind(f) for k, f in errors.items()}
    return out


def _named(name, scope=""):
    return ScopedValue.create_naming_value(name, scope)


def lenet_insert(stree):
    new = Node.create_call_cell(nn.Tanh(), targets=["fc1_var"], args=[_named("fc1_var")], name="new_tanh")
    stree.insert(stree.after(stree.get_node("fc1")), new)


def lenet_replace(stree):
    old = stree.get_node("relu_1")
    new = Node.create_call_cell(nn.Sigmoid(), targets=old.get_targets(), args=old.get_args(), name="sigmoid")
    stree.replace(old, [new])


def lenet_insert_before(stree):
    new = Node.create_call_cell(nn.ReLU(), targets=["x"], args=[_named("x")], name="relu")
    stree.insert(stree.before("fc2"), new)


def tree_sub_insert(stree):
    sub = stree.get_node("block").get_sub_tree()
    new = Node.create_call_cell(nn.Sigmoid(), targets=["y"], args=[_named("y")], name="gate")
    sub.insert(sub.after(sub.get_node("act")), new)


def tree_set_arg(stree):
    stree.get_node("binop_mult").set_arg(1, ScopedValue.create_variable_value(3))


def seq_erase(stree):
    stree.erase(stree.get_node("tanh"))


def seq_replace_output(stree):
    ret = stree.get_node("return")
    new = Node.create_call_cell(nn.Softmax(), targets=["probs"], args=[_named("x")], name="softmax")
    stree.insert(stree.before(ret), new)
    ret.set_arg(0, "probs")


NETS = {
    "lenet": (LeNet, (1, 1, 8, 8), [lenet_insert, lenet_replace, lenet_insert_before]),
    "tree": (TreeNet, (2, 4), [tree_sub_insert, tree_set_arg]),
    "seq": (SeqNet, (2, 4), [seq_erase, seq_replace_output, chain_pattern]),
    "chain": (ChainNet, (2, 4), [chain_pattern, tree_pattern]),
    "static_if": (StaticIfNet, (2, 4), [static_if, flatten_if, flatten_else]),
}


def net_input(shape):
    return ms.Tensor(np.linspace(-1.0, 1.0, int(np.prod(shape)), dtype=np.float32).reshape(shape))


def outputs(value):
    """A network's output as nested lists of floats."""
    if isinstance(value, (tuple, list)):
        return [outputs(v) for v in value]
    return value.asnumpy().astype(np.float64).round(6).tolist()


def describe(stree):
    """What the tests compare: per node (name, type, instance type, args, kwargs, targets, users, inputs)."""
    rows = []
    for node in stree.nodes():
        rows.append([node.get_name(), node.get_node_type().name, node.get_instance_type().__name__,
                     [str(a) for a in node.get_args()], {k: str(v) for k, v in node.get_kwargs().items()},
                     [str(t) for t in node.get_targets()], [u.get_name() for u in node.get_users()],
                     [i.get_name() for i in node.get_inputs()]])
    return rows


def construct_source(code, class_name):
    """The rewritten `construct` of class `class_name` in get_code()'s text, normalised by ast (MindSpore
    numbers the class of a second tree of one network class: `LeNetOpt_1`)."""
    import ast
    for cls in ast.walk(ast.parse(code)):
        if isinstance(cls, ast.ClassDef) and (cls.name == class_name or cls.name.startswith(class_name + "_")):
            for fn in cls.body:
                if isinstance(fn, ast.FunctionDef) and fn.name == "construct":
                    return ast.unparse(fn)
    return None


def record():
    """Everything the goldens hold, computed with the imported framework."""
    out = {}
    for key, (cls, shape, edits) in NETS.items():
        x = net_input(shape)
        stree = SymbolTree.create(cls())
        entry = {"nodes": describe(stree), "output": outputs(cls()(x)),
                 "all_nodes": [[n.get_name(), n.get_node_type().name] for n in stree.nodes(all_nodes=True)],
                 "construct": construct_source(stree.get_code(), f"{cls.__name__}Opt"), "edits": {}}
        subs = {}
        for node in stree.nodes():
            if node.get_node_type().name == "Tree":
                subs[node.get_name()] = describe(node.get_sub_tree())
        entry["sub_trees"] = subs
        for edit in edits:
            stree = SymbolTree.create(cls())
            result = edit(stree)
            new_net = stree.get_network()
            code = stree.get_code()
            entry["edits"][edit.__name__] = {
                "nodes": describe(stree), "output": outputs(new_net(x)), "result": result,
                "all_nodes": [[n.get_name(), n.get_node_type().name] for n in stree.nodes(all_nodes=True)],
                "construct": construct_source(code, f"{cls.__name__}Opt"),
                "sub_constructs": {n.get_name(): construct_source(code, f"{n.get_instance_type().__name__}Opt")
                                   for n in stree.nodes() if n.get_node_type().name == "Tree"}}
        out[key] = entry
    return out


def _kind(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001  (the exception's type is what is recorded)
        return type(exc).__name__
    return "ok"


def record_errors():
    """The exception type of each misuse (or "ok", or "None" for a lookup that finds nothing)."""
    stree = SymbolTree.create(SeqNet())
    relu = nn.ReLU()
    placed = Node.create_call_cell(nn.ReLU(), targets=["x"], args=[_named("x")], name="placed")
    stree.insert(stree.after("tanh"), placed)
    return {
        "get_node_unknown": str(stree.get_node("nope")),
        "after_unknown": _kind(lambda: stree.after("nope")),
        "erase_unknown": _kind(lambda: stree.erase("nope")),
        "create_not_cell": _kind(lambda: SymbolTree.create(3)),
        "create_function": _kind(lambda: SymbolTree.create(lambda x: x)),
        "call_cell_not_cell": _kind(lambda: Node.create_call_cell(3, targets=["x"])),
        "call_cell_bad_target": _kind(lambda: Node.create_call_cell(relu, targets=[3])),
        "insert_bad_position": _kind(lambda: stree.insert(3, Node.create_call_cell(relu, targets=["x"]))),
        "insert_twice": _kind(lambda: stree.insert(stree.after("tanh"), placed)),
        "naming_value_not_str": _kind(lambda: ScopedValue.create_naming_value(3)),
        "replace_not_node": _kind(lambda: stree.replace(None, [])),
        "flatten_not_control_flow": _kind(lambda: stree.flatten_nodes(stree.get_node("tanh"))),
        "erase_node_with_users": _kind(lambda: stree.erase(stree.get_node("features"))),
    }
