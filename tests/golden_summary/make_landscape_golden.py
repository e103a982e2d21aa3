"""Record MindSpore 2.10's loss landscape for tests/test_summary_landscape.py.

Run with MindSpore's interpreter: `/work/main/.venv-ms/bin/python tests/golden_summary/make_landscape_golden.py`.
A tiny net (Dense 4-3-2) trains 3 epochs of 2 steps with `SummaryCollector(collect_landscape=...)` (unit "step",
intervals [[1, 2, 3], [4, 5, 6]]); then `SummaryLandscape.gen_landscapes_with_multi_process` makes the PCA
landscapes of both intervals and the random one at the last step (numpy seeded), landscape_size 4, 8 samples.
Writes tests/golden_summary/landscape/: MindSpore's checkpoints (`ckpt/<name>`), `golden.npz` (the data, the
landscapes MindSpore wrote, read back from its summary file's LossLandscape messages) and `layout.json` (the
files the collector wrote, train_metadata.json with the paths made relative, and which files a default
SummaryCollector writes).
"""
import glob
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

import numpy as np
import mindspore as ms
from mindspore import nn
from mindspore.train import Model, Loss
from mindspore.train.summary_pb2 import Event

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "landscape")
ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 3)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(3, 2)

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(x)))


rng = np.random.default_rng(0)
X = rng.standard_normal((8, 4)).astype(np.float32)
Y = rng.integers(0, 2, 8).astype(np.int32)
W = {"fc1.weight": rng.standard_normal((3, 4)).astype(np.float32) * 0.5,
     "fc1.bias": rng.standard_normal(3).astype(np.float32) * 0.1,
     "fc2.weight": rng.standard_normal((2, 3)).astype(np.float32) * 0.5,
     "fc2.bias": rng.standard_normal(2).astype(np.float32) * 0.1}
CONFIG = {"landscape_size": 4, "unit": "step", "num_samples": 8,
          "create_landscape": {"train": True, "result": True}, "intervals": [[1, 2, 3], [4, 5, 6]]}


def net_with(weights):
    net = Net()
    ms.load_param_into_net(net, {k: ms.Parameter(ms.Tensor(v), name=k) for k, v in weights.items()})
    return net


def dataset():
    return ms.dataset.NumpySlicesDataset({"x": X, "y": Y}, shuffle=False).batch(4)


def loss_fn():
    return nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")


def callback_fn():
    network = Net()
    model = Model(network, loss_fn(), metrics={"Loss": Loss()})
    return model, network, dataset(), {"Loss": Loss()}


def records(path):
    """The Event messages of a MindSpore summary file (TFRecord framing: length, crc, data, crc)."""
    with open(path, "rb") as f:
        data = f.read()
    pos, out = 0, []
    while pos < len(data):
        (n,) = struct.unpack("<Q", data[pos:pos + 8])
        event = Event()
        event.ParseFromString(data[pos + 12:pos + 12 + n])
        out.append(event)
        pos += 12 + n + 4
    return out


def arr(t):
    return np.asarray(list(t.float_data), np.float64).reshape(list(t.dims) or [-1])


