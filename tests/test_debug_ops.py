"""MindSpore 2.10's debugging class ops (msx/ops/debug_ops.py) against its recorded answers
(tests/golden_loops/loops_ms210.json, from tests/golden_loops/record.py): `Assert`, `TensorDump` /
`tensordump`, `DumpGradient`, `InsertGradientOf`, `PyFunc`, `Morph`, `Reusing` — eagerly and under `msx.jit`
in every capture mode."""
import json
import os
import re
import sys

import numpy as np
import pytest

import msx
from msx import Tensor, ops
from msx.errors import GradError, OpError, OpTypeError
from msx.ops.debug_ops import AssertFailedError

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "golden_loops"))
import loop_cases as C  # noqa: E402
from test_loop_ops import same  # noqa: E402

GOLDEN = json.load(open(os.path.join(HERE, "golden_loops", "loops_ms210.json")))
MODES = ["ast", "bytecode", "trace"]


def _x() -> Tensor:
    return Tensor(C.X)


def _dumps(root) -> dict:
    """{name with the id counted from 0 in write order: (dtype, values)} of the .npy files under `root`."""
    found = []
    for dirpath, _, names in os.walk(root):
        for n in names:
            path = os.path.join(dirpath, n)
            found.append((int(re.search(r"_(\d+)\.npy$", n).group(1)), os.path.relpath(path, root), np.load(path)))
    found.sort()
    base = found[0][0] if found else 0
    return {re.sub(r"_(\d+)\.npy$", lambda m: f"_{int(m.group(1)) - base}.npy", rel): a for _, rel, a in found}


def _write_dumps(t):
    ops.tensordump("a", t)
    ops.TensorDump()("b.npy", t * 2)
    ops.tensordump("sub/c", t.astype(msx.int32), "in")
    ops.tensordump("bf", t.astype(msx.bfloat16))
    return t + 1


def _check_dumps(root):
    want = {k: v for k, v in GOLDEN["dumps"].items() if not k.startswith("gx")}
    got = _dumps(root)
    assert sorted(got) == sorted(want)
    for name, w in want.items():
        assert str(got[name].dtype) == w["dtype"]
        np.testing.assert_array_equal(got[name], np.asarray(w["value"]))


def test_tensordump_names_and_contents_as_mindspore(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _write_dumps(_x())
    _check_dumps(tmp_path)
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".tensordump-")]  # no temporary file is left


@pytest.mark.parametrize("mode", MODES)
def test_tensordump_under_jit_writes_once_per_call(tmp_path, monkeypatch, mode):
    monkeypatch.chdir(tmp_path)
    run = msx.jit(_write_dumps, capture_mode=mode)
    run(_x())
    _check_dumps(tmp_path)
    run(_x())
    assert len(_dumps(tmp_path)) == 8


def test_tensordump_errors_as_mindspore():
    with pytest.raises(OpError, match="'all' is no longer supported"):
        ops.tensordump("z", _x(), "all")
    with pytest.raises(OpError, match=r"mode must be one of \['out', 'in'\]"):
        ops.tensordump("z", _x(), "bad")
    with pytest.raises(OpTypeError, match="file_name must be a str"):
        ops.tensordump(3, _x())
    with pytest.raises(OpTypeError, match="must be a Tensor"):
        ops.tensordump("z", np.ones(2))
    for key, kind in (("mode_all", "ValueError"), ("mode_bad", "ValueError"), ("file_int", "TypeError")):
        assert GOLDEN["dump_errors"][key]["error"].startswith(kind)


@pytest.mark.parametrize("mode", [None] + MODES)
def test_dump_gradient_saves_the_gradient_once(tmp_path, monkeypatch, mode):
    monkeypatch.chdir(tmp_path)
    grad = msx.grad(lambda v: (ops.DumpGradient()("gx", v * 2, "out") ** 2).sum())  # C.dump_gradient's
    run = grad if mode is None else msx.jit(grad, capture_mode=mode)
    same(run(_x()), GOLDEN["dump_gradient"]["grad"])
    got = _dumps(tmp_path)
    assert list(got) == ["gx_float32_0.npy"]
    np.testing.assert_array_equal(got["gx_float32_0.npy"], GOLDEN["dumps"]["gx_float32_4.npy"]["value"])


@pytest.mark.parametrize("mode", [None] + MODES)
@pytest.mark.parametrize("case", C.DEBUG_GRADS, ids=lambda f: f.__name__)
def test_insert_gradient_of_as_mindspore(case, mode):
    grad = msx.grad(lambda v: case(msx, v))
    run = grad if mode is None else msx.jit(grad, capture_mode=mode)
    for _ in range(2 if mode else 1):
        same(run(_x()), GOLDEN["grads"][case.__name__])


