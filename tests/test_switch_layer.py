"""A CellList indexed by a Tensor (MindSpore's switch_layer): one `Case` node under every capture mode, equal to
eager and to MindSpore 2.10's GRAPH_MODE (goldens: tests/golden/switch_layer/record.py), range-checked as eagerly.
"""
import importlib.util
import json
import pathlib
import warnings

import numpy as np
import pytest

import msx as ms
from msx import Tensor, nn
from msx.errors import CaptureError

HERE = pathlib.Path(__file__).parent
GOLDEN = json.loads((HERE / "golden/switch_layer/ms210.json").read_text())
MODES = ["ast", "bytecode", "trace"]
X = Tensor(np.array(GOLDEN["x"], np.float32))


@pytest.fixture(scope="module")
def net():
    spec = importlib.util.spec_from_file_location("switch_network", HERE / "golden/switch_layer/network.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.build(nn, Tensor)


def _index(k):
    return Tensor(np.int32(k))


def _check(result, params, k):
    loss, (gx, gp) = result
    ref = GOLDEN[f"index{k}"]
    np.testing.assert_allclose(loss.asnumpy(), ref["loss"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gx.asnumpy(), ref["grad_x"], rtol=1e-5, atol=1e-6)
    for p, g in zip(params, gp):
        np.testing.assert_allclose(g.asnumpy(), ref["grad_params"][p.name], rtol=1e-5, atol=1e-6, err_msg=p.name)


@pytest.mark.parametrize("mode", [None, *MODES])
def test_forward_and_gradients_equal_mindspore(net, mode):
    params = net.trainable_params()
    grad = ms.value_and_grad(net, grad_position=1, weights=params)
    if mode is not None:
        grad = ms.jit(grad, capture_mode=mode)
    for k in (0, 1, 2, -1, 1):
        _check(grad(_index(k), X), params, k)
    if mode is not None:  # one graph for every index: a new index value recompiles nothing
        assert grad.cache_info()["compiles"] == 1, grad.cache_info()


@pytest.mark.parametrize("mode", [None, *MODES])
def test_out_of_range_index_raises_as_mindspore(net, mode):
    f = net if mode is None else ms.jit(net, capture_mode=mode)
    f(_index(0), X)
    for bad in (3, -4):
        with pytest.raises(IndexError, match="out of range for 3 cells"):
            f(_index(bad), X)
    assert GOLDEN["index3"].startswith("IndexError")  # MindSpore 2.10's GRAPH_MODE raises IndexError too
    np.testing.assert_allclose(f(_index(1), X).asnumpy(), GOLDEN["index1"]["loss"], rtol=1e-5)  # still usable


def test_graph_holds_one_case_node(net):
    f = ms.jit(net, capture_mode="ast")
    graph = f.captured(_index(0), X).graph
    cases = [n for n in graph.nodes if n.op == "Case"]
    assert len(cases) == 1 and len(cases[0].subgraphs) == 3


@pytest.mark.parametrize("mode", MODES)
def test_cells_of_different_output_shapes_are_refused_under_jit(mode):
    class Mixed(nn.Cell):
        def __init__(self):
            super().__init__()
            self.layers = nn.CellList([nn.Dense(4, 3), nn.Tanh()])

        def construct(self, i, x):
            return self.layers[i](x)

    m = Mixed()
    assert m(_index(1), X).shape == (2, 4)  # eagerly the index picks the cell
    with pytest.raises(CaptureError, match=r"same structure, shapes and dtypes.*\(2, 3\).*\(2, 4\)"):
        ms.jit(m, capture_mode=mode, fullgraph=True)(_index(0), X)


def test_a_cell_that_writes_state_is_refused_under_jit_and_its_state_is_untouched():
    class WithNorm(nn.Cell):
        def __init__(self):
            super().__init__()
            self.layers = nn.CellList([nn.BatchNorm1d(4), nn.ReLU()])

        def construct(self, i, x):
            return self.layers[i](x)

    m = WithNorm()
    m.set_train(True)
    before = m.layers[0].moving_mean.asnumpy().copy()
    with pytest.raises(CaptureError, match="writes state"):
        ms.jit(m, capture_mode="ast", fullgraph=True)(_index(1), X)
    np.testing.assert_array_equal(m.layers[0].moving_mean.asnumpy(), before)
    m(_index(0), X)  # eagerly it runs and updates the statistics
    assert not np.array_equal(m.layers[0].moving_mean.asnumpy(), before)


def test_bad_index_tensors():
    cells = nn.CellList([nn.ReLU(), nn.Tanh()])
    with pytest.raises(TypeError, match="one integer"):
        cells[Tensor(np.array([0, 1], np.int32))]
    with pytest.raises(TypeError, match="one integer"):
        cells[Tensor(np.float32(0))]


def test_export_keeps_the_switch_and_says_the_file_does_not_check_the_range(net, tmp_path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ms.export(net, _index(0), X, file_name=str(tmp_path / "net"), file_format="MSXIR")
    assert any("does not check CellList[index] in range" in str(w.message) and w.filename == __file__
               for w in caught), [str(w.message) for w in caught]
    loaded = nn.GraphCell(ms.load(str(tmp_path / "net.msxir")))
    for k in (0, 1, 2):
        np.testing.assert_allclose(loaded(_index(k), X).asnumpy(), GOLDEN[f"index{k}"]["loss"], rtol=1e-5)


def test_mindspore_exported_switch_layer_loads_and_equals_mindspore():
    """MindSpore 2.10's MINDIR of the network (switch_layer over three Partial closures) reads as one Case."""
    graph = ms.load(str(pathlib.Path(__file__).parent / "golden/switch_layer/ms210_net.mindir"))
    assert "Case" in {n.op for n in graph.nodes}
    loaded = nn.GraphCell(graph)
    for k in (0, 1, 2, -1):
        np.testing.assert_allclose(loaded(_index(k), X).asnumpy(), GOLDEN[f"index{k}"]["loss"], rtol=1e-5)


class _IndexFromInput(nn.Cell):
    """The index computed from the input inside the step's differentiated function (the fuzzer's switch step)."""

    def __init__(self):
        super().__init__()
        self.layers = nn.CellList([nn.Tanh(), nn.Dense(4, 4)])
        self.shift = 0

    def construct(self, x):
        return self.layers[ms.ops.cast(x.sum() > 0.1, ms.int32) - self.shift](x)


@pytest.mark.parametrize("mode", MODES)
def test_an_index_computed_inside_the_differentiated_function_equals_eager(mode):
    """No capture mode can put the range check on the root graph (the index lives in the gradient's body):
    bytecode breaks the graph there and runs that part in Python, as its graph breaks do, silently; ast and
    trace run the signature eagerly with a warning (trace refused it once: found by tests/fuzz's switch programs)."""
    ms.set_seed(3)
    m = _IndexFromInput()
    grad = ms.value_and_grad(lambda x: m(x).sum(), None, m.trainable_params())
    loss, grads = grad(X)
    step = ms.jit(lambda x: grad(x), capture_mode=mode)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got_loss, got_grads = step(X)
    np.testing.assert_allclose(got_loss.asnumpy(), loss.asnumpy(), rtol=1e-6)
    for g, want in zip(got_grads, grads):
        np.testing.assert_allclose(g.asnumpy(), want.asnumpy(), rtol=1e-6, atol=1e-7)
    assert any("runs eagerly" in str(w.message) for w in caught) == (mode != "bytecode"), \
        [str(w.message) for w in caught]
    m.shift = 5
    with pytest.raises(IndexError, match="out of range"):
        step(X)
