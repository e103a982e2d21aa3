"""`mint.nn` patch and resize layers with torch's arguments: `Unfold`/`Fold` (sliding blocks to columns and
back), `UpsamplingNearest2d`, `UpsamplingBilinear2d` (align_corners=True, as torch), `MaxUnpool2d`.

Unfold is a grouped convolution with a one-hot kernel (each output channel copies one (channel, kh, kw)
tap, so the column order is torch's: channel-major, then kernel row, then column); Fold is the matching
transposed convolution, which sums overlapping taps — the adjoint of Unfold, as torch defines it.
"""
from __future__ import annotations

import numpy as np

from ...nn.cell import Cell
from ...nn.layer._utils import check_input
from ...ops import functional as F
from ...ops import functional_layers as X
from ...ops import nn_layer_ops as L
from ...ops.primitive import apply
from ...ops.unpool_ops import max_unpool
from ...tensor import Tensor
from .conv_norm import _ints


def _taps(channels: int, kernel: tuple[int, int], dtype) -> Tensor:
    """(C * kh * kw, 1, kh, kw) one-hot kernels: output channel c*kh*kw + t copies tap t of channel c."""
    k = kernel[0] * kernel[1]
    eye = np.tile(np.eye(k, dtype=np.float32).reshape(k, 1, *kernel), (channels, 1, 1, 1))
    return F.cast(Tensor(eye), dtype)


class _Blocks(Cell):
    def _setup(self, kernel_size, dilation, padding, stride) -> None:
        name = type(self).__name__
        self.kernel_size = _ints(name, "kernel_size", kernel_size, 2, 1)
        self.dilation, self.stride = _ints(name, "dilation", dilation, 2, 1), _ints(name, "stride", stride, 2, 1)
        self.padding = _ints(name, "padding", padding, 2, 0)

    def extend_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding}, "
                f"stride={self.stride}")


class Unfold(_Blocks):
    """(N, C, H, W) -> (N, C * kh * kw, L): every sliding block as a column (torch's im2col)."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1) -> None:
        super().__init__()
        self._setup(kernel_size, dilation, padding, stride)

    def construct(self, input: Tensor) -> Tensor:
        return _unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)


class Fold(_Blocks):
    """(N, C * kh * kw, L) -> (N, C, *output_size): the columns summed back into place (torch's col2im)."""

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1) -> None:
        super().__init__()
        self._setup(kernel_size, dilation, padding, stride)
        self.output_size = _ints("Fold", "output_size", output_size, 2, 1)
        self._blocks = _fold_blocks(self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)

    def construct(self, input: Tensor) -> Tensor:
        return _fold(input, self.output_size, self._blocks, self.kernel_size, self.dilation, self.padding,
                     self.stride)


def _unfold(input: Tensor, kernel, dilation, padding, stride) -> Tensor:
    check_input(input.ndim in (3, 4), "Unfold", input, "expected a 3-D (C, H, W) or 4-D (N, C, H, W) input")
    x = F.expand_dims(input, 0) if input.ndim == 3 else input
    c = x.shape[1]
    y = apply(X.conv_nd, (x, _taps(c, kernel, x.dtype)),
              {"stride": stride, "padding": tuple((p, p) for p in padding), "dilation": dilation, "groups": c})
    y = F.reshape(y, (y.shape[0], y.shape[1], -1))
    return F.squeeze(y, 0) if input.ndim == 3 else y


def _fold_blocks(output_size, kernel, dilation, padding, stride) -> list[int]:
    blocks = []
    for o, k, d, p, s in zip(output_size, kernel, dilation, padding, stride):
        n = (o + 2 * p - d * (k - 1) - 1) // s + 1
        if n < 1:
            raise ValueError(f"Fold: output_size {output_size} is smaller than one block of kernel_size "
                             f"{kernel} with dilation {dilation} and padding {padding}")
        blocks.append(n)
    return blocks


