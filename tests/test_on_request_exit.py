"""`OnRequestExit` (a signal or `{"GracefulExit": 1}` stops training after the step, saving a checkpoint and a
MindIR; a later run resumes from it), `ExitByRequest` and `get_ckpt_path_with_strategy` (docs/toplevel_tensor_cell.md)."""
from __future__ import annotations

import json
import os
import signal

import numpy as np
import pytest

import msx as ms
from msx import dataset as ds
from msx import nn
from msx.train import Callback, Model, OnRequestExit


@pytest.fixture(scope="module")
def model():
    rng = np.random.default_rng(0)
    data = ds.NumpySlicesDataset({"x": rng.normal(size=(12, 4)).astype(np.float32),
                                  "y": rng.integers(0, 3, 12).astype(np.int32)}, shuffle=False).batch(4)
    ms.set_seed(0)
    net = nn.Dense(4, 3)
    return data, Model(net, nn.CrossEntropyLoss(), nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9))


class _Steps(Callback):
    """Counts steps; sends SIGTERM to this process after step `at` (the user's exit request)."""

    def __init__(self, at=None):
        self.steps, self.at = 0, at

    def on_train_step_end(self, run_context):
        self.steps += 1
        if self.steps == self.at:
            os.kill(os.getpid(), signal.SIGTERM)


def test_signal_stops_after_the_step_and_saves(model, tmp_path):
    data, m = model
    before = signal.getsignal(signal.SIGTERM)
    exit_cb, steps = OnRequestExit(save_mindir=False, file_name="Net", directory=str(tmp_path)), _Steps(at=2)
    m.train(2, data, callbacks=[steps, exit_cb], progress_bar=False)
    assert steps.steps == 2  # of 6: the run stopped after the step that saw the request
    ckpt = tmp_path / "rank_0" / "Net_train.ckpt"
    assert ckpt.exists() and signal.getsignal(signal.SIGTERM) is before  # the old handler is back
    saved = ms.load_checkpoint(str(ckpt))
    assert int(saved["step_num"].asnumpy()) == 2 and int(saved["epoch_num"].asnumpy()) == 1
    (key,) = [k for k in saved if k.endswith("weight") and not k.startswith(("moments", "accum"))]
    np.testing.assert_array_equal(saved[key].asnumpy(), m._network.weight.asnumpy())  # the state at the stop


def test_config_file_request_and_resume(model, tmp_path):
    data, m = model
    config = tmp_path / "exit.json"
    config.write_text(json.dumps({"GracefulExit": 0}))
    cb = OnRequestExit(save_mindir=False, directory=str(tmp_path), config_file=str(config))
    steps = _Steps()
    m.train(1, data, callbacks=[steps, cb], progress_bar=False)
    assert steps.steps == 3 and not (tmp_path / "rank_0" / "Net_train.ckpt").exists()  # no request: no file
    config.write_text(json.dumps({"GracefulExit": 1}))
    steps = _Steps()
    m.train(1, data, callbacks=[steps, OnRequestExit(save_mindir=False, directory=str(tmp_path),
                                                     config_file=str(config))], progress_bar=False)
    assert steps.steps == 1
    weights = m._network.weight.asnumpy().copy()
    m._network.weight.set_data(ms.Tensor(np.zeros((3, 4), np.float32)))
    config.write_text(json.dumps({"GracefulExit": 0}))
    resumed = OnRequestExit(save_mindir=False, directory=str(tmp_path), config_file=str(config))
    seen = []

    class _First(Callback):
        def on_train_begin(self, run_context):
            seen.append(m._network.weight.asnumpy().copy())

    m.train(1, data, callbacks=[resumed, _First()], progress_bar=False)
    np.testing.assert_array_equal(seen[0], weights)  # on_train_begin loaded the saved checkpoint


def test_arguments_are_checked():
    with pytest.raises(TypeError, match="save_ckpt"):
        OnRequestExit(save_ckpt=1)
    with pytest.raises(ValueError, match="SIGKILL"):
        OnRequestExit(sig=signal.SIGKILL)
    with pytest.raises(TypeError, match="file_name"):
        OnRequestExit(file_name=3)


def test_exit_by_request_one_rank():
    grad = ms.Tensor([1.0, 2.0])
    flag = ms.Parameter(ms.Tensor(False), name="graceful_exit")
    assert ms.ExitByRequest().exit_by_request(grad, ms.Tensor([1], ms.int32), flag) is grad
    assert bool(flag) is False  # one rank: nothing to agree on


def test_get_ckpt_path_with_strategy(tmp_path):
    from msx.parallel import strategy_file as sf
    # 4 devices: the weight is cut in 2 along dim 0 (ranks 0/2 and 1/3 hold the same slices)
    strategy = tmp_path / "strategy.ckpt"
    sf.save(str(strategy), {"weight": sf.ParamLayout((2, 2), (0, -1))})
    own = tmp_path / "rank_0" / "net.ckpt"
    assert ms.get_ckpt_path_with_strategy(str(own), str(strategy)) is None  # no file of this rank or a replica
    replica = tmp_path / "rank_2" / "net.ckpt"
    replica.parent.mkdir()
    replica.write_bytes(b"x")
    assert ms.get_ckpt_path_with_strategy(str(own), str(strategy)) == str(replica)
    own.parent.mkdir()
    own.write_bytes(b"x")
    assert ms.get_ckpt_path_with_strategy(str(own), str(strategy)) == str(own)
    with pytest.raises(FileNotFoundError):
        ms.get_ckpt_path_with_strategy(str(tmp_path / "rank_0" / "other.ckpt"), str(tmp_path / "none.ckpt"))
