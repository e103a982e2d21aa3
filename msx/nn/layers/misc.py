"""Smaller MindSpore layers: resizing and shuffling (`Upsample`, `PixelShuffle`, `CentralCrop`), shape and math
helpers (`Unflatten`, `Tril`, `Triu`, `Roll`, `OneHot`, `Range`, `Norm`, `MatMul`, `Moments`,
`ReduceLogSumExp`, `ClipByNorm`, matrix diagonals), `BiDense`, channel dropouts, `EmbeddingLookup`,
containers (`CellDict`, `TimeDistributed`), image helpers (`ImageGradients`, `PSNR`) and `L1Regularizer`."""
from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np

from ... import dtype as mstype
from ...ignored_args import not_honoured
from ...ops import functional as F
from ...ops import functional_layers as X
from ...ops.nn_layer_ops import interpolate
from ...tensor import Tensor
from ..cell import Cell
from ..initializer import Uniform
from ._utils import check_input, make_param


class Upsample(Cell):
    """`ops.interpolate` as a layer (MindSpore's `nn.Upsample`)."""

    def __init__(self, size=None, scale_factor=None, mode: str = "nearest", align_corners=None,
                 recompute_scale_factor=None) -> None:
        super().__init__()
        self.size, self.scale_factor, self.mode = size, scale_factor, mode
        self.align_corners, self.recompute_scale_factor = align_corners, recompute_scale_factor

    def construct(self, x: Tensor) -> Tensor:
        return interpolate(x, self.size, self.scale_factor, self.mode, self.align_corners, self.recompute_scale_factor)

    def extend_repr(self) -> str:
        return f"size={self.size}, scale_factor={self.scale_factor}, mode={self.mode}"


class PixelShuffle(Cell):
    """(*, C * r^2, H, W) -> (*, C, H * r, W * r)."""

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        if upscale_factor < 1:
            raise ValueError(f"PixelShuffle: upscale_factor must be >= 1, got {upscale_factor}")
        self.upscale_factor = int(upscale_factor)

    def construct(self, x: Tensor) -> Tensor:
        return X.pixel_shuffle(x, self.upscale_factor)


class PixelUnshuffle(Cell):
    """(*, C, H * r, W * r) -> (*, C * r^2, H, W)."""

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        if downscale_factor < 1:
            raise ValueError(f"PixelUnshuffle: downscale_factor must be >= 1, got {downscale_factor}")
        self.downscale_factor = int(downscale_factor)

    def construct(self, x: Tensor) -> Tensor:
        return X.pixel_unshuffle(x, self.downscale_factor)


