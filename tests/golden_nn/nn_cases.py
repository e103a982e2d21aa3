"""nn layer and loss cases run by real MindSpore (record.py, once) and by msx (test_golden_nn.py, every run).

Each case builds a Cell with `ms` (mindspore or msx, the only thing that
differs — the port promise) and names its inputs. The driver fixes every
trainable Parameter from the recorded values (by its path name, so names and
shapes must match MindSpore's), runs the forward, and differentiates
`sum(output * cotangent)` against the float inputs and all trainable
Parameters. This module must run on numpy 1 (MindSpore's venv) and numpy 2.
"""
from __future__ import annotations

import zlib

import numpy as np

# input specs: ("normal", shape) | ("prob", shape) | ("pos", shape) | ("int", shape, high) | ("sign", shape)
# | ("binary", shape) | ("bool", shape, p_true) | ("const", array)
CASES: dict = {}


def case(name, *inputs, train=False, kwargs=None, tol=1e-4, differs=None):
    """`differs`: {result key: reason} for results where msx deliberately differs from MindSpore (not compared;
    each is listed with its reason in docs/nn_port.md)."""
    def register(build):
        CASES[name] = {"build": build, "inputs": inputs, "train": train, "kwargs": kwargs or {}, "tol": tol,
                       "differs": differs or {}}
        return build
    return register


def make_input(spec, rng):
    kind = spec[0]
    if kind == "const":
        return np.asarray(spec[1])
    shape = spec[1]
    if kind == "normal":
        return rng.standard_normal(shape).astype(np.float32)
    if kind == "prob":
        return rng.uniform(0.05, 0.95, shape).astype(np.float32)
    if kind == "pos":
        return rng.uniform(0.2, 2.0, shape).astype(np.float32)
    if kind == "int":
        return rng.integers(0, spec[2], shape).astype(np.int32)
    if kind == "int64":
        return rng.integers(0, spec[2], shape).astype(np.int64)
    if kind == "sign":
        return np.where(rng.uniform(size=shape) > 0.5, 1.0, -1.0).astype(np.float32)
    if kind == "binary":
        return (rng.uniform(size=shape) > 0.5).astype(np.float32)
    if kind == "bool":
        return rng.uniform(size=shape) < spec[2]
    raise ValueError(kind)


def param_value(name, shape):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    return (rng.standard_normal(shape) * 0.5).astype(np.float32)


# ---------------------------------------------------------------- activations
case("act_SeLU", ("normal", (3, 5)), differs={
    "grad_in.0": "MindSpore 2.10 CPU's SeLU gradient for x < 0 is not d/dx SeLU(x) = scale*alpha*exp(x) "
                 "(it returns e.g. 0.056 at x=-0.77 where the derivative is 0.81); msx returns the derivative"})(
    lambda ms: ms.nn.SeLU())
for _act in ["ELU", "CELU", "Mish", "HSwish", "HSigmoid", "Hardtanh", "HShrink", "SoftShrink", "Softsign",
             "Tanhshrink", "LogSigmoid", "Softmin", "FastGelu", "SiLU", "LeakyReLU", "ReLU6", "GELU", "Sigmoid", "Tanh"]:
    case(f"act_{_act}", ("normal", (3, 5)))(lambda ms, _a=_act: getattr(ms.nn, _a)())
case("act_GELU_exact", ("normal", (3, 5)))(lambda ms: ms.nn.GELU(approximate=False))
case("act_Threshold", ("normal", (3, 5)))(lambda ms: ms.nn.Threshold(0.1, 20.0))
case("act_PReLU", ("normal", (2, 3, 4)))(lambda ms: ms.nn.PReLU(3))
case("act_PReLU1", ("normal", (2, 3, 4)))(lambda ms: ms.nn.PReLU())
case("act_GLU", ("normal", (2, 6)))(lambda ms: ms.nn.GLU())
case("act_Softmax2d", ("normal", (2, 3, 2, 2)))(lambda ms: ms.nn.Softmax2d())

# ---------------------------------------------------------------- convolutions
case("Conv1d_same", ("normal", (2, 3, 7)))(lambda ms: ms.nn.Conv1d(3, 4, 3, has_bias=True))
case("Conv1d_pad_stride", ("normal", (2, 3, 9)))(
    lambda ms: ms.nn.Conv1d(3, 4, 3, stride=2, pad_mode="pad", padding=1, dilation=2, has_bias=True))
