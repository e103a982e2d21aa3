"""Dynamic shapes: symbolic dims in the IR, jit(dynamic=1), enable_dynamic + Symbol, counters.

Reference: the same network run eagerly (plain jax underneath) at each batch size.
"""
import numpy as np
import pytest

import msx
from msx import nn, ops
from msx.ir.graph import Abstract
from msx.ir.interpret import infer_node, to_struct
from msx.ir.symbolic import Dim, SymbolicShapeError
from tolerance import assert_same_float32


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2, self.relu = nn.Dense(16, 8), nn.Dense(8, 4), nn.ReLU()

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(x)))


@pytest.fixture(scope="module")
def net():
    msx.set_seed(0)
    return MLP()


def _x(b, d=16, seed=0):
    return msx.Tensor(np.random.default_rng(seed + b).standard_normal((b, d)).astype(np.float32))


def test_symbolic_abstract_prints_and_infers():
    a = Abstract((Dim("b"), 784), "float32")
    assert str(a) == "f32[b,784]"
    struct = to_struct(a)
    assert str(struct.shape[0]) == "b" and struct.shape[1] == 784


@pytest.mark.parametrize("mode", ["ast", "trace"])
def test_dynamic1_ten_batch_sizes_two_captures(net, mode):
    jf = msx.jit(net, dynamic=1, capture_mode=mode)
    sizes = [3, 5, 7, 2, 9, 4, 11, 6, 8, 10]
    for b in sizes:
        x = _x(b)
        np.testing.assert_allclose(jf(x).asnumpy(), net(x).asnumpy(), rtol=1e-5, atol=1e-6)
    info = jf.cache_info()
    assert info["captures"] == 2 and info["pass_runs"] == 2 and info["shape_families"] == 1
    assert info["xla_compiles"] == len(sizes)  # one static + one per new concrete shape, nothing more
    assert ("capture", "symbolic dims: x dim 0 -> s0") in info["log"]
    assert len(info["recompile_reasons"]) == 1 and "shape (3, 16) -> (5, 16)" in info["recompile_reasons"][0]
    graph = jf._dynamic.families[0].compiled.lowered.graph
    assert "f32[s0,16]" in str(graph) and "f32[s0,4]" in str(graph)
    before = info["xla_compiles"]
    jf(_x(5))  # a shape seen before: an exact cache hit, no compile
    assert jf.cache_info()["xla_compiles"] == before


def test_dynamic0_compiles_per_shape(net):
    jf = msx.jit(net)
    for b in (2, 3, 4):
        jf(_x(b))
    info = jf.cache_info()
    assert info["captures"] == 3 and info["xla_compiles"] == 3 and len(info["recompile_reasons"]) == 2


def test_dynamic1_shared_symbol_for_equal_dims():
    @msx.jit(dynamic=1)
    def f(x, y):
        return (x * y.reshape((-1, 1))).sum(1)

    for b in (2, 3, 4, 5):
        x, y = _x(b, 3), msx.Tensor(np.arange(b, dtype=np.float32))
        assert_same_float32(f(x, y).asnumpy(), (x.asnumpy() * y.asnumpy()[:, None]).sum(1))
    assert f.cache_info()["captures"] == 2


def test_dynamic1_undecidable_falls_back_to_static_with_reason():
    @msx.jit(dynamic=1)
    def f(x):
        return x + ops.ones((x.shape[0], 4), msx.float32)

    for b in (2, 3, 4):
        assert_same_float32(f(_x(b, 4)).asnumpy(), _x(b, 4).asnumpy() + 1)
    log = f.cache_info()["log"]
    assert any(what == "static" and "symbolic capture failed" in why for what, why in log)
    assert f.cache_info()["captures"] == 4  # static, failed symbolic, then one per shape


def test_enable_dynamic_one_capture_and_constraints(net):
    @msx.enable_dynamic(x=msx.Tensor(shape=[msx.Symbol(min=2, max=12, divisor=2), 16], dtype=msx.float32))
    @msx.jit
    def f(x):
        return net(x) * 2

    for b in (2, 4, 6, 8):
        np.testing.assert_allclose(f(_x(b)).asnumpy(), net(_x(b)).asnumpy() * 2, rtol=1e-5, atol=1e-6)
    assert f.cache_info()["captures"] == 1 and f.cache_info()["xla_compiles"] == 4
    with pytest.raises(ValueError, match=r"argument 'x' of f: dim 0 is 5, .*divisor=2"):
        f(_x(5))
    with pytest.raises(ValueError, match=r"argument 'x' of f: dim 0 is 14, .*max=12"):
        f(_x(14))
    with pytest.raises(ValueError, match=r"argument 'x' of f: dim 1 is declared static 16, got 15"):
        f(_x(4, 15))
    with pytest.raises(ValueError, match=r"declared with rank 2"):
        f(msx.Tensor(np.zeros((4, 16, 1), np.float32)))
    assert f.cache_info()["captures"] == 1


def test_enable_dynamic_on_cell_below_jit(net):
    jf = msx.jit(msx.enable_dynamic(x=msx.Tensor(shape=[None, 16], dtype=msx.float32))(lambda x: net(x)))
    for b in (3, 4):
        np.testing.assert_allclose(jf(_x(b)).asnumpy(), net(_x(b)).asnumpy(), rtol=1e-5, atol=1e-6)
    assert jf.cache_info()["captures"] == 1


