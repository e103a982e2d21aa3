"""jit(capture_mode="trace") against eager execution (differential), caching, guards, stages, errors."""
import copy
import os
import warnings

import numpy as np
import pytest

import msx
from msx import nn, ops

RNG = np.random.default_rng(0)


def _t(*shape, dtype=np.float32):
    return msx.Tensor(RNG.normal(size=shape).astype(dtype))


def _same(a, b, tol=1e-5):
    np.testing.assert_allclose(np.asarray(a.asnumpy()), np.asarray(b.asnumpy()), rtol=tol, atol=tol)


def _check_differential(fn, *arg_sets):
    """Eager and jit agree on the first (capturing) call and on later compiled calls with new values."""
    jf = msx.jit(fn, capture_mode="trace")
    for args in arg_sets:
        eager, compiled = fn(*args), jf(*args)
        for e, c in zip(_flat(eager), _flat(compiled)):
            _same(e, c)
    assert jf.compiles == 1 and jf.hits == len(arg_sets) - 1
    return jf


def _flat(x):
    return list(x) if isinstance(x, (tuple, list)) else [x]


# ---------------------------------------------------------------- op families
def test_elementwise_and_reductions():
    def f(x, y):
        a = ops.exp(x) * 0.1 + ops.abs(y) - ops.neg(x) / (ops.square(y) + 1.0)
        b = ops.maximum(ops.sqrt(ops.abs(x)), ops.minimum(y, 0.5)) ** 2
        c = ops.where(x > y, ops.log(ops.abs(x) + 1), ops.tanh(y))
        return a.sum(), b.mean(axis=1), c.max(axis=0), ops.argmax(c, 1), ops.reduce_sum(a, (0, 1), keep_dims=True)

    _check_differential(f, (_t(3, 4), _t(3, 4)), (_t(3, 4), _t(3, 4)))


def test_shape_ops_and_indexing():
    def f(x, y):
        z = ops.concat([x, y], 1).reshape(4, 6).transpose(1, 0)
        s = ops.stack([x, y], 0)[1, :, 2:]
        e = ops.expand_dims(x, 0).squeeze(0).flatten()
        w = x.copy()
        w[0] = 5.0
        return z, s, e, w, ops.broadcast_to(y[:, :1], (4, 3)), ops.gather(x, msx.Tensor([2, 0]), 1)

    _check_differential(f, (_t(4, 3), _t(4, 3)), (_t(4, 3), _t(4, 3)))


def test_nn_ops_and_losses():
    def f(img, w, logits, labels, target):
        h = ops.conv2d(img, w, pad_mode="pad", padding=1)
        p = ops.max_pool2d(h, 2) + ops.avg_pool2d(h, 2, 2)
        return (p, ops.softmax(logits), ops.log_softmax(logits), ops.gelu(logits), ops.sigmoid(logits),
                ops.cross_entropy(logits, labels), ops.l1_loss(logits, target), ops.mse_loss(logits, target),
                ops.binary_cross_entropy_with_logits(logits, ops.sigmoid(target)))

    def args():
        return (_t(2, 1, 6, 6), _t(3, 1, 3, 3), _t(4, 5), msx.Tensor(RNG.integers(0, 5, 4)), _t(4, 5))

    _check_differential(f, args(), args())


# ---------------------------------------------------------------- layers
def _layers_net():
    msx.set_seed(1)
    return nn.SequentialCell([nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2, 2), nn.Flatten(),
                              nn.Dense(4 * 3 * 3, 8), nn.LayerNorm((8,)), nn.Dropout(p=0.3), nn.Dense(8, 3)])


@pytest.mark.parametrize("training", [False, True])
def test_layers_in_eval_and_train_mode(training):
    inputs = [_t(2, 1, 6, 6) for _ in range(3)]
    eager_net, jit_net = _layers_net().set_train(training), _layers_net().set_train(training)
    msx.set_seed(7)
    eager_out = [eager_net(x) for x in inputs]
    msx.set_seed(7)  # dropout masks come from the same seeded RNG state, read and written by the graph
    jf = msx.jit(jit_net, capture_mode="trace")
    jit_out = [jf(x) for x in inputs]
    for e, j in zip(eager_out, jit_out):
        _same(e, j)
    for p, q in zip(eager_net.get_parameters(), jit_net.get_parameters()):
        _same(p, q)  # BatchNorm moving statistics were written back identically
    assert jf.compiles == 1 and jf.hits == 2


