"""Record MindSpore 2.10's `ops.ctc_loss` / `nn.CTCLoss` answers for tests/test_ctc_loss.py:

    /work/venv-ms/bin/python tests/golden/ctc_loss/record.py

Writes `ctc_loss.npz` beside this script: for each case (`CASES`: reduction, zero_infinity, lengths), the
loss, `log_alpha` and the gradient of sum(loss) w.r.t. `log_probs` (MindSpore's CTCLossV2Grad). Inputs are
made here from a fixed seed and stored with the answers, and the cases too (`cases`, JSON: the test reads them).
"""
import json
import os

import numpy as np

import mindspore as ms
from mindspore import Tensor, nn, ops

HERE = os.path.dirname(os.path.abspath(__file__))
T, N, C, S = 6, 3, 5, 3
# name -> (reduction, zero_infinity, input_lengths, target_lengths); the "short" cases hold a sample whose input
# is too short for its target (a repeated label needs a blank between): an infinite loss
CASES = {
    "none": ("none", False, (6, 5, 4), (3, 2, 1)),
    "mean": ("mean", False, (6, 5, 4), (3, 2, 0)),
    "sum": ("sum", False, (6, 6, 3), (3, 1, 2)),
    "short_zero_inf": ("none", True, (6, 3, 4), (3, 3, 1)),
    "short_inf": ("none", False, (6, 3, 4), (3, 3, 1)),
    "short_mean_zero_inf": ("mean", True, (6, 3, 4), (3, 3, 1)),
}


def inputs():
    rng = np.random.default_rng(11)
    logits = rng.standard_normal((T, N, C)).astype(np.float32)
    log_probs = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    targets = np.array([[1, 2, 2], [3, 3, 1], [4, 1, 2]], np.int32)
    return log_probs.astype(np.float32), targets


def main() -> None:
    log_probs, targets = inputs()
    out = {"log_probs": log_probs, "targets": targets, "cases": np.array(json.dumps(CASES))}
    for name, (reduction, zero_inf, il, tl) in CASES.items():
        il_t, tl_t = Tensor(np.array(il, np.int32)), Tensor(np.array(tl, np.int32))

        def f(lp):
            return ops.ctc_loss(lp, Tensor(targets), il_t, tl_t, 0, reduction, zero_inf)

        loss, log_alpha = f(Tensor(log_probs))
        grad = ms.grad(lambda lp: f(lp)[0].sum())(Tensor(log_probs))
        cell = nn.CTCLoss(blank=0, reduction=reduction, zero_infinity=zero_inf)(
            Tensor(log_probs), Tensor(targets), il_t, tl_t)
        out[f"{name}_loss"], out[f"{name}_log_alpha"] = loss.asnumpy(), log_alpha.asnumpy()
        out[f"{name}_grad"], out[f"{name}_cell"] = grad.asnumpy(), cell.asnumpy()
        print(name, loss.asnumpy(), cell.asnumpy())
    np.savez(os.path.join(HERE, "ctc_loss.npz"), **out)


if __name__ == "__main__":
    main()
