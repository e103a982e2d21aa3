"""Reading real MindSpore 2.10 `.mindir` files (tests/data/mindir, made by make_mindir.py) and running them on XLA.

The references are the outputs MindSpore itself computed for the committed inputs.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import msx as ms
from msx import nn
from msx.errors import LoadError, UnknownPrimitiveError
from msx.mindir import mind_ir_pb2 as pb
from msx.mindir.errors import UnsupportedMindIRError

DATA = os.path.join(os.path.dirname(__file__), "data", "mindir")
INDEX = json.load(open(os.path.join(DATA, "index.json")))["cases"]
# MindSpore 2.10's CPU Tanh is a fast approximation: measured against float64, its absolute error reaches 1e-4
# for |x| > 4 (msx's tanh is exact to float32). Cases whose outputs pass through Tanh are held to that.
TANH_ATOL = {"branchy_pos": 2e-4, "branchy_neg": 2e-4, "ops_mix": 2e-4}


def case_data(name: str):
    e = INDEX[name]
    return (os.path.join(DATA, e["file"]), np.load(os.path.join(DATA, e["input"])),
            np.load(os.path.join(DATA, e["output"])))


@pytest.fixture(scope="module")
def loaded():
    return {f: ms.load(os.path.join(DATA, f)) for f in sorted({e["file"] for e in INDEX.values()})}


@pytest.mark.parametrize("name", sorted(INDEX))
def test_golden_file_reproduces_mindspore(name, loaded):
    path, x, want = case_data(name)
    cell = nn.GraphCell(loaded[os.path.basename(path)])
    got = cell(ms.Tensor(x)).asnumpy()
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=0, atol=TANH_ATOL.get(name, 1e-5))


def test_branchy_takes_both_branches_exactly(loaded):
    """The if-file against its formula in float64: tanh(2y) where sum(y) > 0, else tanh(y - 1)."""
    g = loaded["branchy_pos.mindir"]
    w, b = g.weights["fc.weight"].astype(np.float64), g.weights["fc.bias"].astype(np.float64)
    cell = nn.GraphCell(g)
    taken = set()
    for name in ("branchy_pos", "branchy_neg"):
        _, x, _ = case_data(name)
        y = x.astype(np.float64) @ w.T + b
        taken.add(bool(y.sum() > 0))
        want = np.tanh(2 * y) if y.sum() > 0 else np.tanh(y - 1)
        np.testing.assert_allclose(cell(ms.Tensor(x)).asnumpy(), want, rtol=0, atol=2e-6)
    assert taken == {True, False}
    assert [n.op for n in g.nodes].count("Cond") == 1


@pytest.mark.parametrize("name", ["mlp", "lenetish", "branchy_pos", "branchy_neg", "while_loop", "while_loop_big",
                                  "nested_while", "while_break", "while_break_never", "while_continue",
                                  "while_continue_odd", "for_break", "for_break_never", "if_elif_else",
                                  "if_elif_else_mid", "if_elif_else_low", "nested_break", "nested_break_return",
                                  "nested_break_neg"])
def test_under_jit(name, loaded):
    path, x, want = case_data(name)
    cell = nn.GraphCell(loaded[os.path.basename(path)])

    @ms.jit
    def run(v):
        return cell(v) * 2.0

    got = run(ms.Tensor(x)).asnumpy() / 2.0
    np.testing.assert_allclose(got, want, rtol=0, atol=TANH_ATOL.get(name, 1e-5))
    assert "Call" in {n.op for n in run.capture(ms.Tensor(x)).nodes}


def test_control_flow_becomes_graph_nodes(loaded):
    ops_of = lambda g: {n.op for n in g.nodes}  # noqa: E731
    assert "While" in ops_of(loaded["while_loop.mindir"])
    assert "Cond" in ops_of(loaded["branchy_pos.mindir"])
    for g in loaded.values():
        assert not ops_of(g) & {"Load", "Depend", "UpdateState", "MakeTuple", "TupleGetItem"}


def test_nested_while_is_a_loop_in_a_loop(loaded):
    """MindSpore's nested `while`: the inner loop's exit reaches its header again only through the outer loop's
    header, and the two loops' graphs share one Constant node; msx reads a While inside a While's body."""
    g = loaded["nested_while.mindir"]
    outer = [n for n in g.nodes if n.op == "While"]
    assert len(outer) == 1
    assert any(n.op == "While" for sub in outer[0].subgraphs.values() for n in sub.nodes)


# The Python loops MindSpore exported (make_mindir.py), in numpy float64: (output, the path taken).
def _while_break(x, w):
    i, path = 0, []
    while i < 6:
        x = x @ w + 0.1
        if x.sum() > 10.0:
            path.append("break")
            break
        i += 1
    return x * 2.0 + i, path


def _while_continue(x, w):
    i, path = 0, []
    while i < 5:
        i += 1
        x = np.tanh(-(x @ w)) + 0.05
        if x.mean() > 0.0:
            path.append("continue")
            continue
        path.append("rest")
        x = x - 0.2
    return x, path


def _for_break(x, w):
    path = []
    for _ in range(4):
        x = x @ w * 0.9 + 0.25
        if x.max() > 2.0:
            path.append("break")
            break
    return 1 / (1 + np.exp(-x)), path


def _nested_break(x, w):
    i, path = 0, []
    while i < 4:
        j = 0
        while j < 3:
            x = x @ w - 0.1
            if x.sum() > 6.0:
                path.append("break")
                break
            j += 1
        if x.sum() > 20.0:
            path.append("return")
            return x * 0.5 - i, path
        x = x * 0.25 + j * 0.1
        i += 1
    return x, path


LOOPS = {"while_break": _while_break, "while_continue": _while_continue, "for_break": _for_break,
         "nested_break": _nested_break}


@pytest.mark.parametrize("file", sorted(LOOPS))
def test_break_continue_and_return_follow_the_python_loop(file, loaded):
    """MindSpore writes `break`/`continue`/`return` in a loop as graph calls (the breaking branch runs a copy of
    the code after the loop); msx reads them into a While that carries which way its body ended. Checked
    against the loop itself in float64, on inputs that take each way out (and one that takes none)."""
    g = loaded[file + ".mindir"]
    w = g.weights["w"].astype(np.float64)
    cell = nn.GraphCell(g)
    paths = []
    for name in (n for n, e in INDEX.items() if e["file"] == file + ".mindir"):
        _, x, _ = case_data(name)
        want, path = LOOPS[file](x.astype(np.float64), w)
        paths.append(path)
        np.testing.assert_allclose(cell(ms.Tensor(x)).asnumpy(), want, rtol=0, atol=2e-5)
    if file == "while_continue":  # each input takes `continue` in some passes and the rest of the body in others
        assert all({"continue", "rest"} <= set(p) for p in paths) and len({tuple(p) for p in paths}) == 2
    else:  # some inputs leave the loop early (by break, or return), another runs it to its end
        assert [] in paths and any(p for p in paths)
    if file == "nested_break":
        assert any("return" in p for p in paths) and any("break" in p and "return" not in p for p in paths)


def test_if_elif_else_takes_each_branch(loaded):
    """MindSpore's if/elif/else on tensors is a Switch whose else branch holds the next Switch: nested Conds."""
    g = loaded["if_elif_else.mindir"]
    w, b = g.weights["fc.weight"].astype(np.float64), g.weights["fc.bias"].astype(np.float64)
    cell = nn.GraphCell(g)
    taken = set()
    for name in ("if_elif_else", "if_elif_else_mid", "if_elif_else_low"):
        _, x, _ = case_data(name)
        y = x.astype(np.float64) @ w.T + b
        s = y.sum()
        taken.add(0 if s > 1.0 else 1 if s > -1.0 else 2)
        want = y * 2.0 if s > 1.0 else 1 / (1 + np.exp(-y)) - 0.5 if s > -1.0 else -y + 3.0
        np.testing.assert_allclose(cell(ms.Tensor(x)).asnumpy(), want, rtol=0, atol=2e-6)
    assert taken == {0, 1, 2}


