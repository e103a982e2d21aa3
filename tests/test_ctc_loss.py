"""`ops.ctc_loss`, `ops.CTCLossV2`, `nn.CTCLoss` against MindSpore 2.10 goldens (`tests/golden/ctc_loss/`,
recorded by its record.py): the loss under each reduction, `log_alpha`, and the gradient w.r.t. log_probs
(MindSpore's CTCLossV2Grad), eager and under jit; plus a brute-force float64 reference over all alignments."""
import itertools
import json
import pathlib

import numpy as np
import pytest

import msx
from msx import Tensor, nn, ops

GOLDEN = np.load(pathlib.Path(__file__).parent / "golden" / "ctc_loss" / "ctc_loss.npz")
# name -> (reduction, zero_infinity, input_lengths, target_lengths), as the recorder ran them
CASES = {k: tuple(tuple(x) if isinstance(x, list) else x for x in v)
         for k, v in json.loads(str(GOLDEN["cases"])).items()}


def _loss_and_grad(name, jit):
    reduction, zero_inf, il, tl = CASES[name]
    il, tl = Tensor(np.array(il, np.int32)), Tensor(np.array(tl, np.int32))
    targets = Tensor(GOLDEN["targets"])

    def f(lp):
        loss, log_alpha = ops.ctc_loss(lp, targets, il, tl, 0, reduction, zero_inf)
        return loss.sum(), (loss, log_alpha)

    fn = msx.value_and_grad(f, 0, has_aux=True)
    (_, (loss, log_alpha)), grad = (msx.jit(fn) if jit else fn)(Tensor(GOLDEN["log_probs"]))
    return loss.asnumpy(), log_alpha.asnumpy(), grad.asnumpy()


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("name", list(CASES))
def test_ctc_loss_equals_mindspore(name, jit):
    loss, log_alpha, grad = _loss_and_grad(name, jit)
    want_loss = GOLDEN[f"{name}_loss"]
    if CASES[name][1]:  # zero_infinity: the impossible sample's loss is 0 (documented; MindSpore 2.10 says inf)
        want_loss = np.where(np.isinf(want_loss), 0.0, want_loss) if want_loss.ndim else want_loss
    if name == "short_mean_zero_inf":  # the mean with the impossible sample counted as 0 (MindSpore: inf)
        want_loss = np.mean(np.where(np.isinf(GOLDEN["short_zero_inf_loss"]), 0, GOLDEN["short_zero_inf_loss"])
                            / np.maximum(CASES[name][3], 1))
    np.testing.assert_allclose(loss, want_loss, rtol=1e-5)
    want_alpha = GOLDEN[f"{name}_log_alpha"]
    assert (np.isneginf(log_alpha) == np.isneginf(want_alpha)).all()
    finite = np.isfinite(want_alpha)
    np.testing.assert_allclose(log_alpha[finite], want_alpha[finite], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(grad, GOLDEN[f"{name}_grad"], rtol=1e-5, atol=2e-6)  # NaN where MindSpore's is


def test_cell_and_class_op_equal_the_function():
    _, _, il, tl = CASES["none"]
    args = (Tensor(GOLDEN["log_probs"]), Tensor(GOLDEN["targets"]), Tensor(np.array(il, np.int32)),
            Tensor(np.array(tl, np.int32)))
    np.testing.assert_allclose(nn.CTCLoss(reduction="none")(*args).asnumpy(), GOLDEN["none_cell"], rtol=1e-5)
    loss, _ = ops.CTCLossV2()(*args)  # MindSpore's class default reduction: 'none'
    np.testing.assert_allclose(loss.asnumpy(), GOLDEN["none_loss"], rtol=1e-5)
    _, _, il, tl = CASES["mean"]
    np.testing.assert_allclose(nn.CTCLoss()(*args[:2], Tensor(np.array(il, np.int32)),
                                            Tensor(np.array(tl, np.int32))).asnumpy(), GOLDEN["mean_cell"], rtol=1e-5)


def test_loss_equals_brute_force_over_alignments():
    """-log of the summed probability of every frame labelling that collapses to the target (float64)."""
    rng = np.random.default_rng(5)
    t_len, classes = 4, 3
    logits = rng.standard_normal((t_len, 1, classes))
    lp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    target = (1, 1)
    total = 0.0
    for path in itertools.product(range(classes), repeat=t_len):
        collapsed = [k for i, k in enumerate(path) if k != 0 and (i == 0 or path[i - 1] != k)]
        if tuple(collapsed) == target:
            total += np.exp(sum(lp[t, 0, k] for t, k in enumerate(path)))
    loss, _ = ops.ctc_loss(Tensor(lp.astype(np.float32)), Tensor(np.array([target], np.int32)), (t_len,), (2,),
                           reduction="none")
    np.testing.assert_allclose(loss.asnumpy(), [-np.log(total)], rtol=1e-5)


def test_bad_input_names_the_op():
    lp = Tensor(GOLDEN["log_probs"])
    targets = Tensor(GOLDEN["targets"])
    with pytest.raises(ValueError, match=r"ctc_loss: each input length must be in \[target length, T = 6\]"):
        ops.ctc_loss(lp, targets, (6, 2, 4), (3, 3, 1))
    with pytest.raises(ValueError, match="ctc_loss: reduction must be"):
        ops.ctc_loss(lp, targets, (6, 6, 6), (3, 3, 1), reduction="avg")
    with pytest.raises(ValueError, match=r"ctc_loss: targets must be a Tensor of shape \(N, S\) with N = 3"):
        ops.ctc_loss(lp, Tensor(GOLDEN["targets"][:2]), (6, 6, 6), (3, 3, 1))
    with pytest.raises(ValueError, match=r"ctc_loss: blank must be in \[0, 5\)"):
        ops.ctc_loss(lp, targets, (6, 6, 6), (3, 3, 1), blank=5)
