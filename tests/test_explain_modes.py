"""`jit(...).explain(*args)` in every capture mode (issue 29): ast and trace report their one cache entry —
its graph, the guards it checks (signature, Python values read, Cells) and the recompilations — as bytecode
reports its pieces. The reference for the values is numpy; for the entries, what the cache actually holds."""
import numpy as np
import pytest

import msx
from msx import nn

SCALE = 2.0


def scaled(x):
    return x * SCALE + 1


class Dropper(nn.Cell):
    def __init__(self):
        super().__init__()
        self.drop = nn.Dropout(p=0.5)

    def construct(self, x):
        return self.drop(x) * 2


X = np.arange(6, dtype=np.float32).reshape(2, 3)


@pytest.fixture
def scale():
    global SCALE
    SCALE = 2.0
    yield
    SCALE = 2.0


@pytest.mark.parametrize("mode", ["ast", "trace", "bytecode"])
def test_explain_reports_the_graph_the_guards_and_a_recompile(mode, scale):
    global SCALE
    jf = msx.jit(scaled, capture_mode=mode)
    report = jf.explain(msx.Tensor(X))
    np.testing.assert_allclose(report.result.asnumpy(), X * 2.0 + 1, rtol=1e-6)
    assert (report.graph_count, report.break_count) == (1, 0)
    assert sorted(n.op for n in report.graphs[0].nodes) == ["Add", "Mul"]
    text = str(report)
    assert f"capture_mode={mode!r}" in text and "global SCALE == 2.0" in text
    assert report.new_recompiles == []
    SCALE = 3.0
    again = jf.explain(msx.Tensor(X))
    np.testing.assert_allclose(again.result.asnumpy(), X * 3.0 + 1, rtol=1e-6)
    assert len(again.new_recompiles) == 1 and "SCALE: 2.0 -> 3.0" in again.new_recompiles[0]
    assert "global SCALE == 3.0" in str(again)


@pytest.mark.parametrize("mode", ["ast", "trace"])
def test_explain_lists_the_cells_an_entry_depends_on(mode):
    net = Dropper()
    jn = msx.jit(net, capture_mode=mode)
    first = jn.explain(msx.Tensor(X))
    np.testing.assert_allclose(first.result.asnumpy(), X * 2, rtol=1e-6)  # eval: Dropout is the identity
    assert [g for g in first.entries[0].guards if g.startswith("Cell ")] == [
        "Cell Dropper: training flag, sub-Cells, Parameters and attributes unchanged   [read by the capture]",
        "Cell Dropper.drop: training flag, sub-Cells, Parameters and attributes unchanged   [read by the capture]"]
    net.set_train(True)
    second = jn.explain(msx.Tensor(X))
    assert second.new_recompiles == ["training flag: False -> True"]
    assert second.graph_count == 1 and "Dropout" in {n.op for n in second.graphs[0].nodes}


def test_explain_of_a_signature_that_runs_eagerly_says_so():
    def shape_dependent(x):
        return x.asnumpy().sum()  # a host read: trace cannot make it a graph
    with pytest.warns(UserWarning, match="runs eagerly"):
        report = msx.jit(shape_dependent, capture_mode="ast").explain(msx.Tensor(X))
    assert report.graph_count == 0 and report.entries[0].eager_reason is not None
    assert float(report.result) == pytest.approx(X.sum())


def twice_scaled(x):
    return x * SCALE + SCALE


@pytest.mark.parametrize("mode", ["ast", "trace", "bytecode"])
def test_every_mode_lists_a_guard_once(mode, scale):
    report = msx.jit(twice_scaled, capture_mode=mode).explain(msx.Tensor(X))
    np.testing.assert_allclose(report.result.asnumpy(), X * 2.0 + 2.0, rtol=1e-6)
    lines = [line for line in str(report).splitlines() if "SCALE" in line and "==" in line]
    assert len(lines) == 1, lines   # one guard in words, however many reads made it (a count when several did)
