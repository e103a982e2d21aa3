"""ModelCheckpoint / CheckpointConfig with MindSpore 2.10's arguments: the files a Model.train run writes are
MindSpore's (protobuf .ckpt by default, or safetensors), msx loads them back to the trained values, and, with
MSX_MINDSPORE_PYTHON set, MindSpore itself loads them into its own network (the live oracle)."""
import json
import os
import subprocess

import numpy as np
import pytest

import msx as ms
from msx import dataset as ds
from msx import nn
from msx.errors import CheckpointError
from msx.train import CheckpointConfig, Model, ModelCheckpoint

MS_PYTHON = os.environ.get("MSX_MINDSPORE_PYTHON")


@pytest.fixture(scope="module")
def trained():
    """A Dense(4, 3) + Momentum Model on 12 rows (3 batches of 4), compiled once for the module."""
    rng = np.random.default_rng(0)
    data = ds.NumpySlicesDataset({"x": rng.normal(size=(12, 4)).astype(np.float32),
                                  "y": rng.integers(0, 3, 12).astype(np.int32)}, shuffle=False).batch(4)
    ms.set_seed(0)
    net = nn.Dense(4, 3)
    model = Model(net, nn.CrossEntropyLoss(), nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9))
    return data, model, net


def _train(trained, folder, **config):
    data, model, net = trained
    ckpt = ModelCheckpoint(prefix="d", directory=folder, config=CheckpointConfig(**config))
    model.train(1, data, callbacks=ckpt, progress_bar=False)
    return ckpt, net, model


@pytest.mark.parametrize("fmt,extra", [("ckpt", dict(crc_check=True, async_save=True)),
                                       ("safetensors", dict(integrated_save=False))])
def test_files_written_during_training_are_mindspores_and_reload(trained, tmp_path, fmt, extra):
    ckpt, net, model = _train(trained, tmp_path, save_checkpoint_steps=2, keep_checkpoint_max=5, format=fmt,
                              append_info=["epoch_num"], **extra)
    # saved at step 2 and at the end (step 3), MindSpore's names and suffix
    assert sorted(os.listdir(tmp_path)) == [f"d-1_2.{fmt}", f"d-1_3.{fmt}"]
    latest = ckpt.latest_ckpt_file_name
    head = open(latest, "rb").read(16)
    assert head[:1] == b"\x0a" if fmt == "ckpt" else json.loads(open(latest, "rb").read()[8:8 + int.from_bytes(
        head[:8], "little")])["__metadata__"]["format"] == "ms"
    params = ms.load_checkpoint(latest)
    if fmt == "ckpt":  # crc_check=True: the file ends in MindSpore's CRC trailer
        assert open(latest, "rb").read()[-17:-10] == b"crc_num"
    for p in model.train_network.get_parameters():
        np.testing.assert_array_equal(params[p.name].asnumpy(), p.asnumpy(), err_msg=p.name)
    assert "moments.weight" in params and int(params["epoch_num"].asnumpy()) == 1


def test_keep_checkpoint_per_n_minutes_keeps_the_oldest_of_the_window(trained, tmp_path, monkeypatch):
    # keep_checkpoint_max=0: MindSpore's rule, one file per N minutes; the clock is frozen: all 3 saves in one minute
    import time
    import types

    from msx.train.callback import _checkpoint

    monkeypatch.setattr(_checkpoint, "time", types.SimpleNamespace(time=lambda: 1000.0, monotonic=time.monotonic))
    _train(trained, tmp_path / "a", save_checkpoint_steps=1, keep_checkpoint_max=0, keep_checkpoint_per_n_minutes=1)
    assert sorted(os.listdir(tmp_path / "a")) == ["d-1_1.ckpt", "d-1_3.ckpt"]
    config = CheckpointConfig(keep_checkpoint_max=0)  # neither: one file is kept
    assert config.keep_checkpoint_max == 1 and CheckpointConfig(keep_checkpoint_per_n_minutes=3).\
        keep_checkpoint_per_n_minutes == 0  # keep_checkpoint_max (5) wins, as in MindSpore


def test_msx_format_is_reachable_from_the_config(trained, tmp_path):
    ckpt, _, _ = _train(trained, tmp_path, save_checkpoint_steps=3, format="msx")
    assert ms.checkpoint.read_checkpoint(ckpt.latest_ckpt_file_name).writer == "msx.checkpoint"


@pytest.mark.parametrize("kwargs,error,match", [
    (dict(enc_key=b"0" * 16), CheckpointError, "encrypted checkpoints"),
    (dict(exception_save=True), CheckpointError, "exception_save=True"),
    (dict(remove_redundancy=True), CheckpointError, "remove_redundancy=True"),
    (dict(incremental=True), CheckpointError, "incremental"),
    (dict(enable_redundance=True), CheckpointError, "enable_redundance"),
    (dict(colour="red"), TypeError, "unexpected keyword arguments \\['colour'\\]"),
    (dict(format="safetensors", crc_check=True), ValueError, "when format is 'safetensors'"),
    (dict(format="h5"), ValueError, "format must be one of"),
    (dict(async_save="fork"), ValueError, "async_save must be"),
    (dict(crc_check=1), TypeError, "crc_check must be a bool"),
    (dict(keep_checkpoint_per_n_minutes=-1), ValueError, "keep_checkpoint_per_n_minutes must be an int >= 0"),
])
def test_arguments_msx_cannot_honour_are_refused_when_the_config_is_made(kwargs, error, match):
    with pytest.raises(error, match=match):
        CheckpointConfig(**kwargs)


_LOADER = r"""
import json, sys
import mindspore as ms
from mindspore import nn
out = {}
for path in json.loads(sys.argv[1]):
    d = ms.load_checkpoint(path, format="safetensors" if path.endswith(".safetensors") else "ckpt",
                           crc_check=path.endswith(".ckpt"))
    net = nn.Dense(4, 3)
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.5, momentum=0.5)
    out[path] = {"values": {k: v.asnumpy().tolist() for k, v in d.items()},
                 "net": ms.load_param_into_net(net, d), "opt": ms.load_param_into_net(opt, d)}
print("RESULT" + json.dumps(out))
"""


@pytest.mark.skipif(not MS_PYTHON, reason="set MSX_MINDSPORE_PYTHON to a Python with MindSpore 2.10 to run the "
                                          "live oracle (MindSpore loading ModelCheckpoint's files)")
def test_mindspore_loads_the_files_modelcheckpoint_wrote(trained, tmp_path):
    paths = []
    for fmt, extra in (("ckpt", dict(crc_check=True)), ("safetensors", {})):
        ckpt, _, model = _train(trained, tmp_path / fmt, save_checkpoint_steps=3, format=fmt, **extra)
        paths.append(ckpt.latest_ckpt_file_name)
    run = subprocess.run([MS_PYTHON, "-c", _LOADER, json.dumps(paths)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    theirs = json.loads(run.stdout.split("RESULT", 1)[1])
    for path in paths:
        ours = ms.load_checkpoint(path)
        assert sorted(theirs[path]["values"]) == sorted(ours)
        for k, v in ours.items():
            np.testing.assert_array_equal(np.asarray(theirs[path]["values"][k], v.asnumpy().dtype), v.asnumpy(),
                                          err_msg=k)
        assert theirs[path]["net"][0] == []  # every weight of MindSpore's Dense(4, 3) came from msx's file
        assert "moments.weight" not in theirs[path]["opt"][0]  # and Momentum's state too
