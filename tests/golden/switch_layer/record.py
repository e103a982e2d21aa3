"""Records MindSpore 2.10's answers for tests/test_switch_layer.py: a CellList indexed by a Tensor in GRAPH_MODE
(switch_layer), forward and gradients of three cells, the out-of-range error, and the network exported as MINDIR.

    /path/to/venv-ms/bin/python tests/golden/switch_layer/record.py   # writes ms210.json beside it
"""
import json
import pathlib
import sys

import numpy as np
import mindspore as ms
from mindspore import Tensor, nn

ms.set_context(mode=ms.GRAPH_MODE)
sys.path.insert(0, str(pathlib.Path(__file__).parent))
from network import build  # noqa: E402


def main():
    x = np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)
    out = {"x": x.tolist()}
    net = build(nn, Tensor)
    params = net.trainable_params()
    grad = ms.value_and_grad(net, grad_position=1, weights=params)
    for k in (0, 1, 2, -1):
        loss, (gx, gp) = grad(Tensor(np.int32(k)), Tensor(x))
        out[f"index{k}"] = {"loss": float(loss.asnumpy()), "grad_x": gx.asnumpy().tolist(),
                            "grad_params": {p.name: g.asnumpy().tolist() for p, g in zip(params, gp)}}
    try:
        net(Tensor(np.int32(3)), Tensor(x))
        out["index3"] = "no error"
    except Exception as e:  # noqa: BLE001
        out["index3"] = f"{type(e).__name__}: {str(e).splitlines()[0]}"
    pathlib.Path(__file__).with_name("ms210.json").write_text(json.dumps(out, indent=1))
    # the network as MindSpore exports it (switch_layer over three Partial closures): msx must read it
    ms.export(net, Tensor(np.int32(1)), Tensor(x), file_name=str(pathlib.Path(__file__).with_name("ms210_net")),
              file_format="MINDIR")


if __name__ == "__main__":
    main()