def test_embedding_and_cell_jit_on_construct_method():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(10, 4)
            self.fc = nn.Dense(4, 2)

        @msx.jit(capture_mode="trace")
        def construct(self, ids):
            return self.fc(self.emb(ids)).sum(axis=1)

    msx.set_seed(0)
    net = Net()
    ids = msx.Tensor(np.array([[1, 2, 3], [4, 5, 9]]))
    first, second = net(ids), net(ids)
    expected = Net.construct.fn(net, ids)
    _same(first, expected)
    _same(second, expected)
    assert Net.construct.hits == 1


# ---------------------------------------------------------------- training steps
def _mlp():
    msx.set_seed(3)
    return nn.SequentialCell([nn.Dense(6, 16), nn.ReLU(), nn.Dense(16, 3)])


def _train(net, opt_cls, jitted, steps=4, **opt_kwargs):
    loss_fn = nn.CrossEntropyLoss()
    opt = opt_cls(net.trainable_params(), **opt_kwargs)

    def forward(x, y):
        return loss_fn(net(x), y)

    grad_fn = msx.value_and_grad(forward, None, opt.parameters)

    def step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss

    run = msx.jit(step, capture_mode="trace") if jitted else step
    data = np.random.default_rng(5)
    x = msx.Tensor(data.normal(size=(8, 6)).astype(np.float32))
    y = msx.Tensor(data.integers(0, 3, 8))
    losses = [float(run(x, y)) for _ in range(steps)]
    return losses, run


@pytest.mark.parametrize("opt_cls,kwargs", [(nn.SGD, {"learning_rate": 0.1}),
                                            (nn.Momentum, {"learning_rate": 0.1, "momentum": 0.9}),
                                            (nn.Adam, {"learning_rate": 0.01}),
                                            (nn.AdamW, {"learning_rate": 0.01, "weight_decay": 0.1})])
def test_value_and_grad_training_step_matches_eager(opt_cls, kwargs):
    eager_net, jit_net = _mlp(), _mlp()
    eager_losses, _ = _train(eager_net, opt_cls, False, **kwargs)
    jit_losses, run = _train(jit_net, opt_cls, True, **kwargs)
    np.testing.assert_allclose(eager_losses, jit_losses, rtol=1e-5)
    assert jit_losses[-1] < jit_losses[0]
    for p, q in zip(eager_net.get_parameters(), jit_net.get_parameters()):
        _same(p, q)
    assert run.compiles == 1 and run.hits == 3


def test_train_one_step_cell_with_grad_operation_matches_eager():
    def build():
        net = _mlp()
        opt = nn.Momentum(net.trainable_params(), 0.05, 0.9)
        return net, nn.TrainOneStepCell(nn.WithLossCell(net, nn.CrossEntropyLoss()), opt)

    (eager_net, eager_step), (jit_net, jit_step) = build(), build()
    compiled = msx.jit(jit_step, capture_mode="trace")
    data = np.random.default_rng(2)
    for _ in range(3):
        x = msx.Tensor(data.normal(size=(8, 6)).astype(np.float32))
        y = msx.Tensor(data.integers(0, 3, 8))
        _same(eager_step(x, y), compiled(x, y))
    for p, q in zip(eager_net.get_parameters(), jit_net.get_parameters()):
        _same(p, q)
    graph = compiled.capture(x, y)
    assert "Grad" in [n.op for n in graph.nodes]
    assert {name for name, _ in graph.updates} >= {p.name for p in jit_net.trainable_params()}