def test_insert_gradient_of_is_a_grad_hook_node():
    graph = msx.jit(msx.grad(lambda v: C.g_insert_gradient_scaled(msx, v))).lower(_x()).graph
    grad = next(n for n in graph.nodes if n.op == "Grad")
    assert [n.op for n in grad.subgraphs["body"].nodes if n.op == "GradHook"] == ["GradHook"]


def _failing_assert(t):
    data = [t * 0.75, Tensor(np.array([4, 5, 6], np.int32)), Tensor(np.array([[1.5, 2.5], [3, 4]], np.float16))]
    ops.Assert(summarize=2)(t.sum() > 100, data)
    return t + 1


def test_assert_prints_and_raises_as_mindspore(capsys):
    with pytest.raises(RuntimeError, match="assert failed") as info:
        _failing_assert(_x())
    assert isinstance(info.value, AssertFailedError)
    assert capsys.readouterr().out == GOLDEN["assert"]["printed"]
    assert GOLDEN["assert"]["error"] == "RuntimeError: assert failed"
    ok = ops.Assert()(Tensor(True), [_x()])
    assert str(ok.dtype) == GOLDEN["assert"]["ok"]["dtype"] and ok.shape == (1,)  # (MindSpore's value: unset)


@pytest.mark.parametrize("mode", MODES)
def test_assert_under_jit_checks_every_call(mode, capsys):
    run = msx.jit(_failing_assert, capture_mode=mode)
    with pytest.raises(RuntimeError, match="assert failed"):
        run(_x())
    assert GOLDEN["assert"]["printed"] in capsys.readouterr().out
    np.testing.assert_allclose(run(_x() * 100).asnumpy(), C.X * 100 + 1)  # holds: no error, the value
    with pytest.raises(RuntimeError, match="assert failed"):  # the compiled graph checks again
        run(_x())


def test_assert_condition_errors_as_mindspore():
    with pytest.raises(OpError, match="one element"):
        ops.Assert()(Tensor([True, True]), [_x()])
    with pytest.raises(OpTypeError, match="bool Tensor"):
        ops.Assert()(Tensor(1.0), [_x()])
    with pytest.raises(OpTypeError, match="list or tuple"):
        ops.Assert()(Tensor(True), _x())
    assert GOLDEN["assert"]["two_elements"]["error"].startswith("ValueError")
    assert GOLDEN["assert"]["float_condition"]["error"].startswith("TypeError")


@pytest.mark.parametrize("mode", [None] + MODES)
def test_pyfunc_as_mindspore(mode):
    op = C.make_pyfunc(msx)  # made outside the jitted function, as a Cell's __init__ makes it
    run = (lambda v: C.pyfunc(msx, v, op)) if mode is None else msx.jit(lambda v: C.pyfunc(msx, v, op),
                                                                          capture_mode=mode)
    for _ in range(2):
        same(run(_x()), GOLDEN["pyfunc"])


def test_pyfunc_has_no_gradient_and_checks_its_inputs():
    assert "bprop not defined" in GOLDEN["pyfunc_grad"]["error"]
    with pytest.raises(GradError, match="no backward"):
        msx.jit(msx.grad(lambda v: C.pyfunc(msx, v)[0].sum()))(_x())
    op = ops.PyFunc(lambda a: a, [msx.float32], [(2,)], [msx.float32], [(2,)])
    with pytest.raises(OpTypeError, match=r"input 0 is Float32\[3\], declared Float32\[2\]"):
        op(_x())


def _morph_net(bprop: bool):
    m = ops.Morph(C._mfn, C._mshape, C._mdtype, C._mbprop if bprop else None)
    return lambda v: m(v * 2)


@pytest.mark.parametrize("mode", MODES)
def test_morph_runs_in_a_graph_with_its_bprop(mode):
    same(msx.jit(_morph_net(True), capture_mode=mode)(_x()), GOLDEN["morph"]["value"])
    same(msx.jit(msx.grad(lambda v: _morph_net(True)(v).sum()), capture_mode=mode)(_x()), GOLDEN["morph"]["grad"])
    same(msx.jit(msx.grad(lambda v: _morph_net(False)(v).sum()), capture_mode=mode)(_x()),
         GOLDEN["morph"]["grad_no_bprop"])


def test_morph_eagerly_raises_as_mindspore():
    assert GOLDEN["morph"]["eager"]["error"] == "RuntimeError: Morph is only supported in GRAPH_MODE."
    with pytest.raises(RuntimeError, match="Morph is only supported in GRAPH_MODE"):
        _morph_net(True)(_x())


def test_reusing_returns_what_it_is_given():
    assert ops.Reusing()(C._mfn) is C._mfn
    x = _x()
    assert ops.Reusing()(x) is x
    assert ops.operations.Reusing is ops.Reusing and ops.operations.Assert is ops.Assert