def test_enable_dynamic_rank_recompiles_per_rank():
    @msx.enable_dynamic(x=msx.Tensor(shape=None, dtype=msx.float32))
    @msx.jit
    def f(x):
        return x.sum(0) * 2

    for shape in [(3,), (4,), (2, 3), (5, 6)]:
        data = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
        np.testing.assert_allclose(f(msx.Tensor(data)).asnumpy(), data.sum(0) * 2, rtol=1e-5)
    info = f.cache_info()
    assert info["captures"] == 2
    assert all("dynamic rank: one capture per rank" in why for what, why in info["log"] if what == "capture")


def test_enable_dynamic_undecidable_shape_rule_names_op_and_dim():
    @msx.enable_dynamic(x=msx.Tensor(shape=[None, 4], dtype=msx.float32))
    @msx.jit
    def f(x):
        return x + ops.ones((3, 4), msx.float32)

    with pytest.raises(SymbolicShapeError, match=r"Add: .*\(s0, 4\), \(3, 4\)"):
        f(_x(3, 4))


def test_infer_node_symbolic(net):
    graph = msx.jit(net).capture(_x(4))
    node = graph.nodes[0]
    node.inputs[0].abstract = Abstract((Dim("n"), 16), "float32")
    assert str(infer_node(node)[0]) == "f32[n,8]"


def test_bad_declarations():
    with pytest.raises(ValueError, match="min"):
        msx.Symbol(min=0)
    with pytest.raises(TypeError, match="Tensor"):
        msx.enable_dynamic(x=[None, 4])


@pytest.mark.parametrize("mode", ["trace", "ast", "bytecode"])
def test_dynamic1_code_that_computes_with_shapes_runs_per_shape_in_every_mode(mode):
    """`int(np.prod(x.shape))`, `if x.shape[0] > 4`, `for row in x` cannot be symbolic: per-shape graphs."""
    def flat(x):
        return x.reshape((int(np.prod(x.shape)),))

    def branch(x):
        return x * 2 if x.shape[0] > 4 else x + 1

    def rows(x):
        out = 0
        for row in x:
            out = out + row
        return out

    for fn in (flat, branch, rows):
        jf = msx.jit(fn, capture_mode=mode, dynamic=1)
        for b in (2, 3, 5, 6):
            x = _x(b, 3)
            np.testing.assert_allclose(jf(x).asnumpy(), fn(x).asnumpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("file_format", ["MSXIR", "STABLEHLO"])
def test_export_symbolic_runs_at_any_batch(net, tmp_path, file_format):
    import jax

    path = msx.export(net, msx.Tensor(shape=[None, 16], dtype=msx.float32), file_name=str(tmp_path / "mlp"),
                      file_format=file_format)
    if file_format == "MSXIR":
        graph = msx.load(path)
        assert "f32[s0,16]" in str(graph)
        run = nn.GraphCell(graph)
    else:
        exported = jax.export.deserialize(open(path, "rb").read())
        run = lambda x: msx.Tensor(exported.call(x.asnumpy()))  # noqa: E731
    for b in (1, 3, 7):
        np.testing.assert_allclose(run(_x(b)).asnumpy(), net(_x(b)).asnumpy(), rtol=1e-5, atol=1e-6)
    if file_format == "MSXIR":
        with pytest.raises(msx.errors.OpError, match=r"must be f32\[s0,16\]"):
            run(_x(3, 15))


def test_serialized_dim_text_is_checked():
    from msx.errors import MalformedFileError
    from msx.ir.serialize import graph_from_data, graph_to_data

    graph = msx.jit(lambda x: x * 2).capture(_x(2, 3))
    data, arrays = graph_to_data(graph)
    data["inputs"][0]["shape"] = ["__import__('os')", 3]
    with pytest.raises(MalformedFileError, match="not a symbolic dimension"):
        graph_from_data(data, arrays, lambda name: True)


def test_backend_without_symbolic_support(net):
    x_decl = msx.Tensor(shape=[None, 16], dtype=msx.float32)
    declared = msx.enable_dynamic(x=x_decl)(msx.jit(lambda x: net(x), backend="ascend"))
    with pytest.raises(msx.errors.BackendError, match="cannot build graphs with symbolic dims"):
        declared(_x(2))
    jf = msx.jit(lambda x: net(x), backend="ascend", dynamic=1)
    for b in (2, 3):
        np.testing.assert_allclose(jf(_x(b)).asnumpy(), net(_x(b)).asnumpy(), rtol=1e-2, atol=1e-2)
    assert any(what == "static" and "'ascend'" in why for what, why in jf.cache_info()["log"])


def test_a_failing_symbolic_trace_capture_leaves_no_tracer_in_parameters():
    import jax

    w = msx.Parameter(msx.Tensor(np.ones((3,), np.float32)), name="w")

    def f(x):
        w.set_data(w * 2)            # a write before the failure
        if x.shape[0] > 4:
            raise RuntimeError("boom")
        return x.sum() + w.sum()

    jf = msx.jit(f, capture_mode="trace", dynamic=1)
    jf(msx.Tensor(np.ones((2,), np.float32)))
    before = w.asnumpy().copy()
    with pytest.raises(Exception):
        jf(msx.Tensor(np.ones((5,), np.float32)))
    assert not isinstance(w._data, jax.core.Tracer)
    assert w.asnumpy().shape == before.shape