case("Conv1dTranspose_valid", ("normal", (2, 3, 5)))(
    lambda ms: ms.nn.Conv1dTranspose(3, 4, 3, stride=2, pad_mode="valid", has_bias=True))
case("Conv1dTranspose_same", ("normal", (2, 3, 5)))(lambda ms: ms.nn.Conv1dTranspose(3, 4, 4, stride=2))
case("Conv2dTranspose_same", ("normal", (1, 4, 5, 5)))(
    lambda ms: ms.nn.Conv2dTranspose(4, 6, 3, stride=2, group=2, has_bias=True))
case("Conv2dTranspose_pad", ("normal", (1, 2, 4, 5)))(
    lambda ms: ms.nn.Conv2dTranspose(2, 3, (3, 2), stride=(2, 1), pad_mode="pad", padding=(1, 0, 1, 1)))
case("Conv2dTranspose_valid_dil", ("normal", (1, 2, 4, 4)))(
    lambda ms: ms.nn.Conv2dTranspose(2, 3, 3, stride=1, pad_mode="valid", dilation=2, has_bias=True))
case("Conv3d_same", ("normal", (1, 2, 4, 4, 4)))(lambda ms: ms.nn.Conv3d(2, 3, 3, has_bias=True))
case("Conv3d_pad", ("normal", (1, 2, 5, 4, 4)))(
    lambda ms: ms.nn.Conv3d(2, 3, 2, stride=2, pad_mode="pad", padding=1))
case("Conv3dTranspose_valid", ("normal", (1, 2, 3, 3, 3)))(
    lambda ms: ms.nn.Conv3dTranspose(2, 3, 2, stride=2, pad_mode="valid", has_bias=True))

# ---------------------------------------------------------------- normalisation
case("GroupNorm", ("normal", (2, 4, 3, 3)))(lambda ms: ms.nn.GroupNorm(2, 4))
case("GroupNorm_1d", ("normal", (2, 6, 5)))(lambda ms: ms.nn.GroupNorm(3, 6, eps=1e-3))
case("BatchNorm3d_train", ("normal", (2, 3, 2, 2, 2)), train=True)(lambda ms: ms.nn.BatchNorm3d(3))
case("LayerNorm_2axes", ("normal", (2, 3, 4)))(
    lambda ms: ms.nn.LayerNorm((3, 4), begin_norm_axis=1, begin_params_axis=1))

# ---------------------------------------------------------------- pooling
case("MaxPool1d", ("normal", (2, 3, 9)))(lambda ms: ms.nn.MaxPool1d(3, 2))
case("AvgPool1d", ("normal", (2, 3, 9)))(lambda ms: ms.nn.AvgPool1d(3, 2))
case("AvgPool1d_same", ("normal", (2, 3, 9)))(lambda ms: ms.nn.AvgPool1d(3, 2, pad_mode="same"))
case("MaxPool3d", ("normal", (1, 2, 4, 5, 4)))(lambda ms: ms.nn.MaxPool3d(2, 2))
case("AvgPool3d", ("normal", (1, 2, 4, 4, 4)))(lambda ms: ms.nn.AvgPool3d(2, 2))
case("AdaptiveAvgPool1d", ("normal", (2, 3, 6)))(lambda ms: ms.nn.AdaptiveAvgPool1d(3))
case("AdaptiveAvgPool2d", ("normal", (2, 3, 7, 5)))(lambda ms: ms.nn.AdaptiveAvgPool2d((3, 2)))
case("AdaptiveMaxPool1d", ("normal", (2, 3, 6)))(lambda ms: ms.nn.AdaptiveMaxPool1d(3))
case("AdaptiveMaxPool2d", ("normal", (2, 3, 7, 5)))(lambda ms: ms.nn.AdaptiveMaxPool2d((3, 2)))
case("AdaptiveAvgPool3d", ("normal", (1, 2, 5, 4, 3)))(lambda ms: ms.nn.AdaptiveAvgPool3d((2, 2, 2)))
case("LPPool1d", ("pos", (2, 3, 8)))(lambda ms: ms.nn.LPPool1d(2, 3, 2))
case("LPPool2d", ("pos", (2, 3, 6, 6)))(lambda ms: ms.nn.LPPool2d(2, 3, 2))

