"""Make the golden files that tests/test_export_golden.py loads: small MSXIR files, a checkpoint, and
the outputs they must produce.

    python tests/golden/make_golden.py

Rerun only on purpose (a new format version, with the old files kept under
another name): the golden files exist so that a change which stops msx from
reading files an earlier msx wrote fails CI loudly. The model builders are
also imported by the tests, which check them against numpy references.
"""
from __future__ import annotations

import os
import sys

import numpy as np
import safetensors.numpy

import msx
from msx import nn, ops
from msx.ir import Abstract, Graph, Node, Var

HERE = os.path.dirname(os.path.abspath(__file__))
F32 = "float32"


def _capture(fn, *shapes) -> Graph:
    return msx.jit(fn, capture_mode="trace").capture(*[msx.Tensor(np.zeros(s, np.float32)) for s in shapes])


def control_flow_graph() -> Graph:
    """x, w: f32[3] -> (ys: f32[3], total: f32[]), with every control-flow node:

    h = x * w; c = 2h if sum(h) > 0 else -h          (Cond)
    i = 0; while i < 3: c, i = 1.5c, i + 1           (While)
    acc = 0; for each element e of c: acc += e; ys.append(acc)   (Scan, scaled by an invariant k = sum(w))
    """
    def step(acc, e, k):
        new = acc + e * k
        return new, new

    then_g, else_g = _capture(lambda h: h * 2.0, (3,)), _capture(lambda h: -h, (3,))
    cond_g, body_g = _capture(lambda c, i: i < 3.0, (3,), ()), _capture(lambda c, i: (c * 1.5, i + 1.0), (3,), ())
    scan_g = _capture(step, (), (), ())
    x, w = Var(Abstract((3,), F32), "x"), Var(Abstract((3,), F32), "w")
    h, s, p, c = Var(Abstract((3,), F32)), Var(Abstract((), F32)), Var(Abstract((), "bool")), Var(Abstract((3,), F32))
    c2, i2, k = Var(Abstract((3,), F32)), Var(Abstract((), F32)), Var(Abstract((), F32))
    total, ys = Var(Abstract((), F32)), Var(Abstract((3,), F32))
    zero = msx.ir.Const(np.zeros((), np.float32))
    nodes = [
        Node("Mul", [x, w], [h]),
        Node("ReduceSum", [h], [s], {"axis": None, "keepdims": False}),
        Node("Greater", [s, msx.ir.Const(0.0)], [p]),
        Node("Cond", [p, h], [c], subgraphs={"then": then_g, "else": else_g}),
        Node("While", [c, zero], [c2, i2], subgraphs={"cond": cond_g, "body": body_g}),
        Node("ReduceSum", [w], [k], {"axis": None, "keepdims": False}),
        Node("Scan", [zero, c2, k], [total, ys], {"n_carry": 1, "n_xs": 1}, subgraphs={"body": scan_g}),
    ]
    return Graph("control_flow", [x], [w], nodes, [ys, total])


def control_flow_reference(x: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.float32]:
    """The same computation in numpy (the independent reference)."""
    h = x * w
    c = h * 2.0 if h.sum() > 0 else -h
    c = c * 1.5 ** 3
    ys = np.cumsum(c * w.sum())
    return ys.astype(np.float32), np.float32(ys[-1])


class ControlFlowNet(nn.Cell):
    """A Dense layer feeding the control-flow graph (as a GraphCell), so the Cond/While/Scan sit in a Call."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Dense(3, 3, bias_init="zeros")  # so that -x flips the sign of the Cond's predicate
        self.core = nn.GraphCell(control_flow_graph(), params_init={"w": np.array([0.5, -1.0, 2.0], np.float32)})

    def construct(self, x):
        ys, total = self.core(ops.reshape(self.fc(x), (3,)))
        return ys, total * 2.0


def mlp() -> nn.Cell:
    msx.set_seed(0)
    return nn.SequentialCell([nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 3)])


def cnn() -> nn.Cell:
    msx.set_seed(1)
    net = nn.SequentialCell([nn.Conv2d(1, 2, 3, pad_mode="valid", has_bias=True), nn.BatchNorm2d(2), nn.ReLU(),
                             nn.MaxPool2d(2, 2), nn.Flatten(), nn.Dense(8, 3)])
    bn = net[1]
    bn.moving_mean.set_data(msx.Tensor(np.array([0.1, -0.2], np.float32)))
    bn.moving_variance.set_data(msx.Tensor(np.array([0.5, 2.0], np.float32)))
    return net


def control_flow() -> nn.Cell:
    msx.set_seed(2)
    return ControlFlowNet()


def cases(name: str) -> list[list[np.ndarray]]:
    """Inputs per model: each case is a list of arrays (the control-flow model takes both branches)."""
    rng = np.random.default_rng(0)
    if name == "mlp":
        return [[rng.normal(size=(2, 4)).astype(np.float32)]]
    if name == "cnn":
        return [[rng.normal(size=(2, 1, 6, 6)).astype(np.float32)]]
    x = rng.normal(size=(1, 3)).astype(np.float32)
    return [[x], [-x]]


MODELS = {"mlp": mlp, "cnn": cnn, "control_flow": control_flow}


def main(folder: str = HERE) -> None:
    expected = {}
    for name, build in MODELS.items():
        net = build()
        inputs = cases(name)
        msx.export(net, *[msx.Tensor(a) for a in inputs[0]], file_name=os.path.join(folder, f"{name}.msxir"))
        for k, case in enumerate(inputs):
            outs = net(*[msx.Tensor(a) for a in case])
            outs = outs if isinstance(outs, tuple) else (outs,)
            expected.update({f"{name}/case{k}/input{i}": a for i, a in enumerate(case)})
            expected.update({f"{name}/case{k}/output{i}": o.asnumpy() for i, o in enumerate(outs)})
        if name == "mlp":  # a checkpoint with optimizer state after one Adam step
            opt = nn.Adam(net.trainable_params(), learning_rate=0.01)
            grads = msx.grad(lambda x: net(x).sum(), None, opt.parameters)(msx.Tensor(inputs[0][0]))
            opt(grads)
            msx.save_checkpoint([net, opt], os.path.join(folder, "mlp_adam.ckpt"))
            expected.update({f"mlp_adam/{p.name}": p.asnumpy() for p in list(net.get_parameters())
                             + list(opt.get_parameters())})
    safetensors.numpy.save_file(expected, os.path.join(folder, "expected.safetensors"))
    print(f"wrote golden files to {folder}")


if __name__ == "__main__":
    main(*sys.argv[1:])
