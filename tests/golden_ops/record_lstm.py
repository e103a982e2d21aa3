"""Record MindSpore 2.10's CPU answers for the class op `ops.LSTM` (msx/ops/lstm_ops.py) with its gradients
(`tests/test_lstm_rnnt_ops.py`), run with MindSpore's venv from the repository root:

    /work/main/.venv-ms/bin/python tests/golden_ops/record_lstm.py

`ops_record.py`'s cases compare every result, but the LSTM's last two results are the size of oneDNN's
workspace, so this script records output, h_n and c_n, and the gradients of sum(output * w_out) +
sum(h_n * w_h) + sum(c_n * w_c) with respect to x, h, c and the flat weight (MindSpore's LSTMGrad kernels).
MindSpore's CPU kernel only stacks layers when input_size == hidden_size and the LSTM is one-directional
(oneDNN refuses the others); the configurations below are ones it runs.
"""
from __future__ import annotations

import json
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "lstm_ms210.npz")

# id: (input_size, hidden_size, num_layers, has_bias, bidirectional, proj_size, seq, batch)
CONFIGS = {
    "one_layer": (3, 4, 1, True, False, 0, 5, 2),
    "no_bias": (3, 4, 1, False, False, 0, 4, 2),
    "bidirectional": (3, 4, 1, True, True, 0, 4, 2),
    "two_layers": (4, 4, 2, True, False, 0, 3, 2),
    "proj": (3, 4, 1, True, False, 2, 4, 2),
}


def weight_size(i, h, layers, bias, bidir, proj):
    d = 2 if bidir else 1
    out_h = proj or h
    n = sum(4 * h * (i if layer == 0 else out_h * d) for layer in range(layers)) * d
    n += 4 * h * out_h * layers * d + (h * proj * layers * d if proj else 0) + (4 * h * layers * d if bias else 0)
    return n


def arrays(cid: str):
    i, h, layers, bias, bidir, proj, seq, batch = CONFIGS[cid]
    rng = np.random.default_rng(len(cid) * 7 + seq)
    d = 2 if bidir else 1
    out_h = proj or h
    x = rng.standard_normal((seq, batch, i)).astype(np.float32)
    h0 = rng.standard_normal((layers * d, batch, out_h)).astype(np.float32) * 0.5
    c0 = rng.standard_normal((layers * d, batch, h)).astype(np.float32) * 0.5
    w = (rng.standard_normal((weight_size(i, h, layers, bias, bidir, proj), 1, 1)) * 0.4).astype(np.float32)
    w_out = rng.standard_normal((seq, batch, out_h * d)).astype(np.float32)
    w_h = rng.standard_normal(h0.shape).astype(np.float32)
    w_c = rng.standard_normal(c0.shape).astype(np.float32)
    return x, h0, c0, w, w_out, w_h, w_c


def main() -> None:
    import mindspore as ms
    from mindspore import Tensor, ops

    ms.set_context(mode=ms.PYNATIVE_MODE)
    saved, meta = {}, {}
    for cid, (i, h, layers, bias, bidir, proj, _, _) in CONFIGS.items():
        x, h0, c0, w, w_out, w_h, w_c = arrays(cid)
        op = ops.LSTM(i, h, layers, bias, bidir, 0.0, proj)

        def loss(x, h0, c0, w, op=op, w_out=w_out, w_h=w_h, w_c=w_c):
            y, hn, cn, _, _ = op(x, h0, c0, w)
            return (y * Tensor(w_out)).sum() + (hn * Tensor(w_h)).sum() + (cn * Tensor(w_c)).sum()

        y, hn, cn, _, _ = op(Tensor(x), Tensor(h0), Tensor(c0), Tensor(w))
        grads = ms.grad(loss, grad_position=(0, 1, 2, 3))(Tensor(x), Tensor(h0), Tensor(c0), Tensor(w))
        for k, v in zip(("y", "hn", "cn", "dx", "dh", "dc", "dw"), (y, hn, cn) + tuple(grads)):
            saved[f"{cid}/{k}"] = v.asnumpy()
        meta[cid] = ms.__version__
        print(cid, y.shape, [g.shape for g in grads])
    np.savez(OUT, **saved)
    with open(OUT[:-4] + ".json", "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