# ---------------------------------------------------------------- padding
case("ConstantPad1d", ("normal", (2, 3, 4)))(lambda ms: ms.nn.ConstantPad1d((1, 2), 0.5))
case("ConstantPad2d", ("normal", (2, 3, 4)))(lambda ms: ms.nn.ConstantPad2d((1, 2, 0, 1), -1.0))
case("ConstantPad3d", ("normal", (1, 2, 2, 3, 3)))(lambda ms: ms.nn.ConstantPad3d(1, 0.0))
case("ZeroPad2d", ("normal", (1, 2, 3, 3)))(lambda ms: ms.nn.ZeroPad2d((1, 0, 2, 1)))
case("ReflectionPad1d", ("normal", (2, 3, 4)))(lambda ms: ms.nn.ReflectionPad1d((2, 1)))
case("ReflectionPad2d", ("normal", (1, 2, 4, 4)))(lambda ms: ms.nn.ReflectionPad2d((1, 2, 2, 1)))
case("ReplicationPad1d", ("normal", (2, 3, 4)))(lambda ms: ms.nn.ReplicationPad1d((2, 1)))
case("ReplicationPad2d", ("normal", (1, 2, 3, 3)))(lambda ms: ms.nn.ReplicationPad2d((1, 2, 2, 1)))
case("ReplicationPad3d", ("normal", (1, 2, 2, 3, 3)))(lambda ms: ms.nn.ReplicationPad3d(1))
case("Pad_reflect", ("normal", (2, 4, 4)))(lambda ms: ms.nn.Pad(((0, 0), (1, 1), (2, 2)), mode="REFLECT"))
case("Pad_symmetric", ("normal", (2, 4, 4)))(lambda ms: ms.nn.Pad(((0, 0), (1, 1), (2, 2)), mode="SYMMETRIC"))

# ---------------------------------------------------------------- recurrent
case("RNN", ("normal", (4, 2, 3)))(lambda ms: ms.nn.RNN(3, 5))
case("RNN_relu_2layer_bf", ("normal", (2, 4, 3)))(
    lambda ms: ms.nn.RNN(3, 5, num_layers=2, nonlinearity="relu", batch_first=True))
case("LSTM", ("normal", (4, 2, 3)))(lambda ms: ms.nn.LSTM(3, 5))
case("LSTM_bi_2layer", ("normal", (4, 2, 3)))(lambda ms: ms.nn.LSTM(3, 4, num_layers=2, bidirectional=True))
case("LSTM_seq_length", ("normal", (2, 5, 3)), ("const", np.array([5, 3], np.int32)))(
    lambda ms: _with_seq(ms, ms.nn.LSTM(3, 4, batch_first=True, bidirectional=True)))
case("GRU", ("normal", (4, 2, 3)))(lambda ms: ms.nn.GRU(3, 5))
case("GRU_bi", ("normal", (3, 2, 3)))(lambda ms: ms.nn.GRU(3, 4, bidirectional=True))
case("GRU_h0", ("normal", (3, 2, 3)), ("normal", (1, 2, 4)))(lambda ms: ms.nn.GRU(3, 4))
case("RNNCell", ("normal", (2, 3)), ("normal", (2, 5)))(lambda ms: ms.nn.RNNCell(3, 5))
case("GRUCell", ("normal", (2, 3)), ("normal", (2, 5)))(lambda ms: ms.nn.GRUCell(3, 5))
case("LSTMCell", ("normal", (2, 3)), ("normal", (2, 5)), ("normal", (2, 5)), tol=5e-4)(
    lambda ms: _lstm_cell(ms, ms.nn.LSTMCell(3, 5)))