class ChannelShuffle(Cell):
    """Split the channels (axis 1) into `groups` and interleave them."""

    def __init__(self, groups: int) -> None:
        super().__init__()
        if groups < 1:
            raise ValueError(f"ChannelShuffle: groups must be >= 1, got {groups}")
        self.groups = int(groups)

    def construct(self, x: Tensor) -> Tensor:
        n, c = x.shape[0], x.shape[1]
        check_input(c % self.groups == 0, "ChannelShuffle", x, f"channels must be divisible by groups {self.groups}")
        rest = tuple(x.shape[2:])
        y = F.reshape(x, (n, self.groups, c // self.groups) + rest)
        y = F.swapaxes(y, 1, 2)
        return F.reshape(y, (n, c) + rest)


class CentralCrop(Cell):
    """Crop the central `central_fraction` of the H and W dims of (C, H, W) or (N, C, H, W) images."""

    def __init__(self, central_fraction: float) -> None:
        super().__init__()
        if not 0.0 < central_fraction <= 1.0:
            raise ValueError(f"CentralCrop: central_fraction must be in (0, 1], got {central_fraction}")
        self.central_fraction = float(central_fraction)

    def construct(self, image: Tensor) -> Tensor:
        check_input(image.ndim in (3, 4), "CentralCrop", image, "expected (C, H, W) or (N, C, H, W)")
        h, w = image.shape[-2], image.shape[-1]
        top, left = int((h - h * self.central_fraction) / 2), int((w - w * self.central_fraction) / 2)
        return image[..., top:h - top, left:w - left]


class Unflatten(Cell):
    """Expand dim `axis` into `unflattened_size`."""

    def __init__(self, axis: int, unflattened_size) -> None:
        super().__init__()
        self.axis, self.unflattened_size = int(axis), tuple(int(d) for d in unflattened_size)

    def construct(self, x: Tensor) -> Tensor:
        axis = self.axis % x.ndim
        return F.reshape(x, tuple(x.shape[:axis]) + self.unflattened_size + tuple(x.shape[axis + 1:]))


class _Tri(Cell):
    lower = True

    def construct(self, x: Tensor, k: int = 0) -> Tensor:
        check_input(x.ndim >= 2, type(self).__name__, x, "expected at least 2 dims")
        rows, cols = x.shape[-2], x.shape[-1]
        keep = np.tri(rows, cols, k, dtype=bool) if self.lower else ~np.tri(rows, cols, k - 1, dtype=bool)
        return F.where(Tensor(keep), x, F.zeros_like(x))


class Tril(_Tri):
    """Keep the lower triangle (diagonal `k` and below), zero the rest."""

    lower = True


class Triu(_Tri):
    """Keep the upper triangle (diagonal `k` and above), zero the rest."""

    lower = False


class Roll(Cell):
    """Shift elements along `axis` by `shift`, wrapping around."""

    def __init__(self, shift, axis) -> None:
        super().__init__()
        self.shift = (shift,) if isinstance(shift, int) else tuple(shift)
        self.axis = (axis,) if isinstance(axis, int) else tuple(axis)
        if len(self.shift) != len(self.axis):
            raise ValueError(f"Roll: shift {shift!r} and axis {axis!r} must have the same length")

    def construct(self, x: Tensor) -> Tensor:
        for s, a in zip(self.shift, self.axis):
            n = x.shape[a]
            s = s % n
            if s:
                a = a % x.ndim
                lead = (slice(None),) * a
                x = F.concat([x[lead + (slice(n - s, None),)], x[lead + (slice(0, n - s),)]], a)
        return x


class OneHot(Cell):
    """`ops.one_hot` as a layer: depth, on/off values, axis and dtype fixed at construction."""

    def __init__(self, axis: int = -1, depth: int = 1, on_value: float = 1.0, off_value: float = 0.0,
                 dtype=mstype.float32) -> None:
        super().__init__()
        self.axis, self.depth, self.on_value, self.off_value, self.dtype = axis, depth, on_value, off_value, dtype

    def construct(self, indices: Tensor) -> Tensor:
        return F.cast(F.one_hot(indices, self.depth, self.on_value, self.off_value, self.axis), self.dtype)


class Range(Cell):
    """`arange(start, limit, delta)` (with one argument: `arange(0, start)`)."""

    def __init__(self, start, limit=None, delta=1) -> None:
        super().__init__()
        if delta == 0:
            raise ValueError("Range: delta must not be 0")
        self.start, self.limit, self.delta = (0, start, delta) if limit is None else (start, limit, delta)

    def construct(self) -> Tensor:
        is_float = any(isinstance(v, float) for v in (self.start, self.limit, self.delta))
        return F.arange(self.start, self.limit, self.delta, dtype=mstype.float32 if is_float else mstype.int32)


class Norm(Cell):
    """Euclidean norm over `axis` (all axes for ())."""

    def __init__(self, axis=(), keep_dims: bool = False) -> None:
        super().__init__()
        self.axis = (axis,) if isinstance(axis, int) else tuple(axis)
        self.keep_dims = bool(keep_dims)

    def construct(self, x: Tensor) -> Tensor:
        axis = self.axis or tuple(range(x.ndim))
        return F.sqrt(F.sum(F.square(x), axis, self.keep_dims))


class MatMul(Cell):
    """Batched matrix product with optional transposes of the last two dims."""

    def __init__(self, transpose_x1: bool = False, transpose_x2: bool = False) -> None:
        super().__init__()
        self.transpose_x1, self.transpose_x2 = bool(transpose_x1), bool(transpose_x2)

    def construct(self, x1: Tensor, x2: Tensor) -> Tensor:
        if self.transpose_x1:
            x1 = F.swapaxes(x1, -1, -2)
        if self.transpose_x2:
            x2 = F.swapaxes(x2, -1, -2)
        return F.matmul(x1, x2)


class Moments(Cell):
    """(mean, variance) over `axis` (population variance)."""

    def __init__(self, axis=None, keep_dims: bool | None = None) -> None:
        super().__init__()
        self.axis = axis if axis is None or isinstance(axis, int) else tuple(axis)
        self.keep_dims = bool(keep_dims)

    def construct(self, x: Tensor):
        axis = tuple(range(x.ndim)) if self.axis is None else self.axis
        mean = F.mean(x, axis, True)
        var = F.mean(F.square(x - mean), axis, self.keep_dims)
        return (mean if self.keep_dims else F.mean(x, axis, False)), var


class ReduceLogSumExp(Cell):
    """`log(sum(exp(x), axis))`, computed stably."""

    def __init__(self, axis, keep_dims: bool = False) -> None:
        super().__init__()
        self.axis = (axis,) if isinstance(axis, int) else tuple(axis)
        self.keep_dims = bool(keep_dims)

    def construct(self, x: Tensor) -> Tensor:
        axis = self.axis or tuple(range(x.ndim))
        m = F.stop_gradient(F.amax(x, axis, True))
        y = F.log(F.sum(F.exp(x - m), axis, True)) + m
        return y if self.keep_dims else F.squeeze(y, axis)


class ClipByNorm(Cell):
    """`x * clip_norm / max(l2norm(x, axis), clip_norm)`."""

    def __init__(self, axis=None) -> None:
        super().__init__()
        self.axis = axis

    def construct(self, x: Tensor, clip_norm) -> Tensor:
        axis = tuple(range(x.ndim)) if self.axis is None else ((self.axis,) if isinstance(self.axis, int)
                                                                 else tuple(self.axis))
        norm = F.sqrt(F.sum(F.square(x), axis, True))
        clip = clip_norm if isinstance(clip_norm, Tensor) else Tensor(float(clip_norm), x.dtype)
        return x * clip / F.maximum(norm, clip)


class MatrixDiag(Cell):
    """A batch of diagonal matrices whose diagonals are the last dim of `x`."""

    def construct(self, x: Tensor) -> Tensor:
        n = x.shape[-1]
        return F.expand_dims(x, -1) * F.cast(Tensor(np.eye(n, dtype=np.float32)), x.dtype)


class MatrixDiagPart(Cell):
    """The main diagonals of a batch of matrices."""

    def construct(self, x: Tensor) -> Tensor:
        m, n = x.shape[-2], x.shape[-1]
        k = min(m, n)
        eye = F.cast(Tensor(np.eye(m, n, dtype=np.float32)), x.dtype)
        return F.sum(x * eye, -1)[..., :k] if m <= n else F.sum(x * eye, -2)[..., :k]


class MatrixSetDiag(Cell):
    """`x` with its main diagonals replaced by `diagonal`."""

    def construct(self, x: Tensor, diagonal: Tensor) -> Tensor:
        m, n = x.shape[-2], x.shape[-1]
        eye = F.cast(Tensor(np.eye(m, n, dtype=np.float32)), x.dtype)
        k = min(m, n)
        pad = [0, n - k] if n > k else []
        diag = F.pad(diagonal, pad) if pad else diagonal
        if m > k:
            rows = F.expand_dims(F.pad(diagonal, [0, m - k]), -1)
            return x * (1 - eye) + rows * eye
        return x * (1 - eye) + F.expand_dims(diag, -2) * eye


class BiDense(Cell):
    """Bilinear layer, `y = x1^T W x2 + b` with weight (out, in1, in2)."""

    def __init__(self, in1_channels: int, in2_channels: int, out_channels: int, weight_init=None, bias_init=None,
                 has_bias: bool = True, dtype=mstype.float32) -> None:
        super().__init__()
        name = f"BiDense({in1_channels}, {in2_channels} -> {out_channels})"
        self.in1_channels, self.in2_channels, self.out_channels = in1_channels, in2_channels, out_channels
        bound = 1 / math.sqrt(in1_channels)
        self.weight = make_param(name, "weight_init", Uniform(bound) if weight_init is None else weight_init,
                                 (out_channels, in1_channels, in2_channels), dtype)
        self.has_bias = bool(has_bias)
        if has_bias:
            self.bias = make_param(name, "bias_init", Uniform(bound) if bias_init is None else bias_init,
                                   (out_channels,), dtype)

    def construct(self, input1: Tensor, input2: Tensor) -> Tensor:
        lead = tuple(input1.shape[:-1])
        x1 = F.reshape(input1, (-1, self.in1_channels))
        x2 = F.reshape(input2, (-1, self.in2_channels))
        # (b, i) x (o, i, j) -> (b, o, j), then contract j with x2
        t = F.matmul(x1, F.reshape(F.transpose(self.weight, (1, 0, 2)), (self.in1_channels, -1)))
        t = F.reshape(t, (-1, self.out_channels, self.in2_channels))
        y = F.sum(t * F.expand_dims(x2, 1), -1)
        if self.has_bias:
            y = y + self.bias
        return F.reshape(y, lead + (self.out_channels,))


class _ChannelDropout(Cell):
    """Zero whole channels (axis 1) with probability `p` while training, scaling the rest by 1/(1-p)."""

    rank = 4

    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"{type(self).__name__}: p must be in [0, 1], got {p}")
        self.p = float(p)

    def construct(self, x: Tensor) -> Tensor:
        return X.channel_dropout(x, self.p, self.training, self.rank, type(self).__name__)

    def extend_repr(self) -> str:
        return f"p={self.p}"


class Dropout1d(_ChannelDropout):
    rank = 3


class Dropout2d(_ChannelDropout):
    rank = 4


class Dropout3d(_ChannelDropout):
    rank = 5


class EmbeddingLookup(Cell):
    """Rows of `embedding_table` (vocab_size, embedding_size) for integer `indices`; `max_norm` renormalises
    looked-up rows whose L2 norm exceeds it. `target`, `slice_mode` and `sparse` choose MindSpore's host/device
    and model-parallel kernels; here the lookup is one gather on the current device whatever they say."""

    BATCH_SLICE, FIELD_SLICE, TABLE_ROW_SLICE, TABLE_COLUMN_SLICE = ("batch_slice", "field_slice", "table_row_slice",
                                                                      "table_column_slice")

    def __init__(self, vocab_size: int, embedding_size: int, param_init="normal", target: str = "CPU",
                 slice_mode: str = "batch_slice", manual_shapes=None, max_norm=None, sparse: bool = True,
                 dtype=mstype.float32) -> None:
        super().__init__()
        if target not in ("CPU", "DEVICE"):
            raise ValueError(f"EmbeddingLookup: target must be 'CPU' or 'DEVICE', got {target!r}")
        for key, value, default in (("slice_mode", slice_mode, "batch_slice"), ("manual_shapes", manual_shapes, None),
                                    ("sparse", sparse, True)):
            not_honoured("EmbeddingLookup", key, value, default, "the table is one dense Parameter gathered "
                         "whole (shard it with Cell.shard / a Layout); values are the same")
        self.vocab_size, self.embedding_size, self.target, self.max_norm = vocab_size, embedding_size, target, max_norm
        self.embedding_table = make_param(f"EmbeddingLookup({vocab_size}, {embedding_size})", "param_init",
                                          param_init, (vocab_size, embedding_size), dtype)

    def construct(self, indices: Tensor) -> Tensor:
        out = F.gather(self.embedding_table, indices, 0)
        if self.max_norm is not None:
            norm = F.sqrt(F.sum(F.square(out), -1, True))
            out = out * F.minimum(F.full_like(norm, 1.0), self.max_norm / F.maximum(norm, 1e-12))
        return out

    def extend_repr(self) -> str:
        return f"vocab_size={self.vocab_size}, embedding_size={self.embedding_size}, target={self.target}"


class CellDict(Cell):
    """An ordered dict of sub-Cells, registered under their keys."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__()
        if args:
            self.update(args[0])
        if kwargs:
            self.update(kwargs)

    def __getitem__(self, key: str) -> Cell:
        return self._cells[key]

    def __setitem__(self, key: str, cell: Cell) -> None:
        if not isinstance(cell, Cell):
            raise TypeError(f"CellDict: values must be Cells, got {type(cell).__name__} for {key!r}")
        self.insert_child_to_cell(key, cell)

    def __delitem__(self, key: str) -> None:
        del self._cells[key]

    def __len__(self) -> int:
        return len(self._cells)

    def __iter__(self):
        return iter(self._cells)

    def __contains__(self, key: str) -> bool:
        return key in self._cells

    def clear(self) -> None:
        self._cells.clear()

    def pop(self, key: str) -> Cell:
        return self._cells.pop(key)

    def keys(self):
        return self._cells.keys()

    def values(self):
        return self._cells.values()

    def items(self):
        return self._cells.items()

    def update(self, cells) -> None:
        items = cells.items() if isinstance(cells, (dict, OrderedDict, CellDict)) else cells
        for key, cell in items:
            self[key] = cell

    def construct(self, *inputs):
        raise NotImplementedError("CellDict is a container; call its Cells")


class TimeDistributed(Cell):
    """Apply `layer` to every step of `time_axis` by folding time into the batch axis."""

    def __init__(self, layer, time_axis: int, reshape_with_axis: int | None = None) -> None:
        super().__init__()
        if not isinstance(layer, Cell) and not callable(layer):
            raise TypeError(f"TimeDistributed: layer must be a Cell or a callable, got {type(layer).__name__}")
        self.layer, self.time_axis, self.reshape_with_axis = layer, time_axis, reshape_with_axis

    def construct(self, x: Tensor) -> Tensor:
        t_axis = self.time_axis % x.ndim
        moved = F.swapaxes(x, 0, t_axis) if t_axis else x
        steps = moved.shape[0]
        folded = F.reshape(moved, (-1,) + tuple(moved.shape[2:]))
        y = self.layer(folded)
        y = F.reshape(y, (steps, -1) + tuple(y.shape[1:]))
        return F.swapaxes(y, 0, t_axis) if t_axis else y


class L1Regularizer(Cell):
    """`scale * sum(|weights|)`."""

    def __init__(self, scale: float) -> None:
        super().__init__()
        if not isinstance(scale, (int, float)) or isinstance(scale, bool) or scale <= 0 or math.isinf(scale):
            raise ValueError(f"L1Regularizer: scale must be a positive finite number, got {scale!r}")
        self.scale = float(scale)

    def construct(self, weights: Tensor) -> Tensor:
        return F.sum(F.abs(weights)) * self.scale


class ImageGradients(Cell):
    """(dy, dx) of (N, C, H, W) images: forward differences, zero in the last row / column."""

    def construct(self, images: Tensor):
        check_input(images.ndim == 4, "ImageGradients", images, "expected (N, C, H, W)")
        dy = F.pad(images[:, :, 1:, :] - images[:, :, :-1, :], (0, 0, 0, 1))
        dx = F.pad(images[:, :, :, 1:] - images[:, :, :, :-1], (0, 1, 0, 0))
        return dy, dx


class PSNR(Cell):
    """Peak signal-to-noise ratio per image of (N, C, H, W) batches, `10 log10(max_val^2 / mse)`."""

    def __init__(self, max_val: float = 1.0) -> None:
        super().__init__()
        if max_val <= 0:
            raise ValueError(f"PSNR: max_val must be > 0, got {max_val}")
        self.max_val = float(max_val)

    def construct(self, img1: Tensor, img2: Tensor) -> Tensor:
        mse = F.mean(F.square(F.cast(img1, mstype.float32) - F.cast(img2, mstype.float32)), (1, 2, 3))
        return 10.0 * F.log(self.max_val ** 2 / mse) / math.log(10.0)
