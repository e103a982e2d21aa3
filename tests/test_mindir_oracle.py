"""msx exports MINDIR that real MindSpore 2.10 loads (`mindspore.load` + `nn.GraphCell`) and runs to msx's outputs.

MindSpore lives in its own venv (it needs numpy<2): `$MSX_MINDSPORE_PYTHON`, else `/work/.venv-ms/bin/python`
or `.venv-ms/bin/python` in the repository. Without one these tests skip, and say so loudly; make one with
`python -m venv .venv-ms && .venv-ms/bin/pip install mindspore==2.10.0 "numpy<2"`.
"""
from __future__ import annotations

import json
import os
import subprocess
import warnings

import numpy as np
import pytest

import msx as ms
from msx import nn, ops
from oracle.live import mindspore_python

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "mindir")
RUNNER = os.path.join(DATA, "run_in_mindspore.py")


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Dense(16, 32), nn.Dense(32, 10)

    def construct(self, x):
        return ops.softmax(self.fc2(ops.relu(self.fc1(x))), -1)


class CNN(nn.Cell):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(1, 4, 3, pad_mode="pad", padding=1, has_bias=True)
        self.bn = nn.BatchNorm2d(4)
        self.pool = nn.MaxPool2d(2, 2)
        self.c2 = nn.Conv2d(4, 8, 3, pad_mode="valid")
        self.avg = nn.AvgPool2d(2, 2)
        self.fc = nn.Dense(8 * 2 * 2, 10)

    def construct(self, x):
        x = self.pool(ops.relu(self.bn(self.c1(x))))
        x = self.avg(ops.relu(self.c2(x)))
        return self.fc(ops.flatten(x))


class SameConv(nn.Cell):
    """MindSpore's default `pad_mode='same'`, with a stride and a dilation: written as explicit pads."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(2, 4, 3, stride=2)
        self.c2 = nn.Conv2d(4, 4, (2, 3), dilation=2, has_bias=True)

    def construct(self, x):
        return self.c2(ops.relu(self.c1(x)))


class Flow(nn.Cell):
    """A tensor `if` and a tensor `while`, a LayerNorm and a GELU."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(8, 8)
        self.ln = nn.LayerNorm((8,))

    def construct(self, x):
        y = self.ln(self.fc(x))
        if x.sum() > 0:
            y = y * 2.0
        else:
            y = ops.tanh(y) - 1.0
        while y.abs().sum() < 100.0:
            y = y * 1.5 + 0.25
        return ops.gelu(y) + ops.reduce_mean(y, 1, keep_dims=True)


class Mix(nn.Cell):
    """Many of the written primitives at once: Embedding (Gather), indexing, Concat, Tile, Cast, reductions."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(7, 4)
        self.fc = nn.Dense(4, 4)

    def construct(self, ids):
        e = self.emb(ids)                                       # (2, 3, 4)
        a = ops.concat((e[:, 0], e[:, -1], e[:, 1, ::2]), 1)    # (2, 10)
        b = ops.expand_dims(ops.transpose(e, (0, 2, 1)).max(-1), 1).squeeze(1)  # (2, 4)
        c = ops.tile(ops.log_softmax(self.fc(b), -1), (1, 2))  # (2, 8)
        d = ops.where(c > -1.5, ops.exp(c), ops.sqrt(ops.abs(c))) + ops.maximum(c, -2.0)
        h = ops.cast(ops.cast(d, ms.float16), ms.float32).mean(-1, keep_dims=True) - a.sum(-1, keepdims=True)
        return ops.softmax(d * h, -1) + ops.sigmoid(a).min()


class Mix2(nn.Cell):
    """The rest of the writers: batched MatMul, Dense on 3-D input, argmax, broadcasting, more activations."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 4)

    def construct(self, x):                                    # (2, 3, 4)
        y = ops.matmul(x, ops.transpose(x, (0, 2, 1)))         # (2, 3, 3)
        z = self.fc(x)                                         # (2, 3, 4)
        v, i = ops.max(z, 2)                                   # ArgMaxWithValue
        k = ops.argmax(z, 2).astype(ms.float32)
        w = ops.broadcast_to(v.reshape(2, 3, 1), (2, 3, 4)) + ops.leaky_relu(z, 0.1) + ops.gelu(z, "tanh")
        w = w + ops.relu6(z) + ops.silu(z) + ops.softplus(z) - ops.neg(ops.sin(z)) + ops.floor(z) / 4.0
        w = ops.pow(ops.abs(w) + 1.0, 0.5) + ops.minimum(w, 0.0) + ops.sigmoid(y.sum(-1, keepdims=True))
        return w * (k + i.astype(ms.float32)).reshape(2, 3, 1)