def _with_seq(ms, rnn):
    class WithSeq(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.rnn = rnn

        def construct(self, x, lengths):
            return self.rnn(x, seq_length=lengths)
    return WithSeq()


def _lstm_cell(ms, cell):
    class TwoState(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.cell = cell

        def construct(self, x, h, c):
            return self.cell(x, (h, c))
    return TwoState()


# ---------------------------------------------------------------- attention
case("MultiheadAttention", ("normal", (3, 2, 8)), ("normal", (4, 2, 8)), ("normal", (4, 2, 8)))(
    lambda ms: ms.nn.MultiheadAttention(8, 2))
case("MultiheadAttention_masks", ("normal", (2, 3, 8)), ("normal", (2, 4, 8)), ("normal", (2, 4, 8)),
     ("const", np.array([[False, False, True, False], [False, False, False, True]])),
     ("const", np.triu(np.ones((3, 4), bool), 2)))(lambda ms: _mha_masks(ms))
case("MultiheadAttention_kvdim", ("normal", (3, 2, 8)), ("normal", (4, 2, 6)), ("normal", (4, 2, 5)))(
    lambda ms: ms.nn.MultiheadAttention(8, 2, kdim=6, vdim=5))
case("TransformerEncoderLayer", ("normal", (3, 2, 8)))(
    lambda ms: ms.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0))
case("TransformerEncoderLayer_normfirst_gelu", ("normal", (2, 3, 8)))(
    lambda ms: ms.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation="gelu", batch_first=True,
                                             norm_first=True))
case("TransformerDecoderLayer", ("normal", (3, 2, 8)), ("normal", (4, 2, 8)))(
    lambda ms: ms.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0))
case("TransformerEncoder", ("normal", (3, 2, 8)))(
    lambda ms: ms.nn.TransformerEncoder(ms.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 2,
                                        ms.nn.LayerNorm((8,))))
case("Transformer", ("normal", (3, 2, 8)), ("normal", (2, 2, 8)))(
    lambda ms: ms.nn.Transformer(8, 2, 1, 1, 16, dropout=0.0))


