"""`nn.Unfold`: image patches as channels (MindSpore's `nn.Unfold`, TensorFlow's `extract_image_patches`).

Not torch's `unfold` (that is `mint.nn.Unfold` / `ops.unfold`): the result keeps the spatial layout,
(N, kh * kw * C, out_h, out_w), each output position holding its window ordered (row, column, channel).
"""
from __future__ import annotations

from ...ops.operations import ExtractImagePatches
from ...tensor import Tensor
from ..cell import Cell
from ._utils import check_input


class Unfold(Cell):
    """`Unfold(ksizes=[1, kh, kw, 1], strides=[1, sh, sw, 1], rates=[1, dh, dw, 1], padding='valid'|'same')`."""

    def __init__(self, ksizes, strides, rates, padding: str = "valid") -> None:
        super().__init__()
        self.op = ExtractImagePatches(ksizes, strides, rates, padding)
        self.ksizes, self.strides, self.rates, self.padding = ksizes, strides, rates, padding

    def construct(self, x: Tensor) -> Tensor:
        check_input(x.ndim == 4, "Unfold", x, "expected a 4-D (N, C, H, W) input")
        return self.op(x)
