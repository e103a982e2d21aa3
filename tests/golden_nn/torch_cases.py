"""mint.nn layers whose MindSpore 2.10 kernels are not registered on its CPU backend (convolutions, BatchNorm,
LayerNorm, Embedding), checked against PyTorch, whose semantics `mindspore.mint.nn` follows: each case builds
a layer with `nn` = `torch.nn` (record_torch.py, once) or `msx.mint.nn` (tests/test_mint_nn_layers.py) —
the same call, torch's API being mint's.

Every Parameter and buffer is set from seeded values by name before the run; the answers recorded are the
output, the gradients of sum(output * cotangent) wrt the float inputs and trainable Parameters, and the
buffers (running stats) and Parameters after the forward (BatchNorm's update, Embedding's max_norm renorm).
"""
from __future__ import annotations

import zlib

import numpy as np

CASES: dict = {}


def case(name, *inputs, train=False):
    def register(build):
        CASES[name] = {"build": build, "inputs": inputs, "train": train}
        return build
    return register


def make_input(spec, rng):
    if spec[0] == "normal":
        return rng.standard_normal(spec[1]).astype(np.float32)
    if spec[0] == "ids":
        return np.asarray(spec[1], np.int64)
    raise ValueError(spec[0])


def state_value(name, shape, dtype):
    """Seeded values for a Parameter or buffer: running_var positive, num_batches_tracked 0."""
    if np.dtype(dtype).kind == "i":
        return np.zeros(shape, dtype)
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    if name.endswith("running_var"):
        return rng.uniform(0.5, 2.0, shape).astype(np.float32)
    return (rng.standard_normal(shape) * 0.5).astype(np.float32)


def cotangent(k, shape):
    return np.random.default_rng(100 + k).standard_normal(shape).astype(np.float32)


X1, X2, X3 = ("normal", (2, 3, 9)), ("normal", (2, 3, 6, 5)), ("normal", (1, 2, 5, 4, 4))
case("Conv1d", X1)(lambda nn: nn.Conv1d(3, 4, 3, stride=2, padding=1))
case("Conv1d_same_reflect", X1)(lambda nn: nn.Conv1d(3, 4, 4, padding="same", dilation=2, padding_mode="reflect"))
case("Conv2d_groups", ("normal", (2, 4, 6, 5)))(lambda nn: nn.Conv2d(4, 6, 3, stride=(2, 1), padding=(1, 2), groups=2))
case("Conv2d_reflect", X2)(lambda nn: nn.Conv2d(3, 4, 3, padding=1, padding_mode="reflect", bias=False))
case("Conv2d_replicate", X2)(lambda nn: nn.Conv2d(3, 4, (3, 2), padding=(2, 1), padding_mode="replicate"))
case("Conv2d_circular", X2)(lambda nn: nn.Conv2d(3, 4, 3, stride=2, padding=(1, 2), padding_mode="circular"))
case("Conv2d_valid_dil", X2)(lambda nn: nn.Conv2d(3, 2, 2, padding="valid", dilation=2))
case("Conv2d_same", X2)(lambda nn: nn.Conv2d(3, 2, (4, 3), padding="same"))
case("Conv3d", X3)(lambda nn: nn.Conv3d(2, 3, (2, 3, 3), stride=2, padding=1))
case("Conv3d_circular", X3)(lambda nn: nn.Conv3d(2, 3, 3, padding=1, padding_mode="circular"))
case("ConvTranspose2d", ("normal", (2, 4, 3, 4)))(
    lambda nn: nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2))
case("ConvTranspose2d_dil", ("normal", (1, 2, 4, 3)))(
    lambda nn: nn.ConvTranspose2d(2, 3, (3, 2), stride=(2, 1), padding=(1, 0), dilation=2, bias=False))