def _mha_masks(ms):
    class Masked(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.mha = ms.nn.MultiheadAttention(8, 2, batch_first=True)

        def construct(self, q, k, v, pad, mask):
            return self.mha(q, k, v, key_padding_mask=pad, attn_mask=mask, average_attn_weights=False)
    return Masked()


# ---------------------------------------------------------------- resizing and misc layers
case("Upsample_nearest", ("normal", (1, 2, 5)))(lambda ms: ms.nn.Upsample(scale_factor=2.0, recompute_scale_factor=True))
case("Upsample_nearest_size", ("normal", (1, 2, 3, 4)))(lambda ms: ms.nn.Upsample(size=(5, 7)))
case("Upsample_bilinear", ("normal", (1, 2, 3, 4)))(
    lambda ms: ms.nn.Upsample(size=(5, 7), mode="bilinear", align_corners=False))
case("Upsample_bilinear_corners", ("normal", (1, 2, 3, 4)))(
    lambda ms: ms.nn.Upsample(size=(5, 7), mode="bilinear", align_corners=True))
case("Upsample_linear", ("normal", (1, 2, 5)))(lambda ms: ms.nn.Upsample(size=8, mode="linear"))
# MindSpore's bicubic kernel reads its cubic weights from a 1024-entry table (as TF's): ~1e-3 from exact weights
case("Upsample_bicubic", ("normal", (1, 1, 4, 4)), tol=2e-3)(lambda ms: ms.nn.Upsample(size=(6, 7), mode="bicubic"))
case("Upsample_bicubic_corners", ("normal", (1, 1, 4, 4)), tol=2e-3)(
    lambda ms: ms.nn.Upsample(size=(6, 7), mode="bicubic", align_corners=True))
case("Upsample_trilinear", ("normal", (1, 1, 2, 3, 3)))(
    lambda ms: ms.nn.Upsample(scale_factor=(2.0, 2.0, 2.0), mode="trilinear"))
case("PixelShuffle", ("normal", (1, 8, 2, 3)))(lambda ms: ms.nn.PixelShuffle(2))
case("PixelUnshuffle", ("normal", (1, 2, 4, 6)))(lambda ms: ms.nn.PixelUnshuffle(2))
case("ChannelShuffle", ("normal", (1, 6, 2, 2)))(lambda ms: ms.nn.ChannelShuffle(3))
case("Unflatten", ("normal", (2, 12)))(lambda ms: ms.nn.Unflatten(1, (3, 4)))
case("Tril", ("normal", (3, 4)))(lambda ms: ms.nn.Tril())
case("Triu", ("normal", (3, 4)))(lambda ms: ms.nn.Triu())
case("Roll", ("normal", (3, 4)))(lambda ms: ms.nn.Roll(shift=(1, -2), axis=(0, 1)))
case("Norm", ("normal", (3, 4)))(lambda ms: ms.nn.Norm(axis=1))
case("MatMul_t", ("normal", (2, 4, 3)), ("normal", (2, 5, 4)))(
    lambda ms: ms.nn.MatMul(transpose_x1=True, transpose_x2=True))
case("Moments", ("normal", (3, 4)))(lambda ms: ms.nn.Moments(axis=1, keep_dims=True))
case("ReduceLogSumExp", ("normal", (3, 4)))(lambda ms: ms.nn.ReduceLogSumExp(1))
case("BiDense", ("normal", (3, 2)), ("normal", (3, 4)))(lambda ms: ms.nn.BiDense(2, 4, 5))
case("EmbeddingLookup", ("int", (2, 3), 10))(lambda ms: ms.nn.EmbeddingLookup(10, 4, target="DEVICE", sparse=False))
case("ImageGradients", ("normal", (1, 2, 3, 4)))(lambda ms: ms.nn.ImageGradients())
case("MatrixDiag", ("normal", (2, 3)))(lambda ms: ms.nn.MatrixDiag())
case("MatrixDiagPart", ("normal", (2, 3, 3)))(lambda ms: ms.nn.MatrixDiagPart())
case("CentralCrop", ("normal", (1, 2, 6, 6)))(lambda ms: ms.nn.CentralCrop(0.5))
case("L1Regularizer", ("normal", (3, 4)))(lambda ms: ms.nn.L1Regularizer(0.3))
case("PSNR", ("prob", (2, 1, 4, 4)), ("prob", (2, 1, 4, 4)))(lambda ms: ms.nn.PSNR())

# ---------------------------------------------------------------- losses
case("BCELoss", ("prob", (3, 4)), ("binary", (3, 4)))(lambda ms: ms.nn.BCELoss())
case("BCELoss_weight_sum", ("prob", (3, 4)), ("binary", (3, 4)))(
    lambda ms: ms.nn.BCELoss(weight=ms.Tensor(np.linspace(0.5, 2.0, 12).reshape(3, 4).astype(np.float32)),
                              reduction="sum"))
case("MAELoss", ("normal", (3, 4)), ("normal", (3, 4)))(lambda ms: ms.nn.MAELoss())
case("MAELoss_none", ("normal", (3, 4)), ("normal", (3, 4)))(lambda ms: ms.nn.MAELoss(reduction="none"))
case("RMSELoss", ("normal", (3, 4)), ("normal", (3, 4)))(lambda ms: ms.nn.RMSELoss())
case("HuberLoss", ("normal", (3, 4)), ("normal", (3, 4)))(lambda ms: ms.nn.HuberLoss(delta=0.7))
case("DiceLoss", ("prob", (3, 4)), ("binary", (3, 4)))(lambda ms: ms.nn.DiceLoss())
case("MultiClassDiceLoss", ("normal", (3, 4)), ("binary", (3, 4)))(lambda ms: ms.nn.MultiClassDiceLoss())
case("KLDivLoss", ("normal", (3, 4)), ("prob", (3, 4)))(lambda ms: ms.nn.KLDivLoss(reduction="batchmean"))
case("SoftMarginLoss", ("normal", (3, 4)), ("sign", (3, 4)))(lambda ms: ms.nn.SoftMarginLoss())
case("MarginRankingLoss", ("normal", (5,)), ("normal", (5,)), ("sign", (5,)))(
    lambda ms: ms.nn.MarginRankingLoss(0.3))
case("HingeEmbeddingLoss", ("normal", (3, 4)), ("sign", (3, 4)))(lambda ms: ms.nn.HingeEmbeddingLoss(0.5))
case("CosineEmbeddingLoss", ("normal", (3, 4)), ("normal", (3, 4)), ("sign", (3,)))(
    lambda ms: ms.nn.CosineEmbeddingLoss(0.1))
case("PoissonNLLLoss", ("normal", (3, 4)), ("pos", (3, 4)))(lambda ms: ms.nn.PoissonNLLLoss())
case("GaussianNLLLoss", ("normal", (3, 4)), ("normal", (3, 4)), ("pos", (3, 4)))(
    lambda ms: ms.nn.GaussianNLLLoss())
case("TripletMarginLoss", ("normal", (3, 4)), ("normal", (3, 4)), ("normal", (3, 4)))(
    lambda ms: ms.nn.TripletMarginLoss())
case("MultiLabelSoftMarginLoss", ("normal", (3, 4)), ("binary", (3, 4)))(
    lambda ms: ms.nn.MultiLabelSoftMarginLoss())
case("MultiMarginLoss", ("normal", (3, 4)), ("int64", (3,), 4))(lambda ms: ms.nn.MultiMarginLoss())
case("FocalLoss", ("normal", (3, 4, 2)), ("int", (3, 1, 2), 4))(lambda ms: ms.nn.FocalLoss(gamma=2.0))
case("SmoothL1Loss", ("normal", (3, 4)), ("normal", (3, 4)))(lambda ms: ms.nn.SmoothL1Loss(beta=0.5))
case("CrossEntropyLoss_smooth", ("normal", (3, 4)), ("int", (3,), 4))(
    lambda ms: ms.nn.CrossEntropyLoss(label_smoothing=0.1))
case("interpolate_fn_area", ("normal", (1, 2, 6, 4)))(lambda ms: _fn(ms, lambda x: ms.ops.interpolate(
    x, size=(3, 2), mode="area")))


def _fn(ms, f):
    class Fn(ms.nn.Cell):
        def construct(self, *xs):
            return f(*xs)
    return Fn()


# ---------------------------------------------------------------- the driver (shared by recorder and test)
def split_grads(grads, float_pos, weights):
    """`grad(..., grad_position=float_pos or None, weights=weights or None)`'s result as (input gradients as a
    tuple, Parameter gradients)."""
    if float_pos and weights:
        g_in, g_w = grads
    elif float_pos:
        g_in, g_w = grads, ()
    else:
        g_in, g_w = (), grads
    return (g_in if isinstance(g_in, tuple) else (g_in,)), g_w


def run_case(ms, name, inputs, params=None):
    """Build case `name` with framework `ms`, set its trainable Parameters (from `params`, or generated),
    and return ({"in.i": ..., "param.<name>": ...}, {"out.k": ..., "grad_in.i": ..., "grad.<name>": ...})."""
    spec = CASES[name]
    net = spec["build"](ms)
    net.set_train(spec["train"])
    used = {}
    for pname, p in net.parameters_and_names():
        if not p.requires_grad:
            continue
        value = params[pname] if params is not None else param_value(pname, tuple(p.shape))
        p.set_data(ms.Tensor(value))
        used[pname] = value
    tensors = [ms.Tensor(x) for x in inputs]
    float_pos = tuple(i for i, x in enumerate(inputs) if x.dtype.kind == "f")
    weights = [p for _, p in net.parameters_and_names() if p.requires_grad]

    def loss(*xs):
        """sum(output * cotangent) over the float outputs; the outputs ride along as aux (one forward)."""
        leaves = _leaves(net(*xs))
        total = 0.0
        for k, leaf in enumerate(leaves):
            if leaf is not None and leaf.dtype in (ms.float32, ms.float16):
                ct = np.random.default_rng(100 + k).standard_normal(leaf.shape).astype(np.float32)
                total = total + (leaf * ms.Tensor(ct)).sum()
        return total, tuple(leaf for leaf in leaves if leaf is not None)

    results = {}
    if float_pos or weights:
        gfn = ms.grad(loss, grad_position=float_pos if float_pos else None, weights=weights if weights else None,
                      has_aux=True)
        grads, outs = gfn(*tensors)
        g_in, g_w = split_grads(grads, float_pos, weights)
        for i, g in zip(float_pos, g_in):
            results[f"grad_in.{i}"] = g.asnumpy()
        names = [n for n, p in net.parameters_and_names() if p.requires_grad]
        for n, g in zip(names, g_w):
            results[f"grad.{n}"] = g.asnumpy()
        outs = outs[0] if len(outs) == 1 and isinstance(outs[0], tuple) else outs
    else:
        outs = tuple(leaf for leaf in _leaves(net(*tensors)) if leaf is not None)
    results.update({f"out.{k}": leaf.asnumpy() for k, leaf in enumerate(_leaves(list(outs)))})
    stored = {f"in.{i}": x for i, x in enumerate(inputs)}
    stored.update({f"param.{n}": v for n, v in used.items()})
    return stored, results


def _leaves(out):
    if isinstance(out, (tuple, list)):
        return [leaf for o in out for leaf in _leaves(o)]
    return [out]
import cases_mint_nn  # noqa: E402,F401  (mint.nn cases)
