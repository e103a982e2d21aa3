"""Records MindSpore 2.10's LSTM output and gradients with every weight given through `w_ih_list`, `w_hh_list`,
`b_ih_list`, `b_hh_list` assigned after construction (as MindSpore's tests/st/ops/cpu/test_lstm_op.py does).

    /work/main/.venv-ms/bin/python tests/golden_writes/make_lstm_lists.py   # writes lstm_lists.npz beside it
"""
import os

import numpy as np
import mindspore as ms
from mindspore import Parameter, ParameterTuple, Tensor, nn

IN, HID = 3, 2


def weights():
    rng = np.random.default_rng(7)
    shapes = {"w_ih": (4 * HID, IN), "w_hh": (4 * HID, HID), "b_ih": (4 * HID,), "b_hh": (4 * HID,)}
    return {k: rng.uniform(-0.5, 0.5, s).astype(np.float32) for k, s in shapes.items()}


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(IN, HID, 1, True, False, 0.0, False)
        w = weights()
        for kind in ("w_ih", "w_hh", "b_ih", "b_hh"):
            setattr(self.lstm, f"{kind}_list", ParameterTuple([Parameter(Tensor(w[kind]), name=kind)]))

    def construct(self, x, h, c):
        out, (hn, cn) = self.lstm(x, (h, c))
        return out.sum() + hn.sum() * 0.5 + cn.sum() * 0.25


def inputs():
    x = np.linspace(-1, 1, 4 * 2 * IN, dtype=np.float32).reshape(4, 2, IN)
    return x, np.ones((1, 2, HID), np.float32), np.full((1, 2, HID), 0.5, np.float32)


if __name__ == "__main__":
    net = Net()
    params = net.lstm.w_ih_list[:] + net.lstm.w_hh_list[:] + net.lstm.b_ih_list[:] + net.lstm.b_hh_list[:]
    loss, grads = ms.value_and_grad(net, 0, ParameterTuple(params))(*map(Tensor, inputs()))
    gx, gw = grads
    np.savez(os.path.join(os.path.dirname(os.path.abspath(__file__)), "lstm_lists.npz"), loss=loss.asnumpy(),
             grad_x=gx.asnumpy(), **{f"grad_{k}": g.asnumpy() for k, g in zip(("w_ih", "w_hh", "b_ih", "b_hh"), gw)})
    print("loss", loss)