def main():
    os.makedirs(os.path.join(HERE, "ckpt"), exist_ok=True)
    work = tempfile.mkdtemp()
    summary_dir = os.path.join(work, "run")
    net = net_with(W)
    model = Model(net, loss_fn(), nn.Momentum(net.trainable_params(), 0.1, 0.9))
    collector = ms.SummaryCollector(summary_dir, collect_specified_data={"collect_landscape": CONFIG})
    model.train(3, dataset(), callbacks=[collector], dataset_sink_mode=False)
    ckpt_dir = os.path.join(summary_dir, "ckpt_dir")
    with open(os.path.join(ckpt_dir, "train_metadata.json")) as f:
        meta = json.load(f)
    layout = {"collector_files": sorted(os.listdir(ckpt_dir)),
              "train_metadata": {**meta, "model_params_file_map": {
                  k: os.path.relpath(v, summary_dir) for k, v in meta["model_params_file_map"].items()}},
              "metadata_mode": oct(os.stat(os.path.join(ckpt_dir, "train_metadata.json")).st_mode & 0o777)}
    for name in os.listdir(ckpt_dir):
        if name.endswith(".ckpt"):
            shutil.copy(os.path.join(ckpt_dir, name), os.path.join(HERE, "ckpt", name))
    shutil.copy(os.path.join(ckpt_dir, "train_metadata.json"), os.path.join(work, "meta.json"))
    ckpt_params = {k: list(ms.load_checkpoint(v).keys()) for k, v in meta["model_params_file_map"].items()}
    layout["ckpt_params"] = ckpt_params

    np.random.seed(0)
    landscape = ms.SummaryLandscape(summary_dir)
    out_dir = os.path.join(work, "out")
    landscape.gen_landscapes_with_multi_process(callback_fn, device_ids=[0], output=out_dir)
    files = glob.glob(os.path.join(out_dir, "*summary*"))
    layout["output_files"] = sorted(os.path.basename(p).split(".")[0] for p in os.listdir(out_dir))
    golden = {"x": X, "y": Y, **{f"init/{k}": v for k, v in W.items()}}
    tags = []
    for event in records(files[0]):
        for value in event.summary.value:
            if not value.HasField("loss_landscape"):
                continue
            msg, tag = value.loss_landscape, value.tag
            tags.append([tag, int(event.step)])
            golden[f"{tag}/x"], golden[f"{tag}/y"] = arr(msg.landscape.x), arr(msg.landscape.y)
            golden[f"{tag}/z"] = arr(msg.landscape.z)
            golden[f"{tag}/path_intervals"] = np.asarray(list(msg.loss_path.intervals))
            for axis in "xyz":
                golden[f"{tag}/path_{axis}"] = arr(getattr(msg.loss_path.points, axis))
                golden[f"{tag}/convergence_{axis}"] = arr(getattr(msg.convergence_point, axis))
            layout.setdefault("metadata", {})[tag] = {"decomposition": msg.metadata.decomposition,
                                                     "unit": msg.metadata.unit,
                                                     "step_per_epoch": msg.metadata.step_per_epoch}
    layout["tags"] = tags
    landscape.clean_ckpt()
    layout["after_clean_ckpt"] = sorted(os.listdir(summary_dir))

    # what a SummaryCollector at MindSpore's defaults writes (its default collect_landscape included)
    default_dir = os.path.join(work, "default")
    net = net_with(W)
    model = Model(net, loss_fn(), nn.Momentum(net.trainable_params(), 0.1, 0.9))
    model.train(2, dataset(), callbacks=[ms.SummaryCollector(default_dir)], dataset_sink_mode=False)
    layout["default_collector_ckpt_dir"] = sorted(os.listdir(os.path.join(default_dir, "ckpt_dir"))) \
        if os.path.isdir(os.path.join(default_dir, "ckpt_dir")) else None
    layout["errors"] = errors(work)
    with open(os.path.join(HERE, "layout.json"), "w") as f:
        json.dump(layout, f, indent=1, sort_keys=True)
    np.savez(os.path.join(HERE, "golden.npz"), **golden)
    shutil.rmtree(work)


COLLECTOR_ERRORS = {
    "landscape_size_2": {"landscape_size": 2, "intervals": [[1, 2, 3]]},
    "landscape_size_bool": {"landscape_size": True, "intervals": [[1, 2, 3]]},
    "unit_x": {"unit": "x", "intervals": [[1, 2, 3]]},
    "short_interval": {"intervals": [[1, 2]]},
    "str_in_interval": {"intervals": [[1, 2, "a"]]},
    "unknown_key": {"intervals": [[1, 2, 3]], "foo": 1},
    "num_samples_str": {"num_samples": "8", "intervals": [[1, 2, 3]]},
    "create_unknown": {"create_landscape": {"foo": True}, "intervals": [[1, 2, 3]]},
    "create_not_bool": {"create_landscape": {"train": 1}, "intervals": [[1, 2, 3]]},
    "no_intervals": {"landscape_size": 4},
}
LANDSCAPE_ERRORS = {
    "device_id_8": {"device_ids": [8]},
    "device_id_str": {"device_ids": ["0"]},
    "create_one_key": {"device_ids": [0], "collect_landscape": {"create_landscape": {"train": True}}},
    "size_300": {"device_ids": [0], "collect_landscape": {"landscape_size": 300}},
    "unknown_key": {"device_ids": [0], "collect_landscape": {"foo": 1}},
}


def errors(work):
    """The exception type MindSpore raises for each bad configuration (None: accepted)."""
    out = {"collector": {}, "landscape": {}}
    for name, config in COLLECTOR_ERRORS.items():
        try:
            ms.SummaryCollector(os.path.join(work, "bad", name), collect_specified_data={"collect_landscape": config})
            out["collector"][name] = None
        except Exception as exc:  # noqa: BLE001  (the type is what is recorded)
            out["collector"][name] = type(exc).__name__
    # one process a case: MindSpore leaves its SummaryRecord open when a device id or a missing metadata file is
    # refused, and any later SummaryRecord of that process then fails
    for name in [*LANDSCAPE_ERRORS, "without_metadata"]:
        done = subprocess.run([sys.executable, os.path.abspath(__file__), "--error", name, work],
                              capture_output=True, text=True, check=True)
        result = done.stdout.strip().splitlines()[-1]
        out["landscape"][name] = None if result == "None" else result
    return out


def one_error(name, work):
    folder = os.path.join(work, "bad_landscape", name)
    kwargs = LANDSCAPE_ERRORS.get(name, {"device_ids": [0]})
    if name != "without_metadata":
        os.makedirs(os.path.join(folder, "ckpt_dir"))
        shutil.copy(os.path.join(work, "meta.json"), os.path.join(folder, "ckpt_dir", "train_metadata.json"))
    try:
        ms.SummaryLandscape(folder).gen_landscapes_with_multi_process(callback_fn, **kwargs)
        print("None")
    except Exception as exc:  # noqa: BLE001  (the type is what is recorded)
        print(type(exc).__name__)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--error"]:
        one_error(sys.argv[2], sys.argv[3])
    else:
        main()
