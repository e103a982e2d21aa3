"""The network of tests/test_switch_layer.py and of its recorder, written once for either framework:
`build(nn, Tensor)` with MindSpore's or msx's `nn` and `Tensor` (only numpy is imported here)."""
import numpy as np


def build(nn, Tensor):
    """Three cells (two Dense, a Dense + Tanh SequentialCell) chosen by a tensor `i`, times a Dense of x, summed."""
    rng = np.random.default_rng(7)
    w = {k: rng.standard_normal(s).astype(np.float32) for k, s in
         [("w0", (3, 4)), ("b0", (3,)), ("w1", (3, 4)), ("b1", (3,)), ("w2", (3, 4)), ("b2", (3,))]}

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            dense = [nn.Dense(4, 3) for _ in range(3)]
            for k, d in enumerate(dense):
                d.weight.set_data(Tensor(w[f"w{k}"]))
                d.bias.set_data(Tensor(w[f"b{k}"]))
            self.layers = nn.CellList([dense[0], dense[1], nn.SequentialCell([dense[2], nn.Tanh()])])
            self.scale = nn.Dense(4, 3)
            self.scale.weight.set_data(Tensor(np.full((3, 4), 0.1, np.float32)))
            self.scale.bias.set_data(Tensor(np.zeros(3, np.float32)))

        def construct(self, i, x):
            y = self.layers[i](x)
            return (y * self.scale(x)).sum()

    return Net()