def test_a_loop_left_early_carries_its_exit_in_the_while(loaded):
    """One While per loop, no unrolling: the break file's While carries the header's arguments (w, i, x), then an
    int32 outcome tag and the value the breaking branch computed (x * 2 + i); the nested file's inner loop (with
    its break) is a While inside the outer While's body."""
    g = loaded["while_break.mindir"]
    (loop,) = [n for n in g.nodes if n.op == "While"]
    assert [str(v.abstract) for v in loop.outputs] == ["f32[4,4]", "i32[]", "f32[2,4]", "i32[]", "f32[2,4]"]
    nested = [n for n in loaded["nested_break.mindir"].nodes if n.op == "While"]
    assert len(nested) == 1
    assert any(n.op == "While" for sub in nested[0].subgraphs.values() for n in sub.nodes)


def test_a_break_whose_result_differs_from_the_loops_is_refused(tmp_path):
    """If leaving by `break` gives a value of another type than running the loop to its end, one graph output
    cannot hold both: UnsupportedMindIRError, naming where."""
    path, _, _ = case_data("while_break")
    model = pb.ModelProto()
    model.ParseFromString(open(path, "rb").read())
    (breaking,) = [f for f in model.functions if "\u2713" in f.name]   # the ✓ branch: the code after the loop
    counter = next(v.name for v in breaking.input if v.name.endswith("i"))
    breaking.output[0].name = counter  # return the loop counter (i32[]) instead of x * 2 + i (f32[2, 4])
    bad = tmp_path / "break_mismatch.mindir"
    bad.write_bytes(model.SerializeToString())
    with pytest.raises(UnsupportedMindIRError, match="results of different kinds") as info:
        ms.load(str(bad))
    assert "i32[]" in str(info.value) and "f32[2,4]" in str(info.value)
    graphs = {f.name for f in model.functions}
    (call,) = [n.name for n in model.graph.node if n.op_type[5:] in graphs]  # the main graph's call of the loop
    assert info.value.unsupported["output"][1].endswith(f"node {call}")