def _fold(input: Tensor, output_size, blocks, kernel, dilation, padding, stride) -> Tensor:
    k = kernel[0] * kernel[1]
    x = F.expand_dims(input, 0) if input.ndim == 2 else input
    bh, bw = blocks
    check_input(x.ndim == 3 and x.shape[1] % k == 0 and x.shape[2] == bh * bw, "Fold", input,
                f"expected (N, C * {k}, {bh * bw}) for output_size {output_size}")
    c = x.shape[1] // k
    cols = F.reshape(x, (x.shape[0], x.shape[1], bh, bw))
    extra = tuple(o - ((n - 1) * s - 2 * p + d * (kk - 1) + 1)
                  for o, n, kk, d, p, s in zip(output_size, blocks, kernel, dilation, padding, stride))
    y = apply(L.conv2d_transpose, (cols, _taps(c, kernel, x.dtype)),
              {"stride": stride, "crop": tuple((p, p) for p in padding), "dilation": dilation, "groups": c,
               "output_padding": extra})
    return F.squeeze(y, 0) if input.ndim == 2 else y


def unfold(input: Tensor, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """`mint.nn.functional.unfold`: (N, C, H, W) -> (N, C * kh * kw, L), every sliding block a column."""
    return _unfold(input, _ints("unfold", "kernel_size", kernel_size, 2, 1), _ints("unfold", "dilation", dilation, 2, 1),
                   _ints("unfold", "padding", padding, 2, 0), _ints("unfold", "stride", stride, 2, 1))


def fold(input: Tensor, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """`mint.nn.functional.fold`: (N, C * kh * kw, L) -> (N, C, *output_size), overlapping taps summed."""
    args = (_ints("fold", "output_size", output_size, 2, 1), _ints("fold", "kernel_size", kernel_size, 2, 1),
            _ints("fold", "dilation", dilation, 2, 1), _ints("fold", "padding", padding, 2, 0),
            _ints("fold", "stride", stride, 2, 1))
    return _fold(input, args[0], _fold_blocks(*args), *args[1:])


class UpsamplingNearest2d(Cell):
    """Nearest-neighbour 2-d upsampling to `size` or by `scale_factor` (torch's legacy layer)."""

    def __init__(self, size=None, scale_factor=None) -> None:
        super().__init__()
        if (size is None) == (scale_factor is None):
            raise ValueError(f"{type(self).__name__}: give exactly one of size and scale_factor")
        self.size, self.scale_factor = size, scale_factor

    def _scales(self):
        s = self.scale_factor
        return None if s is None else ((float(s),) * 2 if isinstance(s, (int, float)) else tuple(map(float, s)))

    def construct(self, input: Tensor) -> Tensor:
        check_input(input.ndim == 4, type(self).__name__, input, "expected a 4-D (N, C, H, W) input")
        return L.interpolate(input, self.size, self._scales(), "nearest")

    def extend_repr(self) -> str:
        return f"size={self.size}, scale_factor={self.scale_factor}"


class UpsamplingBilinear2d(UpsamplingNearest2d):
    """Bilinear 2-d upsampling with align_corners=True (torch's legacy layer)."""

    def construct(self, input: Tensor) -> Tensor:
        check_input(input.ndim == 4, type(self).__name__, input, "expected a 4-D (N, C, H, W) input")
        return L.interpolate(input, self.size, self._scales(), "bilinear", align_corners=True)


class MaxUnpool2d(Cell):
    """The inverse of MaxPool2d(return_indices=True): each value is put at its flat index in its (N, C)
    plane of size (H - 1) * stride - 2 * padding + kernel_size (or `output_size`); the rest are zeros."""

    def __init__(self, kernel_size, stride=None, padding=0) -> None:
        super().__init__()
        self.kernel_size = _ints("MaxUnpool2d", "kernel_size", kernel_size, 2, 1)
        self.stride = self.kernel_size if stride is None else _ints("MaxUnpool2d", "stride", stride, 2, 1)
        self.padding = _ints("MaxUnpool2d", "padding", padding, 2, 0)

    def construct(self, input: Tensor, indices: Tensor, output_size=None) -> Tensor:
        return max_unpool("MaxUnpool2d", input, indices, 2, self.kernel_size, self.stride, self.padding, output_size)

    def extend_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


__all__ = ["Unfold", "Fold", "UpsamplingNearest2d", "UpsamplingBilinear2d", "MaxUnpool2d"]
