"""Record MindSpore 2.10 checkpoint files as goldens for tests/test_ms_checkpoint.py.

Run with MindSpore's interpreter, from the repository root:
    /work/main/.venv-ms/bin/python tests/golden/make_ms_ckpt.py
Writes tests/golden/ms_ckpt_*.ckpt / *.safetensors (files MindSpore saved) and ms_ckpt_values.npz (the
values MindSpore holds, read back through MindSpore's own load_checkpoint, as plain numpy arrays; bfloat16
as its raw uint16 bits, strings as numpy unicode).
"""
import os
import sys

import numpy as np
import mindspore as ms
from mindspore import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ms_ckpt_net import define  # noqa: E402

ms.set_seed(7)
HERE = os.path.dirname(os.path.abspath(__file__))


SmallCNN = define(nn)


def train(opt_cls, **kw):
    net = SmallCNN()
    opt = opt_cls(net.trainable_params(), **kw)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True)), opt)
    step.set_train()
    x = ms.Tensor(np.random.RandomState(0).randn(2, 1, 5, 5).astype(np.float32))
    y = ms.Tensor(np.array([0, 2], np.int32))
    for _ in range(2):
        step(x, y)
    return net, opt, step


def record(name, path, values):
    loaded = ms.load_checkpoint(path, format="safetensors" if path.endswith(".safetensors") else "ckpt")
    for k, v in loaded.items():
        if isinstance(v, str):
            values[f"{name}|{k}"] = np.array(v)
        else:
            a = v.asnumpy() if v.dtype != ms.bfloat16 else v.float().asnumpy()
            if v.dtype == ms.bfloat16:
                a = ms.Tensor(v).view(ms.uint16).asnumpy() if hasattr(v, "view") else a
            values[f"{name}|{k}"] = a


def main():
    values = {}
    net, opt, step = train(nn.Momentum, learning_rate=0.1, momentum=0.9)
    p = os.path.join(HERE, "ms_ckpt_cnn_momentum.ckpt")
    ms.save_checkpoint(step, p, append_dict={"epoch_num": 3, "lr": 0.25, "tag": "mindcv", "done": True})
    record("cnn_momentum", p, values)
    # what load_param_into_net returns, and the eval output of the loaded net (BatchNorm uses the moving stats)
    fresh = SmallCNN()
    not_loaded, unused = ms.load_param_into_net(fresh, ms.load_checkpoint(p))
    values["load_param_into_net|param_not_load"] = np.array(not_loaded, dtype=str)
    values["load_param_into_net|ckpt_not_load"] = np.array(unused, dtype=str)
    fresh.set_train(False)
    x = np.random.RandomState(3).randn(2, 1, 5, 5).astype(np.float32)
    values["eval|x"] = x
    values["eval|y"] = fresh(ms.Tensor(x)).asnumpy()
    partial = ms.load_checkpoint(p, specify_prefix=["bn.", "fc."], filter_prefix="fc.bias")
    values["prefix|names"] = np.array(list(partial), dtype=str)

    net, opt, step = train(nn.Adam, learning_rate=0.01)
    p = os.path.join(HERE, "ms_ckpt_cnn_adam_crc.ckpt")
    ms.save_checkpoint(opt, p, crc_check=True)
    record("cnn_adam_crc", p, values)
    p = os.path.join(HERE, "ms_ckpt_cnn_adam.safetensors")
    ms.save_checkpoint(step, p, format="safetensors", append_dict={"epoch_num": 5})
    record("cnn_adam_safetensors", p, values)
    p = os.path.join(HERE, "ms_ckpt_cnn_adam_crc.safetensors")
    ms.save_checkpoint(net, p, format="safetensors", crc_check=True)
    record("cnn_adam_crc_safetensors", p, values)

    rs = np.random.RandomState(1)
    dtypes = {"bf16": ms.bfloat16, "f16": ms.float16, "f32": ms.float32, "f64": ms.float64, "i8": ms.int8,
              "i16": ms.int16, "i32": ms.int32, "i64": ms.int64, "u8": ms.uint8, "b": ms.bool_}
    params = []
    for name, dt in dtypes.items():
        data = rs.randn(2, 3) * 50
        params.append(ms.Parameter(ms.Tensor(data.astype(np.float32)).astype(dt), name=f"t_{name}"))
    params.append(ms.Parameter(ms.Tensor(np.float32(1.5)), name="scalar_f32"))
    params.append(ms.Parameter(ms.Tensor(np.array([], np.float32).reshape(0, 3)), name="empty_0x3"))
    p = os.path.join(HERE, "ms_ckpt_dtypes.ckpt")
    ms.save_checkpoint(params, p, append_dict={"step": 7, "name": "dtype zoo"})
    record("dtypes", p, values)
    p = os.path.join(HERE, "ms_ckpt_dtypes.safetensors")
    ms.save_checkpoint([q for q in params if q.name != "empty_0x3"], p, format="safetensors")
    record("dtypes_safetensors", p, values)
    np.savez_compressed(os.path.join(HERE, "ms_ckpt_values.npz"), **values)
    for f in sorted(os.listdir(HERE)):
        if f.startswith("ms_ckpt_"):
            print(f, os.path.getsize(os.path.join(HERE, f)))


if __name__ == "__main__":
    main()