case("BatchNorm1d_train", ("normal", (4, 3)), train=True)(lambda nn: nn.BatchNorm1d(3))
case("BatchNorm1d_train_3d", ("normal", (4, 3, 5)), train=True)(lambda nn: nn.BatchNorm1d(3, momentum=0.3))
case("BatchNorm2d_train", ("normal", (4, 3, 2, 3)), train=True)(lambda nn: nn.BatchNorm2d(3, eps=1e-3))
case("BatchNorm2d_eval", ("normal", (4, 3, 2, 3)))(lambda nn: nn.BatchNorm2d(3))
case("BatchNorm2d_cumulative", ("normal", (4, 3, 2, 3)), train=True)(lambda nn: nn.BatchNorm2d(3, momentum=None))
case("BatchNorm2d_notrack_eval", ("normal", (4, 3, 2, 3)))(lambda nn: nn.BatchNorm2d(3, track_running_stats=False))
case("BatchNorm2d_noaffine_train", ("normal", (4, 3, 2, 3)), train=True)(lambda nn: nn.BatchNorm2d(3, affine=False))
case("BatchNorm3d_train", ("normal", (2, 3, 2, 2, 3)), train=True)(lambda nn: nn.BatchNorm3d(3))
case("LayerNorm", ("normal", (2, 3, 4)))(lambda nn: nn.LayerNorm((3, 4), eps=1e-4))
case("LayerNorm_nobias", ("normal", (2, 3, 4)))(lambda nn: nn.LayerNorm(4, bias=False))
case("LayerNorm_noaffine", ("normal", (2, 3, 4)))(lambda nn: nn.LayerNorm(4, elementwise_affine=False))
IDS = ("ids", [[0, 2, 5, 2], [7, 2, 0, 9]])
case("Embedding", IDS)(lambda nn: nn.Embedding(10, 4))
case("Embedding_padding_idx", IDS)(lambda nn: nn.Embedding(10, 4, padding_idx=2))
case("Embedding_max_norm", IDS)(lambda nn: nn.Embedding(10, 4, max_norm=0.8))
case("Embedding_max_norm_l1", IDS)(lambda nn: nn.Embedding(10, 4, max_norm=1.5, norm_type=1.0, padding_idx=-1))
case("Embedding_scale_grad", IDS)(lambda nn: nn.Embedding(10, 4, scale_grad_by_freq=True))
case("SyncBatchNorm_notrack", ("normal", (4, 3, 5)), train=True)(
    lambda nn: nn.SyncBatchNorm(3, track_running_stats=False))
case("Unfold", ("normal", (2, 3, 5, 6)))(lambda nn: nn.Unfold((2, 3), padding=1, stride=(1, 2)))
case("Unfold_dil", ("normal", (1, 2, 6, 6)))(lambda nn: nn.Unfold(2, dilation=2, stride=2))
case("Fold", ("normal", (2, 12, 12)))(lambda nn: nn.Fold((4, 5), 2, stride=1))
case("Fold_overlap_pad", ("normal", (1, 8, 9)))(lambda nn: nn.Fold((5, 5), 2, padding=1, stride=2, dilation=1))
case("UpsamplingNearest2d", ("normal", (1, 2, 3, 4)))(lambda nn: nn.UpsamplingNearest2d(scale_factor=2))
case("UpsamplingNearest2d_size", ("normal", (1, 2, 3, 4)))(lambda nn: nn.UpsamplingNearest2d(size=(5, 7)))
case("UpsamplingBilinear2d", ("normal", (1, 2, 3, 4)))(lambda nn: nn.UpsamplingBilinear2d(size=(5, 7)))
case("UpsamplingBilinear2d_scale", ("normal", (1, 2, 3, 3)))(lambda nn: nn.UpsamplingBilinear2d(scale_factor=2))
case("MaxUnpool2d", ("normal", (1, 2, 2, 2)),
     ("ids", [[[[0, 6], [9, 15]], [[5, 2], [13, 11]]]]))(lambda nn: nn.MaxUnpool2d(2))
case("MaxUnpool2d_stride", ("normal", (1, 1, 2, 2)), ("ids", [[[[0, 2], [6, 8]]]]))(
    lambda nn: nn.MaxUnpool2d(3, stride=2, padding=1))
