"""`nn.AdaFactor` against MindSpore 2.10, three steps of eight configurations (`tests/golden_nn/adafactor_program.py`,
recorded in MindSpore's venv: data/adafactor.json), eagerly and as a jitted step; and its argument checks."""
import json
import os
import sys

import numpy as np
import pytest

import msx as ms

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden_nn")
sys.path.insert(0, HERE)
from adafactor_program import B, CONFIGS, GRADS, W, results  # noqa: E402

with open(os.path.join(HERE, "data", "adafactor.json")) as f:
    GOLDEN = json.load(f)


def _close(got, want):
    for (gw, gb), (ww, wb) in zip(got, want):
        np.testing.assert_allclose(gw, ww, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(gb, wb, rtol=1e-5, atol=1e-6)


def test_every_configuration_follows_mindspore_step_by_step():
    got = results(ms)
    for name in CONFIGS:
        _close(got[name], GOLDEN[name])


@pytest.mark.parametrize("name", ["default", "weight_decay"])
def test_a_jitted_step_equals_mindspore(name):
    w = ms.Parameter(ms.Tensor(W.copy()), name="w")
    b = ms.Parameter(ms.Tensor(B.copy()), name="b")
    opt = ms.nn.AdaFactor([w, b], **CONFIGS[name])
    step = ms.jit(lambda gw, gb: opt((gw, gb)), fullgraph=True)  # one graph: no eager fallback
    got = []
    for gw, gb in GRADS:
        step(ms.Tensor(gw), ms.Tensor(gb))
        got.append([w.asnumpy(), b.asnumpy()])
    _close(got, GOLDEN[name])


def test_arguments_are_checked_as_mindspore():
    p = [ms.Parameter(ms.Tensor(W.copy()), name="w")]
    with pytest.raises(ValueError, match="relative_step"):
        ms.nn.AdaFactor(p, learning_rate=0.1)
    with pytest.raises(ValueError, match="warmup_init"):
        ms.nn.AdaFactor(p, learning_rate=0.1, relative_step=False, warmup_init=True)
    with pytest.raises(ValueError, match="needs a learning_rate"):
        ms.nn.AdaFactor(p, relative_step=False)
    with pytest.raises(ValueError, match="two floats"):
        ms.nn.AdaFactor(p, eps=(1e-30,))
    with pytest.raises(ValueError, match=r"decay_rate must be in \(0, 1\)"):
        ms.nn.AdaFactor(p, decay_rate=1.0)
    with pytest.raises(TypeError, match="clip_threshold must be a float"):
        ms.nn.AdaFactor(p, clip_threshold=1)
    with pytest.raises(TypeError, match="AdaFactor: eps0 must be a float, got int"):
        ms.nn.AdaFactor(p, eps=(0, 1e-3))
    with pytest.raises(ValueError, match="AdaFactor: eps1 must be >= 0"):
        ms.nn.AdaFactor(p, eps=(1e-30, -1e-3))
    with pytest.raises(TypeError, match="decay_rate must be a float, got float32"):
        ms.nn.AdaFactor(p, decay_rate=np.float32(0.8))
    assert ms.nn.AdaFactor(p, clip_threshold=np.float64(2.0)).clip_threshold == 2.0  # a Python float subclass
