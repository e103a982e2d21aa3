"""Record MindSpore 2.10's answers for `ops.Primitive.recompute` (run with the MindSpore venv's python):

    /work/main/.venv-ms/bin/python tests/golden_recompute/record.py

Writes primitive_recompute.json beside it: the docstring example of `Primitive.recompute` (a jitted
GradOperation of ReLU-recomputed -> Sqrt), the `attrs` the mark sets, and the error for a non-bool mode.
"""
import json
import os

import numpy as np
import mindspore as ms
from mindspore import Tensor, jit, nn, ops


class NetRecompute(nn.Cell):
    def __init__(self):
        super().__init__()
        self.relu = ops.ReLU().recompute()
        self.sqrt = ops.Sqrt()

    def construct(self, x):
        return self.sqrt(self.relu(x))


class GradNet(nn.Cell):
    def __init__(self, network):
        super().__init__()
        self.network = network
        self.grad = ops.GradOperation()

    @jit
    def construct(self, x):
        return self.grad(self.network)(x)


def main():
    x = Tensor(np.array([-1, 1]).astype(np.float32))
    out = {"grad_x": [-1.0, 1.0], "grad": GradNet(NetRecompute())(x).asnumpy().tolist()}
    out["attrs_true"] = dict(ops.ReLU().recompute().attrs)
    out["attrs_false"] = dict(ops.ReLU().recompute(False).attrs)
    try:
        ops.ReLU().recompute("x")
    except TypeError as exc:
        out["non_bool_error"] = [type(exc).__name__, str(exc)]
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "primitive_recompute.json")
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
    os.replace(tmp, path)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