def test_gradients_flow_through_a_loaded_graph(loaded):
    _, x, _ = case_data("mlp")
    cell = nn.GraphCell(loaded["mlp.mindir"])
    weight = np.zeros((10, 10), np.float32)
    weight[np.arange(10), np.arange(10)] = np.linspace(0.5, 1.5, 10)

    def loss(v):
        return (cell(v) * ms.Tensor(weight[:1])).sum()

    g = ms.grad(loss)(ms.Tensor(x)).asnumpy()
    eps, i, j = 1e-2, 1, 3
    xp, xm = x.copy(), x.copy()
    xp[i, j] += eps
    xm[i, j] -= eps
    numeric = (loss(ms.Tensor(xp)).asnumpy() - loss(ms.Tensor(xm)).asnumpy()) / (2 * eps)
    np.testing.assert_allclose(g[i, j], numeric, rtol=2e-2, atol=1e-4)
    assert [p.name for p in cell.trainable_params()] == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]


def test_ascend_backend_rounds_cube_operands(loaded):
    """On the simulated Ascend the MatMuls read float16-rounded operands: the MLP computed that way in numpy."""
    _, x, want_cpu = case_data("mlp")
    g = loaded["mlp.mindir"]
    f16 = lambda a: a.astype(np.float16).astype(np.float64)  # noqa: E731
    w1, b1, w2, b2 = (g.weights[k] for k in ("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"))
    h = np.maximum(f16(x) @ f16(w1).T + b1, 0)
    z = f16(h) @ f16(w2).T + b2
    want = np.exp(z - z.max(1, keepdims=True))
    want /= want.sum(1, keepdims=True)
    got = nn.GraphCell(g, backend="ascend")(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, want, rtol=0, atol=2e-6)
    assert np.abs(got - want_cpu).max() > 1e-5  # the rounding is visible


def test_parameters_and_names(loaded):
    g = loaded["lenetish.mindir"]
    assert [v.name for v in g.inputs] == ["x"]
    assert g.param_names == list(g.weights)
    assert "bn.moving_mean" in g.weights and g.weights["c1.weight"].shape == (4, 1, 3, 3)
    assert g.manifest["format"] == "MINDIR" and g.manifest["producer"] == "MindSpore 2.10.0"


def test_unsupported_ops_are_listed_all_at_once(tmp_path):
    path, _, _ = case_data("mlp")
    model = pb.ModelProto()
    model.ParseFromString(open(path, "rb").read())
    for p in model.primitives:
        if p.op_type in ("ReLU", "Softmax"):
            p.op_type = "Fancy" + p.op_type
    bad = tmp_path / "strange.mindir"
    bad.write_bytes(model.SerializeToString())
    with pytest.raises(UnsupportedMindIRError) as info:
        ms.load(str(bad))
    err = info.value
    assert isinstance(err, UnknownPrimitiveError) and isinstance(err, LoadError)
    assert set(err.unsupported) == {"FancyReLU", "FancySoftmax"}
    assert err.unsupported["FancyReLU"][0] == 1
    text = str(err)
    assert "2 node(s) use 2 MindSpore op(s)" in text and "FancyReLU (1 node, first " in text and "CNode_21" in text


def test_inspect_lists_ops_and_graph():
    path, _, _ = case_data("while_loop")
    out = subprocess.run([sys.executable, "-m", "msx", "inspect", path], capture_output=True, text=True,
                         env={**os.environ, "JAX_PLATFORMS": "cpu"}, cwd=os.path.dirname(os.path.dirname(os.path.dirname(DATA))))
    assert out.returncode == 0, out.stderr
    assert "made by MindSpore 2.10.0" in out.stdout
    assert "Switch       1      yes" in out.stdout and "While[cond=" in out.stdout and "w     float32  [4, 3]" in out.stdout


def test_load_dispatches_on_content_too(tmp_path):
    path, x, want = case_data("mlp")
    plain = tmp_path / "model.bin"
    plain.write_bytes(open(path, "rb").read())
    np.testing.assert_allclose(nn.GraphCell(ms.load(str(plain)))(ms.Tensor(x)).asnumpy(), want, atol=1e-5)


@pytest.mark.parametrize("name", ["lenetish", "branchy_pos", "branchy_neg"])
def test_the_golden_files_run_on_the_simulated_ascend(name, loaded):
    """Keeping float32 on the Cube reproduces MindSpore's CPU outputs; the default float16 Cube operands move
    them by float16 rounding only."""
    path, x, want = case_data(name)
    g = loaded[os.path.basename(path)]
    kept = ms.jit(nn.GraphCell(g), backend="ascend", precision_mode="must_keep_origin_dtype")(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(kept, want, rtol=0, atol=TANH_ATOL.get(name, 1e-5))
    rounded = nn.GraphCell(g, backend="ascend")(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(rounded, want, rtol=1e-2, atol=1e-2)
