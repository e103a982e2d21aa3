"""Initializer and layer-default cases, run unchanged by MindSpore 2.10 (record.py) and by msx
(tests/test_initializer_golden.py): `ms` is the framework module, `nn` its `nn`, `I` its
`common.initializer`. Each case returns {name: numpy array}; every case runs right after `set_seed(s)`,
and `sequence` builds several layers in a row to check the order in which they draw numpy's stream."""
from __future__ import annotations

import math

import numpy as np


def _params(cell) -> dict:
    return {name: p.asnumpy() for name, p in cell.parameters_and_names()}


def _inits(ms, I) -> dict:
    f32, f16, f64, i32 = ms.float32, ms.float16, ms.float64, ms.int32
    return {
        "Normal": (I.Normal(), (4, 5), f32),
        "Normal_mean": (I.Normal(0.5, 1.0), (3, 7), f32),
        "Normal_odd_big": (I.Normal(0.2), (37, 41), f32),  # > 1024 elements: MindSpore's threaded fill
        "Normal_f16": (I.Normal(1.0), (3, 5), f16),
        "Normal_f64": (I.Normal(1.0), (5,), f64),
        "Normal_i32": (I.Normal(10.0), (6,), i32),
        "Normal_scalar": (I.Normal(1.0), (), f32),
        "Uniform": (I.Uniform(), (4, 5), f32),
        "Uniform_scale": (I.Uniform(0.3), (3, 3, 2), f32),
        "Uniform_big": (I.Uniform(1.5), (3000,), f32),
        "TruncatedNormal": (I.TruncatedNormal(), (4, 5), f32),
        "TruncatedNormal_args": (I.TruncatedNormal(1.0, 0.2, -1.0, 0.5), (50,), f32),
        "HeUniform": (I.HeUniform(), (4, 3, 3, 3), f32),
        "HeUniform_sqrt5": (I.HeUniform(math.sqrt(5)), (6, 5), f32),
        "HeUniform_relu_out": (I.HeUniform(mode="fan_out", nonlinearity="relu"), (5, 4, 2), f32),
        "HeNormal": (I.HeNormal(), (4, 3, 3, 3), f32),
        "HeNormal_tanh": (I.HeNormal(nonlinearity="tanh", mode="fan_out"), (6, 5), f32),
        "XavierUniform": (I.XavierUniform(), (6, 5), f32),
        "XavierUniform_gain": (I.XavierUniform(2.0), (4, 2, 3), f32),
        "XavierNormal": (I.XavierNormal(), (6, 5), f32),
        "One": (I.One(), (2, 3), f32),
        "Zero": (I.Zero(), (2, 3), f32),
        "Constant": (I.Constant(2.5), (2, 3), f32),
        "Identity": (I.Identity(), (3, 5), f32),
        "Orthogonal": (I.Orthogonal(), (4, 6), f32),
        "Orthogonal_3d": (I.Orthogonal(2.0), (6, 2, 2), f32),
        "Dirac": (I.Dirac(groups=2), (4, 2, 3, 3), f32),
        "Sparse": (I.Sparse(0.3), (6, 5), f32),
        "VarianceScaling": (I.VarianceScaling(), (6, 5), f32),
        "VarianceScaling_normal": (I.VarianceScaling(2.0, "fan_out", "untruncated_normal"), (6, 5), f32),
        "VarianceScaling_avg": (I.VarianceScaling(0.5, "fan_avg", "uniform"), (4, 3, 2), f32),
        "name_normal": ("normal", (3, 4), f32),
        "name_he_uniform": ("he_uniform", (3, 4), f32),
        "name_xavier_uniform": ("xavier_uniform", (3, 4), f32),
        "name_truncatednormal": ("truncatednormal", (3, 4), f32),
        "name_orthogonal": ("orthogonal", (3, 4), f32),
        "number": (3, (2, 2), f32),
    }


def _layers(ms, nn) -> dict:
    return {
        "Dense": lambda: nn.Dense(5, 4),
        "Dense_nobias": lambda: nn.Dense(5, 4, has_bias=False),
        "Dense_normal": lambda: nn.Dense(5, 4, weight_init="normal", bias_init="normal"),
        "Conv1d": lambda: nn.Conv1d(3, 4, 3, has_bias=True),
        "Conv2d": lambda: nn.Conv2d(3, 4, 3, has_bias=True),
        "Conv2d_group": lambda: nn.Conv2d(4, 6, (2, 3), group=2, has_bias=True),
        "Conv3d": lambda: nn.Conv3d(2, 4, 2, has_bias=True),
        "Conv1dTranspose": lambda: nn.Conv1dTranspose(3, 4, 3, has_bias=True),
        "Conv2dTranspose": lambda: nn.Conv2dTranspose(3, 4, 3, has_bias=True),
        "Conv3dTranspose": lambda: nn.Conv3dTranspose(2, 4, 2, has_bias=True),
        "Embedding": lambda: nn.Embedding(10, 4),
        "Embedding_padding": lambda: nn.Embedding(10, 4, padding_idx=2),
        "LSTM": lambda: nn.LSTM(3, 4, num_layers=2, bidirectional=True),
        "GRU": lambda: nn.GRU(3, 4, has_bias=False),
        "RNN": lambda: nn.RNN(3, 4),
        "LSTMCell": lambda: nn.LSTMCell(3, 4),
        "GRUCell": lambda: nn.GRUCell(3, 4),
        "RNNCell": lambda: nn.RNNCell(3, 4, has_bias=False),
        "BatchNorm2d": lambda: nn.BatchNorm2d(4),
        "LayerNorm": lambda: nn.LayerNorm((4,)),
        "MultiheadAttention": lambda: nn.MultiheadAttention(8, 2, add_bias_kv=True),
        "TransformerEncoderLayer": lambda: nn.TransformerEncoderLayer(8, 2, 16),
        "TransformerDecoderLayer": lambda: nn.TransformerDecoderLayer(8, 2, 16),
        "Transformer": lambda: nn.Transformer(8, 2, 1, 1, 16),
    }


def case_names(ms) -> list[str]:
    return (list(_inits(ms, ms.common.initializer)) + list(_layers(ms, ms.nn))
            + ["tensor_init_data", "sequence"])


def run(ms, name: str) -> dict:
    """The arrays of case `name` (call right after `ms.set_seed(seed)`)."""
    I, nn = ms.common.initializer, ms.nn
    inits, layers = _inits(ms, I), _layers(ms, nn)
    if name in inits:
        init, shape, dtype = inits[name]
        return {"value": I.initializer(init, shape, dtype).init_data().asnumpy()}
    if name in layers:
        return _params(layers[name]())
    if name == "tensor_init_data":
        t = ms.Tensor(shape=(2, 3), dtype=ms.float32, init=I.Normal())
        return {"value": t.init_data().asnumpy()}
    if name == "sequence":  # a tiny CNN, built the way model-zoo code builds one
        net = nn.SequentialCell([nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Conv2d(4, 4, 1, has_bias=True),
                                 nn.Flatten(), nn.Dense(4 * 8 * 8, 10), nn.Dense(10, 2, weight_init="normal")])
        return _params(net)
    raise KeyError(name)
