"""`ChannelShuffle` (MindSpore's `nn.layer.channel_shuffle`)."""
from __future__ import annotations

from ...ops import functional as F
from ...tensor import Tensor
from ..cell import Cell
from ._utils import check_input


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