def mix3(x):
    """Select with scalar operands, comparisons and logic, rounding and integer-like arithmetic, more reductions."""
    a = ops.where(ops.logical_and(x > -0.5, ops.less_equal(x, 1.0)), x, 0.25) + ops.where(ops.isnan(x), 0.0, x)
    b = ops.round(x * 3) + ops.floor_divide(x * 4, 1.5) + ops.remainder(x * 4, 1.5) + ops.ceil(x) + ops.sign(x)
    c = ops.log(ops.abs(x) + 1) + ops.log1p(ops.abs(x)) + ops.rsqrt(ops.abs(x) + 1) + ops.atan2(x, x + 2)
    d = ops.prod(ops.cos(x), 2, keep_dims=True) + ops.argmin(x, 2).astype(ms.float32).unsqueeze(2)
    return a + b + c * d + ops.where(ops.not_equal(x, x), 1.0, ops.reciprocal(x + 5))


class Switched(nn.Cell):
    """A CellList indexed by a tensor computed from the input (MindSpore's switch_layer; an msx Case node)."""

    def __init__(self):
        super().__init__()
        self.layers = nn.CellList([nn.Dense(4, 4), nn.SequentialCell([nn.Dense(4, 4), nn.Tanh()]), nn.ReLU()])

    def construct(self, x):
        i = (x.sum() > 0).astype(ms.int32) * 2 - 1  # 1 or -1 (the last cell, counted from the end)
        return self.layers[i](x) * 2.0


def cases():
    rng = np.random.default_rng(3)
    ms.set_seed(3)
    bn_net = CNN()
    bn_net.bn.moving_mean.set_data(ms.Tensor(rng.standard_normal(4).astype(np.float32)))
    bn_net.bn.moving_variance.set_data(ms.Tensor(rng.uniform(0.5, 2, 4).astype(np.float32)))
    return [("mlp", MLP(), rng.standard_normal((4, 16)).astype(np.float32)),
            ("cnn", bn_net, rng.standard_normal((2, 1, 12, 12)).astype(np.float32)),
            ("same_conv", SameConv(), rng.standard_normal((1, 2, 9, 8)).astype(np.float32)),
            ("flow_pos", Flow(), rng.standard_normal((3, 8)).astype(np.float32) + 1.0),
            ("flow_neg", None, -np.abs(rng.standard_normal((3, 8))).astype(np.float32) - 3.0),
            ("mix", Mix(), rng.integers(0, 7, (2, 3)).astype(np.int32)),
            ("mix2", Mix2(), rng.standard_normal((2, 3, 4)).astype(np.float32)),
            ("mix3", mix3, rng.standard_normal((2, 3, 4)).astype(np.float32)),
            ("switch_pos", Switched(), np.abs(rng.standard_normal((2, 4))).astype(np.float32)),
            ("switch_neg", None, -np.abs(rng.standard_normal((2, 4))).astype(np.float32)),
            # MindSpore's own break/return loops, read by msx (a While carrying an outcome tag) and written back
            ("while_break", _mindspore_file("while_break"), np.load(os.path.join(DATA, "while_break.input.npy"))),
            ("nested_break", _mindspore_file("nested_break"), np.full((2, 4), 2.0, np.float32)),
            ("nested_break_neg", None, np.full((2, 4), -0.5, np.float32))]


def _mindspore_file(name: str) -> nn.GraphCell:
    return nn.GraphCell(ms.load(os.path.join(DATA, name + ".mindir")))


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("oracle")
    out, last = {}, None
    for name, net, x in cases():
        net = last if net is None else net
        last = net
        path = ms.export(net, ms.Tensor(x), file_name=str(tmp / name), file_format="MINDIR")
        np.save(tmp / f"{name}.in.npy", x)
        out[name] = (path, str(tmp / f"{name}.in.npy"), net(ms.Tensor(x)).asnumpy())
    return tmp, out


