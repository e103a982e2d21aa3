"""Record the mindcv model-zoo goldens with real MindSpore 2.10 (PyNative):

    /work/venv-ms/bin/python tests/golden_zoo/record.py [case ...]

For each case of `tests/zoo_cases.py`: the eval-mode logits of the network with the cases' weights, the train-mode
logits (BatchNorm on batch statistics, dropout off), then one
SGD training step (cross-entropy, train mode, dropout off): its loss and, for every parameter, the norm of its
change (trainable ones move by lr * grad; BatchNorm's moving statistics by their momentum update). Written to
`tests/golden_zoo/<case>.npz`. The same script under `python -m msx run` records msx's answers (to compare
by hand: `--out DIR`).
"""
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import zoo_cases  # noqa: E402

import mindspore as ms  # noqa: E402
from mindspore import Tensor, nn  # noqa: E402


def set_weights(net) -> list:
    params = list(net.get_parameters())
    for p in params:
        if np.issubdtype(p.asnumpy().dtype, np.floating):
            p.set_data(Tensor(zoo_cases.weight(p.name, tuple(p.shape))))
    return params


def run_case(name: str) -> dict:
    ms.set_seed(0)
    net = zoo_cases.build(name)
    params = set_weights(net)
    x, y = Tensor(zoo_cases.image(name)), Tensor(zoo_cases.LABELS)
    net.set_train(False)
    logits = net(x).asnumpy()
    before = [p.asnumpy().copy() for p in params]
    net.set_train(True)
    zoo_cases.no_dropout(net)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.SGD(net.trainable_params(), learning_rate=zoo_cases.LR)
    def forward(a, b):
        out = net(a)
        return loss_fn(out, b), out

    grad_fn = ms.value_and_grad(forward, None, opt.parameters, has_aux=True)
    (loss, train_logits), grads = grad_fn(x, y)
    train_logits = train_logits.asnumpy()
    opt(grads)
    moved = np.array([np.linalg.norm((p.asnumpy() - b).astype(np.float64)) for p, b in zip(params, before)])
    return {"logits": logits, "train_logits": train_logits, "loss": np.asarray(loss.asnumpy()), "moved": moved,
            "names": np.array([p.name for p in params])}


def main(argv: list) -> None:
    out = HERE
    if argv[:1] == ["--out"]:
        out, argv = argv[1], argv[2:]
        os.makedirs(out, exist_ok=True)
    for name in argv or list(zoo_cases.CASES):
        t = time.time()
        try:
            res = run_case(name)
        except Exception as exc:  # noqa: BLE001  (a case MindSpore itself cannot run is reported, not recorded)
            print(f"{name}: FAILED {type(exc).__name__}: {str(exc)[:300]}", flush=True)
            continue
        np.savez_compressed(os.path.join(out, f"{name}.npz"), **res)
        print(f"{name}: loss {float(res['loss']):.6f} logits[0,:3] {res['logits'][0, :3]} "
              f"{len(res['names'])} params {time.time() - t:.1f}s", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