# ---------------------------------------------------------------- cache, recompiles, guards
def test_cache_hits_and_recompile_reasons():
    def f(x, scale):
        return x * scale

    jf = msx.jit(f, capture_mode="trace")
    jf(_t(128, 784), 2)
    jf(_t(128, 784), 2)
    jf(_t(64, 784), 2)
    jf(_t(64, 784), 3)
    jf(_t(64, 784).astype(msx.float16), 3)
    assert jf.cache_info()["hits"] == 1 and jf.compiles == 4
    assert jf.recompile_reasons == ["arg 0: shape (128, 784) -> (64, 784)", "arg 1: 2 -> 3",
                                    "arg 0: dtype float32 -> float16"]


def test_recompile_warning_after_the_limit():
    msx.set_context(recompile_warn_limit=2)
    try:
        jf = msx.jit(lambda x: x + 1, capture_mode="trace")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for n in range(1, 5):
                jf(_t(n))
        msgs = [str(w.message) for w in caught if "recompiled" in str(w.message)]
        assert len(msgs) == 1 and "shape (1,) -> (2,)" in msgs[0]
    finally:
        msx.set_context(recompile_warn_limit=8)


def test_tensor_dependent_branch_becomes_graph_control_flow():
    """A branch on a tensor's value is captured from source (ast): one graph serves both outcomes, with no
    guard read on the host per call and no recompile when the outcome flips."""
    def f(x):
        if x.sum() > 0:
            return x * 2
        return x - 1

    jf = msx.jit(f, capture_mode="trace")
    pos, neg = msx.Tensor([1.0, 2.0]), msx.Tensor([-1.0, -2.0])
    for x in (pos, pos, neg, neg, pos):
        _same(jf(x), f(x))
    assert jf.compiles == 1 and jf.recompile_reasons == []
    assert any("value decision (bool(Tensor) at test_jit_trace.py" in why and "graph control flow" in why
               for what, why in jf.log if what == "static")
    assert "Cond" in str(jf.capture(pos))


def test_value_read_ast_cannot_capture_stays_guarded_never_stale():
    """`float(t)` needs the value on the host: the traced graph keeps a guard and retraces when it changes."""
    def f(x):
        return x * float(x.sum())

    jf = msx.jit(f, capture_mode="trace")
    one, two = msx.Tensor([1.0, 2.0]), msx.Tensor([2.0, 4.0])
    for x in (one, one, two, two, one):
        _same(jf(x), f(x))
    assert any("guard float(Tensor) at test_jit_trace.py" in r and "was 3.0 at capture, now 6.0" in r
               for r in jf.recompile_reasons)


def test_training_flag_is_part_of_the_key():
    net = nn.SequentialCell([nn.Dense(3, 3), nn.Dropout(p=0.5)])
    jf = msx.jit(net, capture_mode="trace")
    x = msx.Tensor(np.ones((2, 3), np.float32))
    jf(x)
    net.set_train(True)
    jf(x)
    assert jf.recompile_reasons == ["training flag: False -> True"]


# ---------------------------------------------------------------- stages, save_graphs, GRAPH_MODE
def test_stages_capture_lower_compile_without_side_effects(tmp_path):
    net = _mlp()
    opt = nn.SGD(net.trainable_params(), 0.1)
    grad_fn = msx.value_and_grad(lambda x, y: nn.CrossEntropyLoss()(net(x), y), None, opt.parameters)

    def step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss

    x, y = _t(4, 6), msx.Tensor(np.array([0, 1, 2, 0]))
    before = [p.asnumpy().copy() for p in net.get_parameters()]
    jf = msx.jit(step, capture_mode="trace")
    graph = jf.capture(x, y)
    lowered = jf.lower(x, y)
    for p, b in zip(net.get_parameters(), before):
        np.testing.assert_array_equal(p.asnumpy(), b)  # capturing did not train
    assert isinstance(graph, msx.ir.Graph) and "Grad" in str(lowered.graph)
    assert "stablehlo" in lowered.as_text()
    compiled = lowered.compile()
    loss = compiled(x, y)
    eager_net = _mlp()
    eager_loss = nn.CrossEntropyLoss()(eager_net(x), y)
    _same(loss, eager_loss)
    assert not np.allclose(net.get_parameters().__next__().asnumpy(), before[0])  # running it did train
    assert "Compiled(step" in str(compiled)
    with pytest.raises(ValueError, match="another signature.*arg 0: shape"):
        compiled(_t(5, 6), y)