def test_msx_reads_back_what_it_wrote(exported):
    """The round trip msx -> MINDIR -> msx, no MindSpore needed."""
    _, files = exported
    for name, (path, x, want) in files.items():
        graph = ms.load(path)
        assert graph.manifest["written_by_msx"] and graph.manifest["producer"].startswith("msx")
        got = nn.GraphCell(graph)(ms.Tensor(np.load(x))).asnumpy()
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-5, err_msg=name)
    assert "While" in {n.op for n in ms.load(files["flow_pos"][0]).nodes}
    assert "Case" in {n.op for n in ms.load(files["switch_pos"][0]).nodes}


def test_corrupted_msx_written_mindir_is_refused_at_every_byte(exported, tmp_path):
    """msx-written MINDIR carries a SHA-256: unlike a MindSpore-made file, a flip anywhere is caught."""
    from msx.errors import LoadError

    path = exported[1]["mlp"][0]
    blob = open(path, "rb").read()
    bad = str(tmp_path / "bad.mindir")
    for i in range(0, len(blob), 3):
        b = bytearray(blob)
        b[i] ^= 0x10
        with open(bad, "wb") as f:
            f.write(b)
        with pytest.raises(LoadError):
            ms.load(bad)


def test_mindspore_loads_msx_exports(exported):
    python = mindspore_python()
    if python is None:
        warnings.warn("MindSpore 2.10 venv not found (set MSX_MINDSPORE_PYTHON): the MINDIR oracle test did NOT run")
        pytest.skip("no MindSpore 2.10 venv: set MSX_MINDSPORE_PYTHON or make .venv-ms (see this file's docstring)")
    tmp, files = exported
    jobs = [{"mindir": p, "inputs": [x], "output": str(tmp / f"{name}.ms.npy")} for name, (p, x, _) in files.items()]
    with open(tmp / "jobs.json", "w") as f:
        json.dump(jobs, f)
    run = subprocess.run([python, RUNNER, str(tmp / "jobs.json")], capture_output=True, text=True, timeout=600,
                         env={k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "JAX_PLATFORMS")})
    assert run.returncode == 0, run.stderr[-3000:]
    for job, (name, (_, _, want)) in zip(jobs, files.items()):
        err = job["output"] + ".error.txt"
        assert not os.path.exists(err), f"MindSpore could not run {name}:\n{open(err).read()[-3000:]}"
        np.testing.assert_allclose(np.load(job["output"]), want, rtol=0, atol=1e-5, err_msg=name)


def test_what_mindir_cannot_hold_is_refused_before_writing(tmp_path):
    from msx.mindir.errors import MindIRExportError

    x = ms.Tensor(np.ones((2, 3), np.float32))
    for fn in (lambda v: nn.MSELoss()(v, v * 2), lambda v: ops.cumsum(v, 1) * ops.sort(v)[0]):
        with pytest.raises(MindIRExportError, match="cannot write as MindIR"):
            ms.export(fn, x, file_name=str(tmp_path / "no"), file_format="MINDIR")
        assert not os.path.exists(tmp_path / "no.mindir")


def test_the_control_ops_a_mindir_file_holds_are_the_writers_table():
    """The writer's higher-order rules are its own table, keyed by the declarations: the four ops a MindIR file
    holds have a rule, every other higher-order op (a Scan, a Grad) is listed as unsupported before writing,
    never a MissingRuleError or a KeyError."""
    from msx.ir.control import CALL, CASE, COND, SCAN, WHILE
    from msx.ir.graph import Abstract, Graph, Node, Var
    from msx.mindir.writer import CONTROL_WRITERS, unsupported_ops
    from msx.ops.primitive import REGISTRY

    held = {p.name for p in (COND, CASE, WHILE, CALL)}
    assert {name for name, p in REGISTRY.items() if p.subgraphs and CONTROL_WRITERS.get(name) is not None} == held
    assert CONTROL_WRITERS.get("Add") is None  # a first-order op: the per-op WRITERS table's
    x, out = Var(Abstract((2,), "float32")), Var(Abstract((2,), "float32"))
    scan = Node(SCAN.name, [x], [out], {}, None, {"body": Graph("body")})
    assert unsupported_ops(Graph("g", [x], [], [scan], [out])) == [SCAN.name]
