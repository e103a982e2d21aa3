"""Issue 32.5: jit semantics MindSpore's docs and `tests/st` teach, equal to eager in every capture mode.

* A name assigned on one path of an `if` on a tensor and read after it: MindSpore 2.10's GRAPH_MODE refuses
  it at compile time (UnboundLocalError "not defined in false branch", even when that branch is never taken);
  msx does what the eager program does: one graph serves both paths, and a run down the path that never
  assigned the name raises Python's UnboundLocalError, as the eager call does (no fallback, no recompile).
* `self.weight = x * 2` on a Cell's Parameter inside `construct`: the Parameter is written (MindSpore 2.10,
  GRAPH_MODE and PyNative alike: after calls with x=1 then x=3 the Parameter holds 6 and the second call reads
  2 before the write) — one graph in every mode.
* `print(type(x))`, `print(x.dtype)`: a Print node, printing on every call as eager does (MindSpore prints on
  every call too); in trace mode a Python `print` runs while tracing only (docs/jit.md).
The numbers below are MindSpore 2.10's (PyNative and GRAPH_MODE agree on them), recorded by hand.
"""
import warnings

import numpy as np
import pytest

import msx
from msx import nn

MODES = ("ast", "bytecode", "trace")


def _t(v, n=3):
    return msx.Tensor(np.full(n, v, np.float32))


def _quiet(jf, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # a "runs eagerly" warning fails the test
        return jf(*args)


def one_branch(x):
    if x.sum() > 0:
        y = x * 2
    return y + 1


def nested_one_branch(x):
    if x.sum() > 0:
        if x.max() > 2:
            y = x * 2
        else:
            y = x * 3
            z = 1.0
    else:
        z = 2.0
    if x.min() < -5:
        y = x
    return y + z


def _eager(fn, x):
    try:
        return fn(x).asnumpy()
    except UnboundLocalError as exc:
        return type(exc), str(exc)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fn, values", [(one_branch, (1.0, -1.0, 2.0)), (nested_one_branch, (1.0, 3.0, -1.0, -6.0))],
                         ids=["one_branch", "nested"])
def test_a_name_assigned_on_one_path_works_or_raises_as_eagerly(fn, values, mode):
    jf = msx.jit(fn, capture_mode=mode)
    for v in values:
        want = _eager(fn, _t(v))
        if isinstance(want, tuple):
            with pytest.raises(UnboundLocalError, match=r"local variable '\w' where it is not associated"):
                _quiet(jf, _t(v))
        else:
            np.testing.assert_array_equal(_quiet(jf, _t(v)).asnumpy(), want)
    if mode != "bytecode":   # (bytecode runs a tensor `if` in Python between graphs: a graph per side)
        assert jf.cache_info()["captures"] == 1 and jf.cache_info()["compiles"] == 1


def test_the_one_graph_holds_a_cond_and_explain_names_the_check():
    jf = msx.jit(one_branch, capture_mode="ast", fullgraph=True)
    x = _t(1.0)
    assert "Cond" in [n.op for n in jf.capture(x).nodes]
    text = str(jf.explain(x))
    assert "`y` is assigned" in text and "1 graph(s)" in text
    # trace met the value decision and captured from source: the same check, shown with its line
    assert "`y` is assigned (UnboundLocalError otherwise) at test_jit_doc_semantics.py" in \
        str(msx.jit(one_branch, capture_mode="trace").explain(x))


def test_reading_it_inside_tensor_control_flow_says_why():
    def f(x):
        if x.sum() > 0:
            y = x * 2
        if x.max() > 0:
            x = y
        return x

    with pytest.raises(msx.errors.CaptureError, match="assigned on only one path"):
        msx.jit(f, capture_mode="ast", fullgraph=True)(_t(1.0))


class _WritesWeight(nn.Cell):
    def __init__(self):
        super().__init__()
        self.weight = msx.Parameter(msx.Tensor(np.ones(3, np.float32)), name="w")

    def construct(self, x):
        before = self.weight + 0
        self.weight = x * 2
        return before, self.weight + 1


@pytest.mark.parametrize("mode", MODES)
def test_assigning_a_parameter_attribute_in_construct_writes_it_in_one_graph(mode):
    net = _WritesWeight()
    jf = msx.jit(net, capture_mode=mode, fullgraph=mode != "trace")
    outs = [_quiet(jf, _t(1.0)), _quiet(jf, _t(3.0))]
    # MindSpore 2.10 (GRAPH_MODE and PyNative): ([1], [3]) then ([2], [7]); the Parameter holds 6
    assert [[o.asnumpy()[0] for o in out] for out in outs] == [[1.0, 3.0], [2.0, 7.0]]
    np.testing.assert_array_equal(net.weight.asnumpy(), [6.0, 6.0, 6.0])
    assert isinstance(net.weight, msx.Parameter) and net.weight.name == "w"
    assert jf.cache_info()["captures"] == 1 and jf.cache_info()["hits"] == 1


class _WritesTensorAttr(nn.Cell):
    def __init__(self):
        super().__init__()
        self.t = msx.Tensor(np.ones(3, np.float32))

    def construct(self, x):
        self.t = x * 2
        return self.t + 1


def test_a_traced_tensor_attribute_write_runs_eagerly_rather_than_go_stale():
    net = _WritesTensorAttr()
    jf = msx.jit(net, capture_mode="trace")
    with pytest.warns(UserWarning, match=r"Tensor attribute `\.t`"):
        jf(_t(1.0))
    np.testing.assert_array_equal(jf(_t(3.0)).asnumpy(), [7.0] * 3)
    np.testing.assert_array_equal(net.t.asnumpy(), [6.0] * 3)   # as eagerly (a graph would have left 2)


def _prints_types(x):
    print(type(x))
    print(x.dtype, x.shape)
    return x + 1


@pytest.mark.parametrize("mode", ("ast", "bytecode"))
def test_print_of_types_is_a_print_node_printing_on_every_call(mode, capfd):
    x = _t(1.0)
    _prints_types(x)
    want = capfd.readouterr().out
    assert want == "<class 'msx.tensor.Tensor'>\nFloat32 (3,)\n"
    jf = msx.jit(_prints_types, capture_mode=mode, fullgraph=True)
    for _ in range(2):
        _quiet(jf, x)
        assert capfd.readouterr().out == want   # once per call, the first call too
    assert jf.cache_info()["captures"] == 1 and [n.op for n in jf.capture(x).nodes].count("Print") == 2