def test_save_graphs_writes_numbered_stage_files(tmp_path):
    msx.set_context(save_graphs=True, save_graphs_path=str(tmp_path))
    try:
        msx.jit(lambda x: ops.relu(x) * 2, capture_mode="trace")(_t(3))
    finally:
        msx.set_context(save_graphs=False)
    names = sorted(os.listdir(tmp_path))
    assert [n.split("_", 1)[1] for n in names] == ["<lambda>_captured.ir", "<lambda>_optimised.ir",
                                                   "<lambda>_stablehlo.mlir"]
    assert "ReLU" in (tmp_path / names[0]).read_text()
    assert "stablehlo" in (tmp_path / names[2]).read_text()


def test_graph_mode_routes_cell_calls_through_jit():
    net = _mlp()
    x = _t(2, 6)
    expected = net(x)
    msx.set_context(mode=msx.GRAPH_MODE)
    try:
        first, second = net(x), net(x)
    finally:
        msx.set_context(mode=msx.PYNATIVE_MODE)
    _same(first, expected)
    _same(second, expected)
    assert net._jit_cache.hits == 1


# ---------------------------------------------------------------- errors and options
def test_capture_error_names_stage_shapes_and_underlines_the_line():
    w = msx.Parameter(msx.Tensor(np.ones((4, 3), np.float32)), name="w")

    def f(h):
        return ops.matmul(h, w)

    with pytest.raises(msx.errors.OpError) as info:
        msx.jit(f, capture_mode="trace")(_t(2, 5))
    text = str(info.value)
    assert text.startswith("[capture] MatMul: contracting dims differ: (2, 5) @ (4, 3)")
    assert "    return ops.matmul(h, w)\n           ^^^^^^^^^^^^^^^^" in text
    assert info.value.loc.line == f.__code__.co_firstlineno + 1


def test_jit_validates_its_options():
    with pytest.raises(ValueError, match="capture_mode='graph' is not valid; choose one of \\['ast', 'bytecode', 'trace'\\]"):
        msx.jit(lambda x: x, capture_mode="graph")
    with pytest.raises(ValueError, match="jit_level='O3'"):
        msx.jit(lambda x: x, capture_mode="trace", jit_level="O3")
    with pytest.raises(ValueError, match="unknown backend 'npu'"):
        msx.jit(lambda x: x, capture_mode="trace", backend="npu")
    with pytest.raises(ValueError, match="unknown option"):
        msx.jit(lambda x: x, capture_mode="trace", fast=True)


def test_grad_of_a_jitted_function_is_correct():
    jf = msx.jit(lambda x: (x ** 3).sum(), capture_mode="trace")
    x = msx.Tensor([1.0, 2.0])
    jf(x)
    _same(msx.grad(jf)(x), msx.Tensor([3.0, 12.0]))


def test_print_runs_at_run_time_in_order(capfd):
    def f(x):
        ops.Print()("first", x)
        y = x * 2
        ops.print_("second", y)
        return y

    jf = msx.jit(f, capture_mode="trace")
    for v in (1.0, 2.0, 3.0):
        jf(msx.Tensor([v]))
    lines = [line for line in capfd.readouterr().out.splitlines() if line]
    assert lines == ["first [1.]", "second [2.]", "first [2.]", "second [4.]", "first [3.]", "second [6.]"]
    assert jf.hits == 2


def test_more_layers_differential():
    msx.set_seed(4)
    net = nn.SequentialCell([nn.AvgPool2d(2, 2), nn.Flatten(), nn.Dense(9, 6), nn.BatchNorm1d(6), nn.GELU(),
                             nn.Dense(6, 4), nn.Tanh(), nn.Sigmoid(), nn.Softmax()])
    net.set_train(True)
    twin = copy.deepcopy(net)
    jf = msx.jit(twin, capture_mode="trace")
    for _ in range(3):
        x = _t(4, 1, 6, 6)
        _same(net(x), jf(x))
    for p, q in zip(net.get_parameters(), twin.get_parameters()):
        _same(p, q)


