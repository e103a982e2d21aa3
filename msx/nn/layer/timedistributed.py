"""`TimeDistributed` (MindSpore's `nn.layer.timedistributed`): a layer applied to every time step."""
from __future__ import annotations

from ...ops import functional as F
from ...tensor import Tensor
from ..cell import Cell


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