def test_the_same_tensor_passed_twice_does_not_serve_distinct_tensors():
    jf = msx.jit(lambda x, y: x - y * 2, capture_mode="trace")
    a, b = msx.Tensor([1.0, 2.0]), msx.Tensor([5.0, 7.0])
    _same(jf(a, a), a - a * 2)
    _same(jf(a, b), a - b * 2)
    assert jf.recompile_reasons == ["argument aliasing changed: (0, 0) -> None (the same Tensor passed in several places)"]


def test_a_returned_constant_tensor_is_a_tensor():
    table = msx.Tensor([1.0, 2.0, 3.0])
    jf = msx.jit(lambda x: (x + 1, table), capture_mode="trace")
    jf(_t(2))
    out, const = jf(_t(2))
    assert isinstance(const, msx.Tensor)
    _same(const, table)


def test_a_value_decision_inside_a_differentiated_function_is_graph_control_flow():
    w = msx.Parameter(msx.Tensor([1.0, -1.0]), name="w")

    def loss(x):
        y = (x * w).sum()
        if y > 0:                     # decided on the value, inside value_and_grad
            return y * 3
        return -y

    def step(x):
        return msx.value_and_grad(loss, None, [w])(x)

    jf = msx.jit(step, capture_mode="trace")
    a, b = msx.Tensor([2.0, 1.0]), msx.Tensor([1.0, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "runs eagerly" warning: the branch is in the graph
        for x in (a, b, a):
            (value, (grad,)), (ref_value, (ref_grad,)) = jf(x), step(x)
            _same(value, ref_value)
            _same(grad, ref_grad)
    assert jf.compiles == 1


def test_a_value_decision_without_source_inside_a_differentiated_function_is_never_reused_stale():
    """No source for ast to capture (code built at run time): the decision cannot be re-checked from outside
    the gradient, so that signature runs eagerly, with a warning."""
    w = msx.Parameter(msx.Tensor([1.0, -1.0]), name="w")
    namespace = {"w": w}
    exec(compile("def loss(x):\n    y = (x * w).sum()\n    if y > 0:\n        return y * 3\n    return -y\n",
                 "<generated>", "exec"), namespace)
    loss = namespace["loss"]

    def step(x):
        return msx.value_and_grad(loss, None, [w])(x)

    jf = msx.jit(step, capture_mode="trace")
    a, b = msx.Tensor([2.0, 1.0]), msx.Tensor([1.0, 2.0])
    with pytest.warns(UserWarning, match="inside a differentiated function"):
        jf(a)
    for x in (a, b, a):
        (value, (grad,)), (ref_value, (ref_grad,)) = jf(x), step(x)
        _same(value, ref_value)
        _same(grad, ref_grad)


LOOP_SCRIPT = '''
import numpy as np
import msx as ms
from msx import nn

net = nn.Dense(4, 2)
opt = nn.Adam(net.trainable_params(), 0.01)
grad_fn = ms.value_and_grad(lambda x, y: nn.MSELoss()(net(x), y), None, opt.parameters)

@ms.jit(capture_mode="trace")
def step(x, y):
    loss, grads = grad_fn(x, y)
    opt(grads)
    return loss

x, y = ms.Tensor(np.ones((8, 4), np.float32)), ms.Tensor(np.zeros((8, 2), np.float32))
for i in range(4):          # `i` changes in the script's globals on every step
    step(x, y)
'''


def test_a_script_level_training_loop_compiles_once(tmp_path):
    """The loop variable of a script changes its module's globals every step; a trace of the step must not
    guard those globals as a whole (msx's own generated guard code is not the user's), so it compiles once."""
    import runpy

    script = tmp_path / "loop_script.py"
    script.write_text(LOOP_SCRIPT)
    step = runpy.run_path(str(script))["step"]
    assert step.cache_info()["xla_compiles"] == 1, step.recompile_reasons
